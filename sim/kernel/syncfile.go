package kernel

import (
	"fmt"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// Sync files (drivers/dma-buf/sync_file.c): a fence as a file descriptor,
// which a program polls (POLLIN once the fence has signalled), merges
// (SYNC_IOC_MERGE), asks about (SYNC_IOC_FILE_INFO) and hands to a
// syncobj (SYNCOBJ_FD_TO_HANDLE with IMPORT_SYNC_FILE) or to an atomic
// commit (a plane's IN_FENCE_FD).
//
// The simulator's sync file is one end of a Unix socket pair, given to
// the program (through UserFiles, so it crosses to a program in another
// process as a real descriptor); the model keeps the other end and writes
// one byte to it when the fence signals, which makes the program's end
// readable: poll, select and epoll work natively. The model knows the
// program's end by its socket's identity (st_dev, st_ino), which dups and
// SCM_RIGHTS keep, so fget of any copy finds the sync file. When the
// program has closed every copy, the model's end reports POLLHUP; the
// model then frees the sync file the next time it makes one (sweep), as
// the kernel frees one at its last fput.
//
// Not modelled: reading the program's end would consume the byte (a real
// sync file has no read; nobody reads one), and a sync file outlives the
// device that made its fence.

// syncFile is a struct sync_file.
type syncFile struct {
	fence   *Fence
	name    [32]byte // the user's name from SYNC_IOC_MERGE, or empty
	kfd     int      // the model's end of the socket pair
	id      [2]uint64
	written bool // the wake-up byte was sent
}

var (
	syncFiles     = map[[2]uint64]*syncFile{} // under fenceMu, by the program's end's identity
	syncFileList  []*syncFile                 // the same, for the sweep
	syncFilePool  []*syncFile
	sweepPollFds  []unix.PollFd
	sweepReleased []*syncFile
)

// wake makes the program's end readable (called with fenceMu held).
func (sf *syncFile) wake() {
	if sf.written {
		return
	}
	sf.written = true
	var one [1]byte
	_, _ = unix.Write(sf.kfd, one[:])
}

// sweepLocked frees the sync files whose every copy the programs have
// closed: their socket's other end reports POLLHUP.
func sweepLocked() {
	if len(syncFileList) == 0 {
		return
	}
	if cap(sweepPollFds) < len(syncFileList) {
		sweepPollFds = make([]unix.PollFd, len(syncFileList), 2*len(syncFileList))
	}
	fds := sweepPollFds[:len(syncFileList)]
	for i, sf := range syncFileList {
		fds[i] = unix.PollFd{Fd: int32(sf.kfd)}
	}
	if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
		return
	}
	released := sweepReleased[:0]
	kept := syncFileList[:0]
	for i, sf := range syncFileList {
		if fds[i].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			released = append(released, sf)
		} else {
			kept = append(kept, sf)
		}
	}
	clear(syncFileList[len(kept):])
	syncFileList = kept
	for _, sf := range released {
		sf.releaseLocked()
	}
	clear(released)
	sweepReleased = released[:0]
}

// releaseLocked frees a sync file no program holds any more.
func (sf *syncFile) releaseLocked() {
	delete(syncFiles, sf.id)
	if sf.fence != nil {
		sf.fence.unwatchLocked(watcher{sf: sf})
		sf.fence.putLocked()
		sf.fence = nil
	}
	unix.Close(sf.kfd)
	*sf = syncFile{}
	syncFilePool = append(syncFilePool, sf)
}

// NewSyncFile makes a sync file of fence (sync_file_create, taking a
// reference) and installs it in the caller's descriptor table with
// close-on-exec (get_unused_fd_flags(O_CLOEXEC), fd_install): the number
// there.
func NewSyncFile(files UserFiles, fence *Fence) (int32, error) {
	fenceMu.Lock()
	sf, fd, err := newSyncFileLocked(fence.getLocked())
	fenceMu.Unlock()
	if err != nil {
		fence.Put()
		return -1, err
	}
	return installSyncFile(files, sf, fd)
}

func (f *Fence) getLocked() *Fence {
	f.refs++
	return f
}

