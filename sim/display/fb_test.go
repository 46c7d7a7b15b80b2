package display_test

import (
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

func TestAddFB2Errors(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	// 64x64 XRGB8888 with pitch 256 needs (64-1)*256 + 64*4 = 16384
	// bytes (drm_gem_fb_init_with_funcs), exactly four pages.
	h := simrig.AllocBO(t, f, 16384)
	nv12 := uapi.Fourcc('N', 'V', '1', '2')
	rgb888 := uapi.Fourcc('R', 'G', '2', '4')
	const sand128 = uapi.FormatModVendorBroadcom<<56 | 4
	fb := func(change func(*uapi.ModeFbCmd2)) *uapi.ModeFbCmd2 {
		c := &uapi.ModeFbCmd2{Width: 64, Height: 64, PixelFormat: uapi.FormatXRGB8888}
		c.Handles[0], c.Pitches[0] = h, 256
		change(c)
		return c
	}
	for _, tc := range []struct {
		name string
		cmd  *uapi.ModeFbCmd2
		want syscall.Errno
	}{
		{"good", fb(func(c *uapi.ModeFbCmd2) {}), 0},
		{"ARGB8888", fb(func(c *uapi.ModeFbCmd2) { c.PixelFormat = uapi.FormatARGB8888 }), 0},
		{"RGB565 with half the pitch", fb(func(c *uapi.ModeFbCmd2) { c.PixelFormat, c.Pitches[0] = uapi.FormatRGB565, 128 }), 0},
		{"interlaced", fb(func(c *uapi.ModeFbCmd2) { c.Flags = uapi.FbInterlaced }), 0},
		{"T-tiled by modifier", fb(func(c *uapi.ModeFbCmd2) {
			c.Flags, c.Modifier[0] = uapi.FbModifiers, uapi.FormatModBroadcomVC4TTiled
		}), 0},
		{"linear by modifier", fb(func(c *uapi.ModeFbCmd2) { c.Flags = uapi.FbModifiers }), 0},
		{"unknown flag", fb(func(c *uapi.ModeFbCmd2) { c.Flags = 4 }), syscall.EINVAL},
		{"wider than 2048", fb(func(c *uapi.ModeFbCmd2) { c.Width, c.Pitches[0] = 2049, 2049*4 }), syscall.EINVAL},
		{"taller than 2048", fb(func(c *uapi.ModeFbCmd2) { c.Height = 2049 }), syscall.EINVAL},
		{"unknown format", fb(func(c *uapi.ModeFbCmd2) { c.PixelFormat = uapi.Fourcc('Q', 'Q', 'Q', 'Q') }), syscall.EINVAL},
		{"a format no vc4 plane scans out (XRGB2101010, BCM2711 only)", fb(func(c *uapi.ModeFbCmd2) {
			c.PixelFormat = uapi.Fourcc('X', 'R', '3', '0')
		}), syscall.EINVAL},
		{"width 0", fb(func(c *uapi.ModeFbCmd2) { c.Width = 0 }), syscall.EINVAL},
		{"height 0", fb(func(c *uapi.ModeFbCmd2) { c.Height = 0 }), syscall.EINVAL},
		{"handle 0", fb(func(c *uapi.ModeFbCmd2) { c.Handles[0] = 0 }), syscall.EINVAL},
		{"pitch below width*4", fb(func(c *uapi.ModeFbCmd2) { c.Pitches[0] = 255 }), syscall.EINVAL},
		{"pitch*height overflows 32 bits", fb(func(c *uapi.ModeFbCmd2) { c.Pitches[0] = 1 << 26 }), syscall.ERANGE},
		{"offset overflows 32 bits", fb(func(c *uapi.ModeFbCmd2) { c.Offsets[0] = 0xffffff00 }), syscall.ERANGE},
		{"modifier without the flag", fb(func(c *uapi.ModeFbCmd2) { c.Modifier[0] = uapi.FormatModBroadcomVC4TTiled }), syscall.EINVAL},
		{"modifier on an unused plane", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Modifier[1] = uapi.FbModifiers, 1 }), syscall.EINVAL},
		{"handle on an unused plane with modifiers", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Handles[1] = uapi.FbModifiers, h }), syscall.EINVAL},
		{"pitch on an unused plane with modifiers", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Pitches[2] = uapi.FbModifiers, 4 }), syscall.EINVAL},
		{"offset on an unused plane with modifiers", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Offsets[3] = uapi.FbModifiers, 4 }), syscall.EINVAL},
		{"leftovers on unused planes without modifiers", fb(func(c *uapi.ModeFbCmd2) { c.Handles[1], c.Pitches[1] = 77, 4 }), 0},
		{"NV12 planes with different modifiers", fb(func(c *uapi.ModeFbCmd2) {
			c.PixelFormat, c.Flags, c.Pitches[0] = nv12, uapi.FbModifiers, 64
			c.Handles[1], c.Pitches[1], c.Offsets[1], c.Modifier[1] = h, 64, 4096, uapi.FormatModBroadcomVC4TTiled
		}), syscall.EINVAL},
		{"NV12 without its chroma plane", fb(func(c *uapi.ModeFbCmd2) { c.PixelFormat, c.Pitches[0] = nv12, 64 }), syscall.EINVAL},
		{"NV12, two planes in one BO", fb(func(c *uapi.ModeFbCmd2) {
			c.PixelFormat, c.Pitches[0] = nv12, 64
			c.Handles[1], c.Pitches[1], c.Offsets[1] = h, 64, 4096
		}), 0},
		{"NV12 SAND128", fb(func(c *uapi.ModeFbCmd2) {
			c.PixelFormat, c.Flags, c.Pitches[0] = nv12, uapi.FbModifiers, 64
			c.Handles[1], c.Pitches[1], c.Offsets[1] = h, 64, 4096
			c.Modifier[0], c.Modifier[1] = sand128, sand128
		}), 0},
		{"XRGB8888 SAND128 (vc4_format_mod_supported)", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Modifier[0] = uapi.FbModifiers, sand128 }), syscall.EINVAL},
		{"RGB888 T-tiled (T only for 16 and 32 bpp)", fb(func(c *uapi.ModeFbCmd2) {
			c.PixelFormat, c.Pitches[0], c.Flags, c.Modifier[0] = rgb888, 192, uapi.FbModifiers, uapi.FormatModBroadcomVC4TTiled
		}), syscall.EINVAL},
		{"an Intel modifier", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Modifier[0] = uapi.FbModifiers, 1<<56|1 }), syscall.EINVAL},
		{"unknown handle, no modifiers (vc4_fb_create's lookup)", fb(func(c *uapi.ModeFbCmd2) { c.Handles[0] = 999 }), syscall.ENOENT},
		{"unknown handle with modifiers", fb(func(c *uapi.ModeFbCmd2) { c.Flags, c.Handles[0] = uapi.FbModifiers, 999 }), syscall.ENOENT},
		{"BO one byte short (offset 1)", fb(func(c *uapi.ModeFbCmd2) { c.Offsets[0] = 1 }), syscall.EINVAL},
		{"BO one row short", fb(func(c *uapi.ModeFbCmd2) { c.Height = 65 }), syscall.EINVAL},
		{"pitch*height fits though rows*pitch exceed the BO", fb(func(c *uapi.ModeFbCmd2) { c.Pitches[0] = 260 }), syscall.EINVAL},
	} {
		cmd := *tc.cmd
		err := simtest.Ioctl(f, uapi.IoctlModeAddFB2, &cmd)
		simtest.WantErrno(t, tc.name, err, tc.want)
		if err == nil && cmd.FbID == 0 {
			t.Errorf("%s: no fb id", tc.name)
		}
	}
}

