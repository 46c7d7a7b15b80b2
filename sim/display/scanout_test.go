package display_test

import (
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/uapi"
)

func TestReadScanoutLinear(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); !errors.Is(err, display.ErrCrtcOff) {
		t.Fatalf("ReadScanout with the CRTC off: %v", err)
	}
	// An 80x60 framebuffer shown from (8, 4) in a 64x48 mode.
	fb, pitch, pix := dumbFB(t, f, 80, 60)
	put := func(x, y int, b, g, r byte) { // XRGB8888 in memory: B, G, R, X
		o := y*int(pitch) + 4*x
		pix[o], pix[o+1], pix[o+2], pix[o+3] = b, g, r, 0x77
	}
	put(8, 4, 1, 2, 3)   // the visible top-left
	put(71, 51, 4, 5, 6) // the visible bottom-right
	put(7, 4, 9, 9, 9)   // just outside, left
	put(79, 59, 9, 9, 9) // the framebuffer's last pixel, outside
	put(40, 30, 10, 20, 30)
	mode := smallMode(64, 48)
	if err := drm.SetCrtc(f, display.CrtcID, fb, 8, 4, []uint32{display.ConnectorID}, &mode); err != nil {
		t.Fatal(err)
	}
	if err := r.disp.ReadScanout(&fr); err != nil {
		t.Fatal(err)
	}
	// The raw plane: (60-1) rows of pitch and one row of 80 pixels.
	if fr.FbID != fb || fr.Format != uapi.FormatXRGB8888 || fr.Modifier != 0 || fr.Width != 80 || fr.Height != 60 ||
		fr.Pitch != pitch || fr.X != 8 || fr.Y != 4 || len(fr.Data) != 59*int(pitch)+320 || fr.Mode.Hdisplay != 64 {
		t.Fatalf("frame %+v (%d bytes)", fr, len(fr.Data))
	}
	img, err := fr.Image()
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect != image.Rect(0, 0, 64, 48) {
		t.Fatalf("image %v", img.Rect)
	}
	for _, tc := range []struct {
		x, y int
		want color.RGBA
	}{
		{0, 0, color.RGBA{3, 2, 1, 255}}, {63, 47, color.RGBA{6, 5, 4, 255}}, {32, 26, color.RGBA{30, 20, 10, 255}},
		{1, 0, color.RGBA{0, 0, 0, 255}},
	} {
		if got := img.RGBAAt(tc.x, tc.y); got != tc.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
	// Reading again into the same Frame and image does not allocate.
	allocs := testing.AllocsPerRun(20, func() {
		if err := r.disp.ReadScanout(&fr); err != nil {
			t.Fatal(err)
		}
		if err := fr.DrawInto(img); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 && !raceEnabled {
		t.Errorf("ReadScanout+DrawInto allocate %.1f times per frame", allocs)
	}
	if err := fr.DrawInto(image.NewRGBA(image.Rect(0, 0, 10, 10))); err == nil {
		t.Error("DrawInto an image of the wrong size succeeded")
	}
}

// TestReadScanoutPixelFormats reads one pixel of every RGB format the
// display converts, its bits placed by drm_fourcc.h's diagrams, and
// expects the channels narrower than 8 bits widened by bit replication
// (display.expand).
func TestReadScanoutPixelFormats(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	h := simrig.AllocBO(t, f, 4096)
	mem := simrig.MapBO(t, f, h, 4096)
	mode := smallMode(16, 16)
	// 5-bit 0b10110 widens to 0b10110101, 6-bit 0b100101 to 0b10010110,
	// 4-bit 0b1011 to 0b10111011.
	const r5, g6, b5, g5 = 0b10110, 0b100101, 0b01001, 0b11100
	const x5, x6, y5, y8 = 0b10110101, 0b10010110, 0b01001010, 0b11100111
	for _, tc := range []struct {
		format uint32
		pixel  []byte // little-endian, as in memory
		want   color.RGBA
	}{
		{uapi.FormatXRGB8888, []byte{0x10, 0x20, 0x30, 0x00}, color.RGBA{0x30, 0x20, 0x10, 255}},
		{uapi.FormatARGB8888, []byte{0x10, 0x20, 0x30, 0x00}, color.RGBA{0x30, 0x20, 0x10, 255}}, // alpha 0, premultiplied over black: the colour
		{uapi.Fourcc('X', 'B', '2', '4'), []byte{0x10, 0x20, 0x30, 0x00}, color.RGBA{0x10, 0x20, 0x30, 255}},
		{uapi.Fourcc('A', 'B', '2', '4'), []byte{0x10, 0x20, 0x30, 0x00}, color.RGBA{0x10, 0x20, 0x30, 255}},
		// RG16: [15:0] R:G:B 5:6:5.
		{uapi.FormatRGB565, le16(r5<<11 | g6<<5 | b5), color.RGBA{x5, x6, y5, 255}},
		{uapi.FormatRGB565, le16(0xffff), color.RGBA{255, 255, 255, 255}},
		// BG16: [15:0] B:G:R 5:6:5.
		{uapi.Fourcc('B', 'G', '1', '6'), le16(b5<<11 | g6<<5 | r5), color.RGBA{x5, x6, y5, 255}},
		// XR15 and AR15: [15:0] x:R:G:B 1:5:5:5.
		{uapi.Fourcc('X', 'R', '1', '5'), le16(1<<15 | r5<<10 | g5<<5 | b5), color.RGBA{x5, y8, y5, 255}},
		{uapi.Fourcc('A', 'R', '1', '5'), le16(r5<<10 | g5<<5 | b5), color.RGBA{x5, y8, y5, 255}},
		// XR12: [15:0] x:R:G:B 4:4:4:4; RA12: R:G:B:A.
		{uapi.Fourcc('X', 'R', '1', '2'), le16(0xf_b_3_1), color.RGBA{0xbb, 0x33, 0x11, 255}},
		{uapi.Fourcc('R', 'A', '1', '2'), le16(0xb_3_1_0), color.RGBA{0xbb, 0x33, 0x11, 255}},
		{uapi.Fourcc('B', 'X', '1', '2'), le16(0x1_3_b_0), color.RGBA{0xbb, 0x33, 0x11, 255}},
		{uapi.Fourcc('X', 'B', '1', '2'), le16(0x0_1_3_b), color.RGBA{0xbb, 0x33, 0x11, 255}},
		// RGB888 is not converted.
		{uapi.Fourcc('R', 'G', '2', '4'), []byte{1, 2, 3}, color.RGBA{}},
	} {
		name := string([]byte{byte(tc.format), byte(tc.format >> 8), byte(tc.format >> 16), byte(tc.format >> 24)})
		copy(mem, tc.pixel)
		cpp := uint32(len(tc.pixel))
		fb, err := drm.AddFramebuffer(f, 16, 16, tc.format, h, 16*cpp, uapi.FormatModLinear)
		if err != nil {
			t.Fatal(err)
		}
		if err := drm.SetCrtc(f, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &mode); err != nil {
			t.Fatal(err)
		}
		var fr display.Frame
		if err := r.disp.ReadScanout(&fr); err != nil {
			t.Fatal(err)
		}
		img, err := fr.Image()
		if tc.want == (color.RGBA{}) {
			if err == nil || !strings.Contains(err.Error(), "not modelled") {
				t.Errorf("%s: converting: %v, want an error saying it is not modelled", name, err)
			}
			continue
		}
		if err != nil || img.RGBAAt(0, 0) != tc.want {
			t.Errorf("%s: pixel %v, %v; want %v", name, img.RGBAAt(0, 0), err, tc.want)
		}
	}
}

// le16 is a 16-bit pixel as memory holds it.
func le16(v uint16) []byte { return []byte{byte(v), byte(v >> 8)} }

// TestReadScanoutTTiled16 places RGB565 pixels at T-format addresses
// worked out by hand as in TestReadScanoutTTiled, for 2 bytes per pixel:
// utiles of 8x4 pixels (16 bytes a row), 1 KiB sub-tiles of 32x16 pixels,
// 4 KiB tiles of 64x32 (vc4_plane.c vc4_plane_mode_set: tile_w_shift 6 at
// 16 bpp, 5 at 32; a tile is 32 rows of 128 bytes either way), in a mode
// of odd size.
func TestReadScanoutTTiled16(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	const size = 128 * 64 * 2 // two tile rows of two tiles
	h := simrig.AllocBO(t, f, size)
	mem := simrig.MapBO(t, f, h, size)
	pts := []struct{ x, y, addr int }{
		{0, 0, 0},
		{40, 0, 3072 + 64},                // sub-tile (1,0), 4th on an even row; utile (1,0)
		{13, 5, 5*64 + (1*8+5)*2},         // utile (1,1), pixel (5,1) in it
		{64, 0, 4096},                     // the second tile of row 0
		{0, 32, 12288 + 2048},             // row 1 runs right to left; sub-tile (0,0) 3rd on odd rows
		{126, 63, 8192 + 960 + (3*8+6)*2}, // row 1's first tile, sub-tile (1,1) first; utile (3,3), pixel (6,3)
	}
	for _, p := range pts {
		copy(mem[p.addr:], le16(uint16(p.x&31)<<11|uint16(p.y)<<5|0x15))
	}
	fb, err := drm.AddFramebuffer(f, 128, 64, uapi.FormatRGB565, h, 256, uapi.FormatModBroadcomVC4TTiled)
	if err != nil {
		t.Fatal(err)
	}
	mode := smallMode(127, 64)
	if err := drm.SetCrtc(f, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &mode); err != nil {
		t.Fatal(err)
	}
	img := simrig.Scanout(t, r.disp)
	for _, p := range pts {
		r5, g6 := byte(p.x&31), byte(p.y)
		want := color.RGBA{r5<<3 | r5>>2, g6<<2 | g6>>4, 0x15<<3 | 0x15>>2, 255}
		if got := img.RGBAAt(p.x, p.y); got != want {
			t.Errorf("pixel (%d,%d) = %v, want %v", p.x, p.y, got, want)
		}
	}
	if got := img.RGBAAt(1, 0); got != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("pixel (1,0) = %v, want black", got)
	}
}

// TestReadScanoutTTiled places pixels at T-format addresses worked out by
// hand from the reference guide's layout (AG §11;
// doc/hardware.md#texture-formats: 4 KiB tiles of 32x32 pixels at 32 bpp in
// rows of pitch/128 tiles, odd tile rows right to left; 1 KiB sub-tiles in
// the order 0,3,1,2 on even tile rows and 2,1,3,0 on odd ones; 4x4-pixel
// utiles in raster order within them), and reads them back through the
// display.
func TestReadScanoutTTiled(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	const size = 64 * 64 * 4 // two tile rows of two tiles
	h := simrig.AllocBO(t, f, size)
	mem := simrig.MapBO(t, f, h, size)
	for _, tc := range []struct {
		x, y, addr int
	}{
		{0, 0, 0},
		{16, 0, 3072},             // sub-tile (1,0): 4th in an even row
		{0, 16, 1024},             // sub-tile (0,1): 2nd
		{16, 16, 2048},            // sub-tile (1,1): 3rd
		{32, 0, 4096},             // the second tile of row 0
		{5, 6, 356},               // utile (1,1) = 64*(4+1), pixel (1,2) in it = 4*(2*4+1)
		{0, 32, 14336},            // row 1 runs right to left: tile 3 of the image; sub-tile (0,0) is its 3rd: 12288+2048
		{33, 40, 10756},           // row 1's first tile (8192), sub-tile (0,0) 3rd (+2048), utile (0,2) (+512), pixel (1,0) (+4)
		{63, 63, 8192 + 960 + 60}, // row 1's first tile, sub-tile (1,1) first on odd rows, utile (3,3) 64*15, pixel (3,3) 4*15
	} {
		copy(mem[tc.addr:], []byte{byte(tc.x), byte(tc.y), 0xaa, 0})
	}
	fb, err := drm.AddFramebuffer(f, 64, 64, uapi.FormatXRGB8888, h, 256, uapi.FormatModBroadcomVC4TTiled)
	if err != nil {
		t.Fatal(err)
	}
	mode := smallMode(64, 64)
	if err := drm.SetCrtc(f, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &mode); err != nil {
		t.Fatal(err)
	}
	img := simrig.Scanout(t, r.disp)
	for _, p := range [][2]int{{0, 0}, {16, 0}, {0, 16}, {16, 16}, {32, 0}, {5, 6}, {0, 32}, {33, 40}, {63, 63}} {
		want := color.RGBA{0xaa, byte(p[1]), byte(p[0]), 255}
		if got := img.RGBAAt(p[0], p[1]); got != want {
			t.Errorf("pixel (%d,%d) = %v, want %v", p[0], p[1], got, want)
		}
	}
	if got := img.RGBAAt(1, 0); got != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("pixel (1,0) = %v, want black", got)
	}
}

// Once the device is closed the BOs' memory is gone: ReadScanout says so
// instead of crashing.
func TestReadScanoutAfterDeviceClose(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	fb, _, _ := dumbFB(t, f, 800, 600)
	setCrtc(t, f, fb, modeNamed(t, f, "800x600@60"))
	if err := r.dev.Close(); err != nil {
		t.Fatal(err)
	}
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err == nil || fr.FbID != fb {
		t.Fatalf("ReadScanout after the device closed: fb %d, %v; want fb %d and an error", fr.FbID, err, fb)
	}
}
