package simserve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// conn is one client connection: one open(2) of a device node in the
// client, one DRM file of the device.
type conn struct {
	s   *Server
	ctl *net.UnixConn
	who string // for the log: the client's pid and node
	pid int    // the client's process, 0 if unknown

	// Owned by the goroutine running serve.
	file   *sim.File
	ev     *net.UnixConn
	in     []byte   // one packet from the client
	out    []byte   // one header to the client
	arg    []uint64 // the ioctl argument, 8-aligned as the kernel's copy is
	broken error    // why the client was cut off in the middle of an ioctl
	mem    remoteMemory
	oob    []byte // control messages of a request (FD_IOCTL's descriptor)
	rxFd   int    // the descriptor the last FD_IOCTL carried, -1 when none

	mu         sync.Mutex
	maps       map[uint64]*kernel.SharedMap
	nextToken  uint64
	fileClosed bool
	cutOff     bool
}

func newConn(s *Server, ctl *net.UnixConn) *conn {
	c := &conn{
		s:    s,
		ctl:  ctl,
		in:   make([]byte, HeaderSize+MaxPayload),
		out:  make([]byte, HeaderSize),
		arg:  make([]uint64, (1<<14)/8),
		maps: map[uint64]*kernel.SharedMap{},
		oob:  make([]byte, unix.CmsgSpace(4*4)),
		rxFd: -1,
	}
	c.mem.c = c
	c.who = "client"
	if raw, err := ctl.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) {
			if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
				c.who = fmt.Sprintf("pid %d", cred.Pid)
				c.pid = int(cred.Pid)
			}
		})
	}
	return c
}

// errProtocol marks a client that broke the wire protocol.
var errProtocol = errors.New("protocol error")

// serve runs the connection until the client goes away, breaks the
// protocol, or the server closes.
func (c *conn) serve() {
	defer c.cleanup()
	if err := c.hello(); err != nil {
		c.s.logf("%s: %v", c.who, err)
		return
	}
	for {
		h, payload, err := c.recv(false)
		if err != nil {
			if !errors.Is(err, errGone) {
				c.s.logf("%s: cut off: %v", c.who, err)
			}
			return
		}
		switch h.Type {
		case MsgIoctl:
			err = c.ioctl(h, payload)
		case MsgFdIoctl:
			err = c.fdIoctl(h, payload)
		case MsgMmap:
			err = c.mmap(h)
		case MsgMunmap:
			c.munmap(h.B)
		default:
			err = fmt.Errorf("%w: a %s where a request was due", errProtocol, msgName(h.Type))
		}
		if err == nil && c.broken != nil {
			err = c.broken
		}
		if err != nil {
			c.s.logf("%s: cut off: %v", c.who, err)
			c.sendError(syscall.EPROTO, err.Error())
			return
		}
		if c.done() {
			return
		}
	}
}

// hello opens the DRM file the client asks for and hands it the event fd
// and the pool's memfd.
func (c *conn) hello() error {
	h, _, err := c.recv(true)
	if err != nil {
		return fmt.Errorf("no greeting: %w", err)
	}
	refuse := func(errno syscall.Errno, format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		c.sendError(errno, msg)
		return errors.New(msg)
	}
	if h.Type != MsgHello {
		return refuse(syscall.EPROTO, "the first message is a %s, not HELLO", msgName(h.Type))
	}
	if h.Arg != ProtocolVersion {
		return refuse(syscall.EPROTO, "the preload speaks protocol version %d, this server %d: build the preload from the same tree as the server", h.Arg, ProtocolVersion)
	}
	var o sim.OpenOptions
	switch ptr := uint64(unsafe.Sizeof(uintptr(0))); {
	case h.C == ptr:
	case h.C == 4:
		// A 32-bit program on a 64-bit server: the device meets it as a
		// Pi running a 32-bit kernel would (sim/ilp32.go).
		o.ILP32 = true
		c.who += " (32-bit)"
	default:
		return refuse(syscall.ENOSYS, "a client with %d-byte pointers on a server with %d-byte ones: only 32- and 64-bit programs are served, and a 32-bit server (a 32-bit kernel) runs no 64-bit ones",
			h.C, ptr)
	}
	node := ""
	switch h.A {
	case PrimaryMinor:
		node = "card0"
	case RenderMinor:
		node, o.Render = "renderD128", true
	default:
		return refuse(syscall.ENXIO, "no DRM node with minor %d", h.A)
	}
	c.who += " " + node
	o.User, o.Files = &c.mem, &c.mem
	f, err := c.s.opts.Device.OpenWith(o)
	if err != nil {
		errno := syscall.EIO
		errors.As(err, &errno)
		return refuse(errno, "opening %s: %v", node, err)
	}
	c.file = f
	if c.s.opts.OnOpen != nil {
		c.s.opts.OnOpen(c.pid, node)
	}

	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return refuse(syscall.EMFILE, "socketpair for the event fd: %v", err)
	}
	mine := os.NewFile(uintptr(pair[0]), "events")
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		unix.Close(pair[1])
		return refuse(syscall.EMFILE, "event socket: %v", err)
	}
	c.ev = fc.(*net.UnixConn)
	poolFd := c.s.opts.Device.Pool().Fd()
	if poolFd < 0 {
		unix.Close(pair[1])
		return refuse(syscall.ENODEV, "the device is closed")
	}
	size := c.s.opts.Device.Pool().Size()
	err = c.send(Header{Type: MsgWelcome, Arg: ProtocolVersion, A: uint64(size)}, nil, unix.UnixRights(pair[1], poolFd))
	unix.Close(pair[1])
	if err != nil {
		return fmt.Errorf("sending the welcome: %w", err)
	}
	c.s.logf("%s: opened", c.who)
	go c.pumpEvents(f, c.ev)
	go c.watchEventFd(c.ev)
	return nil
}

