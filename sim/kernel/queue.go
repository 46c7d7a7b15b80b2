package kernel

import (
	"math"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// The job queue, seqnos, waits and hangs (vc4_gem.c, vc4_irq.c).
//
// Linux has one hardware queue: a job is binned, then rendered, and the
// binning of the next may overlap the rendering of this one. Here a worker
// goroutine hands each job whole to hw.GPU.Run, in submission order, so
// jobs complete in order as they do on the Pi; seqnos are global to the
// device and start at 1.

// job is one SUBMIT_CL from validation to retirement (struct
// vc4_exec_info in vc4_drv.h). Jobs are recycled, so that a frame's submit
// allocates nothing once their buffers have grown.
type job struct {
	d     *Driver
	args  *uapi.SubmitCL // during SubmitCL only
	seqno uint64

	bos      []*BO // exec->bo: bo_handles resolved
	writeBOs [4]*BO
	nWrite   int
	execBO   *BO
	rclBO    *BO
	binSlots uint32
	binBO    bool // holds a binner BO reference (exec->bin_bo_used)
	perfmon  *perfmon
	outSync  *syncobj // during SubmitCL only
	fence    *Fence   // the job's fence, made when a syncobj asked for it (out_sync)

	// Validation state (vc4_exec_info's fields for vc4_validate.c).
	temp          []byte // the user's bin CL, shader records and uniforms, copied in
	binU          []byte
	shaderRecU    []byte
	uniformsU     []byte
	uniformsTotal uint32 // exec->uniforms_size: the submit's uniforms_size
	shaderState   []shaderState
	stateCount    uint32
	boIndex       [2]uint32
	foundBinCfg   bool
	foundStart    bool
	foundIncSem   bool
	foundFlush    bool
	binTilesX     uint8
	binTilesY     uint8
	tileAllocAddr uint32
	execMem       []byte // the exec BO as the kernel writes it
	shaderRecV    uint32 // offset in execMem of the next validated record
	shaderRecP    uint32 // its bus address
	uniformsV     uint32
	uniformsP     uint32

	ct0ca, ct0ea, ct1ca, ct1ea uint32

	hw       hw.Job
	view     *mem.View
	counters hw.Counters
}

// shaderState is struct vc4_shader_state: one GL_SHADER_STATE packet,
// unpacked (the kernel keeps its low four bits, the attribute count and
// the extended flag, as "addr"), and the largest index its primitives use.
type shaderState struct {
	packet   cl.GLShaderState
	maxIndex uint32
}

func (d *Driver) getJob() *job {
	var j *job
	if n := len(d.freeJobs); n > 0 {
		j = d.freeJobs[n-1]
		d.freeJobs = d.freeJobs[:n-1]
	} else {
		j = &job{d: d, view: mem.NewView(d.pool)}
		j.hw.Overflow = j.overflow
	}
	j.view.Reset()
	return j
}

// reset clears a job for reuse, keeping its buffers.
func (j *job) reset() {
	j.args = nil
	j.seqno = 0
	clear(j.bos)
	j.bos = j.bos[:0]
	j.writeBOs = [4]*BO{}
	j.nWrite = 0
	j.execBO, j.rclBO = nil, nil
	j.binSlots = 0
	j.binBO = false
	j.perfmon = nil
	j.outSync = nil
	j.fence = nil
	j.binU, j.shaderRecU, j.uniformsU = nil, nil, nil
	j.uniformsTotal = 0
	j.stateCount = 0
	j.boIndex = [2]uint32{}
	j.foundBinCfg, j.foundStart, j.foundIncSem, j.foundFlush = false, false, false, false
	j.binTilesX, j.binTilesY = 0, 0
	j.tileAllocAddr = 0
	j.execMem = nil
	j.shaderRecV, j.shaderRecP, j.uniformsV, j.uniformsP = 0, 0, 0, 0
	j.ct0ca, j.ct0ea, j.ct1ca, j.ct1ea = 0, 0, 0, 0
	j.counters = hw.Counters{}
	j.hw.Mem = nil
	j.hw.Counters = nil
}

// release frees what a job holds, whether it ran or failed validation
// (vc4_complete_exec).
func (d *Driver) release(j *job) {
	for _, bo := range j.bos {
		d.decUsecnt(bo)
		d.unref(bo)
	}
	if j.execBO != nil {
		d.unref(j.execBO)
	}
	if j.rclBO != nil {
		d.unref(j.rclBO)
	}
	d.binAllocUsed &^= j.binSlots
	if j.binBO {
		d.binBOPut()
	}
	j.reset()
	d.freeJobs = append(d.freeJobs, j)
}

// overflow gives the binner another 512 KiB slot when it runs out of
// tile allocation memory (vc4_irq.c vc4_overflow_mem_work). The kernel
// charges an overflow slot to whichever job is binning when the next
// overflow comes; here it is charged to the job that asked, and freed when
// that job retires.
func (j *job) overflow() (mem.Region, bool) {
	d := j.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.binBO == nil {
		return mem.Region{}, false
	}
	for slot := 0; slot < binSlotCount; slot++ {
		if d.binAllocUsed&(1<<slot) == 0 {
			d.binAllocUsed |= 1 << slot
			j.binSlots |= 1 << slot
			r := mem.Region{Addr: d.binBO.Addr() + uint32(slot)*binSlotSize, Size: binSlotSize}
			j.view.Add(r, mem.Write, "binner overflow")
			return r, true
		}
	}
	d.logf("Couldn't allocate binner overflow mem")
	return mem.Region{}, false
}

// queueSubmit gives the job its seqno and queues it (vc4_queue_submit):
// every listed BO is fenced by the job.
func (d *Driver) queueSubmit(j *job) {
	d.emitSeqno++
	j.seqno = d.emitSeqno
	for _, bo := range j.bos {
		bo.lastSeq = j.seqno
	}
	// vc4_update_bo_seqnos: the render targets also get the job's fence
	// as their exclusive (write) fence, which KMS waits for before it
	// shows the BO (vc4_prepare_fb, drm_gem_plane_helper_prepare_fb).
	for _, bo := range j.writeBOs[:j.nWrite] {
		bo.writeSeq = j.seqno
	}
	j.hw.Mem = j.view
	j.hw.BinStart, j.hw.BinEnd = j.ct0ca, j.ct0ea
	j.hw.RenderStart, j.hw.RenderEnd = j.ct1ca, j.ct1ea
	if j.perfmon != nil || d.cfg.CountEvents {
		j.hw.Counters = &j.counters
	}
	d.queue = append(d.queue, j)
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// worker runs the queued jobs in order.
func (d *Driver) worker() {
	defer close(d.workerDone)
	quitting := false
	for {
		d.mu.Lock()
		for len(d.queue) == 0 {
			d.mu.Unlock()
			if quitting {
				return
			}
			select {
			case <-d.wake:
			case <-d.quit:
				quitting = true
			}
			d.mu.Lock()
		}
		j := d.queue[0]
		d.mu.Unlock()

		res := d.runJob(j)

		d.mu.Lock()
		d.retire(j, res)
		d.mu.Unlock()
	}
}

// retire completes the oldest job: a hung one (runJob has reset the GPU)
// is force-completed as the hang reset does (vc4_irq.c vc4_irq_reset,
// vc4_irq_finish_render_job), so it looks finished to the waits.
func (d *Driver) retire(j *job, res hw.Result) {
	if j.perfmon != nil {
		j.perfmon.add(&j.counters)
	}
	d.finishedSeqno = j.seqno
	if j.fence != nil {
		// The FRDONE interrupt signals the job's fence (vc4_irq.c
		// vc4_irq_finish_render_job: dma_fence_signal).
		j.fence.Signal(monotonicNs())
		j.fence.Put()
		j.fence = nil
	}
	copy(d.queue, d.queue[1:])
	d.queue[len(d.queue)-1] = nil
	d.queue = d.queue[:len(d.queue)-1]
	d.release(j)
	for _, w := range d.waiters {
		if w.seq <= d.finishedSeqno {
			select {
			case w.ch <- struct{}{}:
			default:
			}
		}
	}
}

// waiter is one blocked WAIT_SEQNO or WAIT_BO (or a SUBMIT_CL waiting
// for a binner slot). Waiters are recycled with their timer.
type waiter struct {
	seq   uint64
	ch    chan struct{}
	timer *time.Timer
}

// waitFor waits until job seq has finished, for at most timeout (forever
// if forever). It is called with d.mu held and returns with it held; it
// gives the lock up while it sleeps. A timeout is ETIME
// (vc4_wait_for_seqno).
func (d *Driver) waitFor(seq uint64, timeout time.Duration, forever bool) error {
	if d.finishedSeqno >= seq {
		return nil
	}
	if !forever && timeout <= 0 {
		return syscall.ETIME
	}
	var w *waiter
	if n := len(d.freeWaiters); n > 0 {
		w = d.freeWaiters[n-1]
		d.freeWaiters = d.freeWaiters[:n-1]
	} else {
		w = &waiter{ch: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
		w.timer.Stop()
	}
	w.seq = seq
	d.waiters = append(d.waiters, w)
	d.mu.Unlock()
	if forever {
		<-w.ch
	} else {
		w.timer.Reset(timeout)
		select {
		case <-w.ch:
		case <-w.timer.C:
		}
		w.timer.Stop()
	}
	d.mu.Lock()
	for i, x := range d.waiters {
		if x == w {
			d.waiters = append(d.waiters[:i], d.waiters[i+1:]...)
			break
		}
	}
	select {
	case <-w.ch:
	default:
	}
	d.freeWaiters = append(d.freeWaiters, w)
	if d.finishedSeqno >= seq {
		return nil
	}
	return syscall.ETIME
}

// nsDuration converts a uAPI timeout to a Duration, saturating.
func nsDuration(ns uint64) time.Duration {
	if ns > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// WaitSeqno is DRM_IOCTL_VC4_WAIT_SEQNO (vc4_wait_seqno_ioctl): it waits
// until job a.Seqno has finished. Seqno 0 and old seqnos return at once; a
// zero timeout only polls (ETIME if not done); ^0 waits forever. The
// kernel lowers TimeoutNs only when a signal interrupts the wait, which
// cannot happen here, so TimeoutNs is left as it was.
func (f *File) WaitSeqno(a *uapi.WaitSeqno) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.waitFor(a.Seqno, nsDuration(a.TimeoutNs), a.TimeoutNs == math.MaxUint64)
}

// WaitBO is DRM_IOCTL_VC4_WAIT_BO (vc4_wait_bo_ioctl,
// drm_gem_dma_resv_wait): it waits for the last job that listed the BO. A
// non-zero pad or an unknown handle is EINVAL; the timeout counts in whole
// microseconds (usecs_to_jiffies(timeout_ns / 1000)), and TimeoutNs is
// always rewritten with what is left.
func (f *File) WaitBO(a *uapi.WaitBO) error {
	if a.Pad != 0 {
		return errf(syscall.EINVAL, "WAIT_BO pad 0x%x", a.Pad)
	}
	d := f.d
	start := time.Now()
	d.mu.Lock()
	bo := f.lookup(a.Handle)
	var err error
	if bo == nil {
		err = errf(syscall.EINVAL, "Failed to look up GEM BO %d", a.Handle)
	} else {
		us := a.TimeoutNs / 1000
		forever := us > math.MaxInt64/uint64(time.Microsecond)
		err = d.waitFor(bo.lastSeq, time.Duration(us)*time.Microsecond, forever)
	}
	d.mu.Unlock()
	if delta := uint64(time.Since(start)); delta < a.TimeoutNs {
		a.TimeoutNs -= delta
	} else {
		a.TimeoutNs = 0
	}
	return err
}

// hangState is what the kernel saves when it resets a hung GPU
// (vc4_save_hang_state): the registers, and references on the BOs of the
// hung job, readable once with GET_HANG_STATE.
type hangState struct {
	user uapi.GetHangState
	bos  []*BO
}

func (d *Driver) saveHangState(j *job, regs *hw.Regs) {
	st := &hangState{}
	for _, bo := range j.bos {
		bo.usecnt++
		bo.refs++
		st.bos = append(st.bos, bo)
	}
	for _, bo := range []*BO{j.execBO, j.rclBO} {
		if bo != nil {
			bo.refs++
			st.bos = append(st.bos, bo)
		}
	}
	u := &st.user
	u.BOCount = uint32(len(st.bos))
	u.StartBin, u.StartRender = j.ct0ca, j.ct1ca
	u.Ct0ca, u.Ct0ea, u.Ct1ca, u.Ct1ea = regs.CT0CA, regs.CT0EA, regs.CT1CA, regs.CT1EA
	u.Ct0cs, u.Ct1cs = regs.CT0CS, regs.CT1CS
	u.Ct0ra0, u.Ct1ra0 = regs.CT0RA0, regs.CT1RA0
	u.Bpca, u.Bpcs, u.Bpoa, u.Bpos = regs.BPCA, regs.BPCS, regs.BPOA, regs.BPOS
	u.Vpmbase = regs.VPMBASE
	u.Dbge, u.Fdbgo, u.Fdbgb, u.Fdbgr, u.Fdbgs, u.Errstat = regs.DBGE, regs.FDBGO, regs.FDBGB, regs.FDBGR, regs.FDBGS, regs.ERRSTAT
	// Make purgeable BOs unpurgeable so that they survive until someone
	// reads the hang state.
	for _, bo := range j.bos {
		if bo.madv == uapi.MadvNotSupp {
			continue
		}
		if bo.madv != uapi.MadvPurged {
			bo.madv = uapi.MadvWillNeed
		}
		bo.usecnt--
	}
	if d.hang != nil {
		d.freeHangState(st)
		return
	}
	d.hang = st
}

func (d *Driver) freeHangState(st *hangState) {
	for _, bo := range st.bos {
		d.unref(bo)
	}
}

// GetHangState is DRM_IOCTL_VC4_GET_HANG_STATE (vc4_get_hang_state_ioctl,
// root only: package sim checks that): the registers saved at the last
// reset and a new handle in this file for each BO of the hung job. With no
// hang recorded it is ENOENT; if the caller's array is too small, only
// BOCount is set. Reading the state consumes it.
func (f *File) GetHangState(a *uapi.GetHangState) error {
	d := f.d
	if d.cfg.NoV3D {
		return errf(syscall.ENODEV, "VC4_GET_HANG_STATE with no VC4 V3D probed")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.hang
	if st == nil {
		// The kernel says nothing (no DRM_DEBUG): a program that asks
		// after every frame fills no log.
		return syscall.ENOENT
	}
	if a.BOCount < st.user.BOCount {
		a.BOCount = st.user.BOCount
		return nil
	}
	d.hang = nil
	userBO := a.BO
	*a = st.user
	a.BO = userBO
	out := make([]uapi.GetHangStateBO, len(st.bos))
	for i, bo := range st.bos {
		out[i] = uapi.GetHangStateBO{Handle: f.newHandle(bo), Paddr: bo.Addr(), Size: bo.size}
	}
	var err error
	if len(out) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*int(unsafe.Sizeof(out[0])))
		if f.user.CopyToUser(userBO, b) != nil {
			for _, o := range out {
				if bo := f.lookup(o.Handle); bo != nil {
					f.handles[o.Handle] = nil
					d.unref(bo)
				}
			}
			err = errf(syscall.EFAULT, "hang state BO array at %#x", userBO)
		}
	}
	d.freeHangState(st)
	return err
}
