package sim_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/pollwait"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// drm_ioctl's dispatch: type, number, sizes.
func TestDispatch(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)

	// A request of another type is not a DRM ioctl (TCGETS, what isatty
	// sends).
	simtest.WantErrno(t, "TCGETS", c.Ioctl(uapi.Request(unix.TCGETS), nil), syscall.ENOTTY)
	// A driver number past vc4's table, and a core number with no entry.
	simtest.WantErrno(t, "nr 0x4f", c.Ioctl(uapi.IOWR(0x4f, 16), unsafe.Pointer(new([16]byte))), syscall.EINVAL)
	simtest.WantErrno(t, "nr 0x03", c.Ioctl(uapi.IOWR(0x03, 16), unsafe.Pointer(new([16]byte))), syscall.EINVAL)
	simtest.WantErrno(t, "nr 0xff", c.Ioctl(uapi.IOWR(0xff, 16), unsafe.Pointer(new([16]byte))), syscall.EINVAL)

	// Dispatch is by number only: a GET_PARAM whose request encodes a
	// larger struct still works, and the bytes past the kernel's struct
	// come back untouched.
	type bigParam struct {
		uapi.GetParam
		extra [8]byte
	}
	big := bigParam{GetParam: uapi.GetParam{Param: uapi.ParamV3DIdent0}, extra: [8]byte{1, 2, 3}}
	simtest.WantErrno(t, "big GET_PARAM", c.Ioctl(uapi.IOWR(uapi.CommandBase+7, unsafe.Sizeof(big)), unsafe.Pointer(&big)), 0)
	if big.Value != 0x02443356 || big.extra != [8]byte{1, 2, 3} {
		t.Fatalf("big GET_PARAM: %+v", big)
	}

	// A 160-byte SUBMIT_CL (a header from before perfmonid, in_sync,
	// out_sync and pad2) is zero-filled to 176 and works; only its 160
	// bytes are written back.
	const size = 4096
	h := simrig.AllocBO(t, c, size)
	handles := []uint32{h}
	s := simtest.ClearJob(t, handles, 1024, 1, 0)
	s.Pad2 = 0xdeadbeef // beyond the old struct: never read
	simtest.WantErrno(t, "160-byte SUBMIT_CL", c.Ioctl(uapi.IOWR(uapi.CommandBase, 160), unsafe.Pointer(&s)), 0)
	if s.Seqno == 0 || s.Pad2 != 0xdeadbeef {
		t.Fatalf("seqno %d, pad2 %#x", s.Seqno, s.Pad2)
	}

	// The argument is copied back even when the ioctl fails: WAIT_BO
	// rewrites the timeout whatever happens.
	w := uapi.WaitBO{Handle: h + 100, TimeoutNs: 1 << 40}
	simtest.WantErrno(t, "WAIT_BO bad handle", simtest.Ioctl(c, uapi.IoctlWaitBO, &w), syscall.EINVAL)
	if w.TimeoutNs >= 1<<40 {
		t.Fatalf("timeout not rewritten: %d", w.TimeoutNs)
	}

	// A nil argument where bytes are to be copied is EFAULT.
	simtest.WantErrno(t, "nil arg", c.Ioctl(uapi.IoctlGetParam, nil), syscall.EFAULT)
}

func TestVersionAndCaps(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	v, err := drm.GetVersion(c)
	if err != nil || v.Name != "vc4" || v.Desc != "Broadcom VC4 graphics" || v.Date != "20140616" {
		t.Fatalf("%+v %v", v, err)
	}
	for cap, want := range map[uint64]uint64{uapi.CapTimestampMonotonic: 1, uapi.CapPrime: 3, uapi.CapSyncobj: 1, uapi.CapSyncobjTimeline: 0} {
		if got, err := drm.GetCapability(c, cap); err != nil || got != want {
			t.Errorf("cap %#x = %d (%v), want %d", cap, got, err, want)
		}
	}
	// Without a display, the KMS capabilities are those of a driver
	// without DRIVER_MODESET.
	_, err = drm.GetCapability(c, uapi.CapDumbBuffer)
	simtest.WantErrno(t, "DUMB_BUFFER cap", errors.Unwrap(err), syscall.EOPNOTSUPP)
	_, err = drm.GetResources(c)
	if !errors.Is(err, syscall.EOPNOTSUPP) {
		t.Fatalf("GETRESOURCES without a display: %v", err)
	}
	simtest.WantErrno(t, "SET_CLIENT_CAP", errors.Unwrap(drm.SetClientCapability(c, uapi.ClientCapUniversalPlanes, 1)), syscall.EOPNOTSUPP)
	// Syncobj waits exist in the real core but are not modelled.
	var wait [40]byte
	simtest.WantErrno(t, "SYNCOBJ_WAIT", c.Ioctl(uapi.IOWR(0xC3, 40), unsafe.Pointer(&wait)), syscall.ENOSYS)
}

