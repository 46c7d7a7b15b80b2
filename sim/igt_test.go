package sim_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/uapi"
)

// The expectations of igt-gpu-tools' tests/vc4 (doc/kernel.md#igt), each
// subtest a Go test against the device through uapi.Conn.

// vc4_create_bo
func TestIGTCreateBO(t *testing.T) {
	d := newDevice(t, sim.Options{})
	a, b := open(t, d), open(t, d)

	t.Run("create-bo-4096", func(t *testing.T) {
		h := simrig.AllocBO(t, a, 4096)
		simtest.WantErrno(t, "GEM_CLOSE", drm.CloseHandle(a, h), 0)
	})
	t.Run("create-bo-0", func(t *testing.T) {
		arg := uapi.CreateBO{Size: 0}
		simtest.WantErrno(t, "CREATE_BO size 0", simtest.Ioctl(a, uapi.IoctlCreateBO, &arg), syscall.EINVAL)
	})
	t.Run("create-bo-zeroed", func(t *testing.T) {
		const size = 3 * 4096
		ha := simrig.AllocBO(t, a, size)
		m, err := a.Mmap(mustOffset(t, a, ha), size, syscall.PROT_READ|syscall.PROT_WRITE)
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = 0xd0
		}
		a.Munmap(m)
		simtest.WantErrno(t, "GEM_CLOSE", drm.CloseHandle(a, ha), 0)

		hb := simrig.AllocBO(t, b, size)
		mb := simrig.MapBO(t, b, hb, size)
		if i := bytes.IndexFunc(mb, func(r rune) bool { return r != 0 }); i >= 0 {
			t.Fatalf("new BO has %#x at %d: a freed BO leaked through the cache", mb[i], i)
		}
	})
}

func mustOffset(t *testing.T, c uapi.Conn, h uint32) uint64 {
	t.Helper()
	off, err := gem.MapOffset(c, h)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// vc4_mmap
func TestIGTMmap(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	t.Run("mmap-bad-handle", func(t *testing.T) {
		arg := uapi.MmapBO{Handle: 0xd0d0d0d0}
		simtest.WantErrno(t, "MMAP_BO", simtest.Ioctl(c, uapi.IoctlMmapBO, &arg), syscall.EINVAL)
	})
	t.Run("mmap-bo", func(t *testing.T) {
		h := simrig.AllocBO(t, c, 4096)
		off := mustOffset(t, c, h)
		if off%4096 != 0 {
			t.Fatalf("offset %#x not page aligned (igt_vc4_mmap_bo)", off)
		}
		m, err := c.Mmap(off, 4096, syscall.PROT_READ|syscall.PROT_WRITE)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(m, make([]byte, 4096)) {
			t.Fatal("new BO not zeroed")
		}
		m[0], m[4095] = 0x12, 0x34
		simtest.WantErrno(t, "GEM_CLOSE", drm.CloseHandle(c, h), 0)
		// The mapping outlives the handle.
		if m[0] != 0x12 || m[4095] != 0x34 {
			t.Fatal("mapping lost its contents after GEM_CLOSE")
		}
		m[1] = 1
		simtest.WantErrno(t, "munmap", c.Munmap(m), 0)
	})
}

// labelArg builds a LABEL_BO argument with a NUL-terminated name, as C
// strings are (the kernel reads it with strndup_user(name, len + 1)).
func labelArg(t *testing.T, h uint32, name string) *uapi.LabelBO {
	b := append([]byte(name), 0)
	return &uapi.LabelBO{Handle: h, Len: uint32(len(name)), Name: simtest.Ptr(t, b)}
}

// vc4_label_bo
func TestIGTLabelBO(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	h := simrig.AllocBO(t, c, 4096)
	t.Run("set-label", func(t *testing.T) {
		simtest.WantErrno(t, "label", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h, "a test label")), 0)
		simtest.WantErrno(t, "label again", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h, "a new label")), 0)
		found := false
		for _, s := range d.Kernel().Stats() {
			found = found || (s.Name == "a new label" && s.Count == 1 && s.Bytes == 4096)
		}
		if !found {
			t.Fatalf("label not in the BO statistics: %+v", d.Kernel().Stats())
		}
	})
	t.Run("set-bad-handle", func(t *testing.T) {
		simtest.WantErrno(t, "label", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h+1, "bad handle")), syscall.ENOENT)
	})
	t.Run("set-bad-name", func(t *testing.T) {
		arg := uapi.LabelBO{Handle: h, Len: 1000, Name: 0}
		simtest.WantErrno(t, "label", simtest.Ioctl(c, uapi.IoctlLabelBO, &arg), syscall.EFAULT)
	})
	t.Run("set-kernel-name", func(t *testing.T) {
		simtest.WantErrno(t, "label BCL", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h, "BCL")), 0)
		simtest.WantErrno(t, "label back", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h, "a test label")), 0)
		simtest.WantErrno(t, "label BCL again", simtest.Ioctl(c, uapi.IoctlLabelBO, labelArg(t, h, "BCL")), 0)
	})
}

