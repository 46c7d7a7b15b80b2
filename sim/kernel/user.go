package kernel

import (
	"math/bits"
	"runtime/debug"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// User memory. The uAPI structs carry "user pointers": addresses in the
// calling process, which the kernel reaches only through copy_from_user and
// copy_to_user. Those fail with EFAULT instead of crashing when the address
// is bad (include/linux/uaccess.h; the ioctls turn a short copy into
// -EFAULT, e.g. vc4_gem.c vc4_get_bcl). The simulator runs in the caller's
// process, so a user pointer is a real address here; CopyFromUser and
// CopyToUser are the one place that touches one, and they give the same
// answers: EFAULT for a null or implausible address, and EFAULT (not a
// crash) when the memory is not mapped, by turning the fault into a
// recoverable panic (runtime/debug.SetPanicOnFault).
//
// The caller of uapi.Conn.Ioctl keeps the memory its pointers name alive and
// pinned during the call (uapi.Conn's contract), so reading it here is safe.
//
// That is the in-process case. A file can also belong to a program in
// another process (the device served over a socket, package simserve):
// its user pointers are addresses in that process, which only it can
// read. So every copy the kernel model makes goes through the file's
// UserMemory: LocalMemory (the functions below) for a caller in this
// process, a remote accessor for the others.

// UserMemory is the memory of the process a file belongs to, as the
// kernel reaches it: copy_from_user and copy_to_user. Both copy all or
// nothing as far as the caller can tell and answer EFAULT (a
// syscall.Errno) when the process cannot give or take the bytes.
// Implementations must not keep dst or src after the call: the kernel
// passes its own buffers, some of them reused for every frame.
type UserMemory interface {
	CopyFromUser(dst []byte, addr uint64) error
	CopyToUser(addr uint64, src []byte) error
}

// LocalMemory is the memory of this process: the package's CopyFromUser
// and CopyToUser.
var LocalMemory UserMemory = localMemory{}

type localMemory struct{}

func (localMemory) CopyFromUser(dst []byte, addr uint64) error { return CopyFromUser(dst, addr) }
func (localMemory) CopyToUser(addr uint64, src []byte) error   { return CopyToUser(addr, src) }

// UserFiles is the file descriptor table of the process a file belongs
// to, where the kernel installs the descriptors it creates for the caller
// (fd_install: a PRIME export's dma-buf) and looks up the ones the caller
// names (fget: a PRIME import).
type UserFiles interface {
	// InstallFd moves fd, a descriptor of this process that the call
	// created, into the caller's table (close-on-exec if cloexec) and
	// returns its number there; fd is the callee's to close either way.
	InstallFd(fd int, cloexec bool) (int32, error)
	// GetFd returns a descriptor of this process for the caller's
	// descriptor n (EBADF if it has none) and a function that releases
	// it once the call is done with it.
	GetFd(n int32) (fd int, release func(), err error)
}

// LocalFiles is the descriptor table of this process: the descriptors
// the kernel model creates are the caller's already.
var LocalFiles UserFiles = localFiles{}

type localFiles struct{}

func (localFiles) InstallFd(fd int, cloexec bool) (int32, error) {
	if !cloexec {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return int32(fd), nil
}

func (localFiles) GetFd(n int32) (int, func(), error) { return int(n), func() {}, nil }

// minUserAddr is the lowest address a user mapping can have: Linux's
// default vm.mmap_min_addr (65536), which keeps the null page and its
// neighbours unmapped.
const minUserAddr = 1 << 16

// maxUserAddr bounds user addresses: 57 bits on 64-bit hosts (the largest
// user address space Linux gives, with 5-level page tables) and 32 bits on
// 32-bit ones.
var maxUserAddr = func() uint64 {
	if bits.UintSize == 64 {
		return 1 << 57
	}
	return 1 << 32
}()

// userRangeOK reports whether [addr, addr+n) could be user memory.
func userRangeOK(addr uint64, n int) bool {
	end := addr + uint64(n)
	return addr >= minUserAddr && end >= addr && end <= maxUserAddr
}

// userSlice turns a plausible user range into a slice without a
// uintptr-to-pointer conversion of a value go vet cannot see the origin of:
// the address came from uapi.UserPointer of memory the caller pinned.
func userSlice(addr uint64, n int) []byte {
	a := uintptr(addr)
	p := *(*unsafe.Pointer)(unsafe.Pointer(&a))
	return unsafe.Slice((*byte)(p), n)
}

// CopyFromUser copies len(dst) bytes from user address addr into dst, as
// copy_from_user does. Copying nothing always succeeds, whatever addr is.
func CopyFromUser(dst []byte, addr uint64) error {
	if len(dst) == 0 {
		return nil
	}
	if !userRangeOK(addr, len(dst)) {
		return syscall.EFAULT
	}
	return faultSafeCopy(dst, userSlice(addr, len(dst)))
}

// CopyToUser copies src to user address addr, as copy_to_user does.
func CopyToUser(addr uint64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if !userRangeOK(addr, len(src)) {
		return syscall.EFAULT
	}
	return faultSafeCopy(userSlice(addr, len(src)), src)
}

// faultSafeCopy copies src to dst, one of which is the caller's memory,
// and answers EFAULT instead of crashing when touching it faults.
func faultSafeCopy(dst, src []byte) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if recover() != nil {
			err = syscall.EFAULT
		}
	}()
	copy(dst, src)
	return nil
}

