package record

import (
	"bytes"
	"image"
	"image/gif"
	"sync"
	"testing"

	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/texture/defaulttex"
)

// cubeFrames renders n frames of the cube with the independent reference
// renderer, as XRGB8888 (converted by hand: B, G, R, X), with the
// built-in texture or the texture file tex.
func cubeFrames(w, h, n int, tex ...string) ([][]byte, []*image.RGBA, error) {
	var texture image.Image = defaulttex.Image()
	if len(tex) > 0 {
		var err error
		if texture, err = refrender.ReadTextureFile(tex[0]); err != nil {
			return nil, nil, err
		}
	}
	var xs [][]byte
	var imgs []*image.RGBA
	for k := 0; k < n; k++ {
		o, err := refrender.Render(refrender.Options{Width: w, Height: h, Frame: 3 * k, Texture: texture})
		if err != nil {
			return nil, nil, err
		}
		x := make([]byte, 4*w*h)
		for i := 0; i < w*h; i++ {
			s := o.Image.Pix[4*i:]
			x[4*i], x[4*i+1], x[4*i+2], x[4*i+3] = s[2], s[1], s[0], 0
		}
		xs = append(xs, x)
		imgs = append(imgs, o.Image)
	}
	return xs, imgs, nil
}

var bench800 = sync.OnceValues(func() ([][]byte, error) {
	xs, _, err := cubeFrames(800, 600, 8)
	return xs, err
})

// The cube as a GIF: every frame, composited as a viewer plays it, is
// close to the frame rendered and the background is exact. With the
// built-in texture a frame has fewer colours than a palette (flat-lit
// faces, nearest sampling) and the GIF is exact; with the photograph-like
// test texture the median cut has work to do, and at least 99 % of pixels
// must stay within 8 levels, at a PSNR of at least 35 dB.
func TestCubeAnimation(t *testing.T) {
	t.Run("default", func(t *testing.T) { testCubeAnimation(t, "") })
	t.Run("test.ppm", func(t *testing.T) { testCubeAnimation(t, "../testdata/textures/test.ppm") })
}

func testCubeAnimation(t *testing.T, tex string) {
	const w, h, n = 320, 240, 6
	var xs [][]byte
	var imgs []*image.RGBA
	var err error
	if tex == "" {
		xs, imgs, err = cubeFrames(w, h, n)
	} else {
		xs, imgs, err = cubeFrames(w, h, n, tex)
	}
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	g, _ := NewGIF(&buf, Options{})
	for _, x := range xs {
		if err := g.AddXRGB(x, w, h, 4*w); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	dec, err := gif.DecodeAll(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(dec.Image) != n {
		t.Fatalf("%d frames", len(dec.Image))
	}
	for k, canvas := range composite(t, dec) {
		got := image.NewRGBA(image.Rect(0, 0, w, h))
		for i, c := range canvas {
			got.Pix[4*i], got.Pix[4*i+1], got.Pix[4*i+2], got.Pix[4*i+3] = byte(c>>16), byte(c>>8), byte(c), 255
			s := imgs[k].Pix[4*i:]
			if s[0] == 51 && s[1] == 51 && s[2] == 51 && c != grey {
				t.Fatalf("frame %d pixel %d: background %06x", k, i, c)
			}
		}
		res, err := imgcmp.Compare(got, imgs[k], 8)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("frame %d: %v", k, res)
		if res.FractionWithin() < 0.99 || res.PSNR < 35 {
			t.Errorf("frame %d: %v; want ≥ 99 %% within 8 levels and PSNR ≥ 35 dB", k, res)
		}
	}
	t.Logf("%d bytes for %d frames of %d×%d", buf.Len(), n, w, h)
}

// Adding a frame allocates nothing once the animation has started.
func TestNoAllocationsPerFrame(t *testing.T) {
	frames, err := bench800()
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []int{1, 2} {
		var cw countWriter
		g, _ := NewGIF(&cw, Options{Scale: scale})
		k := 0
		add := func() {
			if err := g.AddXRGB(frames[k%len(frames)], 800, 600, 3200); err != nil {
				t.Fatal(err)
			}
			k++
		}
		add()
		if a := testing.AllocsPerRun(10, add); a != 0 {
			t.Errorf("scale %d: %v allocations per frame", scale, a)
		}
	}
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// BenchmarkAddXRGB encodes the cube's 800×600 frames, at full size and
// halved; bytes/frame is the file's growth per frame.
func BenchmarkAddXRGB(b *testing.B) {
	frames, err := bench800()
	if err != nil {
		b.Fatal(err)
	}
	for _, scale := range []int{1, 2} {
		b.Run([]string{"", "full", "half"}[scale], func(b *testing.B) {
			var cw countWriter
			g, _ := NewGIF(&cw, Options{Scale: scale})
			g.AddXRGB(frames[0], 800, 600, 3200)
			cw.n = 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g.AddXRGB(frames[(i+1)%len(frames)], 800, 600, 3200)
			}
			b.ReportMetric(float64(cw.n)/float64(b.N), "bytes/frame")
		})
	}
}
