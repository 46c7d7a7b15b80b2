package imgcmp

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fill(img *image.NRGBA, c color.NRGBA) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
}

// fourPixels returns a 4×1 pair: pixel 0 equal, pixel 1 off by 5 in red,
// pixel 2 off by 9 in green, pixel 3 off by 200 in blue.
func fourPixels() (got, want *image.NRGBA) {
	want = image.NewNRGBA(image.Rect(0, 0, 4, 1))
	fill(want, color.NRGBA{10, 20, 230, 255})
	got = image.NewNRGBA(image.Rect(0, 0, 4, 1))
	fill(got, color.NRGBA{10, 20, 230, 255})
	got.SetNRGBA(1, 0, color.NRGBA{15, 20, 230, 255})
	got.SetNRGBA(2, 0, color.NRGBA{10, 29, 230, 255})
	got.SetNRGBA(3, 0, color.NRGBA{10, 20, 30, 255})
	return got, want
}

func TestCompareHandWorked(t *testing.T) {
	got, want := fourPixels()
	r, err := Compare(got, want, 8)
	if err != nil {
		t.Fatal(err)
	}
	// Differences 0, 5, 9, 200: two exceed 8. MSE over 12 channel values =
	// (25 + 81 + 40000)/12 = 3342.1667; PSNR = 10·log10(65025/3342.1667)
	// = 12.8905 dB.
	if r.Over != 2 || r.MaxDiff != 200 || r.FirstOver != (image.Point{2, 0}) || r.FractionWithin() != 0.5 || r.Pixels() != 4 {
		t.Errorf("got %+v", r)
	}
	if math.Abs(r.PSNR-12.8905) > 1e-4 {
		t.Errorf("PSNR = %.5f, want 12.8905", r.PSNR)
	}
	if r, _ := Compare(got, want, 9); r.Over != 1 || r.FirstOver != (image.Point{3, 0}) {
		t.Errorf("threshold 9: %+v, want 1 pixel over, at (3,0)", r)
	}
	s := r.String()
	for _, part := range []string{"50.000% of 4 pixels within 8 levels", "(2 over)", "max difference 200", "PSNR 12.89 dB", "first over at (2,0)"} {
		if !strings.Contains(s, part) {
			t.Errorf("String() = %q, missing %q", s, part)
		}
	}
}

