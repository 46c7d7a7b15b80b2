package refrender

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/imgcmp"
)

// Colour values worked out by hand (and with a calculator) from the
// piecewise sRGB formulas in cube.frag and the Khronos data format spec.
func TestColour(t *testing.T) {
	if d := srgbDecode(0.5); math.Abs(d-0.214041) > 1e-6 {
		t.Errorf("srgbDecode(0.5) = %v, want 0.214041", d)
	}
	if d := srgbDecode(0.04); math.Abs(d-0.04/12.92) > 1e-12 {
		t.Errorf("srgbDecode(0.04) = %v, want the linear segment", d)
	}
	if e := srgbEncode(0.002); math.Abs(e-0.02584) > 1e-9 {
		t.Errorf("srgbEncode(0.002) = %v, want 0.02584", e)
	}
	for _, tc := range []struct {
		t     uint8
		light float64
		want  uint8
	}{
		{255, 1, 255},
		{255, 0, 0},
		{255, 0.5, 188},      // 255·(1.055·0.5^(1/2.4) − 0.055) = 187.516
		{128, 0.5, 92},       // 255·srgb(0.5·0.215861) = 92.37
		{255, 0.549276, 196}, // the +Z face at frame 0: 195.57
		{255, 0.903438, 244}, // the +Y face at frame 0: 243.85
	} {
		if got := shade(tc.t, tc.light); got != tc.want {
			t.Errorf("shade(%d, %v) = %d, want %d", tc.t, tc.light, got, tc.want)
		}
	}
	// Under full light the decode and encode cancel: every byte survives.
	for b := 0; b < 256; b++ {
		if got := shade(uint8(b), 1); got != uint8(b) {
			t.Errorf("shade(%d, 1) = %d", b, got)
		}
	}
	if unorm8(clearGrey) != 51 {
		t.Errorf("clear grey = %d, want 51", unorm8(clearGrey))
	}
}

// quadrants is a 2×2 texture: red, green on the top row, blue, white below.
func quadrants() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	img.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 255})
	img.SetNRGBA(0, 1, color.NRGBA{0, 0, 255, 255})
	img.SetNRGBA(1, 1, color.NRGBA{255, 255, 255, 255})
	return img
}

// TestPictureOnFaces renders a 2×2 texture and looks at points whose
// window positions were worked out independently, with vkcube's own
// arithmetic (linmath's column-major matrices, proj[1][1] negated, Vulkan's
// viewport), at 400×300. The quadrant each point shows follows from
// vkcube's (u, v) table: on the +Z face u = (x+1)/2, v = (1−y)/2; on the +Y
// face u = (1−z)/2, v = (x+1)/2; on the −X face u = (z+1)/2, v = (1−y)/2.
// Lights: +Z 0.549276 and +Y 0.903438 at frame 0 (math/scene's
// TestLightFrame0 derives them), −X 0.686394 at frame 10; full-intensity
// channels come out as 196, 244 and 216.
func TestPictureOnFaces(t *testing.T) {
	const R, G, B, W = 0, 1, 2, 3
	for _, tc := range []struct {
		frame    int
		x, y     float64
		quadrant int
		level    uint8
	}{
		{0, 161.61, 156.58, R, 196},  // +Z (−0.5, 0.5, 1)
		{0, 238.39, 156.58, G, 196},  // +Z (0.5, 0.5, 1)
		{0, 165.38, 215.30, B, 196},  // +Z (−0.5, −0.5, 1)
		{0, 234.62, 215.30, W, 196},  // +Z (0.5, −0.5, 1)
		{0, 162.95, 105.53, R, 244},  // +Y (−0.5, 1, 0.5)
		{0, 237.05, 105.53, B, 244},  // +Y (0.5, 1, 0.5)
		{0, 168.48, 79.74, G, 244},   // +Y (−0.5, 1, −0.5)
		{0, 231.52, 79.74, W, 244},   // +Y (0.5, 1, −0.5)
		{10, 126.41, 130.03, R, 216}, // −X (−1, 0.5, −0.5)
		{10, 165.70, 157.64, G, 216}, // −X (−1, 0.5, 0.5)
		{10, 132.86, 184.72, B, 216}, // −X (−1, −0.5, −0.5)
		{10, 169.09, 216.50, W, 216}, // −X (−1, −0.5, 0.5)
	} {
		out, err := Render(Options{Width: 400, Height: 300, Frame: tc.frame, Texture: quadrants()})
		if err != nil {
			t.Fatal(err)
		}
		want := color.RGBA{0, 0, 0, 255}
		switch tc.quadrant {
		case R:
			want.R = tc.level
		case G:
			want.G = tc.level
		case B:
			want.B = tc.level
		case W:
			want.R, want.G, want.B = tc.level, tc.level, tc.level
		}
		if got := out.Image.RGBAAt(int(tc.x), int(tc.y)); got != want {
			t.Errorf("frame %d pixel (%d,%d) = %v, want %v", tc.frame, int(tc.x), int(tc.y), got, want)
		}
	}
}

