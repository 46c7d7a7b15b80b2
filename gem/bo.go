package gem

import (
	"errors"
	"fmt"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// BO is a vc4 buffer object that owns its GEM handle and, once mapped, its
// CPU mapping, and frees both exactly once: Close is idempotent and safe
// on a nil BO, so `defer bo.Close()` is right on every error path.
//
// A BO is not safe for concurrent use; its Wait reuses one argument
// struct so that waiting does not allocate.
type BO struct {
	c      uapi.Conn
	handle uint32
	size   uint32
	shader bool
	mem    []byte
	closed bool
	wait   uapi.WaitBO // the WAIT_BO argument, kept here so Wait does not allocate
}

// NewBO allocates a zeroed BO of size bytes (see AllocBO).
func NewBO(c uapi.Conn, size uint32) (*BO, error) {
	h, err := AllocBO(c, size)
	if err != nil {
		return nil, err
	}
	return &BO{c: c, handle: h, size: size}, nil
}

// NewShaderBO hands validated QPU code to the kernel (see AllocShaderBO).
// Its BO is read-only: Map maps it for reading.
func NewShaderBO(c uapi.Conn, code []byte) (*BO, error) {
	h, err := AllocShaderBO(c, code)
	if err != nil {
		return nil, err
	}
	return &BO{c: c, handle: h, size: uint32(len(code)), shader: true}, nil
}

// Handle is the BO's GEM handle, for SubmitCL.BOHandles and ADDFB2.
func (b *BO) Handle() uint32 { return b.handle }

// Size is the size asked for; the kernel rounds the BO up to whole pages.
func (b *BO) Size() uint32 { return b.size }

// IsShader reports whether the BO holds validated shader code.
func (b *BO) IsShader() bool { return b.shader }

// Map maps the BO into memory, read-write (read-only for a shader BO,
// which the kernel refuses to map writable: vc4_bo.c,
// vc4_gem_object_mmap), and returns the mapping. Later calls return the
// same mapping. Close unmaps it.
func (b *BO) Map() ([]byte, error) {
	if b.closed {
		return nil, errClosed
	}
	if b.mem != nil {
		return b.mem, nil
	}
	off, err := MapOffset(b.c, b.handle)
	if err != nil {
		return nil, err
	}
	prot := unix.PROT_READ | unix.PROT_WRITE
	if b.shader {
		prot = unix.PROT_READ
	}
	mem, err := b.c.Mmap(off, int(b.size), prot)
	if err != nil {
		return nil, fmt.Errorf("gem: mmap of BO %d (%d bytes at offset 0x%x): %w", b.handle, b.size, off, err)
	}
	b.mem = mem
	return mem, nil
}

// Bytes returns the mapping made by Map, or nil.
func (b *BO) Bytes() []byte { return b.mem }

// Wait waits until the last job using the BO is done, at most timeout (a
// negative timeout waits forever); see WaitForBO. It does not allocate.
func (b *BO) Wait(timeout time.Duration) error {
	if b.closed {
		return errClosed
	}
	b.wait = uapi.WaitBO{Handle: b.handle, TimeoutNs: Timeout(timeout)}
	return WaitForBO(b.c, &b.wait)
}

// Label names the BO in the kernel's BO statistics (see Label).
func (b *BO) Label(name string) error {
	if b.closed {
		return errClosed
	}
	return Label(b.c, b.handle, name)
}

// Close unmaps the BO and frees its handle, each exactly once; it tries
// both even when the first fails and reports every failure. Later calls,
// and calls on a nil BO, return nil.
func (b *BO) Close() error {
	if b == nil || b.closed {
		return nil
	}
	b.closed = true
	var errs []error
	if b.mem != nil {
		if err := b.c.Munmap(b.mem); err != nil {
			errs = append(errs, fmt.Errorf("gem: munmap of BO %d: %w", b.handle, err))
		}
		b.mem = nil
	}
	if err := drm.CloseHandle(b.c, b.handle); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