// pumpEvents moves the DRM file's events to the client's event fd, one
// record per packet.
func (c *conn) pumpEvents(f *sim.File, ev *net.UnixConn) {
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+8 <= n; {
			l := int(binary.NativeEndian.Uint32(buf[off+4:]))
			if l < 8 || off+l > n {
				l = n - off
			}
			if _, err := ev.Write(buf[off : off+l]); err != nil {
				return
			}
			off += l
		}
	}
}

// watchEventFd waits until the client has closed every copy of its event
// fd, its DRM fd: then the DRM file is released, as the last close of a
// DRM fd does (drm_release). Mappings the client made live on; the
// connection ends with the last of them.
func (c *conn) watchEventFd(ev *net.UnixConn) {
	var b [64]byte
	for {
		if _, err := ev.Read(b[:]); err != nil {
			break
		}
	}
	c.closeFile()
	if c.done() {
		c.ctl.Close() // wakes serve
	}
}

// closeFile releases the DRM file once.
func (c *conn) closeFile() {
	c.mu.Lock()
	if c.fileClosed || c.file == nil {
		c.fileClosed = true
		c.mu.Unlock()
		return
	}
	c.fileClosed = true
	c.mu.Unlock()
	c.file.Close()
	c.s.logf("%s: closed", c.who)
}

// done reports whether nothing is left to serve: the DRM file is closed
// and no mapping of its BOs remains.
func (c *conn) done() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fileClosed && len(c.maps) == 0
}

// shutdown cuts the client off (Server.Close).
func (c *conn) shutdown() {
	c.mu.Lock()
	c.cutOff = true
	c.mu.Unlock()
	c.ctl.Close()
}

// cleanup releases everything the connection holds.
func (c *conn) cleanup() {
	c.closeFile()
	if c.rxFd >= 0 {
		unix.Close(c.rxFd)
		c.rxFd = -1
	}
	c.mu.Lock()
	maps := c.maps
	c.maps = map[uint64]*kernel.SharedMap{}
	c.mu.Unlock()
	for _, m := range maps {
		m.Unmap()
	}
	if c.ev != nil {
		c.ev.Close()
	}
	c.ctl.Close()
}

// errGone is a client that closed its end.
var errGone = errors.New("the client went away")