// CopyFromArg and CopyToArg copy an ioctl's argument itself: a Go
// pointer, which may point into the caller's goroutine stack (the compiler
// keeps an argument that does not escape there). It must stay a pointer for
// the whole call, so that a stack move updates it; turning it into an
// address and back, as user pointers inside structs are, would not follow
// the move. A nil argument with bytes to copy is EFAULT.
func CopyFromArg(dst []byte, arg unsafe.Pointer) error {
	if len(dst) == 0 {
		return nil
	}
	if arg == nil {
		return syscall.EFAULT
	}
	return faultSafeCopy(dst, unsafe.Slice((*byte)(arg), len(dst)))
}

// CopyToArg is CopyFromArg's other direction.
func CopyToArg(arg unsafe.Pointer, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if arg == nil {
		return syscall.EFAULT
	}
	return faultSafeCopy(unsafe.Slice((*byte)(arg), len(src)), src)
}

// StrndupUser reads a NUL-terminated string of at most n bytes (NUL
// included) from user address addr in u, as the kernel's strndup_user does
// (mm/util.c): EFAULT for bad memory, EINVAL when no NUL appears within n
// bytes. The returned string excludes the NUL. A count of 0 is EFAULT:
// strnlen_user answers 0 for it, which strndup_user takes for a fault.
func StrndupUser(u UserMemory, addr uint64, n uint32) (string, error) {
	if n == 0 {
		return "", syscall.EFAULT
	}
	var buf [256]byte
	out := make([]byte, 0, min(n, uint32(len(buf))))
	for done := uint64(0); done < uint64(n); {
		chunk := buf[:min(uint64(n)-done, uint64(len(buf)))]
		// strnlen_user reads what it can: a fault before the NUL is EFAULT.
		if err := u.CopyFromUser(chunk, addr+done); err != nil {
			// Retry byte by byte so that a NUL before the fault counts.
			for i := range chunk {
				if err := u.CopyFromUser(chunk[i:i+1], addr+done+uint64(i)); err != nil {
					return "", syscall.EFAULT
				}
				if chunk[i] == 0 {
					return string(append(out, chunk[:i]...)), nil
				}
			}
		}
		for i, c := range chunk {
			if c == 0 {
				return string(append(out, chunk[:i]...)), nil
			}
		}
		out = append(out, chunk...)
		done += uint64(len(chunk))
	}
	return "", syscall.EINVAL
}