func TestBackgroundAndFaces(t *testing.T) {
	out, err := Render(Options{Width: 400, Height: 300, Frame: 0, Texture: quadrants()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []image.Point{{0, 0}, {399, 0}, {0, 299}, {399, 299}, {200, 20}, {200, 290}} {
		if c := out.Image.RGBAAt(p.X, p.Y); c != (color.RGBA{51, 51, 51, 255}) {
			t.Errorf("background pixel %v = %v, want 51 grey", p, c)
		}
	}
	// At frame 0 the camera sees the top and the front, nothing else.
	for f, st := range out.Faces {
		visible := FaceNames[f] == "+Y" || FaceNames[f] == "+Z"
		if (st.Fragments > 0) != visible {
			t.Errorf("face %s drew %d pixels", FaceNames[f], st.Fragments)
		}
	}
}

// TestTurnDirection: the +Z face's corner (1,1,1) moves right and up from
// frame 0 to frame 1 at 800×600 — positions from vkcube's arithmetic, as in
// TestPictureOnFaces.
func TestTurnDirection(t *testing.T) {
	want := [][2]float64{{562.4288, 244.2874}, {570.9897, 239.0998}}
	for k, w := range want {
		pos, err := WindowPositions(800, 600, k)
		if err != nil {
			t.Fatal(err)
		}
		// Vertex 32 of vkcube's list is (1,1,1) on the +Z face.
		if cubePositions[32] != [3]float64{1, 1, 1} {
			t.Fatal("vertex 32 is not (1,1,1)")
		}
		if math.Abs(pos[32][0]-w[0]) > 1e-3 || math.Abs(pos[32][1]-w[1]) > 1e-3 {
			t.Errorf("frame %d: (1,1,1) at %v, want %v", k, pos[32], w)
		}
	}
}

// TestFillRule draws two triangles sharing a diagonal, with every edge
// running exactly through pixel centres, and checks the top-left rule:
// the rectangle's top and left edges are in, its bottom and right edges out,
// and the shared diagonal is drawn exactly once.
func TestFillRule(t *testing.T) {
	const w, h = 8, 8
	r := rasteriser{w: w, h: h, img: image.NewRGBA(image.Rect(0, 0, w, h)), depth: make([]float64, w*h),
		tex: &texture{w: 1, h: 1, rgb: []uint8{255, 255, 255}}, out: &Output{}}
	for i := range r.depth {
		r.depth[i] = 1
	}
	at := func(x, y float64) vertex {
		return vertex{fx: x, fy: y, sx: int64(x * 256), sy: int64(y * 256), depth: 0.5, invW: 1,
			clip: vec3{x, -y, 0}} // any plane facing the light will do
	}
	// Rectangle from pixel centre (1.5, 1.5) to (5.5, 4.5); counter-clockwise
	// on the screen (front-facing in vkcube's terms).
	tl, tr, bl, br := at(1.5, 1.5), at(5.5, 1.5), at(1.5, 4.5), at(5.5, 4.5)
	r.triangle(0, tl, bl, br)
	r.triangle(1, tl, br, tr)
	var got [h][w]bool
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			got[y][x] = r.depth[y*w+x] < 1
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			want := x >= 1 && x < 5 && y >= 1 && y < 4
			if got[y][x] != want {
				t.Errorf("pixel (%d,%d) covered = %v, want %v", x, y, got[y][x], want)
			}
		}
	}
	if n := r.out.Faces[0].Fragments + r.out.Faces[1].Fragments; n != 12 {
		t.Errorf("%d fragments written, want 12 (4×3, none twice)", n)
	}
	// The same two triangles listed clockwise on the screen are back faces.
	r.triangle(2, tl, br, bl)
	if r.out.Faces[2].Fragments != 0 {
		t.Errorf("a clockwise (back) triangle drew %d pixels", r.out.Faces[2].Fragments)
	}
}

// TestPortraitUsesSquareViewport: vkcube draws into a centred square of
// side min(width, height), so a 600×800 frame is the 600×600 frame moved
// down by 100 rows.
func TestPortraitUsesSquareViewport(t *testing.T) {
	sq, err := Render(Options{Width: 600, Height: 600, Frame: 7, Texture: quadrants()})
	if err != nil {
		t.Fatal(err)
	}
	tall, err := Render(Options{Width: 600, Height: 800, Frame: 7, Texture: quadrants()})
	if err != nil {
		t.Fatal(err)
	}
	r, err := imgcmp.Compare(tall.Image.SubImage(image.Rect(0, 100, 600, 700)), sq.Image, 0)
	if err != nil || r.Over != 0 {
		t.Errorf("portrait frame's centre differs from the square frame: %v %v", r, err)
	}
}

