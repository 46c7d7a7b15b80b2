package simserve_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/pollwait"
	"github.com/vccube/vccube/internal/simrig"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/display"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// rig is a served device: the GPU model, a display on the virtual clock,
// and a server in a temporary directory.
type rig struct {
	dev  *sim.Device
	disp *display.Display
	srv  *simrig.Served
	dir  string
}

func newRig(t testing.TB, opts simserve.Options) *rig {
	t.Helper()
	s := simrig.System(t, sim.SystemOptions{Device: sim.Options{CMASize: 32 << 20}})
	r := newServer(t, s.Device, opts)
	r.disp = s.Display
	return r
}

// newServer serves dev from a temporary directory until the test ends.
func newServer(t testing.TB, dev *sim.Device, opts simserve.Options) *rig {
	t.Helper()
	srv := simrig.Serve(t, dev, opts)
	return &rig{dev: dev, srv: srv, dir: srv.Dir()}
}

func dial(t testing.TB, r *rig, minor int) *simserve.Client {
	t.Helper()
	c, err := simserve.Dial(r.dir, minor)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// userBOs counts the BOs programs made (the kernel's "V3D" and "dumb"
// statistics), which closing their files frees.
func userBOs(d *sim.Device) int {
	n := 0
	for _, l := range d.Kernel().Stats() {
		if l.Name == "V3D" || l.Name == "dumb" {
			n += l.Count
		}
	}
	return n
}

// clearJob is igt's cleared-BO job (lib/igt_vc4.c igt_vc4_get_cleared_bo):
// only a colour write of the BO, 1024 pixels wide, with a clear colour.
func clearJob(t testing.TB, c uapi.Conn, h, size, colour uint32) {
	t.Helper()
	clearJobSync(t, c, h, size, colour, 0)
}

// clearJobSync is clearJob with a syncobj for the job's fence (out_sync).
func clearJobSync(t testing.TB, c uapi.Conn, h, size, colour, outSync uint32) {
	t.Helper()
	const width = 1024
	height := size / (width * 4)
	handles := []uint32{h}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&handles[0])
	s := uapi.SubmitCL{
		ColorWrite:     uapi.SubmitRCLSurface{HIndex: 0, Bits: 1 << 2},
		ColorRead:      uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		ZSRead:         uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		ZSWrite:        uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		MSAAColorWrite: uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		MSAAZSWrite:    uapi.SubmitRCLSurface{HIndex: uapi.SurfaceAbsent},
		BOHandles:      uapi.UserPointer(unsafe.Pointer(&handles[0])),
		BOHandleCount:  1,
		Width:          width,
		Height:         uint16(height),
		MaxXTile:       (width+63)/64 - 1,
		MaxYTile:       uint8((height+63)/64 - 1),
		ClearColor:     [2]uint32{colour, colour},
		Flags:          uapi.SubmitUseClearColor,
		OutSync:        outSync,
	}
	if err := gem.Submit(c, &s); err != nil {
		t.Fatal(err)
	}
	w := uapi.WaitSeqno{Seqno: s.Seqno, TimeoutNs: ^uint64(0)}
	if err := c.Ioctl(uapi.IoctlWaitSeqno, unsafe.Pointer(&w)); err != nil {
		t.Fatal(err)
	}
}