// GET_PARAM as a Pi 3 answers (doc/kernel.md#get_param), and gem's probe.
func TestGetParam(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	want := map[uint32]uint64{
		uapi.ParamV3DIdent0: 0x02443356,
		// AG Table 80 reference configuration: 12 KiB VPM, HDR, 16
		// semaphores, 2 TMUs and 4 QPUs per slice, 3 slices, revision 1.
		uapi.ParamV3DIdent1: 0xc1102431,
		uapi.ParamV3DIdent2: 0x121,
	}
	for p := uint32(uapi.ParamSupportsBranches); p <= uapi.ParamSupportsPerfmon; p++ {
		want[p] = 1
	}
	for p, v := range want {
		if got, err := gem.Param(c, p); err != nil || got != v {
			t.Errorf("param %d = %#x (%v), want %#x", p, got, err, v)
		}
	}
	arg := uapi.GetParam{Param: 9}
	simtest.WantErrno(t, "param 9", simtest.Ioctl(c, uapi.IoctlGetParam, &arg), syscall.EINVAL)
	arg = uapi.GetParam{Param: 0, Pad: 1}
	simtest.WantErrno(t, "pad", simtest.Ioctl(c, uapi.IoctlGetParam, &arg), syscall.EINVAL)

	info, err := gem.ProbeV3D(c)
	if err != nil {
		t.Fatal(err)
	}
	if info.Slices != 3 || info.QPUsPerSlice != 4 || info.TMUsPerSlice != 2 || info.VPMSizeKiB != 12 || info.Semaphores != 16 {
		t.Fatalf("probe: %v", info)
	}
}

// A Pi 4 or 5's vc4 is display-only; a Pi 0-3 without V3D answers ENODEV.
func TestBoards(t *testing.T) {
	for _, b := range []sim.Board{sim.BoardPi4, sim.BoardPi5} {
		d := newDevice(t, sim.Options{Board: b})
		c := open(t, d)
		for i, req := range []uapi.Request{uapi.IoctlSubmitCL, uapi.IoctlWaitSeqno, uapi.IoctlCreateBO, uapi.IoctlGetParam, uapi.IoctlPerfmonGetValues} {
			var buf [256]byte
			simtest.WantErrno(t, b.String()+" vc4 ioctl", c.Ioctl(req, unsafe.Pointer(&buf)), syscall.EINVAL)
			_ = i
		}
		if _, err := d.OpenWith(sim.OpenOptions{Render: true}); !errors.Is(err, syscall.ENOENT) {
			t.Errorf("%v render node: %v", b, err)
		}
		if v, err := drm.GetCapability(c, uapi.CapSyncobj); err != nil || v != 0 {
			t.Errorf("%v SYNCOBJ cap %d %v", b, v, err)
		}
		if _, err := gem.ProbeV3D(c); !errors.Is(err, gem.ErrNoVideoCoreIV) {
			t.Errorf("%v probe: %v", b, err)
		}
		// Dumb buffers still work (vc5_dumb_create).
		db, err := drm.CreateDumb(c, 64, 64, 32)
		if err != nil || db.Pitch != 256 || db.Size != 256*64 {
			t.Errorf("%v dumb buffer: %+v %v", b, db, err)
		}
	}

	d := newDevice(t, sim.Options{Board: sim.BoardPi3NoV3D})
	c := open(t, d)
	for _, c2 := range []struct {
		name string
		req  uapi.Request
		arg  unsafe.Pointer
	}{
		{"CREATE_BO", uapi.IoctlCreateBO, unsafe.Pointer(&uapi.CreateBO{Size: 4096})},
		{"CREATE_SHADER_BO", uapi.IoctlCreateShaderBO, unsafe.Pointer(&uapi.CreateShaderBO{Size: 8, Data: 1 << 20})},
		{"GET_PARAM", uapi.IoctlGetParam, unsafe.Pointer(&uapi.GetParam{})},
		{"SUBMIT_CL", uapi.IoctlSubmitCL, unsafe.Pointer(&uapi.SubmitCL{})},
		{"PERFMON_CREATE", uapi.IoctlPerfmonCreate, unsafe.Pointer(&uapi.PerfmonCreate{Ncounters: 1})},
	} {
		simtest.WantErrno(t, "no V3D "+c2.name, c.Ioctl(c2.req, c2.arg), syscall.ENODEV)
	}
	if _, err := gem.ProbeV3D(c); !errors.Is(err, gem.ErrNoVideoCoreIV) {
		t.Errorf("no-V3D probe: %v", err)
	}
	if _, err := drm.CreateDumb(c, 64, 64, 32); err != nil {
		t.Errorf("no-V3D dumb buffer: %v", err)
	}
	if _, err := sim.New(sim.Options{}); err == nil {
		t.Error("a Pi 3 without a GPU was created")
	}
}