// vc4_tiling
func TestIGTTiling(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	h := simrig.AllocBO(t, c, 4096)
	t.Run("get-bad-handle", func(t *testing.T) {
		arg := uapi.GetTiling{Handle: 0xd0d0d0d0}
		simtest.WantErrno(t, "GET_TILING", simtest.Ioctl(c, uapi.IoctlGetTiling, &arg), syscall.ENOENT)
	})
	t.Run("set-bad-handle", func(t *testing.T) {
		arg := uapi.SetTiling{Handle: 0xd0d0d0d0, Modifier: uapi.FormatModNone}
		simtest.WantErrno(t, "SET_TILING", simtest.Ioctl(c, uapi.IoctlSetTiling, &arg), syscall.ENOENT)
	})
	t.Run("get-bad-flags", func(t *testing.T) {
		arg := uapi.GetTiling{Handle: h, Flags: 0xd0d0d0d0}
		simtest.WantErrno(t, "GET_TILING", simtest.Ioctl(c, uapi.IoctlGetTiling, &arg), syscall.EINVAL)
	})
	t.Run("set-bad-flags", func(t *testing.T) {
		arg := uapi.SetTiling{Handle: h, Flags: 0xd0d0d0d0, Modifier: uapi.FormatModNone}
		simtest.WantErrno(t, "SET_TILING", simtest.Ioctl(c, uapi.IoctlSetTiling, &arg), syscall.EINVAL)
	})
	t.Run("get-bad-modifier", func(t *testing.T) {
		arg := uapi.GetTiling{Handle: h, Modifier: 0xd0d0d0d0}
		simtest.WantErrno(t, "GET_TILING", simtest.Ioctl(c, uapi.IoctlGetTiling, &arg), syscall.EINVAL)
	})
	t.Run("set-bad-modifier", func(t *testing.T) {
		arg := uapi.SetTiling{Handle: h, Modifier: 0xd0d0d0d0}
		simtest.WantErrno(t, "SET_TILING", simtest.Ioctl(c, uapi.IoctlSetTiling, &arg), syscall.EINVAL)
	})
	t.Run("set-get", func(t *testing.T) {
		for _, m := range []uint64{uapi.FormatModNone, uapi.FormatModBroadcomVC4TTiled, uapi.FormatModNone} {
			simtest.WantErrno(t, "set", gem.SetBOTiling(c, h, m), 0)
			got, err := gem.BOTiling(c, h)
			if err != nil || got != m {
				t.Fatalf("modifier %#x after setting %#x (%v)", got, m, err)
			}
		}
	})
	t.Run("get-after-free", func(t *testing.T) {
		h2 := simrig.AllocBO(t, c, 4096)
		simtest.WantErrno(t, "set T", gem.SetBOTiling(c, h2, uapi.FormatModBroadcomVC4TTiled), 0)
		simtest.WantErrno(t, "close", drm.CloseHandle(c, h2), 0)
		h3 := simrig.AllocBO(t, c, 4096) // the same memory, from the kernel's BO cache
		got, err := gem.BOTiling(c, h3)
		if err != nil || got != uapi.FormatModNone {
			t.Fatalf("recycled BO reports modifier %#x (%v), want LINEAR", got, err)
		}
	})
}

// vc4_wait_bo
func TestIGTWaitBO(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	h := simrig.AllocBO(t, c, 4096)
	t.Run("bad-bo", func(t *testing.T) {
		arg := uapi.WaitBO{Handle: h + 1}
		simtest.WantErrno(t, "WAIT_BO", simtest.Ioctl(c, uapi.IoctlWaitBO, &arg), syscall.EINVAL)
	})
	t.Run("bad-pad", func(t *testing.T) {
		arg := uapi.WaitBO{Handle: h, Pad: 1}
		simtest.WantErrno(t, "WAIT_BO", simtest.Ioctl(c, uapi.IoctlWaitBO, &arg), syscall.EINVAL)
	})
	t.Run("unused-bo", func(t *testing.T) {
		for _, ns := range []uint64{0, 1} {
			arg := uapi.WaitBO{Handle: h, TimeoutNs: ns}
			simtest.WantErrno(t, "WAIT_BO idle", simtest.Ioctl(c, uapi.IoctlWaitBO, &arg), 0)
		}
	})
	t.Run("used-bo", func(t *testing.T) {
		const size = 256 * 1024
		for _, ns := range []uint64{0, 1, math.MaxUint64} {
			hb := simrig.AllocBO(t, c, size)
			clearBO(t, c, hb, size, 0xcccccccc)
			arg := uapi.WaitBO{Handle: hb, TimeoutNs: ns}
			err := simtest.Ioctl(c, uapi.IoctlWaitBO, &arg)
			if ns != math.MaxUint64 && err != nil && !errorsIs(err, syscall.ETIME) {
				t.Fatalf("WAIT_BO %d ns: %v, want success or ETIME", ns, err)
			}
			if ns == math.MaxUint64 {
				simtest.WantErrno(t, "WAIT_BO forever", err, 0)
				m := simrig.MapBO(t, c, hb, size)
				for i := 0; i < size; i += 4 {
					if v := binary.LittleEndian.Uint32(m[i:]); v != 0xcccccccc {
						t.Fatalf("word %d is %#x, want the clear colour", i/4, v)
					}
				}
			}
		}
	})
}