// A Go program drives the served device through a real socket as the
// preload does for C programs: VERSION (strings copied to its memory),
// CREATE_BO, MMAP (the pool's pages, shared with the GPU and with the
// server's own files), a SUBMIT_CL, PRIME export and import (descriptors
// crossing both ways), a page flip whose event arrives through poll and
// read, and close, which frees every BO.
func TestClientEndToEnd(t *testing.T) {
	var opts simserve.Options
	events := watchServer(&opts)
	r := newRig(t, opts)
	c := dial(t, r, simserve.PrimaryMinor)

	v, err := drm.GetVersion(c)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "vc4" || v.Desc != "Broadcom VC4 graphics" {
		t.Errorf("VERSION: %v", v)
	}

	const size = 1024 * 4 * 64
	h, err := gem.AllocBO(c, size)
	if err != nil {
		t.Fatal(err)
	}
	off, err := gem.MapOffset(c, h)
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Mmap(off, size, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	// The GPU writes the BO; the client's mapping shows it.
	clearJob(t, c, h, size, 0xff336699)
	if got := binary.LittleEndian.Uint32(m[4096:]); got != 0xff336699 {
		t.Errorf("after the clear job the client reads %#08x", got)
	}
	// The client writes; another file of the device, in the server's
	// process, sees the same pages through a PRIME import.
	copy(m, "written by the client")
	fd, err := drm.PrimeHandleToFD(c, h, uapi.CloExec)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if end, err := unix.Seek(fd, 0, 2); err != nil || end != size {
		t.Errorf("lseek(dma-buf, 0, SEEK_END) = %d, %v; want the BO's size %d", end, err, size)
	}
	local, err := r.dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	lh, err := drm.PrimeFDToHandle(local, fd)
	if err != nil {
		t.Fatal(err)
	}
	loff, err := gem.MapOffset(local, lh)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := local.Mmap(loff, size, unix.PROT_READ)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(lm), "written by the client") {
		t.Errorf("the server's file reads %q", lm[:21])
	}
	local.Munmap(lm)
	local.Close()
	// Importing its own export gives the client its handle back (the
	// descriptor goes to the server and is found to be the same BO).
	if h2, err := drm.PrimeFDToHandle(c, fd); err != nil || h2 != h {
		t.Errorf("re-import: handle %d, %v; want %d", h2, err, h)
	}
	if _, err := drm.PrimeFDToHandle(c, 999); !errors.Is(err, syscall.EBADF) {
		t.Errorf("import of a closed descriptor: %v, want EBADF", err)
	}

	// A flip, and its event through poll and read.
	res, conn := simrig.FirstConnector(t, c)
	var mode drm.ModeInfo
	for _, md := range conn.Modes {
		if md.Hdisplay <= 1024 && md.Vdisplay <= 64 || mode.Hdisplay == 0 || md.Hdisplay*md.Vdisplay < mode.Hdisplay*mode.Vdisplay {
			mode = md
		}
	}
	dumb := uapi.ModeCreateDumb{Width: uint32(mode.Hdisplay), Height: uint32(mode.Vdisplay), Bpp: 32}
	if err := c.Ioctl(uapi.IoctlModeCreateDumb, unsafe.Pointer(&dumb)); err != nil {
		t.Fatal(err)
	}
	fb, err := drm.AddFramebuffer(c, dumb.Width, dumb.Height, uapi.FormatXRGB8888, dumb.Handle, dumb.Pitch, uapi.FormatModLinear)
	if err != nil {
		t.Fatal(err)
	}
	if err := drm.SetCrtc(c, res.CRTCs[0], fb, 0, 0, []uint32{conn.ID}, &mode); err != nil {
		t.Fatal(err)
	}
	if err := drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: fb, Flags: uapi.PageFlipEvent, UserData: 0x1234}); err != nil {
		t.Fatal(err)
	}
	if ok, err := pollwait.Readable(int(c.Fd()), 10*time.Second); err != nil || !ok {
		t.Fatalf("poll on the DRM fd: %v, %v", ok, err)
	}
	buf := make([]byte, 1024)
	n, err := c.Read(buf)
	if err != nil || n != 32 {
		t.Fatalf("read: %d bytes, %v; want one 32-byte event", n, err)
	}
	if typ, data := binary.NativeEndian.Uint32(buf), binary.NativeEndian.Uint64(buf[8:]); typ != uapi.EventTypeFlipComplete || data != 0x1234 {
		t.Errorf("event type %d user data %#x", typ, data)
	}

	// A bad user pointer is EFAULT, as from the kernel: the client cannot
	// give the server the bytes.
	bad := uapi.Version{NameLen: 8, Name: 8}
	if err := c.Ioctl(uapi.IoctlVersion, unsafe.Pointer(&bad)); !errors.Is(err, syscall.EFAULT) {
		t.Errorf("VERSION into address 8: %v, want EFAULT", err)
	}

	// Close: the DRM file goes with the fd; the BO mapped in the client
	// lives until it is unmapped, and then every BO is free but the
	// exported one (the simulated kernel cannot see a dma-buf's last
	// close, sim/kernel/prime.go).
	m2h, err := gem.AllocBO(c, 4096)
	if err != nil {
		t.Fatal(err)
	}
	m2off, err := gem.MapOffset(c, m2h)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := c.Mmap(m2off, 4096, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dumb BO freed, the mapped and the exported ones kept", events.closed, func() bool { return userBOs(r.dev) == 2 })
	copy(m2, "still mapped")
	if err := c.Munmap(m); err != nil {
		t.Fatal(err)
	}
	if err := c.Munmap(m2); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every BO freed but the exported one", events.idle, func() bool { return userBOs(r.dev) == 1 })
}