// recv reads one packet. With deadline the client must send it within the
// server's timeout (it owes an answer); without, the server waits as long
// as the client likes.
func (c *conn) recv(deadline bool) (Header, []byte, error) {
	if deadline {
		c.ctl.SetReadDeadline(time.Now().Add(c.s.opts.Timeout))
	} else {
		c.ctl.SetReadDeadline(time.Time{})
	}
	n, oobn, flags, _, err := c.ctl.ReadMsgUnix(c.in, c.oob)
	if oobn > 0 {
		// Only FD_IOCTL carries a descriptor; any other is closed.
		var fds []int
		if msgs, perr := unix.ParseSocketControlMessage(c.oob[:oobn]); perr == nil {
			for _, msg := range msgs {
				if got, rerr := unix.ParseUnixRights(&msg); rerr == nil {
					fds = append(fds, got...)
				}
			}
		}
		if c.rxFd >= 0 {
			unix.Close(c.rxFd)
			c.rxFd = -1
		}
		if err == nil && n >= 4 && binary.NativeEndian.Uint32(c.in) == MsgFdIoctl && len(fds) == 1 {
			c.rxFd = fds[0]
		} else {
			for _, fd := range fds {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return Header{}, nil, fmt.Errorf("the client did not answer within %v", c.s.opts.Timeout)
		}
		return Header{}, nil, errGone
	}
	if n == 0 {
		return Header{}, nil, errGone
	}
	if flags&unix.MSG_TRUNC != 0 {
		return Header{}, nil, fmt.Errorf("%w: a packet longer than %d bytes", errProtocol, len(c.in))
	}
	h, err := parseHeader(c.in[:n])
	if err != nil {
		return Header{}, nil, fmt.Errorf("%w: %v", errProtocol, err)
	}
	return h, c.in[HeaderSize:n], nil
}

// send writes a header with an optional payload and control message as
// one packet.
func (c *conn) send(h Header, payload, oob []byte) error {
	h.put(c.out)
	c.ctl.SetWriteDeadline(time.Now().Add(c.s.opts.Timeout))
	var err error
	if len(payload) == 0 {
		_, _, err = c.ctl.WriteMsgUnix(c.out, oob, nil)
	} else {
		pkt := make([]byte, 0, HeaderSize+len(payload))
		pkt = append(append(pkt, c.out...), payload...)
		_, _, err = c.ctl.WriteMsgUnix(pkt, oob, nil)
	}
	return err
}

// sendData writes a data packet (bytes for the client's memory).
func (c *conn) sendData(b []byte) error {
	c.ctl.SetWriteDeadline(time.Now().Add(c.s.opts.Timeout))
	_, err := c.ctl.Write(b)
	return err
}

// sendError tells the client why it is cut off; errors sending it are
// moot.
func (c *conn) sendError(errno syscall.Errno, msg string) {
	if len(msg) > 1024 {
		msg = msg[:1024]
	}
	_ = c.send(Header{Type: MsgError, Arg: uint32(errno)}, []byte(msg), nil)
}

// argBytes is the ioctl argument buffer as bytes.
func (c *conn) argBytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.arg[0])), 8*len(c.arg))
}

// ioctl runs one ioctl of the client: the argument came in the request,
// the copies the kernel makes go back and forth on the way, and the
// argument goes back with the result, as drm_ioctl copies it in and out.
func (c *conn) ioctl(h Header, payload []byte) error {
	req := uapi.Request(h.Arg)
	size := int(req.Size())
	arg := c.argBytes()[:size]
	if !req.CopiesIn() && len(payload) != 0 {
		return fmt.Errorf("%w: %d argument bytes for request %#08x, which reads none", errProtocol, len(payload), uint32(req))
	}
	if len(payload) > size {
		return fmt.Errorf("%w: %d argument bytes for request %#08x of %d", errProtocol, len(payload), uint32(req), size)
	}
	if req.CopiesIn() && len(payload) < size {
		// The client could not read its own argument (a bad pointer):
		// copy_from_user fails and nothing is copied back.
		return c.send(Header{Type: MsgIoctlReply, Arg: uint32(syscall.EFAULT)}, nil, nil)
	}
	copy(arg, payload)
	clear(arg[len(payload):])
	var p unsafe.Pointer
	if size > 0 {
		p = unsafe.Pointer(&arg[0])
	}
	err := c.file.Ioctl(req, p)
	if c.broken != nil {
		return c.broken
	}
	var errno syscall.Errno
	if err != nil && !errors.As(err, &errno) {
		errno = syscall.EIO
	}
	out := 0
	// The argument goes back whatever the result, as drm_ioctl copies it
	// out after the handler; only a request the DRM core does not know
	// (ENOTTY: not a DRM request) is not copied.
	if req.CopiesOut() && errno != syscall.ENOTTY {
		out = size
	}
	if err := c.send(Header{Type: MsgIoctlReply, Arg: uint32(errno), B: uint64(out)}, nil, nil); err != nil {
		return err
	}
	if out > 0 {
		return c.sendData(arg[:out])
	}
	return nil
}

