package sim_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
)

// The program's own frames — package cuberender's cube: its shaders, shader
// records, uniforms, texture and surfaces — on the GPU model (sim/gpu),
// which makes every memory access through the job's View. An accepted job
// must finish without hanging and without one access outside its BOs;
// the fuzzer then mutates such a frame's submit.

// jobLog keeps what the kernel reports of each job.
type jobLog struct {
	mu   sync.Mutex
	reps []kernel.JobReport
}

func (l *jobLog) add(r kernel.JobReport) {
	r.Job = nil // the job's memory is not ours to keep
	l.mu.Lock()
	l.reps = append(l.reps, r)
	l.mu.Unlock()
}

func (l *jobLog) last() (kernel.JobReport, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.reps) == 0 {
		return kernel.JobReport{}, false
	}
	return l.reps[len(l.reps)-1], true
}

// gpuDevice is a Pi 3 device on the GPU model, with the job reports.
func gpuDevice(t testing.TB) (*sim.Device, *jobLog) {
	t.Helper()
	g := gpu.New(gpu.Options{})
	t.Cleanup(g.Close) // after the device's own cleanup
	log := new(jobLog)
	return newDevice(t, sim.Options{GPU: g, OnJobDone: log.add}), log
}

// submitCapture is a file that keeps a copy of the last SUBMIT_CL handed
// to it — the struct and the user memory its pointers name — before
// passing it on.
type submitCapture struct {
	*sim.File
	args                        uapi.SubmitCL
	bin, recs, unis, handleByte []byte
}

func (c *submitCapture) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	if req == uapi.IoctlSubmitCL {
		a := (*uapi.SubmitCL)(arg)
		c.args = *a
		c.bin = userCopy(a.BinCL, a.BinCLSize)
		c.recs = userCopy(a.ShaderRec, a.ShaderRecSize)
		c.unis = userCopy(a.Uniforms, a.UniformsSize)
		c.handleByte = userCopy(a.BOHandles, 4*a.BOHandleCount)
	}
	return c.File.Ioctl(req, arg)
}

func userCopy(addr uint64, n uint32) []byte {
	b := make([]byte, n)
	if err := kernel.CopyFromUser(b, addr); err != nil {
		panic(fmt.Sprintf("the renderer handed the kernel a bad pointer: %v", err))
	}
	return b
}

// checkJob fails unless the last job is seqno and ran cleanly.
func checkJob(t testing.TB, log *jobLog, seqno uint64) {
	t.Helper()
	r, ok := log.last()
	switch {
	case !ok || r.Seqno != seqno:
		t.Fatalf("job %d not reported (last %d)", seqno, r.Seqno)
	case r.Faults != 0:
		t.Fatalf("job %d made %d accesses outside its BOs, the first %v", seqno, r.Faults, r.First)
	case r.Result.Hung:
		t.Fatalf("job %d hung: %v", seqno, r.Result.Reason)
	}
}