// drm_ioctl_permit and drm_auth.c.
func TestPermissionsAndMaster(t *testing.T) {
	d := newDevice(t, sim.Options{})
	first := open(t, d)
	second := open(t, d)
	if !first.IsMaster() || second.IsMaster() {
		t.Fatal("the first opener must be master, the second not")
	}
	// DRM_MASTER ioctls: EACCES for a non-master (checked before the
	// missing display is noticed).
	var pf uapi.ModeCrtcPageFlip
	simtest.WantErrno(t, "PAGE_FLIP not master", simtest.Ioctl(second, uapi.IoctlModePageFlip, &pf), syscall.EACCES)
	simtest.WantErrno(t, "PAGE_FLIP master", simtest.Ioctl(first, uapi.IoctlModePageFlip, &pf), syscall.EOPNOTSUPP)
	// SET_MASTER by a file that never was master, as a user: EACCES; as
	// root: EBUSY while another is master.
	simtest.WantErrno(t, "SET_MASTER user", second.Ioctl(uapi.IoctlSetMaster, nil), syscall.EACCES)
	root, _ := d.OpenWith(sim.OpenOptions{Root: true})
	defer root.Close()
	simtest.WantErrno(t, "SET_MASTER root", root.Ioctl(uapi.IoctlSetMaster, nil), syscall.EBUSY)
	// DROP_MASTER by a non-master is EINVAL; the master drops and
	// takes it back (it was master before).
	simtest.WantErrno(t, "DROP_MASTER not master", root.Ioctl(uapi.IoctlDropMaster, nil), syscall.EINVAL)
	simtest.WantErrno(t, "DROP_MASTER", first.Ioctl(uapi.IoctlDropMaster, nil), 0)
	simtest.WantErrno(t, "SET_MASTER again", first.Ioctl(uapi.IoctlSetMaster, nil), 0)
	// Closing the master frees the role.
	first.Close()
	simtest.WantErrno(t, "SET_MASTER after close", root.Ioctl(uapi.IoctlSetMaster, nil), 0)

	// GET_HANG_STATE is root only.
	var hs uapi.GetHangState
	simtest.WantErrno(t, "GET_HANG_STATE user", simtest.Ioctl(second, uapi.IoctlGetHangState, &hs), syscall.EACCES)
	simtest.WantErrno(t, "GET_HANG_STATE root", simtest.Ioctl(root, uapi.IoctlGetHangState, &hs), syscall.ENOENT)

	// A render node: vc4 and render-allowed core ioctls only, never master.
	r, err := d.OpenWith(sim.OpenOptions{Render: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := gem.Param(r, uapi.ParamV3DIdent0); err != nil {
		t.Fatalf("GET_PARAM on a render node: %v", err)
	}
	var res uapi.ModeCardRes
	simtest.WantErrno(t, "GETRESOURCES on a render node", simtest.Ioctl(r, uapi.IoctlModeGetResources, &res), syscall.EACCES)
	var dumb uapi.ModeCreateDumb
	simtest.WantErrno(t, "CREATE_DUMB on a render node", simtest.Ioctl(r, uapi.IoctlModeCreateDumb, &dumb), syscall.EACCES)
	simtest.WantErrno(t, "SET_MASTER on a render node", r.Ioctl(uapi.IoctlSetMaster, nil), syscall.EACCES)

	// Another program holds master.
	d2 := newDevice(t, sim.Options{Faults: sim.Faults{MasterHeldElsewhere: true}})
	c2 := open(t, d2)
	if c2.IsMaster() {
		t.Fatal("master although another program holds it")
	}
	simtest.WantErrno(t, "PAGE_FLIP", simtest.Ioctl(c2, uapi.IoctlModePageFlip, &pf), syscall.EACCES)
	root2, _ := d2.OpenWith(sim.OpenOptions{Root: true})
	defer root2.Close()
	simtest.WantErrno(t, "SET_MASTER root, master elsewhere", root2.Ioctl(uapi.IoctlSetMaster, nil), syscall.EBUSY)
}

// Close frees what the file owned; a closed file answers EBADF.
func TestCloseFreesEverything(t *testing.T) {
	d := newDevice(t, sim.Options{})
	keep := open(t, d) // keeps the binner BO alive so the count is stable
	simrig.AllocBO(t, keep, 4096)
	before, _, _ := d.Pool().Stats()
	c, _ := d.Open()
	for i := 0; i < 10; i++ {
		simrig.AllocBO(t, c, 64*1024)
	}
	id, err := gem.CreatePerfmon(c, []uint8{1})
	if err != nil || id == 0 {
		t.Fatal(err)
	}
	c.Close()
	simtest.WantErrno(t, "ioctl after close", c.Ioctl(uapi.IoctlGetParam, unsafe.Pointer(&uapi.GetParam{})), syscall.EBADF)
	simtest.WantErrno(t, "close twice", c.Close(), syscall.EBADF)
	// The BOs went to the kernel's BO cache: purge it by asking for more
	// than is free, then the pool is back where it was.
	hog := uapi.CreateBO{Size: d.Pool().Size() - before}
	_ = simtest.Ioctl(keep, uapi.IoctlCreateBO, &hog)
	if hog.Handle != 0 {
		drm.CloseHandle(keep, hog.Handle)
	}
	stats := d.Kernel().Stats()
	for _, s := range stats {
		if s.Name == "V3D" && s.Count != 1 {
			t.Fatalf("V3D BOs left after close: %+v", stats)
		}
	}
}

// Faults.CMAExhaustedAt: the Nth fresh CMA allocation fails with ENOMEM.
// The first BO of a file also allocates the 16 MiB binner BO.
func TestCMAExhaustedFault(t *testing.T) {
	d := newDevice(t, sim.Options{Faults: sim.Faults{CMAExhaustedAt: 4}})
	c := open(t, d)
	simrig.AllocBO(t, c, 4096)       // allocations 1 (binner) and 2
	h3 := simrig.AllocBO(t, c, 4096) // 3
	arg := uapi.CreateBO{Size: 4096}
	err := simtest.Ioctl(c, uapi.IoctlCreateBO, &arg)
	simtest.WantErrno(t, "4th allocation", err, syscall.ENOMEM)
	_, err = gem.AllocBO(c, 4096)
	if !strings.Contains(err.Error(), "CMA") {
		t.Fatalf("gem's error has no CMA hint: %v", err)
	}
	// A freed BO is reused from the kernel's cache without CMA.
	simtest.WantErrno(t, "close", drm.CloseHandle(c, h3), 0)
	simrig.AllocBO(t, c, 4096)
}

// The trace records each ioctl with its bytes and the kernel's reason.
func TestTrace(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	d := newDevice(t, sim.Options{Trace: writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})})
	c := open(t, d)
	simrig.AllocBO(t, c, 4096)
	arg := uapi.CreateBO{Size: 0}
	_ = simtest.Ioctl(c, uapi.IoctlCreateBO, &arg)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	for _, want := range []string{
		"file 1 opened (primary node, master)",
		"file 1: DRM_IOCTL_VC4_CREATE_BO 0xc0106443 in [00001000 00000000 00000000 00000000] -> 0 out [00001000 00000000 00000001 00000000]",
		"file 1: DRM_IOCTL_VC4_CREATE_BO 0xc0106443 in [00000000 00000000 00000000 00000000] -> EINVAL (zero-sized BO)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(p []byte) (int, error) { return w(p) }

// gatedGPU holds each job until the test lets it go, and can hang.
type gatedGPU struct {
	inner hw.GPU
	gate  chan struct{}
	hang  bool
	count hw.Counters
}

func (g *gatedGPU) Run(job *hw.Job) hw.Result {
	<-g.gate
	res := g.inner.Run(job)
	if job.Counters != nil {
		*job.Counters = g.count
	}
	if g.hang {
		res.Hung = true
		res.Reason = errors.New("test hang")
		res.Regs.CT1CA = job.RenderStart + 5
	}
	return res
}

// Waits: timeouts give ETIME while the job runs, then succeed; seqnos
// are global and start at 1; WAIT_BO waits for the BO's last job.
func TestWaits(t *testing.T) {
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{})}
	d := newDevice(t, sim.Options{GPU: g})
	a, b := open(t, d), open(t, d)
	const size = 64 * 1024
	ha, hb := simrig.AllocBO(t, a, size), simrig.AllocBO(t, b, size)
	s1 := clearBO(t, a, ha, size, 1)
	s2 := clearBO(t, b, hb, size, 2)
	if s1 != 1 || s2 != 2 {
		t.Fatalf("seqnos %d %d, want 1 2 (global to the device)", s1, s2)
	}
	for _, ns := range []uint64{0, 1, uint64(time.Millisecond)} {
		w := uapi.WaitSeqno{Seqno: s1, TimeoutNs: ns}
		simtest.WantErrno(t, "WAIT_SEQNO while running", simtest.Ioctl(a, uapi.IoctlWaitSeqno, &w), syscall.ETIME)
		wb := uapi.WaitBO{Handle: hb, TimeoutNs: ns}
		simtest.WantErrno(t, "WAIT_BO while running", simtest.Ioctl(b, uapi.IoctlWaitBO, &wb), syscall.ETIME)
		if wb.TimeoutNs != 0 {
			t.Errorf("WAIT_BO timeout left %d after timing out", wb.TimeoutNs)
		}
	}
	done := make(chan error)
	go func() {
		w := uapi.WaitSeqno{Seqno: s2, TimeoutNs: math.MaxUint64}
		done <- simtest.Ioctl(b, uapi.IoctlWaitSeqno, &w)
	}()
	g.gate <- struct{}{}
	w := uapi.WaitSeqno{Seqno: s1, TimeoutNs: uint64(time.Minute)}
	simtest.WantErrno(t, "WAIT_SEQNO job 1", simtest.Ioctl(a, uapi.IoctlWaitSeqno, &w), 0)
	select {
	case err := <-done:
		t.Fatalf("waiting for job 2 returned %v before it ran", err)
	case <-time.After(10 * time.Millisecond):
	}
	g.gate <- struct{}{}
	simtest.WantErrno(t, "WAIT_SEQNO forever", <-done, 0)
	// Old seqnos and 0 return at once.
	w = uapi.WaitSeqno{Seqno: 0}
	simtest.WantErrno(t, "WAIT_SEQNO 0", simtest.Ioctl(a, uapi.IoctlWaitSeqno, &w), 0)
}

