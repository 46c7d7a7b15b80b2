package record

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const grey = 0x333333 // vkcube's clear colour, 51 in each channel

// xrgb builds an XRGB8888 frame by hand: bytes B, G, R, X per pixel (X
// set to 0x99, which must not be read), pad bytes after each row.
func xrgb(w, h, pad int, px []uint32) (buf []byte, pitch int) {
	pitch = 4*w + pad
	buf = make([]byte, pitch*h)
	for i := range buf {
		buf[i] = 0xee
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := px[y*w+x]
			p := buf[y*pitch+4*x:]
			p[0], p[1], p[2], p[3] = byte(c), byte(c>>8), byte(c>>16), 0x99
		}
	}
	return buf, pitch
}

// movingSquare is frame k of a synthetic animation: the grey background
// with a 16×16 square of a colour gradient moving 3 pixels right per
// frame.
func movingSquare(w, h, k int) []uint32 {
	px := make([]uint32, w*h)
	for i := range px {
		px[i] = grey
	}
	for y := 8; y < 24 && y < h; y++ {
		for x := 0; x < 16; x++ {
			X := x + 3*k
			if X >= w {
				continue
			}
			px[y*w+X] = uint32(16*x)<<16 | uint32(16*(y-8))<<8 | uint32(200-8*x)
		}
	}
	return px
}

// composite plays a decoded GIF onto a canvas as a viewer does (every
// frame here has disposal "none"), returning the canvas after each frame
// as 0xRRGGBB words.
func composite(t *testing.T, g *gif.GIF) [][]uint32 {
	t.Helper()
	w, h := g.Config.Width, g.Config.Height
	canvas := make([]uint32, w*h)
	var out [][]uint32
	for i, fr := range g.Image {
		if g.Disposal[i] != gif.DisposalNone {
			t.Fatalf("frame %d: disposal %d, want %d (do not dispose)", i, g.Disposal[i], gif.DisposalNone)
		}
		b := fr.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := fr.Palette[fr.ColorIndexAt(x, y)].(color.RGBA)
				if c.A == 0 {
					continue // transparent: the canvas shows through
				}
				canvas[y*w+x] = uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)
			}
		}
		out = append(out, slices.Clone(canvas))
	}
	return out
}

func chanDiff(a, b uint32) int {
	d := 0
	for s := 0; s <= 16; s += 8 {
		x, y := int(a>>s&0xff), int(b>>s&0xff)
		if x > y {
			d = max(d, x-y)
		} else {
			d = max(d, y-x)
		}
	}
	return d
}

