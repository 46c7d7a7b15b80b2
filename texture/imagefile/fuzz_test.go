package imagefile

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/texture"
)

// FuzzDecode feeds arbitrary bytes to Decode. It must never panic; a
// failure must be an *Error naming the file with one of the Err kinds; a
// success must be a well-formed picture within the TMU's limits. Seeds
// (testdata/fuzz/FuzzDecode): small PNG, JPEG, GIF and PPM files and
// damaged, cut and oversized variants of them.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("P6\n1 1\n255\n\x01\x02\x03"))
	kinds := []error{ErrFormat, ErrUnsupported, ErrTooLarge, ErrZeroSize, ErrTruncated, ErrCorrupt}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data, "fuzz.img", texture.OrderBGRA)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "fuzz.img") {
				t.Fatalf("error %q is not an *Error naming the file", err)
			}
			known := false
			for _, k := range kinds {
				known = known || errors.Is(err, k)
			}
			if !known {
				t.Fatalf("error %q has no known kind", err)
			}
			return
		}
		if p.Width < 1 || p.Height < 1 || p.Width > texture.MaxSize || p.Height > texture.MaxSize {
			t.Fatalf("decoded %d×%d", p.Width, p.Height)
		}
		if err := p.Check(); err != nil || p.Cpp != 4 || len(p.Pix) != p.Width*p.Height*4 {
			t.Fatalf("malformed picture: %v", err)
		}
	})
}
