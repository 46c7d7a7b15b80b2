package simserve

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Client is a Go program's file of a served device: the client side of
// the wire protocol, as the preload library speaks it for C programs,
// behind uapi.Conn. It serves the server's copy requests from this
// process's memory (through the fault-safe kernel.CopyFromUser and
// CopyToUser, so a bad pointer is EFAULT, not a crash) and maps BOs from
// the pool's memfd. Its methods may be called from several goroutines;
// ioctls take turns.
type Client struct {
	mu    sync.Mutex
	ctl   *net.UnixConn
	ev    int // the event socket: the DRM fd
	memfd int
	in    []byte
	out   []byte
	dead  error

	maps map[*byte]uint64 // mapping start → token
}

var _ uapi.Conn = (*Client)(nil)

// Dial opens node minor (PrimaryMinor or RenderMinor) of the device
// served in dir (Options.Dir).
func Dial(dir string, minor int) (*Client, error) {
	return dial(dir, minor, uint64(unsafe.Sizeof(uintptr(0))))
}

// dial is Dial announcing ptrSize-byte pointers in HELLO.
func dial(dir string, minor int, ptrSize uint64) (*Client, error) {
	addr := &net.UnixAddr{Name: filepath.Join(dir, SocketName), Net: "unixpacket"}
	ctl, err := net.DialUnix("unixpacket", nil, addr)
	if err != nil {
		return nil, fmt.Errorf("simserve: cannot reach the server at %s: %w", addr.Name, err)
	}
	c := &Client{ctl: ctl, ev: -1, memfd: -1, in: make([]byte, HeaderSize+MaxPayload), out: make([]byte, HeaderSize), maps: map[*byte]uint64{}}
	if err := c.sendHeader(Header{Type: MsgHello, Arg: ProtocolVersion, A: uint64(minor), B: uint64(unix.O_RDWR), C: ptrSize}, nil); err != nil {
		ctl.Close()
		return nil, err
	}
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, _, _, err := ctl.ReadMsgUnix(c.in, oob)
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("simserve: no welcome: %w", err)
	}
	fds := parseRights(oob[:oobn])
	h, err := parseHeader(c.in[:n])
	if err != nil || h.Type != MsgWelcome || len(fds) != 2 {
		closeFds(fds)
		ctl.Close()
		if err == nil && h.Type == MsgError {
			return nil, fmt.Errorf("simserve: the server refused: %s (%w)", c.in[HeaderSize:n], syscall.Errno(h.Arg))
		}
		return nil, errors.New("simserve: a bad welcome from the server")
	}
	c.ev, c.memfd = fds[0], fds[1]
	return c, nil
}