// serverEvents are the server's own reports, as channels a test waits
// on: closed, a DRM file released (its log's "closed" line, written once
// the file is); idle, the last connection gone (OnIdle, called once the
// connection released everything it held).
type serverEvents struct {
	closed, idle chan struct{}
}

// watchServer sets opts.Log and opts.OnIdle to report on the returned
// channels.
func watchServer(opts *simserve.Options) *serverEvents {
	e := &serverEvents{closed: make(chan struct{}, 64), idle: make(chan struct{}, 64)}
	opts.Log = logFunc(func(line string) {
		if strings.HasSuffix(line, ": closed\n") {
			notify(e.closed)
		}
	})
	opts.OnIdle = func() { notify(e.idle) }
	return e
}

func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default: // a report is pending already: the waiter checks again
	}
}

// logFunc is an io.Writer calling itself with each write (the server
// writes its log a line at a time).
type logFunc func(line string)

func (f logFunc) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}

// waitFor waits until cond, which the server makes true on its own
// goroutines, holds: it checks cond again at each report on ch, which the
// server makes after the change; the deadline only stops a broken test
// from hanging.
func waitFor(t testing.TB, what string, ch <-chan struct{}, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}

// The server writes the files libdrm and Mesa's loader read, as a Pi 3's
// kernel has them.
func TestTree(t *testing.T) {
	r := newRig(t, simserve.Options{})
	root := filepath.Join(r.dir, simserve.RootName)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ue := read("sys/dev/char/226:0/device/uevent")
	for _, want := range []string{"DRIVER=vc4-drm\n", "OF_FULLNAME=/soc/gpu\n", "OF_COMPATIBLE_N=1\n",
		"OF_COMPATIBLE_0=brcm,bcm2835-vc4\n", "MODALIAS=of:NgpuT(null)Cbrcm,bcm2835-vc4\n"} {
		if !strings.Contains(ue, want) {
			t.Errorf("device uevent lacks %q:\n%s", want, ue)
		}
	}
	if got := read("sys/dev/char/226:128/uevent"); !strings.Contains(got, "DEVNAME=dri/renderD128\n") {
		t.Errorf("render node uevent:\n%s", got)
	}
	link, err := os.Readlink(filepath.Join(root, "sys/dev/char/226:0/device/subsystem"))
	if err != nil || !strings.HasSuffix(link, "/bus/platform") {
		t.Errorf("subsystem link %q, %v", link, err)
	}
	for _, p := range []string{"sys/dev/char/226:0/device/drm/card0", "sys/dev/char/226:128/device/drm/renderD128", "dev/dri/card0", "dev/dri/renderD128"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Error(err)
		}
	}
	ents, err := os.ReadDir(filepath.Join(root, "dev/dri"))
	if err != nil || len(ents) != 2 {
		t.Errorf("/dev/dri has %v (%v), want card0 and renderD128", ents, err)
	}
}

// The render node is a render file: no KMS, no master.
func TestRenderNode(t *testing.T) {
	r := newRig(t, simserve.Options{})
	c := dial(t, r, simserve.RenderMinor)
	defer c.Close()
	if _, err := gem.AllocBO(c, 4096); err != nil {
		t.Errorf("CREATE_BO on the render node: %v", err)
	}
	if _, err := drm.GetResources(c); !errors.Is(err, syscall.EACCES) {
		t.Errorf("GETRESOURCES on the render node: %v, want EACCES", err)
	}
	if _, err := simserve.Dial(r.dir, 1); err == nil || !errors.Is(err, syscall.ENXIO) {
		t.Errorf("minor 1: %v, want ENXIO", err)
	}
}