// A hung job is force-completed (it looks finished) and its state is kept
// for root's GET_HANG_STATE, which hands out its BOs as new handles.
func TestHangState(t *testing.T) {
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{}, 10), hang: true}
	d := newDevice(t, sim.Options{GPU: g})
	root, err := d.OpenWith(sim.OpenOptions{Root: true})
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	const size = 64 * 1024
	h := simrig.AllocBO(t, root, size)
	g.gate <- struct{}{}
	seq := clearBO(t, root, h, size, 5)
	w := uapi.WaitSeqno{Seqno: seq, TimeoutNs: math.MaxUint64}
	simtest.WantErrno(t, "hung job completes", simtest.Ioctl(root, uapi.IoctlWaitSeqno, &w), 0)

	// Too small an array: only the count comes back.
	var hs uapi.GetHangState
	simtest.WantErrno(t, "count", simtest.Ioctl(root, uapi.IoctlGetHangState, &hs), 0)
	// The job's BO and the kernel's render-list BO (no bin CL, no exec BO).
	if hs.BOCount != 2 {
		t.Fatalf("hang state has %d BOs, want 2", hs.BOCount)
	}
	bos := make([]uapi.GetHangStateBO, hs.BOCount)
	hs = uapi.GetHangState{BO: simtest.Ptr(t, bos), BOCount: uint32(len(bos))}
	simtest.WantErrno(t, "read", simtest.Ioctl(root, uapi.IoctlGetHangState, &hs), 0)
	if hs.StartRender == 0 || hs.Ct1ca != hs.StartRender+5 || bos[0].Size != size || bos[0].Handle == h || bos[0].Handle == 0 {
		t.Fatalf("hang state %+v, BOs %+v", hs, bos)
	}
	// The handle names the same memory as h.
	m1 := simrig.MapBO(t, root, h, size)
	m2 := simrig.MapBO(t, root, bos[0].Handle, size)
	m1[0] = 0x5a
	if m2[0] != 0x5a {
		t.Fatal("the hang state's handle is another BO")
	}
	// Reading consumed it.
	var again uapi.GetHangState
	simtest.WantErrno(t, "read again", simtest.Ioctl(root, uapi.IoctlGetHangState, &again), syscall.ENOENT)
}