// The proof: an animation of synthetic frames decodes with the standard
// library with the frame count, size, delays and loop count asked for,
// and the background exact in every frame.
func TestAnimationDecodes(t *testing.T) {
	const w, h, n = 64, 48, 12
	path := filepath.Join(t.TempDir(), "out.gif")
	g, err := Create(path, Options{FPS: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Discard()
	var src [][]uint32
	for k := 0; k < n; k++ {
		px := movingSquare(w, h, k)
		src = append(src, px)
		buf, pitch := xrgb(w, h, 16, px)
		if err := g.AddXRGB(buf, w, h, pitch); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the file exists before Close")
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(dec.Image) != n {
		t.Fatalf("%d frames, want %d", len(dec.Image), n)
	}
	if dec.Config.Width != w || dec.Config.Height != h {
		t.Errorf("size %d×%d, want %d×%d", dec.Config.Width, dec.Config.Height, w, h)
	}
	if dec.LoopCount != 0 {
		t.Errorf("loop count %d, want 0 (forever)", dec.LoopCount)
	}
	// 60 fps: every frame 2/100 s (1.67 rounded up to the 2 browsers
	// honour).
	if want := slices.Repeat([]int{2}, n); !slices.Equal(dec.Delay, want) {
		t.Errorf("delays %v, want %v", dec.Delay, want)
	}
	if b := dec.Image[0].Bounds(); b != image.Rect(0, 0, w, h) {
		t.Errorf("frame 0 covers %v, want the whole canvas", b)
	}
	for k, canvas := range composite(t, dec) {
		worst := 0
		for i, c := range canvas {
			if src[k][i] == grey && c != grey {
				t.Fatalf("frame %d pixel %d: background %06x, want exactly %06x", k, i, c, grey)
			}
			worst = max(worst, chanDiff(c, src[k][i]))
		}
		// The 16×16 gradient has 256 colours besides the grey: the median
		// cut keeps them within a few levels.
		if worst > 8 {
			t.Errorf("frame %d: a pixel is %d levels off", k, worst)
		}
	}
	// Later frames hold only the rectangle that changed: the square's
	// old and new places, rows 8–23.
	if b := dec.Image[1].Bounds(); b != image.Rect(0, 8, 19, 24) {
		t.Errorf("frame 1 covers %v, want (0,8)-(19,24)", b)
	}
}

// Delays worked out by hand: frame k starts at round(100·k/fps)
// hundredths, halves up; no delay below 2.
func TestDelays(t *testing.T) {
	for _, tc := range []struct {
		fps  float64
		want []int
	}{
		{60, []int{2, 2, 2, 2, 2, 2}},
		{50, []int{2, 2, 2, 2, 2, 2}},
		{100, []int{2, 2, 2, 2, 2, 2}},
		// 0, 3.33→3, 6.67→7, 10, 13.3→13, 16.7→17, 20
		{30, []int{3, 4, 3, 3, 4, 3}},
		// 0, 2.5→3, 5, 7.5→8, 10, 12.5→13, 15
		{40, []int{3, 2, 3, 2, 3, 2}},
		// 0, 4.17→4, 8.33→8, 12.5→13, 16.67→17, 20.83→21, 25
		{24, []int{4, 4, 5, 4, 4, 4}},
		{25, []int{4, 4, 4, 4, 4, 4}},
		{10, []int{10, 10, 10, 10, 10, 10}},
		{0.5, []int{200, 200, 200, 200, 200, 200}},
		// 59.94 Hz (NTSC-style modes): 1.668 → 2 as well.
		{59.94, []int{2, 2, 2, 2, 2, 2}},
	} {
		d, err := newDelays(tc.fps)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for range tc.want {
			got = append(got, d.next())
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v fps: %v, want %v", tc.fps, got, tc.want)
		}
	}
	for _, fps := range []float64{-1, 0.001} {
		if _, err := newDelays(fps); err == nil {
			t.Errorf("%v fps accepted", fps)
		}
	}
}

// The delays of a 30 fps file as decoded.
func TestDecodedDelays30(t *testing.T) {
	var buf bytes.Buffer
	g, err := NewGIF(&buf, Options{FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 6; k++ {
		px, pitch := xrgb(8, 8, 0, movingSquare(8, 8, k))
		if err := g.AddXRGB(px, 8, 8, pitch); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	dec, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{3, 4, 3, 3, 4, 3}; !slices.Equal(dec.Delay, want) {
		t.Errorf("delays %v, want %v", dec.Delay, want)
	}
}

// The first bytes of a file, written out by hand from GIF89a §17, §18 and
// the Netscape looping extension, and a tiny frame's blocks (GIF89a §23,
// §20, §21, §22).
func TestStreamLayout(t *testing.T) {
	var buf bytes.Buffer
	g, err := NewGIF(&buf, Options{FPS: 10})
	if err != nil {
		t.Fatal(err)
	}
	// 2×1: red, blue.
	if err := g.AddImage(&image.NRGBA{Pix: []byte{255, 0, 0, 255, 0, 0, 255, 255}, Stride: 8, Rect: image.Rect(0, 0, 2, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	want := []byte{
		'G', 'I', 'F', '8', '9', 'a',
		2, 0, 1, 0, // 2×1
		0x70, 0, 0, // no global table, 8-bit colour resolution; background 0; aspect 0
		0x21, 0xff, 11, 'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0',
		3, 1, 0, 0, 0, // loop forever
		0x21, 0xf9, 4, 1 << 2, 10, 0, 0, 0, // do not dispose, no transparency, 10/100 s
		0x2c, 0, 0, 0, 0, 2, 0, 1, 0, 0x80, // at (0,0), 2×1, local table of 2^(0+1)
		255, 0, 0, 0, 0, 255, // red, blue: the two bins each get their own entry, in the order seen
		2, // LZW minimum code size
	}
	got := buf.Bytes()
	if !bytes.HasPrefix(got, want) {
		t.Fatalf("file starts\n% x\nwant\n% x", got[:min(len(got), len(want))], want)
	}
	if got[len(got)-1] != 0x3b {
		t.Errorf("last byte %#x, want the trailer 0x3b", got[len(got)-1])
	}
	dec, err := gif.DecodeAll(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if idx := dec.Image[0].Pix; !slices.Equal(idx, []byte{0, 1}) {
		t.Errorf("indices %v, want [0 1]", idx)
	}
}

// Frames are written as they are added: after each Add, the stream holds
// that frame, and closing it there gives a valid animation of the frames
// so far.
func TestStreams(t *testing.T) {
	var buf bytes.Buffer
	g, err := NewGIF(&buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		before := buf.Len()
		px, pitch := xrgb(32, 32, 0, movingSquare(32, 32, k))
		if err := g.AddXRGB(px, 32, 32, pitch); err != nil {
			t.Fatal(err)
		}
		if buf.Len() == before {
			t.Fatalf("frame %d: nothing written", k)
		}
		partial := append(slices.Clone(buf.Bytes()), 0x3b)
		dec, err := gif.DecodeAll(bytes.NewReader(partial))
		if err != nil {
			t.Fatalf("after frame %d: %v", k, err)
		}
		if len(dec.Image) != k+1 {
			t.Fatalf("after frame %d: %d frames in the stream", k, len(dec.Image))
		}
	}
	g.Close()
}

// Two equal frames: the second is one transparent pixel, and the picture
// stays.
func TestUnchangedFrame(t *testing.T) {
	var buf bytes.Buffer
	g, _ := NewGIF(&buf, Options{})
	px, pitch := xrgb(16, 16, 0, movingSquare(16, 16, 0))
	for k := 0; k < 3; k++ {
		if err := g.AddXRGB(px, 16, 16, pitch); err != nil {
			t.Fatal(err)
		}
	}
	g.Close()
	dec, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(dec.Image) != 3 {
		t.Fatalf("%d frames", len(dec.Image))
	}
	for k := 1; k < 3; k++ {
		fr := dec.Image[k]
		if fr.Bounds() != image.Rect(0, 0, 1, 1) {
			t.Errorf("frame %d covers %v, want one pixel", k, fr.Bounds())
		}
		if _, _, _, a := fr.Palette[fr.Pix[0]].RGBA(); a != 0 {
			t.Errorf("frame %d's pixel is not transparent", k)
		}
	}
	c := composite(t, dec)
	if !slices.Equal(c[0], c[2]) {
		t.Error("the picture changed")
	}
}

// Scale 2: a 9×5 frame gives a 5×3 animation (blocks cut at the edges),
// each pixel its block's mean.
func TestScale(t *testing.T) {
	const w, h = 9, 5
	px := make([]uint32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			px[y*w+x] = uint32(10*x)<<16 | uint32(10*y)<<8 | grey&0xff
		}
	}
	var buf bytes.Buffer
	g, _ := NewGIF(&buf, Options{Scale: 2})
	b, pitch := xrgb(w, h, 4, px)
	if err := g.AddXRGB(b, w, h, pitch); err != nil {
		t.Fatal(err)
	}
	if gw, gh := g.Size(); gw != 5 || gh != 3 {
		t.Errorf("Size() = %d×%d, want 5×3", gw, gh)
	}
	g.Close()
	dec, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Config.Width != 5 || dec.Config.Height != 3 {
		t.Fatalf("%d×%d, want 5×3", dec.Config.Width, dec.Config.Height)
	}
	got := composite(t, dec)[0]
	// Column x averages source columns 2x, 2x+1 (red 20x+5), the last
	// only column 8 (red 80); row y likewise (green 20y+5; the last row
	// only source row 4: green 40). Blue is 51 throughout. 15 pixels, 15
	// colours: every one exact.
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			r, gr := 20*x+5, 20*y+5
			if x == 4 {
				r = 80
			}
			if y == 2 {
				gr = 40
			}
			want := uint32(r)<<16 | uint32(gr)<<8 | 51
			if got[y*5+x] != want {
				t.Errorf("pixel %d,%d = %06x, want %06x", x, y, got[y*5+x], want)
			}
		}
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(filepath.Join(dir, "no such dir", "out.gif"), Options{}); err == nil || !strings.Contains(err.Error(), "choose a directory") {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := Create(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Create(filepath.Join(dir, "a.gif"), Options{Scale: -1}); err == nil {
		t.Error("scale -1 accepted")
	}
	if _, err := Create(filepath.Join(dir, "a.gif"), Options{FPS: -5}); err == nil {
		t.Error("-5 fps accepted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

// Close without frames, Discard and a failed frame leave no file.
func TestNothingLeftBehind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.gif")

	g, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err == nil {
		t.Error("Close without frames succeeded")
	}

	g, _ = Create(path, Options{})
	px, pitch := xrgb(4, 4, 0, make([]uint32, 16))
	g.AddXRGB(px, 4, 4, pitch)
	if err := g.AddXRGB(px, 4, 3, pitch); err == nil || !strings.Contains(err.Error(), "4×4") {
		t.Errorf("a frame of another size: %v", err)
	}
	if err := g.AddXRGB(px[:20], 4, 4, pitch); err == nil {
		t.Error("a short frame accepted")
	}
	g.Discard()
	if err := g.AddXRGB(px, 4, 4, pitch); err == nil {
		t.Error("a frame after Discard accepted")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}

	// A successful Close, then Discard (deferred) does nothing.
	g, _ = Create(path, Options{})
	g.AddXRGB(px, 4, 4, pitch)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	g.Discard()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the animation is gone: %v", err)
	}
}
