package texture

import (
	"math"
	"strings"
	"testing"
)

// TestPictureCheck: the fields must describe bytes Pix holds, and sizes
// that overflow an int (on any GOARCH) are refused, not wrapped into a
// small number that lets a conversion index past Pix.
func TestPictureCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Picture
		want string // "" for valid, else a fragment of the error
	}{
		{"packed 3×2×4", Picture{Pix: make([]byte, 24), Width: 3, Height: 2, Stride: 12, Cpp: 4}, ""},
		// (2−1)·16 + 3·4 = 28 bytes: the last row needs no padding.
		{"padded rows", Picture{Pix: make([]byte, 28), Width: 3, Height: 2, Stride: 16, Cpp: 4}, ""},
		{"one byte short", Picture{Pix: make([]byte, 27), Width: 3, Height: 2, Stride: 16, Cpp: 4}, "needs 28"},
		{"stride below a row", Picture{Pix: make([]byte, 64), Width: 3, Height: 2, Stride: 11, Cpp: 4}, "less than a row"},
		{"zero width", Picture{Pix: make([]byte, 64), Width: 0, Height: 2, Stride: 4, Cpp: 4}, "at least 1"},
		{"zero cpp", Picture{Pix: make([]byte, 64), Width: 1, Height: 1, Stride: 4, Cpp: 0}, "bytes per pixel"},
		// 2·(MaxInt/2 + 1) wraps to MinInt: without the overflow check the
		// 16 bytes looked like enough.
		{"rows overflow", Picture{Pix: make([]byte, 16), Width: 1, Height: 3, Stride: math.MaxInt/2 + 1, Cpp: 1}, "more bytes than memory"},
		{"row overflows", Picture{Pix: make([]byte, 16), Width: math.MaxInt/2 + 1, Height: 1, Stride: 16, Cpp: 2}, "less than a row"},
	} {
		err := c.p.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// A channel order names itself by its bytes in memory (for %v in errors
// and listings); an unknown one by its number.
func TestChannelOrderString(t *testing.T) {
	for o, want := range map[ChannelOrder]string{OrderRGBA: "R,G,B,A", OrderBGRA: "B,G,R,A", ChannelOrder(7): "ChannelOrder(7)"} {
		if got := o.String(); got != want {
			t.Errorf("%d: %q, want %q", uint8(o), got, want)
		}
	}
}
