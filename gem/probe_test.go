package gem_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// device answers DRM_IOCTL_VERSION with driver and GET_PARAM with ident
// registers, or with paramErr.
func device(driver string, paramErr error, idents ...uint64) *drmtest.Conn {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlVersion, func(v *uapi.Version) error {
		copy(uapi.UserBytes(uint64(v.Name), int(v.NameLen)), driver)
		v.NameLen = uintptr(len(driver))
		return nil
	})
	drmtest.On(c, uapi.IoctlGetParam, func(a *uapi.GetParam) error {
		if paramErr != nil {
			return paramErr
		}
		a.Value = idents[a.Param]
		return nil
	})
	return c
}

// A VideoCore IV as a Pi 3 would report it: IDENT0 'V3D' version 2;
// IDENT1 built from the fields of vc4_regs.h for 12 KiB VPM, 16
// semaphores, 2 TMUs and 4 QPUs per slice, 3 slices, revision 1.
const ident1 = 0xC<<28 | 16<<16 | 2<<12 | 4<<8 | 3<<4 | 1

func TestProbeVideoCoreIV(t *testing.T) {
	info, err := gem.ProbeV3D(device("vc4", nil, 0x02443356, ident1, 0x123))
	if err != nil {
		t.Fatal(err)
	}
	want := gem.V3DInfo{Ident0: 0x02443356, Ident1: ident1, Ident2: 0x123, TechVersion: 2, Revision: 1,
		Slices: 3, QPUsPerSlice: 4, TMUsPerSlice: 2, Semaphores: 16, VPMSizeKiB: 12}
	if info != want {
		t.Errorf("info = %+v\nwant %+v", info, want)
	}
	if s := info.String(); s != "VideoCore IV 3D (V3D 2.1): 3 slices of 4 QPUs (12 QPUs), 2 TMUs per slice, 12 KiB VPM, 16 semaphores" {
		t.Errorf("String = %q", s)
	}
}

func TestProbeSaysWhyNot(t *testing.T) {
	for _, tc := range []struct {
		name  string
		conn  *drmtest.Conn
		errno error
		want  string
	}{
		{"Pi 4/5 display-only vc4", device("vc4", unix.EINVAL), unix.EINVAL, "display-only vc4"},
		{"no V3D bound", device("vc4", unix.ENODEV), unix.ENODEV, "vc4 without a V3D"},
		{"v3d card", device("v3d", nil), nil, "Raspberry Pi 4 or 5"},
		{"another driver", device("vkms", nil), nil, `the driver is "vkms", not vc4`},
		{"wrong IDENT0", device("vc4", nil, 0x03443356, 0, 0), nil, "not a VideoCore IV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gem.ProbeV3D(tc.conn)
			var pe *gem.ProbeError
			if !errors.As(err, &pe) || !errors.Is(err, gem.ErrNoVideoCoreIV) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want a ProbeError saying %q", err, tc.want)
			}
			if tc.errno != nil && !errors.Is(err, tc.errno) {
				t.Errorf("err does not unwrap to %v", tc.errno)
			}
		})
	}
	c := drmtest.NewConn()
	c.Fail(uapi.IoctlVersion, unix.ENOTTY)
	if _, err := gem.ProbeV3D(c); !errors.Is(err, gem.ErrNoVideoCoreIV) || !strings.Contains(err.Error(), "not a DRM device") {
		t.Errorf("not a DRM device: %v", err)
	}
}

func TestOpenVC4ListsWhatItFound(t *testing.T) {
	_, _, _, err := gem.OpenVC4(t.TempDir())
	var nc *drm.NoCardError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "no DRM card in") || !strings.Contains(err.Error(), "vc4-kms-v3d") {
		t.Errorf("empty dir: %v", err)
	}
}