func TestCompareIdentical(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := range a.Pix {
		a.Pix[i] = uint8(i * 7)
		if i%4 == 3 {
			a.Pix[i] = 255
		}
	}
	r, err := Compare(a, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Over != 0 || r.MaxDiff != 0 || !math.IsInf(r.PSNR, 1) || r.FractionWithin() != 1 {
		t.Errorf("identical images: %+v", r)
	}
}

func TestCompareIgnoresAlphaAndOrigin(t *testing.T) {
	want := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	fill(want, color.NRGBA{100, 150, 200, 255})
	// Same colours with another alpha, in an image whose bounds start
	// elsewhere (a sub-image).
	big := image.NewNRGBA(image.Rect(0, 0, 5, 5))
	fill(big, color.NRGBA{0, 0, 0, 255})
	fill(big.SubImage(image.Rect(3, 3, 5, 5)).(*image.NRGBA), color.NRGBA{100, 150, 200, 7})
	r, err := Compare(big.SubImage(image.Rect(3, 3, 5, 5)), want, 0)
	if err != nil || r.Over != 0 || r.MaxDiff != 0 {
		t.Errorf("alpha or origin taken into account: %+v, %v", r, err)
	}
	// A generic image type (Gray) goes through color.NRGBAModel.
	g := image.NewGray(image.Rect(0, 0, 2, 2))
	for i := range g.Pix {
		g.Pix[i] = 150
	}
	r, _ = Compare(g, want, 49)
	if r.MaxDiff != 50 || r.Over != 4 {
		t.Errorf("gray 150 against (100,150,200): %+v, want max difference 50 on 4 pixels", r)
	}
}

func TestCompareSizeMismatch(t *testing.T) {
	_, err := Compare(image.NewRGBA(image.Rect(0, 0, 800, 600)), image.NewRGBA(image.Rect(0, 0, 1280, 720)), 8)
	if err == nil || !strings.Contains(err.Error(), "got 800×600, want 1280×720") {
		t.Errorf("error = %v", err)
	}
	if _, err := DiffImage(image.NewRGBA(image.Rect(0, 0, 1, 1)), image.NewRGBA(image.Rect(0, 0, 2, 1)), 8); err == nil {
		t.Errorf("DiffImage accepted images of different sizes")
	}
}

func TestTolerance(t *testing.T) {
	want := image.NewNRGBA(image.Rect(0, 0, 100, 10)) // 1000 pixels
	fill(want, color.NRGBA{128, 128, 128, 255})
	got := image.NewNRGBA(image.Rect(0, 0, 100, 10))
	fill(got, color.NRGBA{130, 126, 128, 255}) // 2 levels everywhere
	for i := 0; i < 5; i++ {                   // 0.5 % of pixels far off
		got.SetNRGBA(i, 0, color.NRGBA{255, 128, 128, 255})
	}
	// 995 pixels within 8: exactly 99.5 %. MSE = (995·8 + 5·(127²+2²+0))/3000
	// = (7960 + 80665)/3000 = 29.5417, PSNR = 33.43 dB.
	r, err := Default.Check(got, want)
	if err != nil {
		t.Errorf("Default rejected a 99.5%%/33.4 dB match: %v", err)
	}
	if math.Abs(r.PSNR-33.4271) > 1e-3 {
		t.Errorf("PSNR = %.4f, want 33.4271", r.PSNR)
	}
	got.SetNRGBA(5, 0, color.NRGBA{255, 128, 128, 255}) // 99.4 %
	if _, err := Default.Check(got, want); err == nil || !strings.Contains(err.Error(), "99.400% of 1000 pixels") || !strings.Contains(err.Error(), Default.String()) {
		t.Errorf("Default accepted 99.4%% or said it badly: %v", err)
	}
	// The PSNR bound on its own: every channel 7 levels off keeps all
	// pixels within 8 levels, MSE = 49, PSNR = 31.23 dB, which a 35 dB rule
	// rejects.
	fill(got, color.NRGBA{135, 121, 135, 255})
	strict := Tolerance{Threshold: 8, MinFractionWithin: 0.995, MinPSNR: 35}
	if _, err := strict.Check(got, want); err == nil {
		t.Errorf("a 31.2 dB image passed a 35 dB rule")
	}
	if got := Default.String(); got != "≥ 99.5% of pixels within 8 levels, PSNR ≥ 30 dB" {
		t.Errorf("Default.String() = %q", got)
	}
}

func TestDiffImageAndWriteDiff(t *testing.T) {
	got, want := fourPixels()
	d, err := DiffImage(got, want, 8)
	if err != nil {
		t.Fatal(err)
	}
	// Within: grey = (10+20+230)/12 = 21. Over: red 128 + d/2.
	wantPix := []color.RGBA{{21, 21, 21, 255}, {21, 21, 21, 255}, {132, 0, 0, 255}, {228, 0, 0, 255}}
	for x, w := range wantPix {
		if c := d.RGBAAt(x, 0); c != w {
			t.Errorf("diff pixel %d = %v, want %v", x, c, w)
		}
	}
	path := filepath.Join(t.TempDir(), "diff.png")
	if err := WriteDiff(path, got, want, 8); err != nil {
		t.Fatal(err)
	}
	img := MustReadPNG(t, path)
	if b := img.Bounds(); b.Dx() != 12 || b.Dy() != 1 {
		t.Fatalf("diff PNG is %v, want 12×1 (three panels)", b)
	}
	check := func(x int, w color.NRGBA) {
		if c := color.NRGBAModel.Convert(img.At(x, 0)); c != w {
			t.Errorf("panel pixel %d = %v, want %v", x, c, w)
		}
	}
	check(3, color.NRGBA{10, 20, 30, 255})  // got
	check(7, color.NRGBA{10, 20, 230, 255}) // want
	check(11, color.NRGBA{228, 0, 0, 255})  // diff
	if err := WriteDiff(filepath.Join(t.TempDir(), "no", "such", "dir.png"), got, want, 8); err == nil {
		t.Errorf("WriteDiff into a missing directory succeeded")
	}
}

// fakeTB records failures instead of failing the real test.
type fakeTB struct {
	testing.TB
	failed []string
}

func (f *fakeTB) Helper()             {}
func (f *fakeTB) Name() string        { return "TestFake/sub" }
func (f *fakeTB) Logf(string, ...any) {}
func (f *fakeTB) Errorf(format string, a ...any) {
	f.failed = append(f.failed, fmt.Sprintf(format, a...))
}
func (f *fakeTB) Fatal(a ...any) { f.failed = append(f.failed, fmt.Sprint(a...)) }

func TestCheckGolden(t *testing.T) {
	got, want := fourPixels()
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.png")
	f, err := os.Create(golden)
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, want)
	f.Close()

	if r := Default.CheckGolden(t, want, golden); r.Over != 0 {
		t.Errorf("identical image: %v", r)
	}
	var ft fakeTB
	Default.CheckGolden(&ft, got, golden)
	if len(ft.failed) != 1 || !strings.Contains(ft.failed[0], "written to ") {
		t.Fatalf("failures %q, want one naming the diff file", ft.failed)
	}
	diff := ft.failed[0][strings.Index(ft.failed[0], "written to ")+len("written to "):]
	defer os.Remove(diff)
	if _, err := ReadPNG(diff); err != nil {
		t.Errorf("diff image: %v", err)
	}
	if _, err := ReadPNG(filepath.Join(dir, "missing.png")); err == nil {
		t.Errorf("ReadPNG(missing) succeeded")
	}
}
