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

// convertRow converts the 32-bit pixels of data from offset o into the
// RGBA pixels of dst: red at byte ri, green at 1, blue at bi, alpha 255.
// Pixels past the end of data are black.
func convertRow(dst, data []byte, o, ri, bi int) {
	n := len(dst) / 4
	have := 0
	if o >= 0 && o < len(data) {
		have = min(n, (len(data)-o)/4)
	}
	if have > 0 {
		src := data[o : o+4*have]
		for i := 0; i < have; i++ {
			s, d := src[4*i:4*i+4], dst[4*i:4*i+4]
			d[0], d[1], d[2], d[3] = s[ri], s[1], s[bi], 0xff
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
// mode's size, without allocating. The 32-bit RGB formats are converted,
// linear or T-tiled: the colour is the framebuffer's red, green and blue
// and the alpha 255, which is what the HVS sends for a primary plane over
// the CRTC's black background (a format with alpha is blended as
// premultiplied, vc4_plane.c vc4_hvs4_get_alpha_blend_mode, so its
// colour passes unchanged). Pixels the BO does not reach come out black.
// A frame without a framebuffer is all black. Other formats are an error:
// their colour conversion is not modelled.
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
	// Byte order of a little-endian 32-bit pixel in memory: XRGB8888 is
	// B, G, R, X and XBGR8888 is R, G, B, X (drm_fourcc.h).
	var ri, bi int
	switch f.Format {
	case uapi.FormatXRGB8888, uapi.FormatARGB8888:
		ri, bi = 2, 0
	case uapi.Fourcc('X', 'B', '2', '4'), uapi.Fourcc('A', 'B', '2', '4'):
		ri, bi = 0, 2
	default:
		return fmt.Errorf("display: converting %s pixels to RGB is not modelled (only XR24, AR24, XB24 and AB24 are); use Frame.Data", fourccName(f.Format))
	}
	switch modFamily(f.Modifier) {
	case modLinear:
		pitch := int(f.Pitch)
		for y := 0; y < h; y++ {
			o := (int(f.Y)+y)*pitch + 4*int(f.X)
			convertRow(img.Pix[y*img.Stride:y*img.Stride+4*w], f.Data, o, ri, bi)
		}
	case modTTiled:
		// The HVS walks T-format tiles of Pitch/128 per row
		// (vc4_plane.c vc4_plane_mode_set: tiles_w = pitch >> 7), the
		// layout package texture describes. A utile's row of 4 pixels is
		// 16 contiguous bytes, so one address serves four pixels.
		tilesW := int(f.Pitch >> 7)
		l, err := texture.NewLayout(texture.TFormat, 4, tilesW*32, int(f.Height))
		if err != nil {
			return fmt.Errorf("display: a T-tiled framebuffer of pitch %d and height %d: %w", f.Pitch, f.Height, err)
		}
		for y := 0; y < h; y++ {
			row := img.Pix[y*img.Stride : y*img.Stride+4*w]
			for x := 0; x < w; {
				fx, fy := int(f.X)+x, int(f.Y)+y
				run := min(4-fx%4, w-x) // pixels left in this utile row
				o := l.Offset(fx, fy)
				if o < 0 {
					o = len(f.Data) // outside the layout: black
				}
				convertRow(row[4*x:4*(x+run)], f.Data, o, ri, bi)
				x += run
			}
		}
	default:
		return fmt.Errorf("display: reading modifier 0x%x is not modelled", f.Modifier)
	}
	return nil
}
