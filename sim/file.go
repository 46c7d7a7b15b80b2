package sim

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// File is one open file of the device: a uapi.Conn.
type File struct {
	dev    *Device
	k      *kernel.File
	id     uint64
	render bool
	root   bool
	ilp32  bool // a 32-bit program's (OpenOptions.ILP32)

	wasMaster bool // drm_file.was_master, under dev.mu

	evMu     sync.Mutex
	evCond   *sync.Cond
	events   []byte // pending struct drm_event records
	reserved int    // event space promised to events not yet queued
	eventFd  int    // readable while events are pending
	nonblock bool
	readers  int // Reads blocked waiting for an event

	mu     sync.RWMutex // guards closed against Close during a call
	closed bool

	// interrupted is set when the last call failed with EINTR
	// (Faults.InterruptEachCall), so that the next goes through.
	interrupted atomic.Bool
}

// interrupt reports whether this call fails with EINTR
// (Faults.InterruptEachCall): every other call does.
func (f *File) interrupt() bool {
	if !f.dev.opts.Faults.InterruptEachCall {
		return false
	}
	for {
		was := f.interrupted.Load()
		if f.interrupted.CompareAndSwap(was, !was) {
			return !was
		}
	}
}

// eventSpace is how many bytes of events a file may have pending or
// reserved (drm_file.c drm_file_alloc: event_space = 4096).
const eventSpace = 4096

func newFile(d *Device, o OpenOptions) (*File, error) {
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("sim: eventfd: %w", err)
	}
	user := o.User
	if o.ILP32 && bits.UintSize == 64 {
		if user == nil {
			user = kernel.LocalMemory
		}
		user = user32{user}
	}
	f := &File{dev: d, k: d.k.OpenFor(user, o.Files), id: d.nextID, render: o.Render, root: o.Root, ilp32: o.ILP32, eventFd: efd, nonblock: o.Nonblock}
	f.evCond = sync.NewCond(&f.evMu)
	return f, nil
}

var _ uapi.Conn = (*File)(nil)
var _ Client = (*File)(nil)

// String names the file in traces: "file 1".
func (f *File) String() string { return fmt.Sprintf("file %d", f.id) }

// ID implements Client.
func (f *File) ID() uint64 { return f.id }

// LookupBO implements Client.
func (f *File) LookupBO(handle uint32) (*kernel.BO, error) { return f.k.LookupBO(handle) }

// User implements Client: the memory of the process the file belongs to.
func (f *File) User() kernel.UserMemory { return f.k.User() }

// Files implements Client: the descriptor table of the process the file
// belongs to.
func (f *File) Files() kernel.UserFiles { return f.k.Files() }

// IsMaster implements Client: whether the file is the DRM master now
// (drm_is_current_master).
func (f *File) IsMaster() bool {
	f.dev.mu.Lock()
	defer f.dev.mu.Unlock()
	return f.dev.master == f
}

// kdataPool holds the kernel's copies of ioctl arguments (drm_ioctl's
// stack_kdata), so that the per-frame ioctls do not allocate.
var kdataPool = sync.Pool{New: func() any { return new([32]uint64) }}

