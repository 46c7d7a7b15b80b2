package gem_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// vc4Device is a fake of the vc4 GEM ioctls, holding BOs by handle.
type vc4Device struct {
	*drmtest.Conn
	next    uint32
	bos     map[uint32][]byte // handle -> contents
	shader  map[uint32]bool
	closed  map[uint32]int // GEM_CLOSE calls per handle
	mapProt map[uint32]int
}

func newVC4Device() *vc4Device {
	d := &vc4Device{Conn: drmtest.NewConn(), next: 1, bos: map[uint32][]byte{}, shader: map[uint32]bool{},
		closed: map[uint32]int{}, mapProt: map[uint32]int{}}
	drmtest.On(d.Conn, uapi.IoctlCreateBO, func(a *uapi.CreateBO) error {
		if a.Size == 0 {
			return unix.EINVAL
		}
		a.Handle = d.newBO(make([]byte, (a.Size+4095)&^4095))
		return nil
	})
	drmtest.On(d.Conn, uapi.IoctlCreateShaderBO, func(a *uapi.CreateShaderBO) error {
		if a.Size == 0 || a.Size%8 != 0 || a.Flags != 0 || a.Pad != 0 {
			return unix.EINVAL
		}
		mem := make([]byte, (a.Size+4095)&^4095)
		copy(mem, uapi.UserBytes(a.Data, int(a.Size))) // copy_from_user of the code
		a.Handle = d.newBO(mem)
		d.shader[a.Handle] = true
		return nil
	})
	drmtest.On(d.Conn, uapi.IoctlMmapBO, func(a *uapi.MmapBO) error {
		if d.bos[a.Handle] == nil {
			return unix.EINVAL
		}
		a.Offset = uint64(a.Handle) << 32
		return nil
	})
	drmtest.On(d.Conn, uapi.IoctlGemClose, func(a *uapi.GemClose) error {
		d.closed[a.Handle]++
		if d.bos[a.Handle] == nil {
			return unix.EINVAL
		}
		delete(d.bos, a.Handle)
		return nil
	})
	return d
}

func (d *vc4Device) newBO(mem []byte) uint32 {
	h := d.next
	d.next++
	d.bos[h] = mem
	d.Map(uint64(h)<<32, mem)
	return h
}