// Frame K is the picture of the K-th page flip after the mode set: the
// capture writes what the display showed then.
func TestCapture(t *testing.T) {
	dir := t.TempDir()
	capture := simserve.NewCapture(map[int]string{0: filepath.Join(dir, "f0.png"), 1: filepath.Join(dir, "f1.png")})
	g := gpu.New(gpu.Options{})
	defer g.Close()
	disp := display.New(display.Options{OnFlip: capture.OnFlip})
	defer disp.Close()
	capture.Attach(disp)
	dev, err := sim.New(sim.Options{GPU: g, Display: disp, CMASize: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	c, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, conn := simrig.FirstConnector(t, c)
	mode := conn.Modes[0]
	fb := func(colour uint32) uint32 {
		d := uapi.ModeCreateDumb{Width: uint32(mode.Hdisplay), Height: uint32(mode.Vdisplay), Bpp: 32}
		if err := c.Ioctl(uapi.IoctlModeCreateDumb, unsafe.Pointer(&d)); err != nil {
			t.Fatal(err)
		}
		m := uapi.ModeMapDumb{Handle: d.Handle}
		if err := c.Ioctl(uapi.IoctlModeMapDumb, unsafe.Pointer(&m)); err != nil {
			t.Fatal(err)
		}
		b, err := c.Mmap(m.Offset, int(d.Size), unix.PROT_READ|unix.PROT_WRITE)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], colour)
		}
		c.Munmap(b)
		id, err := drm.AddFramebuffer(c, d.Width, d.Height, uapi.FormatXRGB8888, d.Handle, d.Pitch, uapi.FormatModLinear)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	grey, red, blue := fb(0x808080), fb(0xff0000), fb(0x0000ff)
	if err := drm.SetCrtc(c, res.CRTCs[0], grey, 0, 0, []uint32{conn.ID}, &mode); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint32{red, blue} {
		if err := drm.PageFlip(c, &uapi.ModeCrtcPageFlip{CrtcID: res.CRTCs[0], FbID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := capture.Err(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][3]uint32{"f0.png": {255, 0, 0}, "f1.png": {0, 0, 255}} {
		img := imgcmp.MustReadPNG(t, filepath.Join(dir, name))
		r, g, b, _ := img.At(10, 10).RGBA()
		if got := [3]uint32{r >> 8, g >> 8, b >> 8}; got != want {
			t.Errorf("%s shows %v, want %v (frame 0 is the first flip's picture, not the mode set's)", name, got, want)
		}
	}
}

// Sync files cross the socket as descriptors: a job's fence exported from
// its syncobj polls readable in the client once the job is done, its
// SYNC_IOC_FILE_INFO and SYNC_IOC_MERGE run in the server (FD_IOCTL), it
// comes back into another syncobj, and an atomic commit's out-fence is a
// new descriptor in the client.
func TestSyncFilesCrossTheSocket(t *testing.T) {
	r := newRig(t, simserve.Options{})
	c := dial(t, r, simserve.PrimaryMinor)
	h, err := gem.AllocBO(c, 4096*16)
	if err != nil {
		t.Fatal(err)
	}
	var so, si uapi.SyncobjCreate
	for _, s := range []*uapi.SyncobjCreate{&so, &si} {
		if err := c.Ioctl(uapi.IoctlSyncobjCreate, unsafe.Pointer(s)); err != nil {
			t.Fatal(err)
		}
	}
	clearJobSync(t, c, h, 4096*16, 0xff000000, so.Handle)
	exp := uapi.SyncobjHandle{Handle: so.Handle, Flags: uapi.SyncobjHandleToFdExportSyncFile, Fd: -1}
	if err := c.Ioctl(uapi.IoctlSyncobjHandleToFD, unsafe.Pointer(&exp)); err != nil {
		t.Fatal(err)
	}
	fd := int(exp.Fd)
	defer unix.Close(fd)
	if ok, err := pollwait.Readable(fd, 5*time.Second); err != nil || !ok {
		t.Fatalf("the job's sync file does not poll readable in the client: %v %v", ok, err)
	}
	info, err := drm.SyncFileInfo(c, fd)
	if err != nil || info.Status != 1 || len(info.Fences) != 1 || string(info.Fences[0].DriverName[:3]) != "vc4" {
		t.Fatalf("SYNC_IOC_FILE_INFO through the server: %+v, %v", info, err)
	}
	merged, err := drm.SyncFileMerge(c, "both", fd, fd)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(merged)
	if mi, err := drm.SyncFileInfo(c, merged); err != nil || mi.Name != "both" {
		t.Errorf("merged file: %+v, %v", mi, err)
	}
	imp := uapi.SyncobjHandle{Handle: si.Handle, Flags: uapi.SyncobjFdToHandleImportSyncFile, Fd: int32(merged)}
	if err := c.Ioctl(uapi.IoctlSyncobjFDToHandle, unsafe.Pointer(&imp)); err != nil {
		t.Fatal(err)
	}
	var pipe [2]int
	if err := unix.Pipe2(pipe[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pipe[0])
	defer unix.Close(pipe[1])
	if _, err := drm.SyncFileInfo(c, pipe[0]); !errors.Is(err, syscall.ENOTTY) {
		t.Errorf("FILE_INFO of a pipe through the server: %v, want ENOTTY", err)
	}
}