// A perfmon accumulates the events its jobs count.
func TestPerfmonCounts(t *testing.T) {
	g := &gatedGPU{inner: cleargpu.New(), gate: make(chan struct{}, 10)}
	g.count[uapi.PerfcntTLBQuadsWrittenToColorBuf] = 7
	g.count[uapi.PerfcntFEPValidPrimsRender] = 3
	d := newDevice(t, sim.Options{GPU: g})
	c := open(t, d)
	pm, err := gem.NewPerfmon(c, uapi.PerfcntFEPValidPrimsRender, uapi.PerfcntTLBQuadsWrittenToColorBuf)
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 * 1024
	h := simrig.AllocBO(t, c, size)
	handles := []uint32{h}
	for i := 0; i < 2; i++ {
		g.gate <- struct{}{}
		s := uapi.SubmitCL{
			ColorWrite: uapi.SubmitRCLSurface{HIndex: 0, Bits: 1 << 2}, ColorRead: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
			ZSRead: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent}, ZSWrite: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
			MSAAColorWrite: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent}, MSAAZSWrite: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
			BOHandles: simtest.Ptr(t, handles), BOHandleCount: 1, Width: 64, Height: 64, PerfmonID: pm.ID(), Flags: uapi.SubmitUseClearColor,
		}
		simtest.WantErrno(t, "submit", gem.Submit(c, &s), 0)
		w := uapi.WaitSeqno{Seqno: s.Seqno, TimeoutNs: math.MaxUint64}
		simtest.WantErrno(t, "wait", gem.WaitForSeqno(c, &w), 0)
	}
	v, err := pm.Values()
	if err != nil || v[0] != 6 || v[1] != 14 {
		t.Fatalf("values %v (%v), want [6 14]", v, err)
	}
}