// fdIoctl runs an ioctl on a descriptor of the client that the server
// made (a sync file), carried with the request: the kernel model's
// sync_file_ioctl, with the client's memory and descriptors. The argument
// goes back only on success (sync_file_ioctl's copy_to_user).
func (c *conn) fdIoctl(h Header, payload []byte) error {
	fd := c.rxFd
	c.rxFd = -1
	if fd < 0 {
		return fmt.Errorf("%w: FD_IOCTL without a descriptor", errProtocol)
	}
	defer unix.Close(fd)
	req := uapi.Request(h.Arg)
	size := int(req.Size())
	arg := c.argBytes()[:size]
	if len(payload) > size || (!req.CopiesIn() && len(payload) != 0) {
		return fmt.Errorf("%w: %d argument bytes for request %#08x of %d", errProtocol, len(payload), uint32(req), size)
	}
	if req.CopiesIn() && len(payload) < size {
		return c.send(Header{Type: MsgIoctlReply, Arg: uint32(syscall.EFAULT)}, nil, nil)
	}
	copy(arg, payload)
	clear(arg[len(payload):])
	var p unsafe.Pointer
	if size > 0 {
		p = unsafe.Pointer(&arg[0])
	}
	err := kernel.SyncFileIoctl(&c.mem, &c.mem, fd, req, p)
	if c.broken != nil {
		return c.broken
	}
	var errno syscall.Errno
	if err != nil && !errors.As(err, &errno) {
		errno = syscall.EIO
	}
	out := 0
	if err == nil && req.CopiesOut() {
		out = size
	}
	if err := c.send(Header{Type: MsgIoctlReply, Arg: uint32(errno), B: uint64(out)}, nil, nil); err != nil {
		return err
	}
	if out > 0 {
		return c.sendData(arg[:out])
	}
	return nil
}

// mmap checks an mmap(2) of the DRM fd and hands the client the range of
// the pool's memfd it maps instead; the BO stays referenced until MUNMAP.
func (c *conn) mmap(h Header) error {
	reply := Header{Type: MsgMmapReply}
	if h.B == 0 || h.B > uint64(c.s.opts.Device.Pool().Size()) {
		reply.Arg = uint32(syscall.EINVAL)
		return c.send(reply, nil, nil)
	}
	c.mu.Lock()
	closed := c.fileClosed
	c.mu.Unlock()
	if closed {
		reply.Arg = uint32(syscall.EBADF)
		return c.send(reply, nil, nil)
	}
	m, err := c.file.MmapShared(h.A, int(h.B), int(int32(h.C)))
	if err != nil {
		errno := syscall.EINVAL
		errors.As(err, &errno)
		reply.Arg = uint32(errno)
		return c.send(reply, nil, nil)
	}
	c.mu.Lock()
	c.nextToken++
	tok := c.nextToken
	c.maps[tok] = m
	c.mu.Unlock()
	reply.A, reply.B = uint64(m.PoolOffset()), tok
	return c.send(reply, nil, nil)
}

// munmap ends a mapping; an unknown token is ignored (the mapping is gone
// already).
func (c *conn) munmap(tok uint64) {
	c.mu.Lock()
	m := c.maps[tok]
	delete(c.maps, tok)
	c.mu.Unlock()
	if m != nil {
		m.Unmap()
	}
}

// remoteMemory is the client's memory as the kernel reaches it: each copy
// is a request to the client, which reads or writes its own memory and
// answers. Anything the client refuses or cannot do is EFAULT; a client
// that breaks the protocol or does not answer in time is cut off (every
// later copy fails at once, and the connection ends after the ioctl).
type remoteMemory struct {
	c *conn
}

var (
	_ kernel.UserMemory = (*remoteMemory)(nil)
	_ kernel.UserFiles  = (*remoteMemory)(nil)
)

// userRange reports whether [addr, addr+n) is a range a 64-bit process
// could have: no wrap-around, the null page excluded.
func userRange(addr uint64, n int) bool {
	return addr >= 4096 && addr+uint64(n) >= addr
}

// CopyFromUser implements kernel.UserMemory.
func (m *remoteMemory) CopyFromUser(dst []byte, addr uint64) error {
	c := m.c
	if len(dst) == 0 {
		return nil
	}
	if c.broken != nil || !userRange(addr, len(dst)) {
		return syscall.EFAULT
	}
	for len(dst) > 0 {
		n := min(len(dst), MaxPayload)
		if err := c.send(Header{Type: MsgReadUser, A: addr, B: uint64(n)}, nil, nil); err != nil {
			c.broken = fmt.Errorf("asking for %d bytes at %#x: %w", n, addr, err)
			return syscall.EFAULT
		}
		h, payload, err := c.recv(true)
		if err != nil {
			c.broken = fmt.Errorf("waiting for %d bytes at %#x: %w", n, addr, err)
			return syscall.EFAULT
		}
		if h.Type != MsgReadReply {
			c.broken = fmt.Errorf("%w: a %s where READ_REPLY was due", errProtocol, msgName(h.Type))
			return syscall.EFAULT
		}
		if h.Arg != 0 || len(payload) != n {
			return syscall.EFAULT
		}
		copy(dst, payload)
		dst, addr = dst[n:], addr+uint64(n)
	}
	return nil
}

