package kernel_test

import (
	"errors"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
	"golang.org/x/sys/unix"
)

// A user pointer into memory that faults gives EFAULT, as copy_from_user
// and copy_to_user do, and the process carries on; a string read stops at
// a NUL met before the fault (strndup_user).
func TestUserCopiesFault(t *testing.T) {
	m, err := unix.Mmap(-1, 0, 2*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Mprotect(m[4096:], unix.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	base := uint64(uintptr(unsafe.Pointer(&m[0])))
	hole := base + 4096

	var buf [16]byte
	if err := kernel.CopyFromUser(buf[:], hole); !errors.Is(err, syscall.EFAULT) {
		t.Errorf("read from a PROT_NONE page: %v, want EFAULT", err)
	}
	if err := kernel.CopyToUser(hole-8, buf[:]); !errors.Is(err, syscall.EFAULT) {
		t.Errorf("write running into a PROT_NONE page: %v, want EFAULT", err)
	}
	if err := kernel.CopyFromUser(buf[:], hole-16); err != nil {
		t.Errorf("read just before the hole: %v", err)
	}

	copy(m[4096-3:], "ab\x00")
	if s, err := kernel.StrndupUser(kernel.LocalMemory, hole-3, 100); err != nil || s != "ab" {
		t.Errorf("string ending before the hole: %q, %v", s, err)
	}
	m[4096-1] = 'c'
	if _, err := kernel.StrndupUser(kernel.LocalMemory, hole-3, 100); !errors.Is(err, syscall.EFAULT) {
		t.Errorf("string running into the hole: %v, want EFAULT", err)
	}
}
