package display

import (
	"math"
	"syscall"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// framebuffer is a KMS framebuffer (struct drm_framebuffer made by
// drm_gem_fb_create): a format, a size, and per memory plane a BO, pitch
// and offset. It holds a reference on each BO until it is freed.
//
// Like the kernel's, it is reference counted: the owning file's list, the
// primary plane's state and the scanout each hold one. Its id stays
// valid, and findable by any file, until the last reference goes
// (drm_framebuffer_free unregisters it), even after RMFB.
type framebuffer struct {
	id            uint32
	refs          int
	owner         *clientState // the file whose list holds it, nil after RMFB
	format        *format
	width, height uint32
	flags         uint32
	modifier      uint64
	pitches       [4]uint32
	offsets       [4]uint32
	bos           [4]*kernel.BO
}

func (fb *framebuffer) get() { fb.refs++ }

// put drops a reference; the last one unregisters the id and releases the
// BOs (drm_framebuffer_free, drm_gem_fb_destroy).
func (d *Display) put(fb *framebuffer) {
	fb.refs--
	if fb.refs > 0 {
		return
	}
	delete(d.fbs, fb.id)
	for i, bo := range fb.bos {
		if bo != nil {
			bo.Put()
			fb.bos[i] = nil
		}
	}
}

// lookupFB is drm_framebuffer_lookup: any live framebuffer, whichever file
// made it.
func (d *Display) lookupFB(id uint32) *framebuffer { return d.fbs[id] }

// addFB2 is DRM_IOCTL_MODE_ADDFB2: drm_mode_addfb2 and
// drm_internal_framebuffer_create (drm_framebuffer.c), then vc4's
// fb_create (vc4_kms.c vc4_fb_create) and drm_gem_fb_init_with_funcs
// (drm_gem_framebuffer_helper.c), with their checks in their order.
func (d *Display) addFB2(cs *clientState, r *uapi.ModeFbCmd2) error {
	if r.Flags&^(uapi.FbInterlaced|uapi.FbModifiers) != 0 {
		return errorf(syscall.EINVAL, "bad framebuffer flags 0x%08x", r.Flags)
	}
	if r.Width > maxWidth {
		return errorf(syscall.EINVAL, "bad framebuffer width %d, should be >= 0 && <= %d", r.Width, maxWidth)
	}
	if r.Height > maxHeight {
		return errorf(syscall.EINVAL, "bad framebuffer height %d, should be >= 0 && <= %d", r.Height, maxHeight)
	}
	f, err := framebufferCheck(r)
	if err != nil {
		return err
	}

	// vc4_fb_create: without DRM_MODE_FB_MODIFIERS the modifier is the
	// one SET_TILING gave the first BO (linear unless T-tiled).
	modifier := r.Modifier[0]
	if r.Flags&uapi.FbModifiers == 0 {
		bo, err := cs.c.LookupBO(r.Handles[0])
		if err != nil {
			return errorf(syscall.ENOENT, "failed to look up GEM BO %d", r.Handles[0])
		}
		modifier = uapi.FormatModLinear
		if bo.TFormat() {
			modifier = uapi.FormatModBroadcomVC4TTiled
		}
		bo.Put()
	}

	// drm_gem_fb_init_with_funcs: a format and modifier some plane scans
	// out (drm_any_plane_has_format), then each plane's BO and its size.
	if !f.supports(modifier) {
		return errorf(syscall.EINVAL, "unsupported pixel format %s / modifier 0x%x", f, modifier)
	}
	fb := &framebuffer{format: f, width: r.Width, height: r.Height, flags: r.Flags, modifier: modifier,
		pitches: r.Pitches, offsets: r.Offsets}
	release := func() {
		for _, bo := range fb.bos {
			if bo != nil {
				bo.Put()
			}
		}
	}
	for i := 0; i < f.planes; i++ {
		bo, err := cs.c.LookupBO(r.Handles[i])
		if err != nil {
			release()
			return errorf(syscall.ENOENT, "failed to lookup GEM object %d for plane %d", r.Handles[i], i)
		}
		fb.bos[i] = bo
		// The size check divides without rounding up and computes in
		// unsigned int, as the kernel does.
		width, height := r.Width, r.Height
		if i > 0 {
			width /= uint32(f.hsub)
			height /= uint32(f.vsub)
		}
		minSize := (height-1)*r.Pitches[i] + width*uint32(f.cpp[i]) + r.Offsets[i]
		if bo.Size() < minSize {
			release()
			return errorf(syscall.EINVAL, "GEM object size (%d) smaller than minimum size (%d) for plane %d", bo.Size(), minSize, i)
		}
	}

	fb.id = d.newObjectID()
	fb.refs = 1 // the file's list
	fb.owner = cs
	d.fbs[fb.id] = fb
	cs.fbs = append(cs.fbs, nil)
	copy(cs.fbs[1:], cs.fbs)
	cs.fbs[0] = fb
	r.FbID = fb.id
	return nil
}

// framebufferCheck is framebuffer_check (drm_framebuffer.c): a format the
// core knows, a size, and for each memory plane a handle, a pitch that
// holds a row and fits with the offset in 32 bits, and one modifier for
// all planes, given only with DRM_MODE_FB_MODIFIERS; nothing for planes the
// format does not have.
//
// The table is vc4's formats, not the core's whole list: a format the
// core knows but no vc4 plane scans out is refused with EINVAL here rather
// than a few checks later, which differs only when one of the ERANGE
// checks below would have failed first.
func framebufferCheck(r *uapi.ModeFbCmd2) (*format, error) {
	f := lookupFormat(r.PixelFormat)
	if f == nil {
		return nil, errorf(syscall.EINVAL, "bad framebuffer format %s (a Pi 0-3's planes scan out %s)",
			fourccName(r.PixelFormat), formatList())
	}
	if r.Width == 0 {
		return nil, errorf(syscall.EINVAL, "bad framebuffer width %d", r.Width)
	}
	if r.Height == 0 {
		return nil, errorf(syscall.EINVAL, "bad framebuffer height %d", r.Height)
	}
	for i := 0; i < f.planes; i++ {
		width := f.planeWidth(r.Width, i)
		height := f.planeHeight(r.Height, i)
		minPitch := uint64(width) * uint64(f.cpp[i])
		if r.Handles[i] == 0 {
			return nil, errorf(syscall.EINVAL, "no buffer object handle for plane %d", i)
		}
		if minPitch > math.MaxUint32 {
			return nil, errorf(syscall.ERANGE, "a row of plane %d needs %d bytes, more than 32 bits hold", i, minPitch)
		}
		if uint64(height)*uint64(r.Pitches[i])+uint64(r.Offsets[i]) > math.MaxUint32 {
			return nil, errorf(syscall.ERANGE, "plane %d: %d rows of pitch %d at offset %d overflow 32 bits", i, height, r.Pitches[i], r.Offsets[i])
		}
		if uint64(r.Pitches[i]) < minPitch {
			return nil, errorf(syscall.EINVAL, "bad pitch %d for plane %d (a row of %d %s pixels is %d bytes)", r.Pitches[i], i, width, f, minPitch)
		}
		if r.Modifier[i] != 0 && r.Flags&uapi.FbModifiers == 0 {
			return nil, errorf(syscall.EINVAL, "bad fb modifier 0x%x for plane %d: modifiers need DRM_MODE_FB_MODIFIERS", r.Modifier[i], i)
		}
		if r.Flags&uapi.FbModifiers != 0 && r.Modifier[i] != r.Modifier[0] {
			return nil, errorf(syscall.EINVAL, "bad fb modifier 0x%x for plane %d: every plane needs plane 0's", r.Modifier[i], i)
		}
	}
	for i := f.planes; i < 4; i++ {
		if r.Modifier[i] != 0 {
			return nil, errorf(syscall.EINVAL, "non-zero modifier for unused plane %d", i)
		}
		// Pre-FB_MODIFIERS user space did not clear the structs.
		if r.Flags&uapi.FbModifiers == 0 {
			continue
		}
		if r.Handles[i] != 0 {
			return nil, errorf(syscall.EINVAL, "buffer object handle for unused plane %d", i)
		}
		if r.Pitches[i] != 0 {
			return nil, errorf(syscall.EINVAL, "non-zero pitch for unused plane %d", i)
		}
		if r.Offsets[i] != 0 {
			return nil, errorf(syscall.EINVAL, "non-zero offset for unused plane %d", i)
		}
	}
	return f, nil
}

// formatList names the formats for an error message.
func formatList() string {
	s := ""
	for i := range formats {
		if i > 0 {
			s += " "
		}
		s += formats[i].String()
	}
	return s
}

// rmFB is DRM_IOCTL_MODE_RMFB (drm_framebuffer.c drm_mode_rmfb): only the
// file that made the framebuffer may remove it (ENOENT otherwise, as for
// an unknown id); a framebuffer still in use is taken off the planes
// showing it (drm_framebuffer_remove).
func (d *Display) rmFB(cs *clientState, id uint32) error {
	fb := d.lookupFB(id)
	if fb == nil {
		return errorf(syscall.ENOENT, "unknown framebuffer %d", id)
	}
	if fb.owner != cs {
		return errorf(syscall.ENOENT, "framebuffer %d is not one of this file's", id)
	}
	for i, f := range cs.fbs {
		if f == fb {
			cs.fbs = append(cs.fbs[:i], cs.fbs[i+1:]...)
			break
		}
	}
	fb.owner = nil
	d.removeFB(fb)
	return nil
}

// removeFB drops a file's reference on fb after taking it off the
// primary plane if the plane's state uses it: drm_framebuffer_remove's
// atomic_remove_fb commits the plane without a framebuffer. The CRTC
// stays on, showing its background (vc4 runs an active CRTC with no
// planes), so GETCRTC reports the mode with fb 0 and PAGE_FLIP answers
// EBUSY until SETCRTC gives it a framebuffer again. That commit is a
// blocking one, so it first waits for a pending flip. A framebuffer only
// still being scanned out while a flip to another is pending is not in
// the plane's state: nothing is committed, and it lives on until that
// flip completes.
func (d *Display) removeFB(fb *framebuffer) {
	c := &d.crtc
	if fb.refs > 1 && c.fb == fb {
		d.finishPending()
		c.fb = nil
		cleanupFB(fb)
		d.put(fb)
		seq, at := c.tl.next(d.clockNow())
		d.waitUntil(at) // the commit lands at the next vblank
		d.setScan(nil, seq, at, false, false, false)
	}
	d.put(fb)
}
