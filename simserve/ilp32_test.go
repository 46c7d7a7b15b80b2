//go:build amd64 || arm64

// A 64-bit server's 32-bit clients (on a 32-bit host the server is
// itself 32-bit).

package simserve_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// lowMemory maps n bytes below 4 GiB in this process, where a 32-bit
// program's memory is, and returns their address, or skips the test.
func lowMemory(t *testing.T, n int) uint32 {
	t.Helper()
	for _, at := range []uintptr{0x30000000, 0x50000000, 0x70000000} {
		p, _, errno := unix.Syscall6(unix.SYS_MMAP, at, uintptr(n), unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED_NOREPLACE, ^uintptr(0), 0)
		if errno != 0 || p != at {
			if errno == 0 {
				unix.Syscall(unix.SYS_MUNMAP, p, uintptr(n), 0)
			}
			continue
		}
		t.Cleanup(func() { unix.Syscall(unix.SYS_MUNMAP, p, uintptr(n), 0) })
		return uint32(p)
	}
	t.Skip("no free address below 4 GiB in this process")
	return 0
}

// A client that announces 4-byte pointers is served as a 32-bit program
// on a Pi running a 32-bit kernel: its DRM_IOCTL_VERSION is the 36-byte
// struct (0xc0246400) with 32-bit addresses, and it gets what a 64-bit
// client's drmGetVersion gets.
func TestServe32BitClient(t *testing.T) {
	r := newRig(t, simserve.Options{})
	c64, err := simserve.Dial(r.dir, simserve.RenderMinor)
	if err != nil {
		t.Fatal(err)
	}
	defer c64.Close()
	want, err := drm.GetVersion(c64)
	if err != nil {
		t.Fatal(err)
	}

	c32, err := simserve.DialPointerSize(r.dir, simserve.RenderMinor, 4)
	if err != nil {
		t.Fatalf("a 32-bit client: %v", err)
	}
	defer c32.Close()
	base := lowMemory(t, 4096)
	v := uapi.Version32{NameLen: 32, Name: base, DateLen: 32, Date: base + 64, DescLen: 256, Desc: base + 128}
	if err := c32.Ioctl(uapi.IoctlVersion32, unsafe.Pointer(&v)); err != nil {
		t.Fatalf("VERSION (32-bit): %v", err)
	}
	if v.NameLen > 32 || v.DateLen > 32 || v.DescLen > 256 {
		t.Fatalf("string lengths %d, %d, %d: longer than the buffers (the 64-bit client got %v)", v.NameLen, v.DateLen, v.DescLen, want)
	}
	mem := make([]byte, 4096)
	if err := kernel.CopyFromUser(mem, uint64(base)); err != nil {
		t.Fatal(err)
	}
	got := drm.DriverVersion{Major: int(v.VersionMajor), Minor: int(v.VersionMinor), Patchlevel: int(v.VersionPatchlevel),
		Name: string(mem[:v.NameLen]), Date: string(mem[64 : 64+v.DateLen]), Desc: string(mem[128 : 128+v.DescLen])}
	if got != want {
		t.Errorf("the 32-bit client got %v, the 64-bit one %v", got, want)
	}

	// Neither 32 nor 64 bits: refused, saying why.
	_, err = simserve.DialPointerSize(r.dir, simserve.RenderMinor, 2)
	if !errors.Is(err, syscall.ENOSYS) || !strings.Contains(err.Error(), "2-byte pointers") {
		t.Errorf("a client with 2-byte pointers: %v, want ENOSYS naming them", err)
	}
}