// CopyToUser implements kernel.UserMemory.
func (m *remoteMemory) CopyToUser(addr uint64, src []byte) error {
	c := m.c
	if len(src) == 0 {
		return nil
	}
	if c.broken != nil || !userRange(addr, len(src)) {
		return syscall.EFAULT
	}
	for len(src) > 0 {
		n := min(len(src), MaxPayload)
		err := c.send(Header{Type: MsgWriteUser, A: addr, B: uint64(n)}, nil, nil)
		if err == nil {
			err = c.sendData(src[:n])
		}
		if err != nil {
			c.broken = fmt.Errorf("writing %d bytes at %#x: %w", n, addr, err)
			return syscall.EFAULT
		}
		h, _, err := c.recv(true)
		if err != nil {
			c.broken = fmt.Errorf("waiting for the write of %d bytes at %#x: %w", n, addr, err)
			return syscall.EFAULT
		}
		if h.Type != MsgWriteReply {
			c.broken = fmt.Errorf("%w: a %s where WRITE_REPLY was due", errProtocol, msgName(h.Type))
			return syscall.EFAULT
		}
		if h.Arg != 0 {
			return syscall.EFAULT
		}
		src, addr = src[n:], addr+uint64(n)
	}
	return nil
}

// InstallFd implements kernel.UserFiles: the descriptor goes to the
// client, which answers with its number there.
func (m *remoteMemory) InstallFd(fd int, cloexec bool) (int32, error) {
	c := m.c
	defer unix.Close(fd)
	if c.broken != nil {
		return -1, syscall.EBADF
	}
	var flag uint64
	if cloexec {
		flag = 1
	}
	if err := c.send(Header{Type: MsgInstallFd, A: flag}, nil, unix.UnixRights(fd)); err != nil {
		c.broken = fmt.Errorf("passing a descriptor: %w", err)
		return -1, syscall.EBADF
	}
	h, _, err := c.recv(true)
	if err != nil {
		c.broken = fmt.Errorf("waiting for the client to take a descriptor: %w", err)
		return -1, syscall.EBADF
	}
	if h.Type != MsgInstallReply {
		c.broken = fmt.Errorf("%w: a %s where INSTALL_REPLY was due", errProtocol, msgName(h.Type))
		return -1, syscall.EBADF
	}
	if h.Arg != 0 {
		return -1, syscall.Errno(h.Arg)
	}
	if int64(h.A) < 0 || h.A > 1<<31-1 {
		c.broken = fmt.Errorf("%w: the client took a descriptor as number %d", errProtocol, int64(h.A))
		return -1, syscall.EBADF
	}
	return int32(h.A), nil
}

// GetFd implements kernel.UserFiles: the client sends a copy of its
// descriptor n.
func (m *remoteMemory) GetFd(n int32) (int, func(), error) {
	c := m.c
	if c.broken != nil {
		return -1, nil, syscall.EBADF
	}
	if n < 0 {
		return -1, nil, syscall.EBADF
	}
	if err := c.send(Header{Type: MsgGetFd, A: uint64(n)}, nil, nil); err != nil {
		c.broken = fmt.Errorf("asking for descriptor %d: %w", n, err)
		return -1, nil, syscall.EBADF
	}
	c.ctl.SetReadDeadline(time.Now().Add(c.s.opts.Timeout))
	oob := make([]byte, unix.CmsgSpace(4*4))
	k, oobn, flags, _, err := c.ctl.ReadMsgUnix(c.in, oob)
	var fds []int
	if err == nil && oobn > 0 {
		if msgs, perr := unix.ParseSocketControlMessage(oob[:oobn]); perr == nil {
			for _, msg := range msgs {
				if got, rerr := unix.ParseUnixRights(&msg); rerr == nil {
					fds = append(fds, got...)
				}
			}
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	if err != nil || k == 0 {
		closeAll()
		c.broken = fmt.Errorf("waiting for descriptor %d: %v", n, err)
		return -1, nil, syscall.EBADF
	}
	h, perr := parseHeader(c.in[:k])
	if perr != nil || h.Type != MsgGetFdReply || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeAll()
		c.broken = fmt.Errorf("%w: a bad answer where GET_FD_REPLY was due", errProtocol)
		return -1, nil, syscall.EBADF
	}
	if h.Arg != 0 || len(fds) != 1 {
		closeAll()
		return -1, nil, syscall.EBADF
	}
	fd := fds[0]
	return fd, func() { unix.Close(fd) }, nil
}