// newSyncFileLocked makes the sync file of fence (whose reference it
// takes over) and returns the program's end of its socket pair.
func newSyncFileLocked(fence *Fence) (*syncFile, int, error) {
	sweepLocked()
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, -1, errf(syscall.EMFILE, "making a sync file: %v", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(p[0], &st); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, -1, errf(syscall.EMFILE, "making a sync file: %v", err)
	}
	var sf *syncFile
	if n := len(syncFilePool); n > 0 {
		sf = syncFilePool[n-1]
		syncFilePool = syncFilePool[:n-1]
	} else {
		sf = &syncFile{}
	}
	sf.fence, sf.kfd, sf.id = fence, p[1], [2]uint64{uint64(st.Dev), st.Ino}
	syncFiles[sf.id] = sf
	syncFileList = append(syncFileList, sf)
	if fence.signaled {
		sf.wake()
	} else {
		fence.watchers = append(fence.watchers, watcher{sf: sf})
	}
	return sf, p[0], nil
}

// installSyncFile gives the program its end of sf; if that fails the sync
// file goes away (its socket's other end is closed, so the next sweep
// frees it).
func installSyncFile(files UserFiles, sf *syncFile, fd int) (int32, error) {
	n, err := files.InstallFd(fd, true)
	if err != nil {
		return -1, errf(syscall.EMFILE, "installing the sync file descriptor: %v", err)
	}
	return n, nil
}

// lookupSyncFile finds the sync file behind a descriptor of this process
// (sync_file_fdget), nil if it is none.
func lookupSyncFileLocked(fd int) *syncFile {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil
	}
	return syncFiles[[2]uint64{uint64(st.Dev), st.Ino}]
}

// SyncFileFence returns, with a reference, the fence of the caller's sync
// file n (sync_file_get_fence): EBADF for a bad descriptor, EINVAL for one
// that is not a sync file.
func SyncFileFence(files UserFiles, n int32) (*Fence, error) {
	fd, release, err := files.GetFd(n)
	if err != nil {
		return nil, errf(syscall.EINVAL, "fd %d is not a sync file: %v", n, err)
	}
	defer release()
	fenceMu.Lock()
	defer fenceMu.Unlock()
	sf := lookupSyncFileLocked(fd)
	if sf == nil {
		return nil, errf(syscall.EINVAL, "fd %d is not a sync file", n)
	}
	return sf.fence.getLocked(), nil
}

// unwrapped returns the fences a sync file's fence stands for
// (dma_fence_unwrap): an array's children, or the fence itself.
func (f *Fence) unwrapped(one *[1]*Fence) []*Fence {
	if len(f.children) > 0 {
		return f.children
	}
	one[0] = f
	return one[:]
}

// SyncFileIoctl is sync_file_ioctl: SYNC_IOC_MERGE and SYNC_IOC_FILE_INFO
// on fd, a descriptor of this process that is one of the sync files the
// model made; u and files are the memory and descriptor table of the
// program that called. arg is the kernel's copy of the argument (req's
// struct), copied back only on success, as the kernel's copy_to_user
// calls are. An fd that is not a sync file is ENOTTY, an unknown request
// ENOTTY, as from the kernel.
func SyncFileIoctl(u UserMemory, files UserFiles, fd int, req uapi.Request, arg unsafe.Pointer) error {
	fenceMu.Lock()
	sf := lookupSyncFileLocked(fd)
	fenceMu.Unlock()
	if sf == nil {
		return errf(syscall.ENOTTY, "fd is not a sync file of the simulated device")
	}
	switch req {
	case uapi.IoctlSyncMerge:
		return syncMerge(files, sf, (*uapi.SyncMergeData)(arg))
	case uapi.IoctlSyncFileInfo:
		return syncFileInfo(u, sf, (*uapi.SyncFileInfo)(arg))
	}
	return errf(syscall.ENOTTY, "%s is not a sync_file ioctl", uapi.IoctlName(req))
}