// The cube at several turns, in both colour buffers: every job ends and
// stays inside its BOs, and the frame is not just the clear colour (the
// shaders really ran).
func TestCubeFramesOnGPUModel(t *testing.T) {
	d, log := gpuDevice(t)
	r, err := cuberender.New(open(t, d), cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, deg := range []float32{0, 37, 95, 200, 301} {
		buf := i % r.Buffers()
		seqno, err := r.Render(buf, deg)
		if err != nil {
			t.Fatalf("frame at %v°: %v", deg, err)
		}
		if err := r.Wait(seqno); err != nil {
			t.Fatal(err)
		}
		checkJob(t, log, seqno)
		px, err := r.Pixels(buf)
		if err != nil {
			t.Fatal(err)
		}
		// The centre pixel lies on the cube at every turn.
		w, h := r.Size()
		centre := px[(h/2*w+w/2)*4:][:4]
		corner := px[:4]
		if string(centre) == string(corner) {
			t.Errorf("frame at %v°: centre pixel %x is the background's", deg, centre)
		}
	}
}

// cubeSubmit renders one frame on a fresh GPU-model device and returns
// the device's file, the job log and a copy of the frame's SUBMIT_CL.
func cubeSubmit(t testing.TB) (*submitCapture, *jobLog) {
	d, log := gpuDevice(t)
	c := &submitCapture{File: open(t, d)}
	r, err := cuberender.New(c, cuberender.Options{Width: 96, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	seqno, err := r.Render(0, 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Wait(seqno); err != nil {
		t.Fatal(err)
	}
	checkJob(t, log, seqno)
	return c, log
}

// submitChecked submits a with the given streams and the captured BO
// handles (no syncobjs, no perfmon); if the kernel accepts it, it waits
// for the job and fails the test if the job touched memory outside its
// BOs. It reports whether the kernel accepted the submit and whether the
// job hung.
func (c *submitCapture) submitChecked(t testing.TB, log *jobLog, a uapi.SubmitCL, bin, recs, unis []byte) (accepted, hung bool) {
	t.Helper()
	var pin runtime.Pinner
	defer pin.Unpin()
	ptr := func(b []byte) uint64 {
		if len(b) == 0 {
			return 0
		}
		pin.Pin(&b[0])
		return uapi.UserPointer(unsafe.Pointer(&b[0]))
	}
	a.BinCL, a.BinCLSize = ptr(bin), uint32(len(bin))
	a.ShaderRec, a.ShaderRecSize = ptr(recs), uint32(len(recs))
	a.Uniforms, a.UniformsSize = ptr(unis), uint32(len(unis))
	a.BOHandles, a.BOHandleCount = ptr(c.handleByte), uint32(len(c.handleByte)/4)
	a.InSync, a.OutSync, a.PerfmonID = 0, 0, 0
	if err := c.File.Ioctl(uapi.IoctlSubmitCL, unsafe.Pointer(&a)); err != nil {
		return false, false
	}
	w := uapi.WaitSeqno{Seqno: a.Seqno, TimeoutNs: ^uint64(0)}
	if err := c.File.Ioctl(uapi.IoctlWaitSeqno, unsafe.Pointer(&w)); err != nil {
		t.Fatal(err)
	}
	r, ok := log.last()
	if !ok || r.Seqno != a.Seqno {
		t.Fatalf("job %d not reported (last %d)", a.Seqno, r.Seqno)
	}
	if r.Faults != 0 {
		t.Fatalf("accepted job %d made %d accesses outside its BOs, the first %v", a.Seqno, r.Faults, r.First)
	}
	return true, r.Result.Hung
}

// A deterministic run of the fuzzer's property for every `go test`: a
// frame's submit with one to three bits flipped anywhere in its header,
// bin CL, shader records or uniforms. Whatever the kernel accepts (about
// half of them) runs on the GPU model and must stay inside its BOs.
func TestMutatedCubeSubmitsOnGPUModel(t *testing.T) {
	c, log := cubeSubmit(t)
	rng := rand.New(rand.NewPCG(6, 6))
	n := 2000
	if testing.Short() {
		n = 200
	}
	accepted, hung := 0, 0
	for range n {
		a := c.args
		parts := [][]byte{
			unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a)),
			bytes.Clone(c.bin), bytes.Clone(c.recs), bytes.Clone(c.unis),
		}
		for range 1 + rng.IntN(3) {
			p := parts[rng.IntN(len(parts))]
			p[rng.IntN(len(p))] ^= 1 << rng.IntN(8)
		}
		ok, h := c.submitChecked(t, log, a, parts[1], parts[2], parts[3])
		if ok {
			accepted++
		}
		if h {
			hung++
		}
	}
	t.Logf("%d mutated submits: %d accepted and run (%d hung), none outside its BOs", n, accepted, hung)
	if accepted < n/10 {
		t.Errorf("only %d of %d mutated submits accepted: the test no longer exercises the GPU", accepted, n)
	}
}

// FuzzCubeSubmitOnGPUModel mutates a real frame's submit — the header,
// bin CL, shader records and uniforms, with the renderer's BO handles —
// and runs whatever the kernel accepts on the GPU model: nothing may
// panic, and no accepted job may touch memory outside its BOs. (A mutated
// job may hang: that is the GPU's business, and the kernel's hang reset
// retires it.) The seed is the frame itself, built at run time, so the
// corpus follows the renderer.
func FuzzCubeSubmitOnGPUModel(f *testing.F) {
	c, log := cubeSubmit(f)
	hdr := unsafe.Slice((*byte)(unsafe.Pointer(&c.args)), unsafe.Sizeof(c.args))
	f.Add(bytes.Clone(hdr), c.bin, c.recs, c.unis)
	f.Fuzz(func(t *testing.T, hdr, bin, recs, unis []byte) {
		var a uapi.SubmitCL
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&a)), unsafe.Sizeof(a)), hdr)
		c.submitChecked(t, log, a, bin, recs, unis)
	})
}