// The display seam: KMS requests reach the Display after the core's
// checks, and its events come out of Read with Fd readable.
type fakeDisplay struct {
	mu       sync.Mutex
	lastReq  uapi.Request
	released []uint64
	bo       *kernel.BO
}

func (f *fakeDisplay) Ioctl(c sim.Client, req uapi.Request, arg unsafe.Pointer) error {
	f.mu.Lock()
	f.lastReq = req
	f.mu.Unlock()
	switch req {
	case uapi.IoctlModeAddFB2:
		cmd := (*uapi.ModeFbCmd2)(arg)
		bo, err := c.LookupBO(cmd.Handles[0])
		if err != nil {
			return err
		}
		f.bo = bo
		cmd.FbID = 42
		return nil
	case uapi.IoctlModePageFlip:
		flip := (*uapi.ModeCrtcPageFlip)(arg)
		ev := uapi.EventVblank{Base: uapi.Event{Type: uapi.EventTypeFlipComplete, Length: uint32(unsafe.Sizeof(uapi.EventVblank{}))},
			UserData: flip.UserData, Sequence: 1, CrtcID: flip.CrtcID}
		if err := c.ReserveEvent(int(unsafe.Sizeof(ev))); err != nil {
			return err
		}
		c.QueueEvent(unsafe.Slice((*byte)(unsafe.Pointer(&ev)), unsafe.Sizeof(ev)))
		return nil
	}
	return syscall.EINVAL
}

func (f *fakeDisplay) Cap(capability uint64) (uint64, error) {
	if capability == uapi.CapDumbBuffer {
		return 1, nil
	}
	return 0, syscall.EINVAL
}