// syncMerge is sync_file_ioctl_merge: a new sync file with the fences of
// both (sync_file_merge through dma_fence_unwrap_merge: one fence per
// context, the later one; signalled ones dropped; none left makes a
// signalled stub, one is itself, more an array), named data.Name.
func syncMerge(files UserFiles, sf *syncFile, data *uapi.SyncMergeData) error {
	if data.Flags != 0 || data.Pad != 0 {
		return errf(syscall.EINVAL, "SYNC_IOC_MERGE flags 0x%x pad 0x%x", data.Flags, data.Pad)
	}
	fd2, release, err := files.GetFd(data.Fd2)
	if err != nil {
		return errf(syscall.ENOENT, "fd2 %d: %v", data.Fd2, err)
	}
	fenceMu.Lock()
	sf2 := lookupSyncFileLocked(fd2)
	release()
	if sf2 == nil {
		fenceMu.Unlock()
		return errf(syscall.ENOENT, "fd2 %d is not a sync file", data.Fd2)
	}
	var one, two [1]*Fence
	var picked [16]*Fence
	list := picked[:0]
	var latest int64
	sets := [2][]*Fence{sf.fence.unwrapped(&one), sf2.fence.unwrapped(&two)}
	for _, set := range sets {
		for _, f := range set {
			if f.signaled {
				latest = max(latest, f.timestamp)
				continue
			}
			dup := false
			for i, g := range list {
				if g.ctx == f.ctx {
					dup = true
					if f.seqno > g.seqno {
						list[i] = f
					}
				}
			}
			if !dup {
				list = append(list, f)
			}
		}
	}
	var merged *Fence
	switch len(list) {
	case 0:
		merged = newFenceLocked(FenceContextAlloc(), 0, "stub", "stub")
		merged.signaled, merged.timestamp = true, latest
	case 1:
		merged = list[0].getLocked()
	default:
		for _, f := range list {
			f.refs++
		}
		merged = newArrayLocked(list)
	}
	nsf, fd, err := newSyncFileLocked(merged)
	if err != nil {
		merged.putLocked()
		fenceMu.Unlock()
		return err
	}
	data.Name[len(data.Name)-1] = 0
	nsf.name = data.Name
	fenceMu.Unlock()
	n, err := installSyncFile(files, nsf, fd)
	if err != nil {
		return err
	}
	data.Fence = n
	return nil
}

// syncFileInfo is sync_file_ioctl_fence_info.
func syncFileInfo(u UserMemory, sf *syncFile, info *uapi.SyncFileInfo) error {
	if info.Flags != 0 || info.Pad != 0 {
		return errf(syscall.EINVAL, "SYNC_IOC_FILE_INFO flags 0x%x pad 0x%x", info.Flags, info.Pad)
	}
	fenceMu.Lock()
	defer fenceMu.Unlock()
	var one [1]*Fence
	fences := sf.fence.unwrapped(&one)
	if info.NumFences == 0 {
		info.Status = fenceStatus(sf.fence)
	} else {
		if info.NumFences < uint32(len(fences)) {
			return errf(syscall.EINVAL, "SYNC_IOC_FILE_INFO room for %d fences, the file has %d", info.NumFences, len(fences))
		}
		info.Status = 1
		for i, f := range fences {
			var fi uapi.SyncFenceInfo
			copy(fi.ObjName[:len(fi.ObjName)-1], f.timeline)
			copy(fi.DriverName[:len(fi.DriverName)-1], f.driver)
			fi.Status = fenceStatus(f)
			if f.signaled {
				fi.TimestampNs = uint64(f.timestamp)
			}
			if info.Status > 0 {
				info.Status = fi.Status
			}
			b := unsafe.Slice((*byte)(unsafe.Pointer(&fi)), unsafe.Sizeof(fi))
			if u.CopyToUser(info.SyncFenceInfo+uint64(i)*uint64(len(b)), b) != nil {
				return errf(syscall.EFAULT, "SYNC_IOC_FILE_INFO fence array at %#x", info.SyncFenceInfo)
			}
		}
	}
	// sync_file_get_name: the user's name, else driver-timeline plus the
	// context and seqno.
	info.Name = [32]byte{}
	if sf.name[0] != 0 {
		info.Name = sf.name
	} else {
		f := sf.fence
		copy(info.Name[:31], fmt.Sprintf("%s-%s%d-%d", f.driver, f.timeline, f.ctx, f.seqno))
	}
	info.NumFences = uint32(len(fences))
	return nil
}

// fenceStatus is dma_fence_get_status: 1 signalled, 0 active.
func fenceStatus(f *Fence) int32 {
	if f.signaled {
		return 1
	}
	return 0
}

// LiveSyncFiles returns how many sync files the model holds (for leak
// tests): those some program may still hold, after a sweep.
func LiveSyncFiles() int {
	fenceMu.Lock()
	defer fenceMu.Unlock()
	sweepLocked()
	return len(syncFileList)
}
