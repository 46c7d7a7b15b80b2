// Package imgcmp compares a rendered frame with a golden image using a few
// stated metrics, so that a test can say exactly what "matches" means, for
// example "≥ 99.5 % of pixels within 8 levels and PSNR ≥ 30 dB".
//
// Only the red, green and blue channels are compared, as 8-bit values: the
// frames are scanned out as XRGB8888, so alpha is never seen. A pixel is
// read as color.NRGBA (for opaque images these are the stored bytes).
//
// The metrics, all deterministic:
//
//   - the difference of a pixel is the largest of its three channel
//     differences |got − want|, 0..255;
//   - Over counts the pixels whose difference exceeds the threshold, and
//     FractionWithin = 1 − Over/pixels;
//   - MaxDiff is the largest pixel difference;
//   - PSNR = 10·log10(255² / MSE) dB, MSE being the mean of the squared
//     channel differences over all 3·pixels channel values (+Inf when the
//     images are equal).
//
// Why Default is what it is. Two correct renderers of the cube differ in
// three ways: (1) pixels along triangle edges, where their sub-pixel
// precision decides coverage differently (the VideoCore IV snaps vertices to
// 1/16 pixel, the reference renderer to 1/256): a fraction of the
// silhouette's pixels, each off by up to the full contrast between cube and
// background — a few hundred pixels in an 800×600 frame, well under 0.5 %;
// (2) colour arithmetic: the QPU's SFU gives about 12 good bits and its
// per-byte multiplies round to 8 bits, so an sRGB-correct lit texel may be a
// level or two off — far inside 8 levels; (3) nearest texture sampling near
// texel boundaries, where a tiny coordinate difference picks the
// neighbouring texel — rare pixels, different by the texture's own contrast.
// Real bugs — the cube turned by one frame, the picture mirrored or flipped,
// a face's light wrong by 10 %, sRGB handling left out, a swapped channel —
// change whole regions and fail the fraction bound, most also the PSNR
// bound. internal/refrender's TestToleranceCalibration measures both sides
// of that line: a renderer with the VideoCore IV's precision (12.4 vertices,
// 8-bit colour) keeps 99.96 % of an 800×600 frame within 8 levels at PSNR
// ≈ 42 dB; the bugs leave 80–97 %. A light a few percent off stays within
// 8 levels and passes; light values are checked numerically elsewhere
// (math/scene's tests).
package imgcmp

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

// Result holds the metrics of one comparison.
type Result struct {
	// Width and Height are the size of both images.
	Width, Height int
	// Threshold is the largest pixel difference counted as "within".
	Threshold uint8
	// Over is the number of pixels whose difference exceeds Threshold.
	Over int
	// MaxDiff is the largest pixel difference in the image.
	MaxDiff uint8
	// PSNR is the peak signal-to-noise ratio in dB (+Inf if equal).
	PSNR float64
	// FirstOver is the first pixel (in row order, relative to the images'
	// top-left corner) whose difference exceeds Threshold; valid if Over > 0.
	FirstOver image.Point
}

// Pixels returns the number of pixels compared.
func (r Result) Pixels() int { return r.Width * r.Height }

// FractionWithin returns the fraction of pixels whose difference is at most
// Threshold (1 for empty images).
func (r Result) FractionWithin() float64 {
	if r.Pixels() == 0 {
		return 1
	}
	return 1 - float64(r.Over)/float64(r.Pixels())
}

// String describes the result in one line.
func (r Result) String() string {
	s := fmt.Sprintf("%.3f%% of %d pixels within %d levels (%d over), max difference %d, PSNR %.2f dB",
		100*r.FractionWithin(), r.Pixels(), r.Threshold, r.Over, r.MaxDiff, r.PSNR)
	if r.Over > 0 {
		s += fmt.Sprintf(", first over at (%d,%d)", r.FirstOver.X, r.FirstOver.Y)
	}
	return s
}

// rgbReader returns a function reading the 8-bit R, G, B of a pixel at
// (x, y) relative to img's top-left corner, with fast paths for the image
// types renderers produce.
func rgbReader(img image.Image) func(x, y int) (r, g, b uint8) {
	min := img.Bounds().Min
	switch m := img.(type) {
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			p := m.Pix[m.PixOffset(min.X+x, min.Y+y):]
			return p[0], p[1], p[2]
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			p := m.Pix[m.PixOffset(min.X+x, min.Y+y):]
			if p[3] == 255 {
				return p[0], p[1], p[2]
			}
			c := color.NRGBAModel.Convert(color.RGBA{p[0], p[1], p[2], p[3]}).(color.NRGBA)
			return c.R, c.G, c.B
		}
	}
	return func(x, y int) (uint8, uint8, uint8) {
		c := color.NRGBAModel.Convert(img.At(min.X+x, min.Y+y)).(color.NRGBA)
		return c.R, c.G, c.B
	}
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}