func errorsIs(err error, e syscall.Errno) bool {
	en, ok := err.(syscall.Errno)
	return ok && en == e
}

// vc4_wait_seqno
func TestIGTWaitSeqno(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	for _, ns := range []uint64{0, 1} {
		arg := uapi.WaitSeqno{Seqno: math.MaxUint64, TimeoutNs: ns}
		simtest.WantErrno(t, "WAIT_SEQNO ~0", simtest.Ioctl(c, uapi.IoctlWaitSeqno, &arg), syscall.ETIME)
	}
}

// vc4_lookup_fail
func TestIGTLookupFail(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	// A single row of 1024 RGBA8888 pixels is a page.
	const size, width = 4096, 1024
	const height = size / (width * 4)
	handle := []uint32{0xd0d0d0d0} // not a BO
	s := simtest.ClearJob(t, handle, width, height, 0xcccccccc)
	simtest.WantErrno(t, "bad-color-write", simtest.Ioctl(c, uapi.IoctlSubmitCL, &s), syscall.EINVAL)
}

func madvise(t *testing.T, c uapi.Conn, h, madv uint32) bool {
	t.Helper()
	retained, err := gem.Madvise(c, h, madv)
	if err != nil {
		t.Fatal(err)
	}
	return retained
}

// touches reports whether reading b faults (a purged BO's mapping raises
// SIGBUS on the Pi; here the revoked mapping raises SIGSEGV, which
// SetPanicOnFault turns into a recoverable panic).
func touches(b []byte) (faulted bool) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			faulted = true
		}
	}()
	_ = b[0]
	b[0] = 0
	return false
}

// vc4_purgeable_bo
func TestIGTPurgeableBO(t *testing.T) {
	if v, err := gem.Param(open(t, newDevice(t, sim.Options{})), uapi.ParamSupportsMadvise); err != nil || v != 1 {
		t.Fatalf("SUPPORTS_MADVISE %d %v", v, err)
	}
	// A small pool so that "allocate until failure" is quick.
	d := newDevice(t, sim.Options{CMASize: 24 << 20})
	c := open(t, d)
	t.Run("mark-willneed", func(t *testing.T) {
		h := simrig.AllocBO(t, c, 4096)
		if !madvise(t, c, h, uapi.MadvWillNeed) {
			t.Fatal("not retained")
		}
	})
	t.Run("mark-purgeable-and-back-twice", func(t *testing.T) {
		h := simrig.AllocBO(t, c, 4096)
		for _, m := range []uint32{uapi.MadvDontNeed, uapi.MadvDontNeed, uapi.MadvWillNeed, uapi.MadvWillNeed} {
			if !madvise(t, c, h, m) {
				t.Fatalf("madv %d: not retained", m)
			}
		}
	})
	t.Run("access-purgeable-bo-mem", func(t *testing.T) {
		h := simrig.AllocBO(t, c, 4096)
		m := simrig.MapBO(t, c, h, 4096)
		madvise(t, c, h, uapi.MadvDontNeed)
		if touches(m) {
			t.Fatal("a purgeable BO not yet purged must stay accessible")
		}
		// A DONTNEED BO cannot be mapped anew.
		if _, err := c.Mmap(mustOffset(t, c, h), 4096, syscall.PROT_READ); !errorsIs(err, syscall.EINVAL) {
			t.Fatalf("mmap of purgeable BO: %v, want EINVAL", err)
		}
	})
	t.Run("purge-under-pressure", func(t *testing.T) {
		const size = 64 * 1024
		purgeable := simrig.AllocBO(t, c, size)
		pm := simrig.MapBO(t, c, purgeable, size)
		kept := simrig.AllocBO(t, c, size)
		km := simrig.MapBO(t, c, kept, size)
		copy(km, "retained contents")
		madvise(t, c, purgeable, uapi.MadvDontNeed)
		// Allocate until the pool is exhausted: the kernel purges the
		// DONTNEED BO before it gives up.
		var hogs []uint32
		for {
			arg := uapi.CreateBO{Size: size}
			err := simtest.Ioctl(c, uapi.IoctlCreateBO, &arg)
			if err != nil {
				simtest.WantErrno(t, "CREATE_BO under pressure", err, syscall.ENOMEM)
				break
			}
			hogs = append(hogs, arg.Handle)
		}
		if !touches(pm) {
			t.Fatal("the purged BO's mapping is still accessible")
		}
		if madvise(t, c, purgeable, uapi.MadvWillNeed) {
			t.Fatal("a purged BO reports retained")
		}
		if !bytes.HasPrefix(km, []byte("retained contents")) {
			t.Fatal("a WILLNEED BO lost its contents")
		}
		// Freeing a purged BO works.
		simtest.WantErrno(t, "close purged", drm.CloseHandle(c, purgeable), 0)
		for _, h := range hogs {
			drm.CloseHandle(c, h)
		}
	})
}

