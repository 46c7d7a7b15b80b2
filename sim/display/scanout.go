package display

import (
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// ErrCrtcOff is returned by ReadScanout while the CRTC is off: nothing is
// scanned out.
var ErrCrtcOff = errors.New("display: the CRTC is off (no mode set), so nothing is scanned out")

// Frame is a copy of what the CRTC scans out: the framebuffer the
// hardware shows (the one latched at the last completed flip, which may
// lag behind GETCRTC's while a flip is pending) and its description.
type Frame struct {
	CrtcID   uint32
	Mode     uapi.ModeModeInfo // the CRTC's mode; the visible area is Hdisplay x Vdisplay
	Sequence uint64            // the vblank at which this framebuffer became visible
	Time     time.Duration     // that vblank's time on the display's clock

	// FbID is the framebuffer shown, 0 when the primary plane has none
	// (its framebuffer was removed): the CRTC then shows its black
	// background and the fields below are zero.
	FbID          uint32
	Format        uint32 // fourcc, e.g. uapi.FormatXRGB8888
	Modifier      uint64 // uapi.FormatModLinear or uapi.FormatModBroadcomVC4TTiled (or a SAND one)
	Width, Height uint32 // the framebuffer's size
	Pitch         uint32 // of the first plane, as ADDFB2 gave it
	X, Y          uint32 // top-left of the visible area in the framebuffer

	// Data is the framebuffer's first memory plane as its BO holds it,
	// from the plane's offset on: rows Pitch bytes apart for a linear
	// framebuffer, 4 KiB T-format tiles (Pitch/128 per tile row) for a
	// T-tiled one. Its length is what the framebuffer's size needs, cut
	// short where the BO ends. ReadScanout reuses its capacity.
	Data []byte
}

// ReadScanout copies what the CRTC scans out now into dst, reusing
// dst.Data, so that a caller reading every frame does not allocate. It
// fails with ErrCrtcOff while the CRTC is off, and once the device is
// closed (the BOs' memory is gone). It must not run concurrently with the
// device's Close.
func (d *Display) ReadScanout(dst *Frame) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := &d.crtc
	if !c.active {
		return ErrCrtcOff
	}
	data := dst.Data[:0]
	*dst = Frame{CrtcID: CrtcID, Mode: c.mode, Sequence: c.scanSeq,
		Time: time.Duration(c.scanTime), Data: data}
	dst.Mode.Vrefresh = vrefresh(&c.mode)
	fb := c.scan
	if fb == nil {
		return nil
	}
	dst.FbID, dst.Format, dst.Modifier = fb.id, fb.format.fourcc, fb.modifier
	dst.Width, dst.Height, dst.Pitch, dst.X, dst.Y = fb.width, fb.height, fb.pitches[0], c.x, c.y
	mem := fb.bos[0].Bytes()
	if mem == nil {
		return fmt.Errorf("display: the BO of framebuffer %d has no memory: the device was closed (or the BO purged); the screen shows garbage", fb.id)
	}
	n := uint64(fb.planeBytes())
	off := uint64(fb.offsets[0])
	if off > uint64(len(mem)) {
		off = uint64(len(mem))
	}
	if off+n > uint64(len(mem)) {
		n = uint64(len(mem)) - off
	}
	dst.Data = append(data, mem[off:off+n]...)
	return nil
}

// pixelLayout is where DrawInto finds the colour in one pixel of a
// scanout format: cpp bytes, read as a little-endian word (drm_fourcc.h:
// "[31:0] x:R:G:B 8:8:8:8 little endian" and the like), each channel at a
// shift with a width in bits.
type pixelLayout struct {
	cpp        int
	rs, gs, bs uint // the channels' lowest bits
	rw, gw, bw uint // the channels' widths
}

