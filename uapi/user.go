package uapi

import "unsafe"

// UserPointer returns the address of p as a uAPI pointer field (a __u64
// such as ModeCardRes.CrtcIDPtr) holds it.
//
// The address hides the pointer from the garbage collector, so the caller
// keeps the memory alive and unmoved until the ioctl returns: pin it with
// a runtime.Pinner (which also forces it onto the heap, where a Conn
// running Go code, such as the simulator, cannot see it move with a stack).
func UserPointer(p unsafe.Pointer) uint64 {
	return uint64(uintptr(p))
}

// UserBytes returns the n bytes at addr, a uAPI pointer field's value, as
// the kernel's copy_from_user and copy_to_user reach them. It is for Conn
// implementations that run in this process (the simulator, test fakes);
// the caller of Ioctl has pinned the memory for the call (see Conn).
// UserBytes returns nil for a null address or n <= 0, where the kernel
// would fail with EFAULT or copy nothing.
func UserBytes(addr uint64, n int) []byte {
	if addr == 0 || n <= 0 || uint64(uintptr(addr)) != addr {
		return nil
	}
	a := uintptr(addr)
	// Reinterpret the integer as a pointer without a uintptr-to-Pointer
	// conversion: the address came from UserPointer of pinned memory.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&a))
	return unsafe.Slice((*byte)(p), n)
}

// UserSlice is UserBytes for an array of n elements of type T, such as the
// uint32 object ids of GETRESOURCES or the ModeInfo array of GETCONNECTOR.
func UserSlice[T any](addr uint64, n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if addr == 0 || n <= 0 || size == 0 || uint64(uintptr(addr)) != addr {
		return nil
	}
	a := uintptr(addr)
	p := *(*unsafe.Pointer)(unsafe.Pointer(&a))
	return unsafe.Slice((*T)(p), n)
}