// Compare measures how far got is from want. Both must have the same size;
// their bounds may start at different points.
func Compare(got, want image.Image, threshold uint8) (Result, error) {
	gb, wb := got.Bounds(), want.Bounds()
	if gb.Dx() != wb.Dx() || gb.Dy() != wb.Dy() {
		return Result{}, fmt.Errorf("imgcmp: the images differ in size: got %d×%d, want %d×%d", gb.Dx(), gb.Dy(), wb.Dx(), wb.Dy())
	}
	res := Result{Width: gb.Dx(), Height: gb.Dy(), Threshold: threshold}
	rg, rw := rgbReader(got), rgbReader(want)
	var sq uint64
	for y := 0; y < res.Height; y++ {
		for x := 0; x < res.Width; x++ {
			r1, g1, b1 := rg(x, y)
			r2, g2, b2 := rw(x, y)
			dr, dg, db := absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)
			sq += uint64(dr)*uint64(dr) + uint64(dg)*uint64(dg) + uint64(db)*uint64(db)
			d := max(dr, dg, db)
			if d > res.MaxDiff {
				res.MaxDiff = d
			}
			if d > threshold {
				if res.Over == 0 {
					res.FirstOver = image.Point{X: x, Y: y}
				}
				res.Over++
			}
		}
	}
	res.PSNR = math.Inf(1)
	if sq > 0 {
		mse := float64(sq) / float64(3*res.Pixels())
		res.PSNR = 10 * math.Log10(255*255/mse)
	}
	return res, nil
}

// Tolerance is a pass/fail rule over a comparison.
type Tolerance struct {
	// Threshold is the pixel difference (largest channel difference, in
	// 8-bit levels) up to which a pixel counts as matching.
	Threshold uint8
	// MinFractionWithin is the smallest acceptable fraction of matching
	// pixels, 0..1.
	MinFractionWithin float64
	// MinPSNR is the smallest acceptable PSNR in dB.
	MinPSNR float64
}

// Default is the tolerance for comparing a simulated frame of the cube with
// its golden image: at least 99.5 % of pixels within 8 levels and a PSNR of
// at least 30 dB. The package comment explains the numbers.
var Default = Tolerance{Threshold: 8, MinFractionWithin: 0.995, MinPSNR: 30}

// String states the rule, e.g. "≥ 99.5% of pixels within 8 levels, PSNR ≥ 30 dB".
func (t Tolerance) String() string {
	return fmt.Sprintf("≥ %g%% of pixels within %d levels, PSNR ≥ %g dB", 100*t.MinFractionWithin, t.Threshold, t.MinPSNR)
}

// Check compares got with want and returns the result, and an error saying
// which bound failed if the images are not within the tolerance.
func (t Tolerance) Check(got, want image.Image) (Result, error) {
	res, err := Compare(got, want, t.Threshold)
	if err != nil {
		return res, err
	}
	if res.FractionWithin() < t.MinFractionWithin || res.PSNR < t.MinPSNR {
		return res, fmt.Errorf("imgcmp: images differ: %v; the rule is %v", res, t)
	}
	return res, nil
}

// DiffImage returns a picture of where got and want differ, the size of
// the images: pixels within the threshold are shown as a dim grey copy of
// want, so the scene stays recognisable, and pixels over it in red, brighter
// the larger the difference (at least half brightness).
func DiffImage(got, want image.Image, threshold uint8) (*image.RGBA, error) {
	gb, wb := got.Bounds(), want.Bounds()
	if gb.Dx() != wb.Dx() || gb.Dy() != wb.Dy() {
		return nil, fmt.Errorf("imgcmp: the images differ in size: got %d×%d, want %d×%d", gb.Dx(), gb.Dy(), wb.Dx(), wb.Dy())
	}
	w, h := gb.Dx(), gb.Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	rg, rw := rgbReader(got), rgbReader(want)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r1, g1, b1 := rg(x, y)
			r2, g2, b2 := rw(x, y)
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2))
			p := out.Pix[out.PixOffset(x, y):]
			if d > threshold {
				p[0], p[1], p[2] = uint8(128+int(d)/2), 0, 0
			} else {
				grey := uint8((uint(r2) + uint(g2) + uint(b2)) / 12)
				p[0], p[1], p[2] = grey, grey, grey
			}
			p[3] = 255
		}
	}
	return out, nil
}

// WriteDiff writes a PNG to path showing got, want and DiffImage side by
// side (three panels, left to right), for a test to leave behind when a
// comparison fails.
func WriteDiff(path string, got, want image.Image, threshold uint8) error {
	diff, err := DiffImage(got, want, threshold)
	if err != nil {
		return err
	}
	w, h := diff.Bounds().Dx(), diff.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, 3*w, h))
	rg, rw := rgbReader(got), rgbReader(want)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, b := rg(x, y)
			copy(out.Pix[out.PixOffset(x, y):], []uint8{r, g, b, 255})
			r, g, b = rw(x, y)
			copy(out.Pix[out.PixOffset(w+x, y):], []uint8{r, g, b, 255})
			copy(out.Pix[out.PixOffset(2*w+x, y):], diff.Pix[diff.PixOffset(x, y):diff.PixOffset(x, y)+4])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("imgcmp: writing the diff image: %w", err)
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return fmt.Errorf("imgcmp: writing the diff image %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("imgcmp: writing the diff image %s: %w", path, err)
	}
	return nil
}