// Ioctl implements uapi.Conn as drm_ioctl() does: the request type must be
// 'd' (ENOTTY); a driver ioctl (number 0x40-0x9f) or a core one is looked
// up by number only (EINVAL if there is none); the caller's size is copied
// in, zero-filled up to the kernel's struct size, and the caller's size is
// copied back out whatever the result, for the directions both the caller
// and the kernel give; the permissions are checked before the handler runs.
func (f *File) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	if f.ilp32Translated() {
		if ok, err := f.ioctl32(req, arg); ok {
			return err
		}
	}
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		return syscall.EBADF
	}
	if f.dev.isClosed() {
		return syscall.ENODEV
	}
	if req.Type() != 'd' {
		f.observe(req, nil, syscall.ENOTTY)
		return f.traceResult(req, nil, nil, nil, syscall.ENOTTY)
	}
	if f.interrupt() {
		return f.traceResult(req, nil, nil, nil, syscall.EINTR)
	}
	desc := f.dev.lookup(req.Nr())
	if desc == nil {
		f.observe(req, nil, syscall.EINVAL)
		return f.traceResult(req, nil, nil, nil, syscall.EINVAL)
	}
	kcmd := desc.cmd
	if kcmd == 0 {
		kcmd = req
	}
	inSize, outSize := req.Size(), req.Size()
	if !req.CopiesIn() || !kcmd.CopiesIn() {
		inSize = 0
	}
	if !req.CopiesOut() || !kcmd.CopiesOut() {
		outSize = 0
	}
	ksize := max(inSize, outSize, kcmd.Size())

	var kbuf []byte
	var pooled *[32]uint64
	if ksize <= 256 {
		pooled = kdataPool.Get().(*[32]uint64)
		kbuf = unsafe.Slice((*byte)(unsafe.Pointer(pooled)), 256)[:ksize]
	} else {
		big := make([]uint64, (ksize+7)/8)
		kbuf = unsafe.Slice((*byte)(unsafe.Pointer(&big[0])), ksize)
	}
	// arg stays a pointer throughout: it may be on the caller's stack,
	// which can move during the call (see kernel.CopyFromArg).
	var err error
	if kernel.CopyFromArg(kbuf[:inSize], arg) != nil {
		err = syscall.EFAULT
	} else {
		clear(kbuf[inSize:])
		var in []byte
		if f.dev.opts.Trace != nil || f.dev.opts.OnIoctl != nil {
			in = append([]byte(nil), kbuf[:inSize]...)
		}
		err = f.permit(desc.flags)
		if err == nil {
			var p unsafe.Pointer
			if ksize > 0 {
				p = unsafe.Pointer(&kbuf[0])
			}
			err = desc.fn(f, kcmd, p)
		}
		if kernel.CopyToArg(arg, kbuf[:outSize]) != nil {
			err = syscall.EFAULT
		}
		if f.dev.opts.Trace != nil {
			f.traceResult(req, desc, in, kbuf[:outSize], err)
		}
		if err != nil {
			f.dev.logRefusal(desc.name, err)
		}
		f.observe(req, in, err)
	}
	if pooled != nil {
		kdataPool.Put(pooled)
	}
	if err == nil {
		return nil
	}
	return kernel.Errno(err)
}

// observe calls Options.OnIoctl, if set.
func (f *File) observe(req uapi.Request, in []byte, err error) {
	if f.dev.opts.OnIoctl != nil {
		f.dev.opts.OnIoctl(f, req, in, err)
	}
}

// lookup finds the descriptor of request number nr.
func (d *Device) lookup(nr uint32) *ioctlDesc {
	if nr >= uapi.CommandBase && nr < 0xA0 {
		// vc5_drm_driver (Pi 4/5) has no ioctl table.
		if d.opts.Board == BoardPi4 || d.opts.Board == BoardPi5 {
			return nil
		}
		if i := nr - uapi.CommandBase; i < uint32(len(vc4Ioctls)) {
			return vc4Ioctls[i]
		}
		return nil
	}
	if nr < uint32(len(coreIoctls)) {
		return coreIoctls[nr]
	}
	return nil
}

func (d *Device) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// permit is drm_ioctl_permit.
func (f *File) permit(flags int) error {
	if flags&permRootOnly != 0 && !f.root {
		return syscall.EACCES
	}
	if flags&permAuth != 0 && !f.render && !f.authenticated() {
		return syscall.EACCES
	}
	if flags&permMaster != 0 && !f.IsMaster() {
		return syscall.EACCES
	}
	if flags&permRenderAllow == 0 && f.render {
		return syscall.EACCES
	}
	return nil
}

// authenticated: a primary-node file is authenticated when it is or was
// master, or is root (drm_file.c drm_open_helper, drm_auth.c
// drm_new_set_master). GET_MAGIC/AUTH_MAGIC are not modelled.
func (f *File) authenticated() bool {
	f.dev.mu.Lock()
	defer f.dev.mu.Unlock()
	return f.root || f.wasMaster
}

