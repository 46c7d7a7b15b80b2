package cubetest

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
)

// stack is a simulated device with the GPU model and the program's
// renderer on it.
type stack struct {
	gpu *gpu.GPU
	dev *sim.Device
	r   *cuberender.Renderer
}

func newStack(tb testing.TB, w, h int) *stack { return newStackOpts(tb, w, h, gpu.Options{}) }

func newStackOpts(tb testing.TB, w, h int, o gpu.Options) *stack {
	tb.Helper()
	g := gpu.New(o)
	tb.Cleanup(g.Close)
	dev, err := sim.New(sim.Options{GPU: g})
	if err != nil {
		tb.Fatal(err)
	}
	f, err := dev.Open()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	r, err := cuberender.New(f, cuberender.Options{Width: w, Height: h, Buffers: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return &stack{gpu: g, dev: dev, r: r}
}

// frame renders frame k (the cube turned by 4k degrees, as the goldens
// number them) and waits for it.
func (s *stack) frame(tb testing.TB, k int) {
	seq, err := s.r.Render(0, float32(4*k))
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.r.Wait(seq); err != nil {
		tb.Fatal(err)
	}
}

func golden(tb testing.TB, path string) image.Image {
	return imgcmp.MustReadPNG(tb, filepath.Join("..", "..", "..", "..", path))
}

// The program's frames, rendered by this GPU model, match the golden
// images within imgcmp.Default (≥ 99.5 % of pixels within 8 levels, PSNR
// ≥ 30 dB; the tolerance's calibration is in internal/imgcmp).
func TestCubeFramesMatchGoldens(t *testing.T) {
	for _, gd := range refrender.Goldens {
		if gd.Texture != refrender.DefaultTexture {
			continue // the file texture is the program's business
		}
		t.Run(fmt.Sprintf("%dx%d_frame%03d", gd.Width, gd.Height, gd.Frame), func(t *testing.T) {
			s := newStack(t, gd.Width, gd.Height)
			s.frame(t, gd.Frame)
			got, err := s.r.Capture(0)
			if err != nil {
				t.Fatal(err)
			}
			want := golden(t, gd.Path())
			res, err := imgcmp.Default.Check(got, want)
			// VCCUBE_SAVE_FRAMES=dir keeps the rendered frames for a look.
			if dir := os.Getenv("VCCUBE_SAVE_FRAMES"); dir != "" {
				if out, cerr := os.Create(filepath.Join(dir, filepath.Base(gd.Path()))); cerr == nil {
					png.Encode(out, got)
					out.Close()
				}
			}
			if err != nil {
				t.Fatalf("%v (%+v)", err, res)
			}
			t.Logf("%+v", res)
		})
	}
}

// The GPU model's fast paths (compiled QPU programs, the TMU's and the
// depth tests' block paths) draw the program's frames to the bit as its
// general code does (gpu.Options.Reference), at two sizes and three turns.
func TestFastPathsDrawTheReferenceFrames(t *testing.T) {
	for _, size := range [][2]int{{640, 480}, {800, 600}} {
		fast := newStackOpts(t, size[0], size[1], gpu.Options{})
		ref := newStackOpts(t, size[0], size[1], gpu.Options{Reference: true})
		for _, k := range []int{0, 12, 45} {
			fast.frame(t, k)
			ref.frame(t, k)
			a, err := fast.r.Capture(0)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ref.r.Capture(0)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Pix, b.Pix) {
				t.Errorf("%dx%d frame %d: the fast paths' picture differs from the general code's", size[0], size[1], k)
			}
		}
	}
}
