package drm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// versionDevice answers DRM_IOCTL_VERSION as drm_ioctl.c (drm_version,
// drm_copy_field) does: it copies at most *_len bytes of each string and
// writes back the full lengths.
func versionDevice(name, date, desc *string) *drmtest.Conn {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlVersion, func(v *uapi.Version) error {
		v.VersionMajor, v.VersionMinor, v.VersionPatchlevel = 0, 0, 0
		put := func(buf uint64, n *uintptr, s string) {
			copy(uapi.UserBytes(buf, int(min(*n, uintptr(len(s))))), s)
			*n = uintptr(len(s))
		}
		put(uint64(v.Name), &v.NameLen, *name)
		put(uint64(v.Date), &v.DateLen, *date)
		put(uint64(v.Desc), &v.DescLen, *desc)
		return nil
	})
	return c
}

func TestGetVersion(t *testing.T) {
	name, date, desc := "vc4", "20140616", "Broadcom VC4 graphics"
	c := versionDevice(&name, &date, &desc)
	v, err := drm.GetVersion(c)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "vc4" || v.Date != "20140616" || v.Desc != "Broadcom VC4 graphics" {
		t.Errorf("version = %+v", v)
	}
	if s := v.String(); s != "vc4 0.0.0 (20140616, Broadcom VC4 graphics)" {
		t.Errorf("String = %q", s)
	}
	if n := c.Calls(uapi.IoctlVersion); n != 2 {
		t.Errorf("%d VERSION calls, want 2", n)
	}
}

func TestGetVersionStringGrowsBetweenPasses(t *testing.T) {
	name, date, desc := "vc4", "d", "x"
	c := versionDevice(&name, &date, &desc)
	drmtest.On(c, uapi.IoctlVersion, func(v *uapi.Version) error {
		if v.Name == 0 { // first pass: lengths only
			v.NameLen, v.DateLen, v.DescLen = 3, 1, 1
			return nil
		}
		copy(uapi.UserBytes(uint64(v.Name), int(v.NameLen)), "vc4-longer")
		v.NameLen = uintptr(len("vc4-longer")) // the kernel reports the real length
		return nil
	})
	v, err := drm.GetVersion(c)
	if err != nil || v.Name != "vc4" {
		t.Fatalf("name %q, %v; want the 3 bytes that fit", v.Name, err)
	}
}

func TestErrorNamesIoctlSizesAndHint(t *testing.T) {
	c := drmtest.NewConn()
	c.Fail(uapi.IoctlModePageFlip, unix.EBUSY)
	err := drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: 41, FbID: 52, Flags: uapi.PageFlipEvent})
	var de *drm.Error
	if !errors.As(err, &de) || !errors.Is(err, unix.EBUSY) || de.Errno() != unix.EBUSY {
		t.Fatalf("err = %#v", err)
	}
	want := "DRM_IOCTL_MODE_PAGE_FLIP (24-byte argument; crtc 41, fb 52, flags 0x1): EBUSY (device or resource busy). A page flip is already pending"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message:\n got %s\nwant %s...", err, want)
	}
}

