package present

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// bytesPerPixel is the size of an XRGB8888 pixel, the one scanout format
// vccube uses: a little-endian 32-bit word x:R:G:B (drm_fourcc.h,
// DRM_FORMAT_XRGB8888), i.e. the bytes B, G, R, x in memory.
const bytesPerPixel = 4

// Buffer is a scanout buffer of the display's size in XRGB8888 with its
// framebuffer: a GEM buffer of the renderer's (AddGEMBuffer) or a dumb
// buffer the CPU fills (NewDumbBuffer).
type Buffer struct {
	FbID          uint32 // the KMS framebuffer
	Handle        uint32 // the GEM handle on the display's device
	Width, Height uint32 // pixels
	Pitch         uint32 // bytes from one row to the next
	Modifier      uint64 // uapi.FormatModLinear or uapi.FormatModBroadcomVC4TTiled
	// Pixels is the CPU mapping of a dumb buffer (Pitch*Height bytes and
	// more), nil for a GEM buffer of the renderer's.
	Pixels []byte

	mapping []byte // the whole mapping of a dumb buffer, for Munmap
	dumb    bool
	state   bufferState // the Swapchain's bookkeeping
}

// AddGEMBuffer registers a framebuffer of the display's size for GEM
// buffer handle of the display's own device (a vc4 BO the renderer draws
// into, on the vc4 card): XRGB8888, pitch bytes per row, and modifier
// uapi.FormatModLinear or uapi.FormatModBroadcomVC4TTiled (the VideoCore
// IV's T-format; then pitch is the tiled image's row pitch as vc4's
// ADDFB2 checks it). The BO stays the caller's; Restore removes the
// framebuffer.
func (d *Display) AddGEMBuffer(handle, pitch uint32, modifier uint64) (*Buffer, error) {
	w, h := d.Size()
	if pitch < w*bytesPerPixel {
		return nil, fmt.Errorf("present: a pitch of %d bytes is too small for %d XRGB8888 pixels per row (at least %d)",
			pitch, w, w*bytesPerPixel)
	}
	fb, err := d.addFB(w, h, handle, pitch, modifier)
	if err != nil {
		return nil, err
	}
	return &Buffer{FbID: fb, Handle: handle, Width: w, Height: h, Pitch: pitch, Modifier: modifier}, nil
}

// NewDumbBuffer allocates a dumb buffer of the display's size on the
// display's device (DRM_IOCTL_MODE_CREATE_DUMB, 32 bits per pixel), maps
// it, and registers it as an XRGB8888 framebuffer. This is the scanout
// buffer when the display is not the GPU's card: frames are copied into
// it with CopyFrom. Close frees it.
func (d *Display) NewDumbBuffer() (*Buffer, error) {
	w, h := d.Size()
	d.mu.Lock()
	closed := d.restored
	d.mu.Unlock()
	if closed {
		return nil, ErrRestored
	}
	db, err := drm.CreateDumb(d.conn, w, h, 32)
	if err != nil {
		return nil, fmt.Errorf("present: allocating a %dx%d scanout buffer: %w", w, h, err)
	}
	b := &Buffer{Handle: db.Handle, Width: w, Height: h, Pitch: db.Pitch, dumb: true}
	fail := func(err error) (*Buffer, error) {
		return nil, errors.Join(err, b.free(d.conn))
	}
	// The kernel picks the pitch (at least width*4, drivers may pad it)
	// and the size (pitch*height rounded up to pages); a reply that
	// cannot hold the image would make CopyFrom write out of bounds, and
	// one of 2 GiB or more has no int length on a 32-bit Pi.
	if db.Pitch < w*bytesPerPixel || db.Size < uint64(db.Pitch)*uint64(h) || db.Size >= 1<<31 {
		return fail(fmt.Errorf("present: the device answered CREATE_DUMB %dx%d with pitch %d and size %d, which cannot hold the image or be mapped",
			w, h, db.Pitch, db.Size))
	}
	off, err := drm.MapDumb(d.conn, db.Handle)
	if err != nil {
		return fail(fmt.Errorf("present: %w", err))
	}
	m, err := d.conn.Mmap(off, int(db.Size), unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		return fail(fmt.Errorf("present: mapping the %d-byte scanout buffer: %w", db.Size, err))
	}
	b.mapping, b.Pixels = m, m[:int(db.Pitch)*int(h)]
	// A new dumb buffer reads as zeros without having pages of its own;
	// writing it once now takes the page faults here rather than in the
	// first frames, where they cost a vblank on a slow CPU.
	clear(b.mapping)
	fb, err := d.addFB(w, h, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil {
		return fail(err)
	}
	b.FbID = fb
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		// Close ran meanwhile: it freed the list, so free this one here.
		return fail(ErrRestored)
	}
	d.dumbs = append(d.dumbs, b)
	return b, nil
}

// addFB registers a framebuffer and remembers it for Restore.
func (d *Display) addFB(w, h, handle, pitch uint32, modifier uint64) (uint32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.restored {
		return 0, ErrRestored
	}
	fb, err := drm.AddFramebuffer(d.conn, w, h, uapi.FormatXRGB8888, handle, pitch, modifier)
	if err != nil {
		return 0, fmt.Errorf("present: %w", err)
	}
	d.fbs = append(d.fbs, fb)
	return fb, nil
}

// free unmaps and destroys a dumb buffer (its framebuffer is Restore's).
func (b *Buffer) free(c uapi.Conn) error {
	var errs []error
	if b.mapping != nil {
		if err := c.Munmap(b.mapping); err != nil {
			errs = append(errs, fmt.Errorf("present: unmapping scanout buffer %d: %w", b.Handle, err))
		}
		b.mapping, b.Pixels = nil, nil
	}
	if b.dumb && b.Handle != 0 {
		if err := drm.DestroyDumb(c, b.Handle); err != nil {
			errs = append(errs, fmt.Errorf("present: %w", err))
		}
		b.Handle = 0
	}
	return errors.Join(errs...)
}

// CopyFrom copies a finished frame into the buffer: src holds the
// buffer's Height rows of Width XRGB8888 pixels, srcPitch bytes apart
// (the renderer's colour buffer, raster order). Rows are copied one by one
// because the two pitches may differ. It allocates nothing; it fails,
// copying nothing, when the buffer has no CPU mapping or src is too short.
func (b *Buffer) CopyFrom(src []byte, srcPitch int) error {
	if b.Pixels == nil {
		return errors.New("present: CopyFrom needs a dumb buffer (this buffer has no CPU mapping, or was freed)")
	}
	row := int(b.Width) * bytesPerPixel
	h := int(b.Height)
	if srcPitch < row {
		return fmt.Errorf("present: a source pitch of %d bytes is shorter than a row of %d pixels (%d bytes)", srcPitch, b.Width, row)
	}
	if need := (h-1)*srcPitch + row; len(src) < need {
		return fmt.Errorf("present: the source frame has %d bytes; %d rows of pitch %d need %d", len(src), h, srcPitch, need)
	}
	dst, pitch := b.Pixels, int(b.Pitch)
	if pitch == srcPitch {
		copy(dst[:(h-1)*pitch+row], src)
		return nil
	}
	for y := 0; y < h; y++ {
		copy(dst[y*pitch:y*pitch+row], src[y*srcPitch:y*srcPitch+row])
	}
	return nil
}
