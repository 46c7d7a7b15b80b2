package drm

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// Trace returns a Conn that forwards every call to c and writes one line
// per call to w: the ioctl's name (from name; uapi.IoctlName, which knows
// the DRM core, KMS and vc4 requests, if nil), the request
// number, the argument's bytes before and after the call in hex, and the
// result — so that a run that fails on a Pi can be read back and compared
// with the same run on the simulated device. Mmap, Munmap and Read are
// traced too. A line looks like:
//
//	12.345678 DRM_IOCTL_VC4_WAIT_SEQNO 0xc0106441 in 0500…ffff out 0500…0000 = 0
//
// The bytes are the caller's struct only: the buffers its user pointers
// point at (control lists, uniforms) are not copied. Tracing is for
// debugging: it writes a line per call and is not allocation-free.
func Trace(c uapi.Conn, w io.Writer, name func(uapi.Request) string) uapi.Conn {
	if name == nil {
		name = uapi.IoctlName
	}
	return &traceConn{Conn: c, w: w, name: name, start: time.Now()}
}

type traceConn struct {
	uapi.Conn
	w     io.Writer
	name  func(uapi.Request) string
	start time.Time

	mu  sync.Mutex
	buf []byte
}

// maxTraced bounds the argument bytes written per line (the largest DRM
// argument vccube passes is SUBMIT_CL's 176 bytes).
const maxTraced = 512

func (t *traceConn) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	n := int(req.Size())
	if n > maxTraced {
		n = maxTraced
	}
	var in []byte
	if arg != nil && n > 0 {
		in = unsafe.Slice((*byte)(arg), n)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin()
	t.buf = append(t.buf, t.name(req)...)
	t.buf = fmt.Appendf(t.buf, " %#08x in ", uint32(req))
	t.buf = hex.AppendEncode(t.buf, in)
	err := t.Conn.Ioctl(req, arg)
	t.buf = append(t.buf, " out "...)
	if req.CopiesOut() {
		t.buf = hex.AppendEncode(t.buf, in)
	} else {
		t.buf = append(t.buf, '-')
	}
	t.end(err)
	return err
}

func (t *traceConn) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	b, err := t.Conn.Mmap(offset, length, prot)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin()
	t.buf = fmt.Appendf(t.buf, "mmap offset %#x length %d prot %#x", offset, length, prot)
	t.end(err)
	return b, err
}

func (t *traceConn) Munmap(b []byte) error {
	err := t.Conn.Munmap(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin()
	t.buf = fmt.Appendf(t.buf, "munmap length %d", len(b))
	t.end(err)
	return err
}

func (t *traceConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin()
	t.buf = append(t.buf, "read "...)
	if n > 0 {
		t.buf = hex.AppendEncode(t.buf, p[:min(n, maxTraced)])
	}
	t.buf = fmt.Appendf(t.buf, " (%d bytes)", max(n, 0))
	t.end(err)
	return n, err
}

// SetNonblock forwards to the traced Conn when it can switch to
// non-blocking reads (drm.File, the simulator's files), so a traced Conn
// behaves as the one it wraps.
func (t *traceConn) SetNonblock(nonblocking bool) error {
	if nb, ok := t.Conn.(interface{ SetNonblock(bool) error }); ok {
		return nb.SetNonblock(nonblocking)
	}
	return errors.New("drm: the traced Conn cannot switch to non-blocking reads")
}

func (t *traceConn) Close() error {
	err := t.Conn.Close()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin()
	t.buf = append(t.buf, "close"...)
	t.end(err)
	return err
}

// begin starts a line with the seconds since Trace.
func (t *traceConn) begin() {
	t.buf = fmt.Appendf(t.buf[:0], "%.6f ", time.Since(t.start).Seconds())
}

// end finishes the line with the result: 0, or the errno's name and
// number, or the error's text.
func (t *traceConn) end(err error) {
	var errno syscall.Errno
	switch {
	case err == nil:
		t.buf = append(t.buf, " = 0\n"...)
	case errors.As(err, &errno):
		t.buf = fmt.Appendf(t.buf, " = -%d (%s)\n", int(errno), errno.Error())
	default:
		t.buf = fmt.Appendf(t.buf, " = error: %v\n", err)
	}
	t.w.Write(t.buf)
}