func TestHints(t *testing.T) {
	c := drmtest.NewConn()
	m := mode1080
	for _, tc := range []struct {
		name  string
		errno unix.Errno
		req   uapi.Request
		call  func() error
		hint  string // a phrase the hint must contain; "" for no hint
	}{
		{"setcrtc not master", unix.EACCES, uapi.IoctlModeSetCrtc, func() error { return drm.SetCrtc(c, 1, 2, 0, 0, []uint32{3}, &m) }, "holds DRM master"},
		{"setcrtc busy", unix.EBUSY, uapi.IoctlModeSetCrtc, func() error { return drm.SetCrtc(c, 1, 2, 0, 0, nil, nil) }, "text console"},
		{"flip not master", unix.EACCES, uapi.IoctlModePageFlip, func() error { return drm.PageFlip(c, &uapi.ModeCrtcPageFlip{}) }, "holds DRM master"},
		{"flip pending", unix.EBUSY, uapi.IoctlModePageFlip, func() error { return drm.PageFlip(c, &uapi.ModeCrtcPageFlip{}) }, "already pending"},
		{"set master taken", unix.EBUSY, uapi.IoctlSetMaster, func() error { return drm.SetMaster(c) }, "display-manager"},
		{"set master no cap", unix.EPERM, uapi.IoctlSetMaster, func() error { return drm.SetMaster(c) }, "holds DRM master"},
		{"render-only node", unix.EOPNOTSUPP, uapi.IoctlModeGetResources, func() error { _, err := drm.GetResources(c); return err }, "no modesetting"},
		{"not a DRM file", unix.ENOTTY, uapi.IoctlVersion, func() error { _, err := drm.GetVersion(c); return err }, "not a DRM device"},
		{"gem close", unix.EINVAL, uapi.IoctlGemClose, func() error { return drm.CloseHandle(c, 7) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.Fail(tc.req, tc.errno)
			err := tc.call()
			var de *drm.Error
			if !errors.As(err, &de) || !errors.Is(err, tc.errno) {
				t.Fatalf("err = %v", err)
			}
			if tc.hint == "" && de.Hint != "" || !strings.Contains(de.Hint, tc.hint) {
				t.Errorf("hint %q, want one containing %q", de.Hint, tc.hint)
			}
		})
	}
}

func TestCapsMasterPrime(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlGetCap, func(a *uapi.GetCap) error {
		if a.Capability != uapi.CapDumbBuffer {
			return unix.EINVAL
		}
		a.Value = 1
		return nil
	})
	var client uapi.SetClientCap
	drmtest.On(c, uapi.IoctlSetClientCap, func(a *uapi.SetClientCap) error { client = *a; return nil })
	master := 0
	c.OnNoArg(uapi.IoctlSetMaster, func() error { master++; return nil })
	c.OnNoArg(uapi.IoctlDropMaster, func() error { master--; return nil })
	drmtest.On(c, uapi.IoctlPrimeHandleToFD, func(a *uapi.PrimeHandle) error {
		if a.Flags != uapi.CloExec|uapi.ReadWrite {
			return unix.EINVAL
		}
		a.Fd = 12
		return nil
	})
	drmtest.On(c, uapi.IoctlPrimeFDToHandle, func(a *uapi.PrimeHandle) error { a.Handle = uint32(a.Fd) + 100; return nil })
	var closed uapi.GemClose
	drmtest.On(c, uapi.IoctlGemClose, func(a *uapi.GemClose) error { closed = *a; return nil })

	if v, err := drm.GetCapability(c, uapi.CapDumbBuffer); err != nil || v != 1 {
		t.Errorf("GetCapability = %d, %v", v, err)
	}
	if _, err := drm.GetCapability(c, uapi.CapSyncobj); !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "capability 0x13") {
		t.Errorf("unknown cap: %v", err)
	}
	if err := drm.SetClientCapability(c, uapi.ClientCapUniversalPlanes, 1); err != nil || client.Capability != 2 || client.Value != 1 {
		t.Errorf("SetClientCapability: %v, %+v", err, client)
	}
	if drm.SetMaster(c) != nil || master != 1 || drm.DropMaster(c) != nil || master != 0 {
		t.Error("SetMaster/DropMaster")
	}
	if fd, err := drm.PrimeHandleToFD(c, 5, uapi.CloExec|uapi.ReadWrite); err != nil || fd != 12 {
		t.Errorf("PrimeHandleToFD = %d, %v", fd, err)
	}
	if h, err := drm.PrimeFDToHandle(c, 12); err != nil || h != 112 {
		t.Errorf("PrimeFDToHandle = %d, %v", h, err)
	}
	if err := drm.CloseHandle(c, 5); err != nil || closed.Handle != 5 {
		t.Errorf("CloseHandle: %v, %+v", err, closed)
	}
}

func TestGetVersionRefusesImplausibleLengths(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlVersion, func(v *uapi.Version) error { v.DescLen = 1 << 20; return nil })
	if _, err := drm.GetVersion(c); err == nil || !strings.Contains(err.Error(), "implausible") || c.Calls(uapi.IoctlVersion) != 1 {
		t.Fatalf("err = %v after %d calls", err, c.Calls(uapi.IoctlVersion))
	}
}