func TestBOLifecycle(t *testing.T) {
	d := newVC4Device()
	bo, err := gem.NewBO(d, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if bo.Handle() != 1 || bo.Size() != 5000 || bo.IsShader() || bo.Bytes() != nil {
		t.Errorf("new BO: handle %d size %d", bo.Handle(), bo.Size())
	}
	m, err := bo.Map()
	if err != nil || len(m) != 5000 {
		t.Fatalf("Map: %d bytes, %v", len(m), err)
	}
	m[4999] = 0xAB
	if d.bos[1][4999] != 0xAB {
		t.Error("the mapping is not the BO's memory")
	}
	if m2, err := bo.Map(); err != nil || &m2[0] != &m[0] || d.Calls(uapi.IoctlMmapBO) != 1 {
		t.Error("a second Map must return the same mapping without a new MMAP_BO")
	}
	if err := bo.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bo.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if d.closed[1] != 1 || d.Unmaps() != 1 || d.Mapped() != 0 {
		t.Errorf("GEM_CLOSE %d times, munmap %d times, %d live mappings; want 1, 1, 0", d.closed[1], d.Unmaps(), d.Mapped())
	}
	if _, err := bo.Map(); err == nil {
		t.Error("Map after Close must fail")
	}
	var nilBO *gem.BO
	if err := nilBO.Close(); err != nil {
		t.Errorf("nil BO Close = %v", err)
	}
}

func TestBOCloseOnErrorPath(t *testing.T) {
	d := newVC4Device()
	bo, err := gem.NewBO(d, 4096)
	if err != nil {
		t.Fatal(err)
	}
	d.Fail(uapi.IoctlMmapBO, unix.EINVAL) // e.g. a purged BO
	if _, err := bo.Map(); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("Map = %v", err)
	}
	if err := bo.Close(); err != nil || d.closed[1] != 1 || d.Unmaps() != 0 {
		t.Errorf("Close after a failed Map: %v, GEM_CLOSE %d, munmap %d; want nil, 1, 0", err, d.closed[1], d.Unmaps())
	}

	// A failed GEM_CLOSE is reported once; the handle is not retried.
	bo2, _ := gem.NewBO(d, 4096)
	d.Fail(uapi.IoctlGemClose, unix.EINVAL)
	if err := bo2.Close(); !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "DRM_IOCTL_GEM_CLOSE") {
		t.Errorf("Close = %v", err)
	}
	if err := bo2.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestShaderBO(t *testing.T) {
	d := newVC4Device()
	// Two QPU instructions: a NOP (0x100009E7_009E7000, Mesa vc4_qpu.c
	// qpu_NOP; doc/kernel.md#program-end) and a program end, as little-endian 64-bit words.
	code := []byte{0x00, 0x70, 0x9e, 0x00, 0xe7, 0x09, 0x00, 0x10, 0x00, 0x70, 0x9e, 0x00, 0xe7, 0x09, 0x00, 0x30}
	bo, err := gem.NewShaderBO(d, code)
	if err != nil {
		t.Fatal(err)
	}
	if !bo.IsShader() || string(d.bos[bo.Handle()][:16]) != string(code) {
		t.Errorf("the kernel did not receive the code: % x", d.bos[bo.Handle()][:16])
	}
	for _, bad := range [][]byte{nil, code[:12]} {
		if _, err := gem.NewShaderBO(d, bad); !errors.Is(err, unix.EINVAL) || !strings.Contains(err.Error(), "8-byte instructions") {
			t.Errorf("%d bytes: %v", len(bad), err)
		}
	}
	if n := d.Calls(uapi.IoctlCreateShaderBO); n != 1 {
		t.Errorf("bad code reached the kernel: %d calls", n)
	}
	bo.Close()
}

func TestPerFrameCallsDoNotAllocate(t *testing.T) {
	d := newVC4Device()
	drmtest.On(d.Conn, uapi.IoctlSubmitCL, func(a *uapi.SubmitCL) error { a.Seqno++; return nil })
	drmtest.On(d.Conn, uapi.IoctlWaitSeqno, func(a *uapi.WaitSeqno) error { return nil })
	drmtest.On(d.Conn, uapi.IoctlWaitBO, func(a *uapi.WaitBO) error { return nil })
	bo, err := gem.NewBO(d, 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer bo.Close()
	submit := &uapi.SubmitCL{BOHandleCount: 1}
	wait := &uapi.WaitSeqno{TimeoutNs: gem.Timeout(time.Second)}
	waitBO := &uapi.WaitBO{Handle: bo.Handle()}
	allocs := testing.AllocsPerRun(100, func() {
		if err := gem.Submit(d, submit); err != nil {
			t.Fatal(err)
		}
		wait.Seqno = submit.Seqno
		if err := gem.WaitForSeqno(d, wait); err != nil {
			t.Fatal(err)
		}
		if err := gem.WaitForBO(d, waitBO); err != nil {
			t.Fatal(err)
		}
		if err := bo.Wait(time.Second); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Submit + WaitForSeqno + WaitForBO + BO.Wait allocate %.1f times per frame", allocs)
	}
	if submit.Seqno < 100 {
		t.Errorf("seqno not written back: %d", submit.Seqno)
	}
}

func TestTimeout(t *testing.T) {
	if gem.Timeout(-1) != ^uint64(0) || gem.Timeout(0) != 0 || gem.Timeout(time.Millisecond) != 1_000_000 {
		t.Error("Timeout conversion")
	}
}