// FdIoctl implements uapi.FdIoctler: an ioctl on one of the sync files
// the device gave this process (SYNC_IOC_MERGE, SYNC_IOC_FILE_INFO;
// drivers/dma-buf/sync_file.c sync_file_ioctl), run by the kernel model
// as the real kernel runs it on the descriptor. arg is copied in and, on
// success, out, as sync_file_ioctl's copy_from_user and copy_to_user do.
func (f *File) FdIoctl(fd int, req uapi.Request, arg unsafe.Pointer) error {
	kbuf := make([]byte, req.Size())
	if kernel.CopyFromArg(kbuf, arg) != nil {
		return syscall.EFAULT
	}
	var p unsafe.Pointer
	if len(kbuf) > 0 {
		p = unsafe.Pointer(&kbuf[0])
	}
	err := kernel.SyncFileIoctl(f.User(), f.k.Files(), fd, req, p)
	f.dev.trace("%s: %s on fd %d -> %s", f, uapi.IoctlName(req), fd, result(err))
	if err != nil {
		return kernel.Errno(err)
	}
	if kernel.CopyToArg(arg, kbuf) != nil {
		return syscall.EFAULT
	}
	return nil
}

// Mmap implements uapi.Conn: a shared mapping of a BO at the fake offset
// MMAP_BO or MAP_DUMB returned.
func (f *File) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		return nil, syscall.EBADF
	}
	if f.dev.isClosed() {
		return nil, syscall.ENODEV // drm_gem_mmap on an unplugged device
	}
	b, err := f.k.Mmap(offset, length, prot)
	f.dev.trace("%s mmap(offset %#x, %d bytes, prot %#x) -> %s", f, offset, length, prot, result(err))
	if err != nil {
		return nil, kernel.Errno(err)
	}
	return b, nil
}

// MmapShared checks an mmap(2) of the file as Mmap does and, instead of
// mapping the BO here, returns the range of the CMA pool's memfd
// (Device.Pool().Fd()) that another process maps itself; the mapping holds
// a reference on the BO until its Unmap (kernel.SharedMap).
func (f *File) MmapShared(offset uint64, length int, prot int) (*kernel.SharedMap, error) {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		return nil, syscall.EBADF
	}
	if f.dev.isClosed() {
		return nil, syscall.ENODEV
	}
	m, err := f.k.MmapShared(offset, length, prot)
	f.dev.trace("%s mmap(offset %#x, %d bytes, prot %#x) in the client -> %s", f, offset, length, prot, result(err))
	if err != nil {
		return nil, kernel.Errno(err)
	}
	return m, nil
}

// Munmap implements uapi.Conn.
func (f *File) Munmap(b []byte) error {
	err := f.dev.k.Munmap(b)
	f.dev.trace("%s munmap(%d bytes) -> %s", f, len(b), result(err))
	if err != nil {
		return kernel.Errno(err)
	}
	return nil
}

// Fd implements uapi.Conn: an eventfd that polls readable while DRM events
// are pending, -1 once closed.
func (f *File) Fd() int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.closed {
		return -1
	}
	return f.eventFd
}

// SetNonblock makes Read answer EAGAIN instead of waiting (O_NONBLOCK). It
// has the same signature as drm.File's, so code that switches a Conn to
// non-blocking reads (present's swapchain) treats both alike; it cannot
// fail.
func (f *File) SetNonblock(nonblocking bool) error {
	f.evMu.Lock()
	f.nonblock = nonblocking
	f.evMu.Unlock()
	return nil
}

// ReserveEvent implements Client (drm_event_reserve_init_locked).
func (f *File) ReserveEvent(n int) error {
	f.evMu.Lock()
	defer f.evMu.Unlock()
	if len(f.events)+f.reserved+n > eventSpace {
		return &kernel.Error{Errno: syscall.ENOMEM, Msg: fmt.Sprintf(
			"no room for a %d-byte event: %d bytes of events unread and %d reserved of %d (read the file's events)",
			n, len(f.events), f.reserved, eventSpace)}
	}
	f.reserved += n
	return nil
}

// CancelEvent implements Client (drm_event_cancel_free).
func (f *File) CancelEvent(n int) {
	f.evMu.Lock()
	f.reserved = max(f.reserved-n, 0)
	f.evMu.Unlock()
}

// QueueEvent implements Client (drm_send_event): the event takes the
// space its reservation held.
func (f *File) QueueEvent(ev []byte) {
	f.evMu.Lock()
	defer f.evMu.Unlock()
	f.reserved = max(f.reserved-len(ev), 0)
	if len(f.events) == 0 {
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		_, _ = unix.Write(f.eventFd, one[:])
	}
	f.events = append(f.events, ev...)
	f.evCond.Broadcast()
}