// vc4_perfmon
func TestIGTPerfmon(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	if v, err := gem.Param(c, uapi.ParamSupportsPerfmon); err != nil || v != 1 {
		t.Fatalf("SUPPORTS_PERFMON %d %v", v, err)
	}
	create := func(events ...uint8) (uint32, error) {
		arg := uapi.PerfmonCreate{Ncounters: uint32(len(events))}
		copy(arg.Events[:], events)
		err := simtest.Ioctl(c, uapi.IoctlPerfmonCreate, &arg)
		return arg.ID, err
	}
	t.Run("create-perfmon-0", func(t *testing.T) {
		_, err := create()
		simtest.WantErrno(t, "0 counters", err, syscall.EINVAL)
	})
	t.Run("create-perfmon-exceed", func(t *testing.T) {
		arg := uapi.PerfmonCreate{Ncounters: uapi.MaxPerfCounters + 1}
		simtest.WantErrno(t, "17 counters", simtest.Ioctl(c, uapi.IoctlPerfmonCreate, &arg), syscall.EINVAL)
	})
	t.Run("create-perfmon-invalid-events", func(t *testing.T) {
		_, err := create(uapi.PerfcntNumEvents)
		simtest.WantErrno(t, "event 30", err, syscall.EINVAL)
	})
	t.Run("create-two-perfmon", func(t *testing.T) {
		id1, err1 := create(uapi.PerfcntFEPValidPrimsNoRender)
		id2, err2 := create(uapi.PerfcntFEPValidPrimsRender, uapi.PerfcntFEPClippedQuads)
		if err1 != nil || err2 != nil || id1 == 0 || id1 == id2 {
			t.Fatalf("ids %d %d (%v %v)", id1, id2, err1, err2)
		}
		values := make([]uint64, 2)
		arg := uapi.PerfmonGetValues{ID: id2, ValuesPtr: simtest.Ptr(t, values)}
		simtest.WantErrno(t, "get values", simtest.Ioctl(c, uapi.IoctlPerfmonGetValues, &arg), 0)
		simtest.WantErrno(t, "destroy", gem.DestroyPerfmon(c, id1), 0)
		simtest.WantErrno(t, "destroy", gem.DestroyPerfmon(c, id2), 0)
	})
	t.Run("get-values-invalid-perfmon", func(t *testing.T) {
		values := make([]uint64, 1)
		arg := uapi.PerfmonGetValues{ID: 0xdeadbeef, ValuesPtr: simtest.Ptr(t, values)}
		simtest.WantErrno(t, "get values", simtest.Ioctl(c, uapi.IoctlPerfmonGetValues, &arg), syscall.EINVAL)
	})
	t.Run("get-values-invalid-pointer", func(t *testing.T) {
		id, err := create(uapi.PerfcntFEPValidPrimsNoRender)
		simtest.WantErrno(t, "create", err, 0)
		arg := uapi.PerfmonGetValues{ID: id, ValuesPtr: 0}
		simtest.WantErrno(t, "get values at NULL", simtest.Ioctl(c, uapi.IoctlPerfmonGetValues, &arg), syscall.EFAULT)
	})
	t.Run("destroy-invalid-perfmon", func(t *testing.T) {
		simtest.WantErrno(t, "destroy", gem.DestroyPerfmon(c, 0xdeadbeef), syscall.EINVAL)
	})
	t.Run("destroy-valid-perfmon", func(t *testing.T) {
		id, err := create(uapi.PerfcntFEPValidPrimsNoRender)
		simtest.WantErrno(t, "create", err, 0)
		simtest.WantErrno(t, "destroy", gem.DestroyPerfmon(c, id), 0)
		values := make([]uint64, 1)
		arg := uapi.PerfmonGetValues{ID: id, ValuesPtr: simtest.Ptr(t, values)}
		simtest.WantErrno(t, "get values after destroy", simtest.Ioctl(c, uapi.IoctlPerfmonGetValues, &arg), syscall.EINVAL)
	})
}
