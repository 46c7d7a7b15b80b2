package gem_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

func TestErrorHints(t *testing.T) {
	c := drmtest.NewConn()
	for _, tc := range []struct {
		name  string
		req   uapi.Request
		errno unix.Errno
		call  func() error
		want  string // phrase of the hint; "" for none
	}{
		{"CMA exhausted by CREATE_BO", uapi.IoctlCreateBO, unix.ENOMEM, func() error { _, err := gem.AllocBO(c, 16<<20); return err }, "cma-256"},
		{"CMA exhausted by SUBMIT_CL", uapi.IoctlSubmitCL, unix.ENOMEM, func() error { return gem.Submit(c, &uapi.SubmitCL{}) }, "CMA"},
		{"CMA exhausted by CREATE_SHADER_BO", uapi.IoctlCreateShaderBO, unix.ENOMEM, func() error { _, err := gem.AllocShaderBO(c, make([]byte, 8)); return err }, "cma-size"},
		{"Pi 4/5 display-only", uapi.IoctlCreateBO, unix.EINVAL, func() error { _, err := gem.AllocBO(c, 4096); return err }, "Raspberry Pi 4 or 5"},
		{"no V3D", uapi.IoctlGetParam, unix.ENODEV, func() error { _, err := gem.Param(c, uapi.ParamV3DIdent0); return err }, "no V3D"},
		{"validator", uapi.IoctlSubmitCL, unix.EINVAL, func() error { return gem.Submit(c, &uapi.SubmitCL{}) }, "validator"},
		{"shader validator", uapi.IoctlCreateShaderBO, unix.EINVAL, func() error { _, err := gem.AllocShaderBO(c, make([]byte, 8)); return err }, "multiple of 8"},
		{"timeout", uapi.IoctlWaitSeqno, unix.ETIME, func() error { return gem.WaitForSeqno(c, &uapi.WaitSeqno{Seqno: 3}) }, "did not finish"},
		{"hang state root only", uapi.IoctlGetHangState, unix.EACCES, func() error { _, err := gem.GetHangStateReport(c); return err }, "root"},
		{"no hang", uapi.IoctlGetHangState, unix.ENOENT, func() error { _, err := gem.GetHangStateReport(c); return err }, "No GPU hang"},
		{"interrupted wait needs no hint", uapi.IoctlWaitBO, unix.EFAULT, func() error { return gem.WaitForBO(c, &uapi.WaitBO{}) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.Fail(tc.req, tc.errno)
			err := tc.call()
			var de *drm.Error
			if !errors.As(err, &de) || !errors.Is(err, tc.errno) {
				t.Fatalf("err = %v", err)
			}
			if tc.want == "" && de.Hint != "" || !strings.Contains(de.Hint, tc.want) {
				t.Errorf("hint = %q, want one containing %q", de.Hint, tc.want)
			}
			if !strings.HasPrefix(err.Error(), uapi.IoctlName(tc.req)+" (") {
				t.Errorf("message %q does not start with the ioctl's name", err)
			}
		})
	}
}

func TestSubmitErrorDescribesTheJob(t *testing.T) {
	c := drmtest.NewConn()
	c.Fail(uapi.IoctlSubmitCL, unix.EINVAL)
	s := &uapi.SubmitCL{BinCLSize: 64, ShaderRecCount: 1, ShaderRecSize: 48, UniformsSize: 20, BOHandleCount: 6,
		Width: 1920, Height: 1080, MaxXTile: 29, MaxYTile: 16, Flags: uapi.SubmitUseClearColor}
	err := gem.Submit(c, s)
	want := "DRM_IOCTL_VC4_SUBMIT_CL (176-byte argument; bin CL 64 bytes, 1 shader records in 48 bytes, uniforms 20 bytes, " +
		"6 BOs, 1920x1080, tiles 0,0-29,16, flags 0x1): EINVAL (invalid argument). The kernel's validator refused it"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message\n got %s\nwant %s...", err, want)
	}
}

func TestHangStateTwoPasses(t *testing.T) {
	c := drmtest.NewConn()
	calls := 0
	// As vc4_get_hang_state_ioctl: with too small an array only bo_count
	// is written; otherwise the whole state and the BO array.
	drmtest.On(c, uapi.IoctlGetHangState, func(a *uapi.GetHangState) error {
		calls++
		if a.BOCount < 2 {
			a.BOCount = 2
			return nil
		}
		bos := uapi.UserSlice[uapi.GetHangStateBO](a.BO, 2)
		bos[0] = uapi.GetHangStateBO{Handle: 40, Paddr: 0x3e000000, Size: 4096}
		bos[1] = uapi.GetHangStateBO{Handle: 41, Paddr: 0x3e001000, Size: 8192}
		a.BOCount, a.Ct0ca, a.Errstat = 2, 0x3e000010, 0x1000
		return nil
	})
	r, err := gem.GetHangStateReport(c)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || len(r.BOs) != 2 || r.BOs[1].Handle != 41 || r.BOs[1].Size != 8192 || r.State.Ct0ca != 0x3e000010 || r.State.Errstat != 0x1000 {
		t.Errorf("%d calls, report %+v", calls, r)
	}
}

