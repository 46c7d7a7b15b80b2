package qpu

import (
	"strings"
	"testing"
)

// The four memory forms of [AG] Figure 12 and the VPM forms of Figures 10
// and 11, word by word as the figures draw them, with the sizes their
// captions give: (3+NVARY), (4+NVARY) with a point size, (7+NVARY) with the
// clip header, (8+NVARY) with both; the PTB's 7 or 8 words.
func TestShadedFormats(t *testing.T) {
	for _, c := range []struct {
		f     ShadedFormat
		words string
	}{
		{ShadedFormat{Varyings: 2}, "XsYs Zs 1/Wc varying 0 varying 1"},
		{ShadedFormat{PointSize: true, Varyings: 2}, "XsYs Zs 1/Wc PointSize varying 0 varying 1"},
		{ShadedFormat{ClipHeader: true, Varyings: 2}, "Xc Yc Zc Wc XsYs Zs 1/Wc varying 0 varying 1"},
		{ShadedFormat{ClipHeader: true, PointSize: true, Varyings: 2}, "Xc Yc Zc Wc XsYs Zs 1/Wc PointSize varying 0 varying 1"},
		{CoordinateFormat(false), "Xc Yc Zc Wc XsYs Zs 1/Wc"},
		{CoordinateFormat(true), "Xc Yc Zc Wc XsYs Zs 1/Wc PointSize"},
		{VertexFormat(false, 1), "XsYs Zs 1/Wc varying 0"},
		{VertexFormat(true, 0), "XsYs Zs 1/Wc PointSize"},
	} {
		want := strings.Split(c.words, " ")
		// "varying n" is two fields of the split: count words, not fields.
		n := len(want) - strings.Count(c.words, "varying")
		if got := c.f.Words(); got != n {
			t.Errorf("%+v: %d words, want %d", c.f, got, n)
		}
		var names []string
		for i := 0; i < c.f.Words(); i++ {
			names = append(names, c.f.WordName(i))
		}
		if got := strings.Join(names, " "); got != c.words {
			t.Errorf("%+v: words %q, want %q", c.f, got, c.words)
		}
		if c.f.WordName(c.f.Words()) != "" || c.f.WordName(-1) != "" {
			t.Errorf("%+v: names past the ends", c.f)
		}
	}
}

// Each accessor points at the word of its name, and the formats without a
// clip header or point size say so with −1.
func TestShadedAccessors(t *testing.T) {
	for _, f := range []ShadedFormat{{}, {PointSize: true, Varyings: 3}, {ClipHeader: true}, {ClipHeader: true, PointSize: true, Varyings: 1}} {
		at := map[string]int{"XsYs": f.XsYsAt(), "Zs": f.ZsAt(), "1/Wc": f.InvWcAt(), "PointSize": f.PointSizeAt()}
		absent := map[string]bool{"PointSize": !f.PointSize}
		for k, name := range []string{"Xc", "Yc", "Zc", "Wc"} {
			at[name] = f.ClipAt(k)
			absent[name] = !f.ClipHeader
		}
		for j := 0; j < f.Varyings; j++ {
			at["varying "+string(rune('0'+j))] = f.VaryingsAt() + j
		}
		for name, i := range at {
			if absent[name] {
				if i != -1 {
					t.Errorf("%+v: %s at %d, want -1 (absent)", f, name, i)
				}
				continue
			}
			if got := f.WordName(i); got != name {
				t.Errorf("%+v: %s at %d, which is %q", f, name, i, got)
			}
		}
	}
}

// Xs in bits 15:0, Ys in 31:16, both two's complement ([AG] Figures
// 10–12): Xs = −3.5 px is −56 = 0xFFC8, Ys = 10 px is 160 = 0x00A0.
func TestXsYs(t *testing.T) {
	if got := PackXsYs(-56, 160); got != 0x00A0FFC8 {
		t.Errorf("PackXsYs(-56, 160) = %#08x, want 0x00a0ffc8", got)
	}
	if x, y := SplitXsYs(0x8000_7FFF); x != 32767 || y != -32768 {
		t.Errorf("SplitXsYs(0x80007fff) = %d, %d", x, y)
	}
	if XsPack != Pack16A || YsPack != Pack16B {
		t.Errorf("Xs and Ys packs %v %v, want 16a (bits 15:0) and 16b (bits 31:16)", XsPack, YsPack)
	}
}