func TestAddFB2TakesTheSetTilingModifier(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	h := simrig.AllocBO(t, f, 64*64*4)
	if err := gem.SetBOTiling(f, h, uapi.FormatModBroadcomVC4TTiled); err != nil {
		t.Fatal(err)
	}
	// Without DRM_MODE_FB_MODIFIERS, vc4_fb_create takes SET_TILING's.
	fb, err := drm.AddFramebuffer(f, 64, 64, uapi.FormatXRGB8888, h, 256, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	mode := smallMode(64, 64)
	setCrtc(t, f, fb, mode)
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.Modifier != uapi.FormatModBroadcomVC4TTiled {
		t.Fatalf("scanned-out modifier %#x, %v: want T-tiled from SET_TILING", fr.Modifier, err)
	}
	// A T-tiled BO cannot be made RGB888 without modifiers either.
	_, err = drm.AddFramebuffer(f, 64, 64, uapi.Fourcc('R', 'G', '2', '4'), h, 192, uapi.FormatModLinear)
	simtest.WantErrno(t, "RGB888 on a T-tiled BO", err, syscall.EINVAL)
}

// smallMode is a valid w x h mode with a one-pixel blanking and a 1 MHz
// clock: any mode passes SETCRTC, not only the connector's.
func smallMode(w, h uint16) drm.ModeInfo {
	return drm.ModeInfo{ModeModeInfo: uapi.ModeModeInfo{Clock: 1000, Hdisplay: w, HsyncStart: w, HsyncEnd: w, Htotal: w + 1,
		Vdisplay: h, VsyncStart: h, VsyncEnd: h, Vtotal: h + 1}}
}

func TestRmFB(t *testing.T) {
	r := newRig(t, display.Options{})
	f := r.open()
	other := r.open()
	a, _, _ := dumbFB(t, f, 1920, 1080)
	b, _, _ := dumbFB(t, f, 1920, 1080)
	o, _, _ := dumbFB(t, other, 1920, 1080)

	simtest.WantErrno(t, "RMFB of an unknown id", drm.RmFB(f, 5000), syscall.ENOENT)
	simtest.WantErrno(t, "RMFB of the CRTC's id", drm.RmFB(f, display.CrtcID), syscall.ENOENT)
	simtest.WantErrno(t, "RMFB of another file's", drm.RmFB(f, o), syscall.ENOENT)

	// An unused framebuffer goes at once; its id is free again and the
	// next framebuffer gets it (idr_alloc: lowest free id).
	simtest.WantErrno(t, "RMFB", drm.RmFB(f, b), 0)
	simtest.WantErrno(t, "RMFB twice", drm.RmFB(f, b), syscall.ENOENT)
	mode := modeNamed(t, f, "1920x1080@60")
	err := drm.SetCrtc(f, display.CrtcID, b, 0, 0, []uint32{display.ConnectorID}, &mode)
	simtest.WantErrno(t, "SETCRTC with a removed fb", err, syscall.ENOENT)
	b2, _, _ := dumbFB(t, f, 1920, 1080)
	if b2 != b {
		t.Fatalf("new framebuffer id %d, want the freed %d", b2, b)
	}

	// Removing the framebuffer on screen takes it off the primary plane:
	// the CRTC stays on with no framebuffer, a flip is EBUSY, and the
	// picture is black.
	setCrtc(t, f, a, mode)
	simtest.WantErrno(t, "RMFB of the fb on screen", drm.RmFB(f, a), 0)
	c, err := drm.GetCrtc(f, display.CrtcID)
	if err != nil || !c.ModeValid || c.FbID != 0 {
		t.Fatalf("CRTC after removing its fb: %+v, %v", c, err)
	}
	simtest.WantErrno(t, "PAGE_FLIP with no fb on the plane", flip(f, b2, uapi.PageFlipEvent, 0), syscall.EBUSY)
	var fr display.Frame
	if err := r.disp.ReadScanout(&fr); err != nil || fr.FbID != 0 {
		t.Fatalf("scanout after RMFB: fb %d, %v", fr.FbID, err)
	}
	setCrtc(t, f, b2, mode) // SETCRTC brings a picture back
	simtest.WantErrno(t, "PAGE_FLIP after SETCRTC", flip(f, b2, uapi.PageFlipEvent, 0), 0)
}

func TestCloseRemovesTheFilesFramebuffers(t *testing.T) {
	r := newRig(t, display.Options{})
	f, err := r.dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	fb, _, _ := dumbFB(t, f, 1920, 1080)
	setCrtc(t, f, fb, modeNamed(t, f, "1920x1080@60"))
	f.Close()
	// drm_fb_release: the fb on screen is taken off the plane; the CRTC
	// keeps its mode.
	viewer := r.open()
	c, err := drm.GetCrtc(viewer, display.CrtcID)
	if err != nil || !c.ModeValid || c.FbID != 0 {
		t.Fatalf("CRTC after its master closed: %+v, %v", c, err)
	}
	err = drm.SetCrtc(viewer, display.CrtcID, fb, 0, 0, []uint32{display.ConnectorID}, &c.Mode)
	simtest.WantErrno(t, "SETCRTC with the closed file's fb", err, syscall.ENOENT)
}