func parseRights(oob []byte) []int {
	var fds []int
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeFds(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

func (c *Client) sendHeader(h Header, payload []byte) error {
	h.put(c.out)
	_, err := c.ctl.Write(append(c.out[:HeaderSize:HeaderSize], payload...))
	return err
}

func (c *Client) recv() (Header, []byte, []int, error) {
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := c.ctl.ReadMsgUnix(c.in, oob)
	if err != nil {
		return Header{}, nil, nil, err
	}
	fds := parseRights(oob[:oobn])
	h, err := parseHeader(c.in[:n])
	if err != nil {
		closeFds(fds)
		return Header{}, nil, nil, err
	}
	return h, c.in[HeaderSize:n], fds, nil
}

// Ioctl implements uapi.Conn.
func (c *Client) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	return c.ioctl(-1, req, arg)
}

// FdIoctl implements uapi.FdIoctler, as the preload does: an ioctl on a
// descriptor the server made (a sync file) goes to the server with a copy
// of the descriptor (FD_IOCTL).
func (c *Client) FdIoctl(fd int, req uapi.Request, arg unsafe.Pointer) error {
	return c.ioctl(fd, req, arg)
}

func (c *Client) ioctl(fd int, req uapi.Request, arg unsafe.Pointer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead != nil {
		return syscall.ENODEV
	}
	size := int(req.Size())
	var in []byte
	if req.CopiesIn() && size > 0 {
		in = make([]byte, size)
		if kernel.CopyFromArg(in, arg) != nil {
			return syscall.EFAULT
		}
	}
	var err error
	if fd < 0 {
		err = c.sendHeader(Header{Type: MsgIoctl, Arg: uint32(req)}, in)
	} else {
		(&Header{Type: MsgFdIoctl, Arg: uint32(req)}).put(c.out)
		_, _, err = c.ctl.WriteMsgUnix(append(append([]byte(nil), c.out...), in...), unix.UnixRights(fd), nil)
	}
	if err != nil {
		c.dead = err
		return syscall.ENODEV
	}
	for {
		h, payload, fds, err := c.recv()
		if err != nil {
			c.dead = err
			return syscall.ENODEV
		}
		if h.Type != MsgInstallFd {
			closeFds(fds)
		}
		switch h.Type {
		case MsgReadUser:
			buf := make([]byte, h.B)
			if kernel.CopyFromUser(buf, h.A) != nil {
				err = c.sendHeader(Header{Type: MsgReadReply, Arg: uint32(syscall.EFAULT)}, nil)
			} else {
				err = c.sendHeader(Header{Type: MsgReadReply}, buf)
			}
		case MsgWriteUser:
			buf := make([]byte, h.B)
			var k int
			if k, err = c.ctl.Read(buf); err == nil {
				var errno syscall.Errno
				if k != len(buf) || kernel.CopyToUser(h.A, buf) != nil {
					errno = syscall.EFAULT
				}
				err = c.sendHeader(Header{Type: MsgWriteReply, Arg: uint32(errno)}, nil)
			}
		case MsgInstallFd:
			if len(fds) != 1 {
				closeFds(fds)
				err = c.sendHeader(Header{Type: MsgInstallReply, Arg: uint32(syscall.EMFILE)}, nil)
				break
			}
			if h.A&1 == 0 {
				_, _ = unix.FcntlInt(uintptr(fds[0]), unix.F_SETFD, 0)
			}
			err = c.sendHeader(Header{Type: MsgInstallReply, A: uint64(fds[0])}, nil)
		case MsgGetFd:
			reply := Header{Type: MsgGetFdReply}
			reply.put(c.out)
			_, _, err = c.ctl.WriteMsgUnix(c.out, unix.UnixRights(int(h.A)), nil)
			if errors.Is(err, syscall.EBADF) {
				err = c.sendHeader(Header{Type: MsgGetFdReply, Arg: uint32(syscall.EBADF)}, nil)
			}
		case MsgIoctlReply:
			if h.B > uint64(size) {
				c.dead = errors.New("the server sent back more than the argument")
				return syscall.ENODEV
			}
			if h.B > 0 {
				out := make([]byte, h.B)
				k, err := c.ctl.Read(out)
				if err != nil || k != len(out) {
					c.dead = fmt.Errorf("reading the argument back: %v", err)
					return syscall.ENODEV
				}
				if kernel.CopyToArg(arg, out) != nil {
					return syscall.EFAULT
				}
			}
			if h.Arg != 0 {
				return syscall.Errno(h.Arg)
			}
			return nil
		case MsgError:
			c.dead = fmt.Errorf("the server cut the file off: %s", payload)
			return syscall.Errno(h.Arg)
		default:
			c.dead = fmt.Errorf("unexpected %s", msgName(h.Type))
			return syscall.ENODEV
		}
		if err != nil {
			c.dead = err
			return syscall.ENODEV
		}
	}
}

// Mmap implements uapi.Conn: the server checks the offset and names the
// range of its pool, which is mapped here.
func (c *Client) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead != nil {
		return nil, syscall.ENODEV
	}
	if err := c.sendHeader(Header{Type: MsgMmap, A: offset, B: uint64(length), C: uint64(uint32(prot))}, nil); err != nil {
		c.dead = err
		return nil, syscall.ENODEV
	}
	h, _, fds, err := c.recv()
	closeFds(fds)
	if err != nil || h.Type != MsgMmapReply {
		c.dead = fmt.Errorf("no MMAP_REPLY: %v", err)
		return nil, syscall.ENODEV
	}
	if h.Arg != 0 {
		return nil, syscall.Errno(h.Arg)
	}
	b, err := unix.Mmap(c.memfd, int64(h.A), length, prot, unix.MAP_SHARED)
	if err != nil {
		_ = c.sendHeader(Header{Type: MsgMunmap, B: h.B}, nil)
		return nil, err
	}
	c.maps[&b[0]] = h.B
	return b, nil
}

// Munmap implements uapi.Conn.
func (c *Client) Munmap(b []byte) error {
	if len(b) == 0 {
		return syscall.EINVAL
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	tok, ok := c.maps[&b[0]]
	if !ok {
		return syscall.EINVAL
	}
	delete(c.maps, &b[0])
	err := unix.Munmap(b)
	if c.dead == nil {
		_ = c.sendHeader(Header{Type: MsgMunmap, B: tok}, nil)
	}
	if c.ev < 0 && len(c.maps) == 0 {
		c.ctl.Close()
		unix.Close(c.memfd)
	}
	return err
}

// Read implements uapi.Conn: one event per read, from the event socket.
func (c *Client) Read(p []byte) (int, error) {
	n, err := unix.Read(c.ev, p)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Fd implements uapi.Conn: the event socket, readable while events are
// pending.
func (c *Client) Fd() int { return c.ev }

// Close implements uapi.Conn: the DRM file closes with the event fd;
// mappings still made stay valid until unmapped, as on Linux.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ev < 0 {
		return syscall.EBADF
	}
	err := unix.Close(c.ev)
	c.ev = -1
	if len(c.maps) == 0 {
		c.ctl.Close()
		unix.Close(c.memfd)
	}
	return err
}
