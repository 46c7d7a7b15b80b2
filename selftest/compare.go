package selftest

import (
	"fmt"
	"math"
	"strings"

	"github.com/vccube/vccube/uapi"
)

// imageDiff says how two images of the same probe differ.
type imageDiff struct {
	pixels int     // pixels that differ beyond the tolerance
	close  int     // pixels that differ within it
	worst  float64 // the largest difference, in the kind's unit
	at     [2]int  // where it is
	unit   string
	first  []string // the first differing pixels, "(x, y): a vs b"
}

// differs reports whether any pixel differs beyond the tolerance.
func (d *imageDiff) differs() bool { return d.pixels > 0 }

// String summarises: "37 of 4096 pixels, largest 12 levels at (10, 3)".
func (d *imageDiff) String(total int) string {
	n := d.pixels
	what := ""
	if n == 0 {
		n, what = d.close, " within tolerance"
	}
	return fmt.Sprintf("%d of %d px%s, largest %s at (%d,%d)", n, total, what, fmtWorst(d.worst, d.unit), d.at[0], d.at[1])
}

func fmtWorst(v float64, unit string) string {
	if unit == "error" {
		return fmt.Sprintf("error %.2g", v)
	}
	return fmt.Sprintf("%g %s", v, unit)
}

// maxListed bounds the pixels a diff lists for the bundle.
const maxListed = 200

// compareImages compares image a (the device under test) with b (the model
// or the reference), pixel by pixel, under tol for float images.
func compareImages(a, b *image32, tol tolerance) imageDiff {
	d := imageDiff{unit: unitOf(a.kind)}
	for i := range a.pix {
		if i >= len(b.pix) {
			break
		}
		if a.pix[i] == b.pix[i] {
			continue
		}
		x, y := i%a.w, i/a.w
		diff, within := pixelDiff(a.kind, a.pix[i], b.pix[i], tol)
		if within {
			d.close++
		} else {
			d.pixels++
			if len(d.first) < maxListed {
				d.first = append(d.first, fmt.Sprintf("(%d,%d): %s vs %s", x, y, fmtPixel(a.kind, a.pix[i]), fmtPixel(a.kind, b.pix[i])))
			}
		}
		if diff > d.worst || (d.worst == 0 && d.pixels+d.close == 1) {
			d.worst, d.at = diff, [2]int{x, y}
		}
	}
	return d
}

func unitOf(k pixelKind) string {
	switch k {
	case kindRGBA8888:
		return "levels"
	case kindBGR565:
		return "steps"
	case kindZS:
		return "Z steps"
	}
	return "error"
}

// pixelDiff returns the difference of two pixels in the kind's unit (for
// colours the largest channel difference) and whether it is within tol.
func pixelDiff(k pixelKind, a, b uint32, tol tolerance) (float64, bool) {
	switch k {
	case kindRGBA8888:
		m := 0
		for sh := 0; sh < 32; sh += 8 {
			m = max(m, absInt(int(a>>sh&0xFF)-int(b>>sh&0xFF)))
		}
		return float64(m), false
	case kindBGR565:
		return float64(max(absInt(int(a>>11&31)-int(b>>11&31)), absInt(int(a>>5&63)-int(b>>5&63)), absInt(int(a&31)-int(b&31)))), false
	case kindZS:
		dz := absInt(int(a>>8) - int(b>>8))
		if a&0xFF != b&0xFF {
			dz = max(dz, 1)
		}
		return float64(dz), false
	}
	fa, fb := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
	e := math.Abs(fa-fb) / math.Max(math.Abs(fb), 1)
	if math.IsNaN(e) || math.IsInf(e, 0) {
		return math.Inf(1), false
	}
	return e, tol.limit > 0 && e <= tol.limit
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func fmtPixel(k pixelKind, v uint32) string {
	switch k {
	case kindBGR565:
		return fmt.Sprintf("%#04x", v)
	case kindZS:
		return fmt.Sprintf("Z %#06x S %d", v>>8, v&0xFF)
	case kindFloat:
		return fmt.Sprintf("%#08x (%g)", v, math.Float32frombits(v))
	}
	return fmt.Sprintf("%#08x", v)
}

// compareCounters lists the counters whose values differ.
func compareCounters(a, b []counter) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	for i := range a {
		if i < len(b) && a[i].value != b[i].value {
			out = append(out, fmt.Sprintf("%s %d vs %d", uapi.PerfcntName(a[i].event), a[i].value, b[i].value))
		}
	}
	return out
}

// compareOutputs compares the images two runs of a probe left: the
// colour buffer and the Z buffer (the counters have a verdict of their
// own, compareCounters). It returns the table's
// words, whether they differ beyond tolerance, and the details for the
// bundle.
func compareOutputs(a, b *outputs, tol tolerance) (summary string, differ bool, details string) {
	var parts, det []string
	for _, pair := range [][2]*image32{{&a.colour, &b.colour}, {a.z, b.z}} {
		x, y := pair[0], pair[1]
		if x == nil || y == nil {
			continue
		}
		name := "colour"
		if x.kind == kindZS {
			name = "Z/stencil"
		}
		d := compareImages(x, y, tol)
		if d.pixels > 0 || d.close > 0 {
			parts = append(parts, name+": "+d.String(len(x.pix)))
			det = append(det, fmt.Sprintf("%s: %s\n  %s", name, d.String(len(x.pix)), strings.Join(d.first, "\n  ")))
		}
		differ = differ || d.differs()
	}
	switch {
	case len(parts) == 0:
		return "same", false, ""
	case !differ:
		return "close (" + strings.Join(parts, "; ") + ")", false, strings.Join(det, "\n")
	}
	return "DIFFERS: " + strings.Join(parts, "; "), true, strings.Join(det, "\n")
}
