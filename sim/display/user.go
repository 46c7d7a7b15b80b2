package display

import (
	"encoding/binary"
	"unsafe"

	"github.com/vccube/vccube/sim/kernel"
)

// User pointers. The KMS structs carry arrays by address (__u64 user
// pointers). The kernel reaches them with put_user and copy_to_user, which
// fail with EFAULT on a bad address instead of crashing; the display goes
// through the file's kernel.UserMemory (Client.User), which gives the same
// answers for a program in this process and for one in another
// (simserve), rather than through uapi.UserSlice, which would fault on a
// bad pointer.

// putUint32s copies ids to the user array at addr (put_user of each).
func putUint32s(u kernel.UserMemory, addr uint64, ids []uint32) error {
	if len(ids) == 0 {
		return nil
	}
	return u.CopyToUser(addr, unsafe.Slice((*byte)(unsafe.Pointer(&ids[0])), 4*len(ids)))
}

// putStruct copies one value of a uAPI struct type to the user address
// addr (copy_to_user).
func putStruct[T any](u kernel.UserMemory, addr uint64, v *T) error {
	return u.CopyToUser(addr, unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v)))
}

// getUint32 reads one __u32 at the user address addr (get_user), through
// the display's scratch buffer (a local one would escape through the
// interface: an allocation per call). Called with d.mu held.
func (d *Display) getUint32(u kernel.UserMemory, addr uint64) (uint32, error) {
	err := u.CopyFromUser(d.ubuf[:4], addr)
	return binary.NativeEndian.Uint32(d.ubuf[:4]), err
}

// getUint64 reads one __u64 (get_user), as getUint32 does.
func (d *Display) getUint64(u kernel.UserMemory, addr uint64) (uint64, error) {
	err := u.CopyFromUser(d.ubuf[:8], addr)
	return binary.NativeEndian.Uint64(d.ubuf[:8]), err
}

// putUint32 writes one __u32 (put_user), as getUint32 reads.
func (d *Display) putUint32(u kernel.UserMemory, addr uint64, v uint32) error {
	binary.NativeEndian.PutUint32(d.ubuf[:4], v)
	return u.CopyToUser(addr, d.ubuf[:4])
}