func TestParamTilingLabelMadvise(t *testing.T) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlGetParam, func(a *uapi.GetParam) error {
		if a.Pad != 0 || a.Param > uapi.ParamSupportsPerfmon {
			return unix.EINVAL
		}
		a.Value = 1
		return nil
	})
	var tiling uapi.SetTiling
	drmtest.On(c, uapi.IoctlSetTiling, func(a *uapi.SetTiling) error { tiling = *a; return nil })
	drmtest.On(c, uapi.IoctlGetTiling, func(a *uapi.GetTiling) error {
		if a.Flags != 0 || a.Modifier != 0 {
			return unix.EINVAL // vc4_get_tiling_ioctl wants both 0 on input
		}
		a.Modifier = uapi.FormatModBroadcomVC4TTiled
		return nil
	})
	var label string
	drmtest.On(c, uapi.IoctlLabelBO, func(a *uapi.LabelBO) error {
		// As vc4_label_bo_ioctl does: strndup_user(name, len + 1) needs
		// a NUL within len + 1 bytes.
		b := uapi.UserBytes(a.Name, int(a.Len)+1)
		if b[a.Len] != 0 {
			return syscall.EINVAL
		}
		label = string(b[:a.Len])
		return nil
	})
	drmtest.On(c, uapi.IoctlGemMadvise, func(a *uapi.GemMadvise) error {
		a.Retained = 1
		if a.Madv == uapi.MadvWillNeed {
			a.Retained = 0 // purged while it was DONTNEED
		}
		return nil
	})
	if v, err := gem.Param(c, uapi.ParamSupportsThreadedFS); err != nil || v != 1 {
		t.Errorf("Param = %d, %v", v, err)
	}
	if _, err := gem.Param(c, 99); !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "param 99") {
		t.Errorf("unknown param: %v", err)
	}
	if err := gem.SetBOTiling(c, 7, uapi.FormatModBroadcomVC4TTiled); err != nil || tiling.Handle != 7 || tiling.Modifier != 0x0700000000000001 {
		t.Errorf("SetBOTiling: %v, %+v", err, tiling)
	}
	if m, err := gem.BOTiling(c, 7); err != nil || m != uapi.FormatModBroadcomVC4TTiled {
		t.Errorf("BOTiling = %x, %v", m, err)
	}
	if err := gem.Label(c, 7, "vccube texture"); err != nil || label != "vccube texture" {
		t.Errorf("Label: %v, kernel read %q", err, label)
	}
	if err := gem.Label(c, 7, ""); err == nil || c.Calls(uapi.IoctlLabelBO) != 1 {
		t.Error("an empty label must be refused before the ioctl")
	}
	if r, err := gem.Madvise(c, 7, uapi.MadvDontNeed); err != nil || !r {
		t.Errorf("Madvise DONTNEED = %v, %v", r, err)
	}
	if r, err := gem.Madvise(c, 7, uapi.MadvWillNeed); err != nil || r {
		t.Errorf("Madvise WILLNEED = %v, %v", r, err)
	}
}

func TestPerfmon(t *testing.T) {
	c := drmtest.NewConn()
	var created uapi.PerfmonCreate
	drmtest.On(c, uapi.IoctlPerfmonCreate, func(a *uapi.PerfmonCreate) error { created = *a; a.ID = 3; return nil })
	drmtest.On(c, uapi.IoctlPerfmonGetValues, func(a *uapi.PerfmonGetValues) error {
		if a.ID != 3 {
			return unix.EINVAL
		}
		// The kernel writes exactly ncounters values (vc4_perfmon.c).
		v := uapi.UserSlice[uint64](a.ValuesPtr, int(created.Ncounters))
		for i := range v {
			v[i] = uint64(100 + i)
		}
		return nil
	})
	destroyed := 0
	drmtest.On(c, uapi.IoctlPerfmonDestroy, func(a *uapi.PerfmonDestroy) error { destroyed++; return nil })
	p, err := gem.NewPerfmon(c, uapi.PerfcntFEPValidQuads, uapi.PerfcntQPUTotalIdleCycles)
	if err != nil || p.ID() != 3 || created.Ncounters != 2 || created.Events[1] != uapi.PerfcntQPUTotalIdleCycles {
		t.Fatalf("NewPerfmon: %v, kernel saw %+v", err, created)
	}
	if v, err := p.Values(); err != nil || len(v) != 2 || v[1] != 101 {
		t.Errorf("Values = %v, %v", v, err)
	}
	if p.Close() != nil || p.Close() != nil || destroyed != 1 {
		t.Errorf("perfmon destroyed %d times, want 1", destroyed)
	}
	if _, err := gem.NewPerfmon(c, uapi.PerfcntNumEvents); err == nil {
		t.Error("an event id out of range must be refused")
	}
	if _, err := gem.NewPerfmon(c, make([]uint8, uapi.MaxPerfCounters+1)...); err == nil {
		t.Error("more than MaxPerfCounters events must be refused")
	}
	if n := c.Calls(uapi.IoctlPerfmonCreate); n != 1 {
		t.Errorf("bad perfmons reached the kernel: %d calls", n)
	}
}