// Read implements uapi.Conn as drm_read does: whole events only, as many as
// fit in p; it waits for one unless the file is non-blocking (EAGAIN).
func (f *File) Read(p []byte) (int, error) {
	if f.interrupt() {
		f.dev.trace("%s read -> %s", f, result(syscall.EINTR))
		return 0, syscall.EINTR
	}
	f.evMu.Lock()
	defer f.evMu.Unlock()
	n := 0
	for {
		if f.isClosed() {
			return 0, syscall.EBADF
		}
		if len(f.events) == 0 {
			if n > 0 {
				return n, nil
			}
			if f.nonblock {
				return 0, syscall.EAGAIN
			}
			f.readers++
			f.evCond.Wait()
			f.readers--
			continue
		}
		l := int(binary.NativeEndian.Uint32(f.events[4:8]))
		if l < 8 || l > len(f.events) {
			l = len(f.events) // a malformed event from the display: hand it over whole
		}
		if l > len(p)-n {
			return n, nil
		}
		copy(p[n:], f.events[:l])
		n += l
		f.events = f.events[:copy(f.events, f.events[l:])]
		if len(f.events) == 0 {
			var b [8]byte
			_, _ = unix.Read(f.eventFd, b[:])
		}
	}
}

// Readers reports how many Reads of the file are blocked waiting for an
// event, which a test reads to know that a read has reached its wait
// before the event comes.
func (f *File) Readers() int {
	f.evMu.Lock()
	defer f.evMu.Unlock()
	return f.readers
}

func (f *File) isClosed() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.closed
}

// Close implements uapi.Conn: the file gives up DRM master, the display
// releases its framebuffers, and the kernel frees every handle, the binner
// claim and the perfmons (drm_release). Closing twice is EBADF.
func (f *File) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return syscall.EBADF
	}
	f.closed = true
	f.mu.Unlock()

	d := f.dev
	d.mu.Lock()
	if d.master == f {
		d.master = nil
	}
	d.mu.Unlock()
	if d.display != nil {
		d.display.Release(f)
	}
	f.k.Close()
	f.evMu.Lock()
	f.events, f.reserved = nil, 0
	f.evCond.Broadcast()
	f.evMu.Unlock()
	unix.Close(f.eventFd)
	d.trace("%s closed", f)
	return nil
}

// The DRM core handlers.

// driverName and friends are what DRM_IOCTL_VERSION tells (vc4_drv.c
// DRIVER_NAME, DRIVER_DESC, DRIVER_DATE, as of Linux 6.12, before the date
// was dropped; vc5_drm_driver uses the same).
const (
	driverName = "vc4"
	driverDate = "20140616"
	driverDesc = "Broadcom VC4 graphics"
)

// version is drm_version: each string is copied up to the caller's
// buffer, and its full length is returned (drm_copy_field).
func version(f *File, v *uapi.Version) error {
	v.VersionMajor, v.VersionMinor, v.VersionPatchlevel = 0, 0, 0
	for _, s := range []struct {
		buf *uintptr
		n   *uintptr
		val string
	}{{&v.Name, &v.NameLen, driverName}, {&v.Date, &v.DateLen, driverDate}, {&v.Desc, &v.DescLen, driverDesc}} {
		n := uintptr(len(s.val))
		if n > *s.n {
			n = *s.n
		}
		*s.n = uintptr(len(s.val))
		if n > 0 && *s.buf != 0 {
			if f.User().CopyToUser(uint64(*s.buf), []byte(s.val[:n])) != nil {
				return syscall.EFAULT
			}
		}
	}
	return nil
}

// getCap is drm_getcap: the capabilities of a render-only driver, then
// the KMS ones from the display.
func getCap(f *File, a *uapi.GetCap) error {
	a.Value = 0
	switch a.Capability {
	case uapi.CapTimestampMonotonic:
		a.Value = 1
		return nil
	case uapi.CapPrime:
		a.Value = uapi.PrimeCapImport | uapi.PrimeCapExport
		return nil
	case uapi.CapSyncobj:
		// vc4_drm_driver has DRIVER_SYNCOBJ, vc5_drm_driver not (igt tells
		// a V3D-capable vc4 by this; lib/igt_vc4.c igt_vc4_is_v3d). The
		// syncobj ioctls themselves are not modelled.
		if b := f.dev.opts.Board; b == BoardPi3 || b == BoardPi3NoV3D {
			a.Value = 1
		}
		return nil
	case uapi.CapSyncobjTimeline:
		return nil
	}
	if f.dev.display == nil {
		return &kernel.Error{Errno: syscall.EOPNOTSUPP, Msg: "no display: KMS capabilities need DRIVER_MODESET"}
	}
	v, err := f.dev.display.Cap(a.Capability)
	a.Value = v
	return err
}