// pixelLayoutOf is the layout of each RGB format of the planes that
// DrawInto converts, from drm_fourcc.h's bit diagrams; ok is false for the
// others (the YUV formats, RGB888 and the 8-bit ones).
func pixelLayoutOf(fourcc uint32) (l pixelLayout, ok bool) {
	c8 := func(rs, bs uint) pixelLayout { return pixelLayout{4, rs, 8, bs, 8, 8, 8} }
	c16 := func(rs, gs, bs, rw, gw, bw uint) pixelLayout { return pixelLayout{2, rs, gs, bs, rw, gw, bw} }
	switch fourcc {
	case uapi.FormatXRGB8888, uapi.FormatARGB8888: // [31:0] x:R:G:B 8:8:8:8
		return c8(16, 0), true
	case uapi.Fourcc('X', 'B', '2', '4'), uapi.Fourcc('A', 'B', '2', '4'): // [31:0] x:B:G:R 8:8:8:8
		return c8(0, 16), true
	case uapi.FormatRGB565: // RG16, [15:0] R:G:B 5:6:5
		return c16(11, 5, 0, 5, 6, 5), true
	case uapi.Fourcc('B', 'G', '1', '6'): // BGR565, [15:0] B:G:R 5:6:5
		return c16(0, 5, 11, 5, 6, 5), true
	case uapi.Fourcc('X', 'R', '1', '5'), uapi.Fourcc('A', 'R', '1', '5'): // [15:0] x:R:G:B 1:5:5:5
		return c16(10, 5, 0, 5, 5, 5), true
	case uapi.Fourcc('X', 'R', '1', '2'), uapi.Fourcc('A', 'R', '1', '2'): // [15:0] x:R:G:B 4:4:4:4
		return c16(8, 4, 0, 4, 4, 4), true
	case uapi.Fourcc('X', 'B', '1', '2'), uapi.Fourcc('A', 'B', '1', '2'): // [15:0] x:B:G:R 4:4:4:4
		return c16(0, 4, 8, 4, 4, 4), true
	case uapi.Fourcc('R', 'X', '1', '2'), uapi.Fourcc('R', 'A', '1', '2'): // [15:0] R:G:B:x 4:4:4:4
		return c16(12, 8, 4, 4, 4, 4), true
	case uapi.Fourcc('B', 'X', '1', '2'), uapi.Fourcc('B', 'A', '1', '2'): // [15:0] B:G:R:x 4:4:4:4
		return c16(4, 8, 12, 4, 4, 4), true
	}
	return pixelLayout{}, false
}

// expand widens a channel of w bits (4 to 8) to 8 bits by repeating its
// high bits below it (bit replication: 5-bit 31 is 255, 6-bit 32 is 130),
// so that full intensity stays full and black stays black. UNCERTAIN: how
// the HVS widens a 16-bit plane's channels is not public (vc4_plane.c
// hvs_formats[] only maps DRM_FORMAT_RGB565 to HVS_PIXEL_FORMAT_RGB565);
// replication is what display hardware commonly does, and the other
// candidate, zero fill, would show a white RGB565 plane as (248, 252, 248).
// doc/mesa-on-sim.md#scanout-colour says how a Pi would settle it.
func expand(c uint32, w uint) byte {
	if w >= 8 {
		return byte(c)
	}
	return byte(c<<(8-w) | c>>(2*w-8))
}

// convertRow converts the pixels of data from offset o, laid out as l, into
// the RGBA pixels of dst, alpha 255. Pixels past the end of data are
// black.
func convertRow(dst, data []byte, o int, l *pixelLayout) {
	n := len(dst) / 4
	have := 0
	if o >= 0 && o < len(data) {
		have = min(n, (len(data)-o)/l.cpp)
	}
	if have > 0 {
		src := data[o : o+l.cpp*have]
		if l.cpp == 4 {
			ri, bi := l.rs/8, l.bs/8
			for i := 0; i < have; i++ {
				s, d := src[4*i:4*i+4], dst[4*i:4*i+4]
				d[0], d[1], d[2], d[3] = s[ri], s[1], s[bi], 0xff
			}
		} else {
			rm, gm, bm := uint32(1)<<l.rw-1, uint32(1)<<l.gw-1, uint32(1)<<l.bw-1
			for i := 0; i < have; i++ {
				v := uint32(src[2*i]) | uint32(src[2*i+1])<<8
				d := dst[4*i : 4*i+4]
				d[0], d[1], d[2], d[3] = expand(v>>l.rs&rm, l.rw), expand(v>>l.gs&gm, l.gw), expand(v>>l.bs&bm, l.bw), 0xff
			}
		}
	}
	for i := have; i < n; i++ {
		d := dst[4*i : 4*i+4]
		d[0], d[1], d[2], d[3] = 0, 0, 0, 0xff
	}
}

