// Package drmtest holds test helpers for code above the uapi.Conn
// boundary: a fake Conn driven by a table of request handlers.
package drmtest

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Conn is a fake uapi.Conn for tests: each request is answered by the
// handler registered for it (On), unknown requests fail with EINVAL as the
// kernel's drm_ioctl does for a number past the driver's table. Mmap hands
// out the byte slices registered with Map; Read returns the queued chunks.
//
// The bookkeeping uses maps keyed by values that exist after the first
// call, so a test can measure a wrapper's allocations with
// testing.AllocsPerRun: the fake itself adds none per call.
type Conn struct {
	mu       sync.Mutex
	handlers map[uapi.Request]func(arg unsafe.Pointer) error
	calls    map[uapi.Request]int
	maps     map[uint64][]byte
	mapped   map[*byte]bool
	reads    [][]byte
	closed   int
	unmaps   int
}

// NewConn returns a fake with no handlers.
func NewConn() *Conn {
	return &Conn{
		handlers: map[uapi.Request]func(unsafe.Pointer) error{},
		calls:    map[uapi.Request]int{},
		maps:     map[uint64][]byte{},
		mapped:   map[*byte]bool{},
	}
}

// On makes the fake answer req with fn, which sees the argument as the Go
// struct T. It panics if T's size is not the size req encodes: that is a
// mistake in the test, not in the code under test.
func On[T any](c *Conn, req uapi.Request, fn func(arg *T) error) {
	var zero T
	if uintptr(req.Size()) != unsafe.Sizeof(zero) {
		panic(fmt.Sprintf("drmtest.On: request %#x carries %d bytes, %T is %d", uint32(req), req.Size(), zero, unsafe.Sizeof(zero)))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[req] = func(p unsafe.Pointer) error { return fn((*T)(p)) }
}

// OnNoArg makes the fake answer req, a request without argument (such as
// DRM_IOCTL_SET_MASTER), with fn.
func (c *Conn) OnNoArg(req uapi.Request, fn func() error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[req] = func(unsafe.Pointer) error { return fn() }
}

// Fail makes the fake answer req with errno.
func (c *Conn) Fail(req uapi.Request, errno unix.Errno) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[req] = func(unsafe.Pointer) error { return errno }
}

// Calls reports how many times req was issued.
func (c *Conn) Calls(req uapi.Request) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[req]
}

// Map registers the memory Mmap returns for offset.
func (c *Conn) Map(offset uint64, mem []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maps[offset] = mem
}

// QueueRead queues the bytes one Read call returns.
func (c *Conn) QueueRead(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, b)
}

// Closed reports how many times Close was called.
func (c *Conn) Closed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Unmaps reports how many times Munmap succeeded.
func (c *Conn) Unmaps() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unmaps
}

// Mapped reports how many mappings are live.
func (c *Conn) Mapped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.mapped)
}

// Ioctl implements uapi.Conn.
func (c *Conn) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	c.mu.Lock()
	h := c.handlers[req]
	c.calls[req]++
	closed := c.closed > 0
	c.mu.Unlock()
	if closed {
		return unix.EBADF
	}
	if h == nil {
		return unix.EINVAL
	}
	return h(arg)
}

// Mmap implements uapi.Conn for the offsets registered with Map; others
// fail with EINVAL, as mmap(2) at an unknown fake offset does.
func (c *Conn) Mmap(offset uint64, length int, prot int) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	mem, ok := c.maps[offset]
	if !ok || length <= 0 || length > len(mem) {
		return nil, unix.EINVAL
	}
	b := mem[:length:length]
	c.mapped[&b[0]] = true
	return b, nil
}

// Munmap implements uapi.Conn.
func (c *Conn) Munmap(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(b) == 0 || !c.mapped[&b[0]] {
		return unix.EINVAL
	}
	delete(c.mapped, &b[0])
	c.unmaps++
	return nil
}

// Read implements uapi.Conn: each call returns the next queued chunk, or
// EAGAIN when none is left (a non-blocking fd with no event pending).
func (c *Conn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.reads) == 0 {
		return 0, unix.EAGAIN
	}
	n := copy(p, c.reads[0])
	// Shift rather than reslice, so the queue keeps its capacity and
	// QueueRead does not allocate in a steady test loop.
	copy(c.reads, c.reads[1:])
	c.reads[len(c.reads)-1] = nil
	c.reads = c.reads[:len(c.reads)-1]
	return n, nil
}

// Fd implements uapi.Conn; the fake has no descriptor.
func (c *Conn) Fd() int { return -1 }

// Close implements uapi.Conn.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed++
	if c.closed > 1 {
		return unix.EBADF
	}
	return nil
}

var _ uapi.Conn = (*Conn)(nil)