// setClientCap is drm_setclientcap: all its capabilities are KMS ones.
func setClientCap(f *File, a *uapi.SetClientCap) error {
	if f.dev.display == nil {
		return &kernel.Error{Errno: syscall.EOPNOTSUPP, Msg: "no display: client capabilities need DRIVER_MODESET"}
	}
	return f.dev.display.SetClientCap(f, a.Capability, a.Value)
}

// masterPerm is drm_master_check_perm: a file may set or drop master if it
// was master before (in the same process, which the simulator's callers
// always are) or if it is root.
func (f *File) masterPerm() error {
	if f.wasMaster || f.root {
		return nil
	}
	return syscall.EACCES
}

// setMaster is drm_setmaster_ioctl.
func setMaster(f *File, _ uapi.Request, _ unsafe.Pointer) error {
	d := f.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.masterPerm(); err != nil {
		return &kernel.Error{Errno: syscall.EACCES, Msg: "SET_MASTER needs CAP_SYS_ADMIN or a file that was master"}
	}
	if d.master == f {
		return nil
	}
	if d.master != nil || d.masterElse {
		return &kernel.Error{Errno: syscall.EBUSY, Msg: "another file is DRM master"}
	}
	if f.render {
		return &kernel.Error{Errno: syscall.EINVAL, Msg: "a render node has no master"}
	}
	d.master = f
	f.wasMaster = true
	return nil
}

// dropMaster is drm_dropmaster_ioctl.
func dropMaster(f *File, _ uapi.Request, _ unsafe.Pointer) error {
	d := f.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.masterPerm(); err != nil {
		return &kernel.Error{Errno: syscall.EACCES, Msg: "DROP_MASTER needs CAP_SYS_ADMIN or a file that was master"}
	}
	if d.master != f {
		return &kernel.Error{Errno: syscall.EINVAL, Msg: "DROP_MASTER by a file that is not master"}
	}
	d.master = nil
	return nil
}

// Tracing.

func (d *Device) trace(format string, args ...any) {
	if d.opts.Trace == nil {
		return
	}
	d.traceMu.Lock()
	defer d.traceMu.Unlock()
	fmt.Fprintf(d.opts.Trace, format+"\n", args...)
}

func result(err error) string {
	if err == nil {
		return "0"
	}
	en := kernel.Errno(err)
	s := unix.ErrnoName(en)
	if s == "" {
		s = fmt.Sprintf("errno %d", uintptr(en))
	}
	if ke, ok := err.(*kernel.Error); ok {
		s += " (" + ke.Msg + ")"
	}
	return s
}

// traceResult writes one ioctl's line and returns err's errno:
//
//	file 1: DRM_IOCTL_VC4_CREATE_BO 0xc0106443 in [00100000 00000000 00000000 00000000] -> 0 out [00100000 00000000 01000000 00000000]
//
// The bytes are the argument as 32-bit little-endian words.
func (f *File) traceResult(req uapi.Request, desc *ioctlDesc, in, out []byte, err error) error {
	if f.dev.opts.Trace != nil {
		name := uapi.IoctlName(req)
		if desc != nil {
			name = desc.name
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s %#08x in %s -> %s", f, name, uint32(req), words(in), result(err))
		if desc != nil {
			fmt.Fprintf(&b, " out %s", words(out))
		}
		f.dev.trace("%s", b.String())
	}
	if err == nil {
		return nil
	}
	return kernel.Errno(err)
}

func words(b []byte) string {
	var s strings.Builder
	s.WriteByte('[')
	for i := 0; i < len(b); i += 4 {
		if i > 0 {
			s.WriteByte(' ')
		}
		if i+4 <= len(b) {
			fmt.Fprintf(&s, "%08x", binary.LittleEndian.Uint32(b[i:]))
		} else {
			for _, c := range b[i:] {
				fmt.Fprintf(&s, "%02x", c)
			}
		}
	}
	s.WriteByte(']')
	return s.String()
}
