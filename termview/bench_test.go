package termview

import (
	"image"
	"sync"
	"testing"

	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/texture/defaulttex"
)

// cubeFrames are real pictures of the cube: 800×600 frames 0–7 from the
// independent reference renderer, as XRGB8888.
var cubeFrames = sync.OnceValues(func() ([][]byte, error) {
	var frames [][]byte
	for k := 0; k < 8; k++ {
		o, err := refrender.Render(refrender.Options{Width: 800, Height: 600, Frame: k, Texture: defaulttex.Image()})
		if err != nil {
			return nil, err
		}
		frames = append(frames, rgbaToXRGB(o.Image))
	}
	return frames, nil
})

// rgbaToXRGB converts by hand: bytes B, G, R, X.
func rgbaToXRGB(img *image.RGBA) []byte {
	b := img.Bounds()
	out := make([]byte, 4*b.Dx()*b.Dy())
	for i := 0; i < b.Dx()*b.Dy(); i++ {
		s := img.Pix[4*i:]
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = s[2], s[1], s[0], 0
	}
	return out
}

// countWriter counts bytes and keeps nothing.
type countWriter struct {
	mu sync.Mutex
	n  int
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.n += len(p)
	c.mu.Unlock()
	return len(p), nil
}

// Once the sizes are known, a frame — copied by Show, scaled, encoded and
// written by the writer goroutine — allocates nothing.
func TestNoAllocationsPerFrame(t *testing.T) {
	frames, err := cubeFrames()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []ColourMode{Truecolour, Colour256} {
		v, err := New(&countWriter{}, Options{Size: Size{Cols: 200, Rows: 60}, Colour: mode, Caption: "q quit"})
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		step := func() {
			if err := v.ShowXRGB(frames[k%len(frames)], 800, 600, 3200); err != nil {
				t.Fatal(err)
			}
			if err := v.Flush(); err != nil {
				t.Fatal(err)
			}
			k++
		}
		for range len(frames) { // the encoder's buffer grows to its size
			step()
		}
		v.Redraw() // and to a full frame's
		v.Flush()
		if a := testing.AllocsPerRun(20, step); a != 0 {
			t.Errorf("%v: %v allocations per frame", mode, a)
		}
		v.Close()
	}
}

// BenchmarkShow measures one frame of the spinning cube, 800×600, into a
// 200×60 terminal: Show, then the writer's scale, encode and write
// (Flush waits for it). bytes/frame is what the terminal receives per
// frame (only the cells that changed); full-bytes/frame is a frame drawn
// in full; naive-bytes/frame is what the same picture would cost with
// both colours sent for every cell, for comparison.
func BenchmarkShow(b *testing.B) {
	for _, mode := range []ColourMode{Truecolour, Colour256} {
		b.Run(mode.String(), func(b *testing.B) {
			frames, err := cubeFrames()
			if err != nil {
				b.Fatal(err)
			}
			cw := &countWriter{}
			v, err := New(cw, Options{Size: Size{Cols: 200, Rows: 60}, Colour: mode})
			if err != nil {
				b.Fatal(err)
			}
			defer v.Close()
			// Each frame once in full, which also grows every buffer.
			full := 0
			for _, f := range frames {
				v.ShowXRGB(f, 800, 600, 3200)
				v.Redraw()
				v.Flush()
				full += v.Stats().LastBytes
			}
			cw.mu.Lock()
			cw.n = 0
			cw.mu.Unlock()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v.ShowXRGB(frames[(i+1)%len(frames)], 800, 600, 3200)
				v.Flush()
			}
			b.StopTimer()
			b.ReportMetric(float64(cw.n)/float64(b.N), "bytes/frame")
			b.ReportMetric(float64(full)/float64(len(frames)), "full-bytes/frame")
			b.ReportMetric(float64(naiveBytes(v)), "naive-bytes/frame")
		})
	}
}

// BenchmarkScale is the box filter alone: 800×600 onto 160×120.
func BenchmarkScale(b *testing.B) {
	frames, err := cubeFrames()
	if err != nil {
		b.Fatal(err)
	}
	sc := newScaler(800, 600, 160, 120)
	dst := make([]uint32, 160*120)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc.scale(dst, frames[i%len(frames)], 3200, xrgbChans)
	}
}

// BenchmarkShowCopy is what the render loop pays: Show's copy of the
// frame, with the writer kept busy so that frames are dropped.
func BenchmarkShowCopy(b *testing.B) {
	frames, err := cubeFrames()
	if err != nil {
		b.Fatal(err)
	}
	v, err := New(&countWriter{}, Options{Size: Size{Cols: 200, Rows: 60}, Colour: Truecolour})
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	// Warm up as measured: all three frame slots get their memory.
	for i := 0; i < 64; i++ {
		v.ShowXRGB(frames[i%len(frames)], 800, 600, 3200)
	}
	v.Flush()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.ShowXRGB(frames[i%len(frames)], 800, 600, 3200)
	}
}

// naiveBytes is the size of the last frame the view drew, written as a
// cursor move per row and both colours and a half block per cell.
func naiveBytes(v *View) int {
	v.Flush()
	var e encoder
	e.mode = v.enc.mode
	n := 0
	l := &v.lay
	for cr := 0; cr < l.cellRows; cr++ {
		n += len(e.moveTo(nil, l.row0+cr, l.col0))
		for x := 0; x < l.imgW; x++ {
			e.fg, e.bg = unknown, unknown
			n += len(e.setColours(nil, v.prev[2*cr*l.imgW+x], v.prev[(2*cr+1)*l.imgW+x])) + len(upperHalf)
		}
	}
	return n
}