func (f *fakeDisplay) SetClientCap(sim.Client, uint64, uint64) error { return nil }

func (f *fakeDisplay) Release(c sim.Client) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.released = append(f.released, c.ID())
	if f.bo != nil {
		f.bo.Put()
		f.bo = nil
	}
}

func TestDisplaySeam(t *testing.T) {
	disp := &fakeDisplay{}
	d := newDevice(t, sim.Options{Display: disp})
	c, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := drm.GetCapability(c, uapi.CapDumbBuffer); err != nil || v != 1 {
		t.Fatalf("DUMB_BUFFER cap through the display: %d %v", v, err)
	}
	db, err := drm.CreateDumb(c, 64, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(c, 64, 64, uapi.FormatXRGB8888, db.Handle, db.Pitch, uapi.FormatModLinear)
	if err != nil || fb != 42 {
		t.Fatalf("ADDFB2: %d %v", fb, err)
	}
	// The framebuffer's reference keeps the BO after its handle goes.
	simtest.WantErrno(t, "destroy dumb", drm.DestroyDumb(c, db.Handle), 0)
	if disp.bo.Bytes() == nil {
		t.Fatal("the framebuffer's BO was freed under it")
	}

	// Events: Fd polls readable only while one is pending.
	readable := func() bool {
		ok, err := pollwait.Readable(int(c.Fd()), 0)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if readable() {
		t.Fatal("readable with no event")
	}
	c.SetNonblock(true)
	buf := make([]byte, 256)
	if _, err := c.Read(buf); !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("non-blocking read with no event: %v", err)
	}
	flip := uapi.ModeCrtcPageFlip{CrtcID: 7, FbID: fb, Flags: uapi.PageFlipEvent, UserData: 0xfeed}
	simtest.WantErrno(t, "PAGE_FLIP", drm.PageFlip(c, &flip), 0)
	if !readable() {
		t.Fatal("not readable with an event pending")
	}
	// A buffer too small for the event gets nothing.
	if n, err := c.Read(buf[:8]); n != 0 || err != nil {
		t.Fatalf("short read: %d %v", n, err)
	}
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	ev, _, err := drm.ParseEvent(buf[:n])
	if err != nil || ev.UserData != 0xfeed || ev.CrtcID != 7 || !ev.IsFlipComplete() {
		t.Fatalf("event %+v %v", ev, err)
	}
	if readable() {
		t.Fatal("still readable after the event was read")
	}
	// A blocking reader waits for the next event.
	c.SetNonblock(false)
	got := make(chan int)
	go func() {
		n, _ := c.Read(buf)
		got <- n
	}()
	simtest.Reached(t, "a blocking read", func() bool { return c.Readers() > 0 }, got)
	simtest.WantErrno(t, "PAGE_FLIP", drm.PageFlip(c, &flip), 0)
	if n := <-got; n != int(unsafe.Sizeof(uapi.EventVblank{})) {
		t.Fatalf("blocking read got %d bytes", n)
	}
	id := c.ID()
	c.Close()
	if len(disp.released) != 1 || disp.released[0] != id {
		t.Fatalf("display released %v, want [%d]", disp.released, id)
	}
}

// Closing the device releases the pool's own mapping; a file still open
// keeps its BO mapping (a separate mapping of the same pages), its ioctls
// fail with ENODEV, and closing it afterwards frees its BOs without harm.
func TestCloseDeviceBeforeFile(t *testing.T) {
	d := newDevice(t, sim.Options{})
	c := open(t, d)
	h := simrig.AllocBO(t, c, 4096)
	m := simrig.MapBO(t, c, h, 4096)
	off, err := gem.MapOffset(c, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	m[0] = 7 // the mapping outlives the device, as on a real unplug
	if m[0] != 7 {
		t.Fatal("mapping lost its contents")
	}
	err = drm.CloseHandle(c, h)
	simtest.WantErrno(t, "GEM_CLOSE after the device closed", err, syscall.ENODEV)
	_, err = c.Mmap(off, 4096, syscall.PROT_READ)
	simtest.WantErrno(t, "mmap after the device closed", err, syscall.ENODEV)
	if err := c.Close(); err != nil {
		t.Fatalf("closing a file after its device: %v", err)
	}
}
