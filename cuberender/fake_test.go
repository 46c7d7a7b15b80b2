package cuberender_test

import (
	"encoding/binary"
	"fmt"
	"sort"
	"testing"

	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// fakeGPU answers the vc4 ioctls the renderer issues with just enough
// bookkeeping to check ownership and the submit's bytes: it hands out
// handles and zeroed memory, records every SUBMIT_CL (copying the user
// buffers as the kernel does), and can fail the n-th allocation. It
// renders nothing; the end-to-end tests in cmd/vccube run on the simulated
// device (package sim) instead.
type fakeGPU struct {
	*drmtest.Conn
	next     uint32
	bos      map[uint32][]byte // live handles
	shaders  map[uint32]bool
	closed   map[uint32]int // GEM_CLOSE count per handle
	allocs   int
	failAt   int         // fail the failAt-th allocation (1-based), 0 = never
	failWith unix.Errno  // with this errno
	mapFail  bool        // fail every MMAP_BO
	perfmon  bool        // SUPPORTS_PERFMON
	submits  []submitted // every SUBMIT_CL
	keep     bool        // copy submits (off for allocation tests)
	seqno    uint64
	perfmons map[uint32]bool
	refuse   unix.Errno // answer SUBMIT_CL with this errno after recording it
	hangAt   uint64     // the job with this seqno leaves its colour buffer untouched, as a GPU reset before it stored its tiles does
}

// submitted is a SUBMIT_CL as the kernel copies it in.
type submitted struct {
	args               uapi.SubmitCL
	bin, recs, uniform []byte
	handles            []uint32
}

func newFakeGPU(t testing.TB) *fakeGPU {
	f := &fakeGPU{Conn: drmtest.NewConn(), next: 1, bos: map[uint32][]byte{}, shaders: map[uint32]bool{},
		closed: map[uint32]int{}, perfmons: map[uint32]bool{}, keep: true, failWith: unix.ENOMEM}
	alloc := func(size uint32, shader bool) (uint32, error) {
		f.allocs++
		if f.allocs == f.failAt {
			return 0, f.failWith
		}
		if size == 0 {
			return 0, unix.EINVAL
		}
		h := f.next
		f.next++
		pages := (int(size) + 4095) &^ 4095
		f.bos[h] = make([]byte, pages)
		f.shaders[h] = shader
		f.Map(uint64(h)<<12, f.bos[h])
		return h, nil
	}
	drmtest.On(f.Conn, uapi.IoctlCreateBO, func(a *uapi.CreateBO) error {
		h, err := alloc(a.Size, false)
		a.Handle = h
		return err
	})
	drmtest.On(f.Conn, uapi.IoctlCreateShaderBO, func(a *uapi.CreateShaderBO) error {
		if a.Size == 0 || a.Size%8 != 0 || a.Flags != 0 || a.Pad != 0 {
			return unix.EINVAL
		}
		h, err := alloc(a.Size, true)
		if err == nil {
			copy(f.bos[h], uapi.UserBytes(a.Data, int(a.Size)))
		}
		a.Handle = h
		return err
	})
	drmtest.On(f.Conn, uapi.IoctlMmapBO, func(a *uapi.MmapBO) error {
		if f.mapFail {
			return unix.ENOMEM
		}
		if _, ok := f.bos[a.Handle]; !ok {
			return unix.EINVAL
		}
		a.Offset = uint64(a.Handle) << 12
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlGemClose, func(a *uapi.GemClose) error {
		f.closed[a.Handle]++
		if _, ok := f.bos[a.Handle]; !ok {
			return unix.EINVAL
		}
		delete(f.bos, a.Handle)
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlSubmitCL, func(a *uapi.SubmitCL) error {
		for _, h := range uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount)) {
			if _, ok := f.bos[h]; !ok {
				return unix.EINVAL
			}
		}
		if f.refuse == 0 {
			f.seqno++
			a.Seqno = f.seqno
		}
		if f.keep {
			f.submits = append(f.submits, submitted{
				args:    *a,
				bin:     append([]byte(nil), uapi.UserBytes(a.BinCL, int(a.BinCLSize))...),
				recs:    append([]byte(nil), uapi.UserBytes(a.ShaderRec, int(a.ShaderRecSize))...),
				uniform: append([]byte(nil), uapi.UserBytes(a.Uniforms, int(a.UniformsSize))...),
				handles: append([]uint32(nil), uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount))...),
			})
		}
		if f.refuse != 0 {
			return f.refuse
		}
		// The "GPU" draws the clear colour everywhere, unless the job
		// hangs.
		handles := uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount))
		if a.Flags&uapi.SubmitUseClearColor != 0 && a.ColorWrite.HIndex < uint32(len(handles)) && a.Seqno != f.hangAt {
			b := f.bos[handles[a.ColorWrite.HIndex]]
			for i := 0; i+4 <= len(b); i += 4 {
				binary.LittleEndian.PutUint32(b[i:], a.ClearColor[0])
			}
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlWaitSeqno, func(a *uapi.WaitSeqno) error {
		if a.Seqno > f.seqno {
			return unix.ETIME
		}
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlGetParam, func(a *uapi.GetParam) error {
		if a.Param == uapi.ParamSupportsPerfmon && f.perfmon {
			a.Value = 1
			return nil
		}
		return unix.EINVAL
	})
	drmtest.On(f.Conn, uapi.IoctlPerfmonCreate, func(a *uapi.PerfmonCreate) error {
		a.ID = uint32(len(f.perfmons) + 1)
		f.perfmons[a.ID] = true
		return nil
	})
	drmtest.On(f.Conn, uapi.IoctlPerfmonDestroy, func(a *uapi.PerfmonDestroy) error {
		if !f.perfmons[a.ID] {
			return unix.EINVAL
		}
		delete(f.perfmons, a.ID)
		return nil
	})
	return f
}

// leaks says what the renderer left behind: live handles, live mappings,
// handles closed more than once, perfmons not destroyed.
func (f *fakeGPU) leaks() error {
	var live []uint32
	for h := range f.bos {
		live = append(live, h)
	}
	sort.Slice(live, func(i, j int) bool { return live[i] < live[j] })
	var twice []uint32
	for h, n := range f.closed {
		if n > 1 {
			twice = append(twice, h)
		}
	}
	if len(live) > 0 || f.Mapped() > 0 || len(twice) > 0 || len(f.perfmons) > 0 {
		return fmt.Errorf("live handles %v, live mappings %d, closed twice %v, perfmons %d", live, f.Mapped(), twice, len(f.perfmons))
	}
	return nil
}
