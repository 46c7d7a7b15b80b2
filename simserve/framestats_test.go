package simserve_test

import (
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
)

// FrameStats closes a frame at each page flip after the mode set (the
// numbering of Capture) with the ioctls, the submits and the jobs since
// the previous flip, and the CPU time of the client the server names.
func TestFrameStats(t *testing.T) {
	stats := simserve.NewFrameStats()
	o := sim.SystemOptions{Device: sim.Options{CMASize: 32 << 20}, Display: display.Options{OnFlip: stats.OnFlip}}
	stats.DeviceOptions(&o.Device)
	sys := simrig.System(t, o)
	opened := make(chan int, 1)
	r := newServer(t, sys.Device, simserve.Options{OnOpen: func(pid int, node string) {
		stats.SetClient(pid)
		opened <- pid
	}})
	c := dial(t, r, simserve.PrimaryMinor)
	defer c.Close()
	if pid := <-opened; pid != os.Getpid() {
		t.Errorf("OnOpen named pid %d, want this process, %d", pid, os.Getpid())
	}

	res, conn := simrig.FirstConnector(t, c)
	mode := conn.Modes[0]
	d := uapi.ModeCreateDumb{Width: uint32(mode.Hdisplay), Height: uint32(mode.Vdisplay), Bpp: 32}
	if err := c.Ioctl(uapi.IoctlModeCreateDumb, unsafe.Pointer(&d)); err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(c, d.Width, d.Height, uapi.FormatXRGB8888, d.Handle, d.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	bo, err := gem.AllocBO(c, 1024*64*4)
	if err != nil {
		t.Fatal(err)
	}
	clearJob(t, c, bo, 1024*64*4, 0xff00ff00) // before the mode set: not in any frame
	if err := drm.SetCrtc(c, res.CRTCs[0], fb, 0, 0, []uint32{conn.ID}, &mode); err != nil {
		t.Fatal(err)
	}
	flip := func() {
		if err := drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: fb}); err != nil {
			t.Fatal(err)
		}
	}
	// Frame 0: two jobs (SUBMIT_CL and WAIT_SEQNO each) and the flip.
	clearJob(t, c, bo, 1024*64*4, 1)
	clearJob(t, c, bo, 1024*64*4, 2)
	flip()
	// Frame 1: the flip alone, after this process has run 30 ms more
	// (by its own rusage). Read between the flips, the clock FrameStats
	// reads at each flip (schedstat) gives a bound: frame 1 holds at
	// least what it counted in between.
	before := simserve.ProcessCPU(os.Getpid())
	spin(30 * time.Millisecond)
	after := simserve.ProcessCPU(os.Getpid())
	flip()

	frames := stats.Frames()
	if len(frames) != 2 {
		t.Fatalf("%d frames recorded, want 2: %v", len(frames), frames)
	}
	f0, f1 := frames[0], frames[1]
	if f0.Frame != 0 || f0.Ioctls != 5 || f0.Submits != 2 || f0.Jobs != 2 {
		t.Errorf("frame 0: %v; want 5 ioctls, 2 submits, 2 jobs", f0)
	}
	if f1.Frame != 1 || f1.Ioctls != 1 || f1.Submits != 0 || f1.Jobs != 0 {
		t.Errorf("frame 1: %v; want the flip's one ioctl", f1)
	}
	// The client is this process, and so is the server: both times hold
	// the CPU time this process spun. The readings are monotonic, the
	// first flip's taken before the first was read here, the second
	// flip's after the second.
	if _, err := os.Stat("/proc/self/task"); err == nil {
		spun := after - before
		if spun <= 0 {
			t.Fatalf("this process's schedstat did not grow over 30 ms of CPU time: %v, then %v", before, after)
		}
		if f1.ClientCPU < spun {
			t.Errorf("frame 1: client CPU %v, want at least the %v this process ran between the flips", f1.ClientCPU, spun)
		}
		if f1.ServerCPU < spun {
			t.Errorf("frame 1: server CPU %v, want at least the %v this process ran between the flips", f1.ServerCPU, spun)
		}
	}

	// The submitted bytes come from the SUBMIT_CL argument.
	s := uapi.SubmitCL{BinCLSize: 100, ShaderRecSize: 40, UniformsSize: 24}
	in := unsafe.Slice((*byte)(unsafe.Pointer(&s)), unsafe.Sizeof(s))
	direct := simserve.NewFrameStats()
	direct.OnFlip(display.Flip{Modeset: true, FbID: 1})
	direct.OnIoctl(nil, uapi.IoctlSubmitCL, in, nil)
	direct.OnIoctl(nil, uapi.IoctlSubmitCL, in, nil)
	direct.OnFlip(display.Flip{FbID: 1})
	got := direct.Frames()[0]
	if got.BinCLBytes != 200 || got.ShaderRecBytes != 80 || got.UniformsBytes != 48 || got.Submits != 2 {
		t.Errorf("bytes: %v, want 200+80+48 in 2 submits", got)
	}
}

// spin uses the CPU until this process's CPU time (getrusage) has grown
// by d.
func spin(d time.Duration) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	end := cpu() + d
	x := 1.0
	for cpu() < end {
		for i := 0; i < 10000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	_ = x
}