func TestRenderErrors(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Width: 0, Height: 600, Texture: quadrants()}, "frame size 0×600 is out of range"},
		{Options{Width: 800, Height: MaxSize + 1, Texture: quadrants()}, "out of range"},
		{Options{Width: 800, Height: 600}, "no texture given"},
		{Options{Width: 800, Height: 600, Texture: image.NewNRGBA(image.Rect(0, 0, 0, 5))}, "the texture is empty"},
	} {
		if _, err := Render(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render(%+v) error = %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestDecodePPM(t *testing.T) {
	img, err := DecodePPM(strings.NewReader("P6\n# a comment\n2 1\n255\n\x01\x02\x03\xfa\xfb\xfc"))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, 2, 1) || img.NRGBAAt(0, 0) != (color.NRGBA{1, 2, 3, 255}) || img.NRGBAAt(1, 0) != (color.NRGBA{250, 251, 252, 255}) {
		t.Errorf("decoded %v %v %v", img.Bounds(), img.NRGBAAt(0, 0), img.NRGBAAt(1, 0))
	}
	// The byte after the maxval is whitespace even when the first pixel
	// value is itself a whitespace byte (10 = '\n').
	img, err = DecodePPM(strings.NewReader("P6 1 1 255\n\n\n\n"))
	if err != nil || img.NRGBAAt(0, 0) != (color.NRGBA{10, 10, 10, 255}) {
		t.Errorf("pixel of newlines: %v, %v", img, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"P3\n1 1\n255\n1 2 3\n", "must start with \"P6\""},
		{"", "must start with \"P6\""},
		{"P6\n1 1\n65535\n", "only 8-bit"},
		{"P6\n0 1\n255\n", "must be 1..4096"},
		{"P6\n5000 1\n255\n", "must be 1..4096"},
		{"P6\n2 2\n255\n\x00\x00\x00", "truncated"},
		{"P6\nx 2\n255\n", "width: expected a decimal number"},
		{"P6\n2", "width: the header ends early"},
		{"P6\n2 ", "height: the header ends early"},
		{"P6\n2x", "width: the number is followed by 'x'"},
		{"P6\n99999999999 1\n255\n", "too large"},
	} {
		if _, err := DecodePPM(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodePPM(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tex")
	os.WriteFile(bad, []byte("GIF89a"), 0o644)
	if _, err := ReadTextureFile(bad); err == nil || !strings.Contains(err.Error(), "neither a PNG nor a binary PPM") {
		t.Errorf("ReadTextureFile(GIF) error = %v", err)
	}
	if _, err := ReadTextureFile(filepath.Join(dir, "missing.png")); err == nil {
		t.Errorf("ReadTextureFile(missing) succeeded")
	}
}

func FuzzDecodePPM(f *testing.F) {
	f.Add([]byte("P6\n2 1\n255\n\x01\x02\x03\xfa\xfb\xfc"))
	f.Add([]byte("P6 # c\n1 1 255 abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := DecodePPM(bytes.NewReader(data))
		if err == nil && (img.Bounds().Dx() < 1 || img.Bounds().Dy() < 1) {
			t.Errorf("empty image without an error")
		}
	})
}

// TestGoldensUpToDate renders every golden image again and compares it
// with the committed file, so the goldens cannot drift from the renderer
// that is said to have made them. On amd64 (where the goldens were made)
// the match must be exact; elsewhere the compiler may fuse multiply-adds
// and move a pixel or two, so imgcmp.Default applies.
func TestGoldensUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("renders seven full frames")
	}
	for _, g := range Goldens {
		out, err := g.Render("../..")
		if err != nil {
			t.Fatal(err)
		}
		want, err := imgcmp.ReadPNG(filepath.Join("../..", g.Path()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := imgcmp.Compare(out.Image, want, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Over != 0 {
			t.Logf("%s on %s: %v", g.Name(), runtime.GOARCH, res)
		}
		if runtime.GOARCH == "amd64" && res.Over != 0 {
			t.Errorf("%s differs from the reference renderer's output: %v; regenerate with mkgolden only if the renderer changed on purpose (see testdata/golden/NOTES.md)", g.Name(), res)
		}
		if _, err := imgcmp.Default.Check(out.Image, want); err != nil {
			t.Errorf("%s: %v", g.Name(), err)
		}
	}
}
