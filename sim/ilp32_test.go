package sim_test

import (
	"bytes"
	"math/bits"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

// memory32 is a 32-bit process's memory for the tests: a buffer at a
// fixed address below 4 GiB. Every access is recorded; one outside the
// buffer is EFAULT, as in a process with nothing mapped there.
type memory32 struct {
	base  uint64
	buf   []byte
	addrs []uint64
}

func (m *memory32) span(addr uint64, n int) ([]byte, error) {
	m.addrs = append(m.addrs, addr)
	if addr < m.base || addr+uint64(n) > m.base+uint64(len(m.buf)) {
		return nil, syscall.EFAULT
	}
	return m.buf[addr-m.base : addr-m.base+uint64(n)], nil
}

func (m *memory32) CopyFromUser(dst []byte, addr uint64) error {
	b, err := m.span(addr, len(dst))
	copy(dst, b)
	return err
}

func (m *memory32) CopyToUser(addr uint64, src []byte) error {
	b, err := m.span(addr, len(src))
	copy(b, src)
	return err
}

func skipOn32(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("on a 32-bit host the simulated kernel is itself 32-bit: nothing is translated")
	}
}

// A 32-bit program's DRM_IOCTL_VERSION (0xc0246400, a 36-byte struct
// with 4-byte size_t and pointers: uapi/testdata/uapi-layouts/armhf.txt)
// answers as a 64-bit program's does: the same numbers, lengths and
// strings, written at its 32-bit addresses.
func TestILP32Version(t *testing.T) {
	skipOn32(t)
	d := newDevice(t, sim.Options{})
	mem := &memory32{base: 0x7e000000, buf: make([]byte, 256)}
	f32, err := d.OpenWith(sim.OpenOptions{Render: true, ILP32: true, User: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer f32.Close()
	v32 := uapi.Version32{NameLen: 16, Name: 0x7e000000, DateLen: 16, Date: 0x7e000040, DescLen: 64, Desc: 0x7e000080}
	if err := f32.Ioctl(uapi.IoctlVersion32, unsafe.Pointer(&v32)); err != nil {
		t.Fatalf("VERSION (32-bit): %v", err)
	}

	f64 := open(t, d)
	var name, date, desc [64]byte
	v := uapi.Version{NameLen: 64, Name: uintptr(unsafe.Pointer(&name)), DateLen: 64, Date: uintptr(unsafe.Pointer(&date)),
		DescLen: 64, Desc: uintptr(unsafe.Pointer(&desc))}
	if err := simtest.Ioctl(f64, uapi.IoctlVersion, &v); err != nil {
		t.Fatalf("VERSION (64-bit): %v", err)
	}
	if v32.VersionMajor != v.VersionMajor || v32.VersionMinor != v.VersionMinor || v32.VersionPatchlevel != v.VersionPatchlevel {
		t.Errorf("32-bit version %d.%d.%d, 64-bit %d.%d.%d", v32.VersionMajor, v32.VersionMinor, v32.VersionPatchlevel,
			v.VersionMajor, v.VersionMinor, v.VersionPatchlevel)
	}
	for _, s := range []struct {
		what     string
		n32, at  uint32
		n64      uintptr
		want     []byte
		capacity uint32
	}{
		{"name", v32.NameLen, 0x00, v.NameLen, name[:], 16},
		{"date", v32.DateLen, 0x40, v.DateLen, date[:], 16},
		{"desc", v32.DescLen, 0x80, v.DescLen, desc[:], 64},
	} {
		if uintptr(s.n32) != s.n64 || s.n64 == 0 {
			t.Errorf("%s: length %d for the 32-bit program, %d for the 64-bit one", s.what, s.n32, s.n64)
			continue
		}
		n := min(s.n32, s.capacity)
		if got, want := mem.buf[s.at:s.at+n], s.want[:n]; !bytes.Equal(got, want) {
			t.Errorf("%s: %q at the 32-bit address, want %q", s.what, got, want)
		}
	}
}

// The u64 user pointers of the uAPI (here GETRESOURCES's arrays) reach a
// 32-bit program's memory through their low 32 bits, as on a 32-bit
// kernel (u64_to_user_ptr casts through uintptr_t); a 64-bit program's
// pointer is taken whole.
func TestILP32UserPointers(t *testing.T) {
	skipOn32(t)
	disp := display.New(display.Options{})
	t.Cleanup(func() { disp.Close() })
	d := newDevice(t, sim.Options{Display: disp})
	mem := &memory32{base: 0x10000, buf: make([]byte, 64)}
	res := uapi.ModeCardRes{CountCrtcs: 1, CrtcIDPtr: 0xffff_0000_0001_0000}
	f64, err := d.OpenWith(sim.OpenOptions{User: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer f64.Close()
	simtest.WantErrno(t, "GETRESOURCES (64-bit) with a pointer past 4 GiB", simtest.Ioctl(f64, uapi.IoctlModeGetResources, &res), syscall.EFAULT)

	f32, err := d.OpenWith(sim.OpenOptions{User: mem, ILP32: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f32.Close()
	res = uapi.ModeCardRes{CountCrtcs: 1, CrtcIDPtr: 0xffff_0000_0001_0000}
	simtest.WantErrno(t, "GETRESOURCES (32-bit)", simtest.Ioctl(f32, uapi.IoctlModeGetResources, &res), 0)
	if id := *(*uint32)(unsafe.Pointer(&mem.buf[0])); res.CountCrtcs < 1 || id == 0 {
		t.Fatalf("the CRTC id went elsewhere: %d CRTCs, %d at 0x10000 (accesses at %#x)", res.CountCrtcs, id, mem.addrs)
	}
	// A range running past the 32-bit address space fails access_ok.
	res = uapi.ModeCardRes{CountCrtcs: 1, CrtcIDPtr: 0xffff_fffe}
	simtest.WantErrno(t, "GETRESOURCES (32-bit) across 4 GiB", simtest.Ioctl(f32, uapi.IoctlModeGetResources, &res), syscall.EFAULT)
}

// vblankDisplay answers WAIT_VBLANK with a reply, recording the request
// the kernel ran.
type vblankDisplay struct {
	fakeDisplay
	got uapi.WaitVblank
}

func (v *vblankDisplay) Ioctl(c sim.Client, req uapi.Request, arg unsafe.Pointer) error {
	if req != uapi.IoctlWaitVblank {
		return v.fakeDisplay.Ioctl(c, req, arg)
	}
	w := (*uapi.WaitVblank)(arg)
	v.got = *w
	w.Sequence += 10
	w.TvalSec, w.TvalUsec = 1234, 5678
	return nil
}

// A 32-bit program's WAIT_VBLANK (0xc010643a, a 16-byte union) reaches
// the display as the 64-bit union, signal widened, and the reply comes
// back narrowed.
func TestILP32WaitVblank(t *testing.T) {
	skipOn32(t)
	disp := &vblankDisplay{}
	var trace bytes.Buffer
	d := newDevice(t, sim.Options{Display: disp, Trace: &trace})
	f, err := d.OpenWith(sim.OpenOptions{ILP32: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := uapi.WaitVblank32{Type: 1, Sequence: 7, TvalSec: -2} // signal 0xfffffffe
	simtest.WantErrno(t, "WAIT_VBLANK (32-bit)", simtest.Ioctl(f, uapi.IoctlWaitVblank32, &w), 0)
	signal := uint32(0xfffffffe) // zero-extended: an unsigned long
	if want := (uapi.WaitVblank{Type: 1, Sequence: 7, TvalSec: int(signal)}); disp.got != want {
		t.Errorf("the display got %+v, want %+v", disp.got, want)
	}
	if want := (uapi.WaitVblank32{Type: 1, Sequence: 17, TvalSec: 1234, TvalUsec: 5678}); w != want {
		t.Errorf("the 32-bit reply is %+v, want %+v", w, want)
	}
	// The trace names the program's ABI and shows the request the
	// kernel ran.
	for _, want := range []string{"file 1 opened (primary node, master, a 32-bit program)", "DRM_IOCTL_WAIT_VBLANK 0xc018643a"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace.String())
		}
	}
}