// planeBytes is how many bytes of its first plane the framebuffer spans:
// (height-1) rows of pitch and one row of pixels for a linear one (the
// kernel's size check, which the BO is known to pass), whole tile rows for
// a T-tiled one (which may run past the BO).
func (fb *framebuffer) planeBytes() uint32 {
	if modFamily(fb.modifier) == modTTiled {
		tilesW := fb.pitches[0] >> 7
		tileRows := (fb.height + 31) / 32
		return tilesW * tileRows * texture.TileBytes
	}
	return (fb.height-1)*fb.pitches[0] + fb.width*uint32(fb.format.cpp[0])
}

// Image converts the visible area (Mode.Hdisplay x Mode.Vdisplay from
// X, Y) to an opaque RGBA image. See DrawInto.
func (f *Frame) Image() (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, int(f.Mode.Hdisplay), int(f.Mode.Vdisplay)))
	return img, f.DrawInto(img)
}

// DrawInto converts the visible area into img, whose bounds must be the
// mode's size, without allocating. The RGB formats of 32 and 16 bits are
// converted, linear or T-tiled: the colour is the framebuffer's red, green
// and blue, a channel narrower than 8 bits widened by repeating its high
// bits (see expand), and the alpha 255, which is what the HVS sends for a
// primary plane over the CRTC's black background (a format with alpha is
// blended as premultiplied, vc4_plane.c vc4_hvs4_get_alpha_blend_mode, so
// its colour passes unchanged). Pixels the BO does not reach come out
// black. A frame without a framebuffer is all black. Other formats (YUV,
// RGB888, the 8-bit ones) are an error: their colour conversion is not
// modelled.
func (f *Frame) DrawInto(img *image.RGBA) error {
	w, h := int(f.Mode.Hdisplay), int(f.Mode.Vdisplay)
	if img.Rect.Dx() != w || img.Rect.Dy() != h {
		return fmt.Errorf("display: the image is %dx%d, the visible area %dx%d", img.Rect.Dx(), img.Rect.Dy(), w, h)
	}
	if f.FbID == 0 {
		for y := 0; y < h; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			for i := 0; i < len(row); i += 4 {
				row[i], row[i+1], row[i+2], row[i+3] = 0, 0, 0, 0xff
			}
		}
		return nil
	}
	l, ok := pixelLayoutOf(f.Format)
	if !ok {
		return fmt.Errorf("display: converting %s pixels to RGB is not modelled (only the 32- and 16-bit RGB formats are: XR24, AR24, XB24, AB24, RG16, BG16, XR15, AR15 and the 4444 ones); use Frame.Data", fourccName(f.Format))
	}
	switch modFamily(f.Modifier) {
	case modLinear:
		pitch := int(f.Pitch)
		for y := 0; y < h; y++ {
			o := (int(f.Y)+y)*pitch + l.cpp*int(f.X)
			convertRow(img.Pix[y*img.Stride:y*img.Stride+4*w], f.Data, o, &l)
		}
	case modTTiled:
		// The HVS walks T-format tiles of Pitch/128 per row
		// (vc4_plane.c vc4_plane_mode_set: tiles_w = pitch >> 7; a
		// tile is 32 rows of 128 bytes, 32 pixels wide at 32 bpp and 64
		// at 16), the layout package texture describes. A utile's row
		// (4 pixels at 32 bpp, 8 at 16) is 16 contiguous bytes, so one
		// address serves the whole row.
		tilesW := int(f.Pitch >> 7)
		uw := texture.UtileWidth(l.cpp)
		tl, err := texture.NewLayout(texture.TFormat, l.cpp, tilesW*128/l.cpp, int(f.Height))
		if err != nil {
			return fmt.Errorf("display: a T-tiled framebuffer of pitch %d and height %d: %w", f.Pitch, f.Height, err)
		}
		for y := 0; y < h; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			for x := 0; x < w; {
				fx, fy := int(f.X)+x, int(f.Y)+y
				run := min(uw-fx%uw, w-x) // pixels left in this utile row
				o := tl.Offset(fx, fy)
				if o < 0 {
					o = len(f.Data) // outside the layout: black
				}
				convertRow(row[4*x:4*(x+run)], f.Data, o, &l)
				x += run
			}
		}
	default:
		return fmt.Errorf("display: reading modifier 0x%x is not modelled", f.Modifier)
	}
	return nil
}
