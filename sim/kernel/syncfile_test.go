package kernel_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/internal/pollwait"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// readable polls fd without waiting: POLLIN, as sync_wait asks.
func readable(t *testing.T, fd int32) bool {
	t.Helper()
	ok, err := pollwait.Readable(int(fd), 0)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func fileInfo(t *testing.T, fd int32, n uint32) (uapi.SyncFileInfo, []uapi.SyncFenceInfo, error) {
	t.Helper()
	fences := make([]uapi.SyncFenceInfo, max(n, 1))
	info := uapi.SyncFileInfo{NumFences: n, SyncFenceInfo: uint64(uintptr(unsafe.Pointer(&fences[0])))}
	err := kernel.SyncFileIoctl(kernel.LocalMemory, kernel.LocalFiles, int(fd), uapi.IoctlSyncFileInfo, unsafe.Pointer(&info))
	return info, fences[:min(n, info.NumFences)], err
}

func cstr(b []byte) string { return strings.TrimRight(string(b), "\x00") }

// A job's out_sync fence leaves as a sync file that polls readable once
// the job is done (drm_syncobj_export_sync_file, sync_file_poll), tells
// its fence's names (sync_fill_fence_info, vc4_fence.c), and comes back
// into another syncobj (drm_syncobj_import_sync_file_fence); merging two
// keeps one fence per context (sync_file_merge). Closing every descriptor
// frees the model's sync files.
func TestSyncFileExportImport(t *testing.T) {
	fx := newFixture(t, 64, 64)
	f := fx.f
	mk := func() uint32 {
		a := uapi.SyncobjCreate{}
		if err := f.SyncobjCreate(&a); err != nil {
			t.Fatal(err)
		}
		return a.Handle
	}
	out, in := mk(), mk()
	exp := uapi.SyncobjHandle{Handle: out, Flags: uapi.SyncobjHandleToFdExportSyncFile, Fd: -1}
	if err := f.SyncobjHandleToFD(&exp); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("exporting a syncobj without a fence: %v, want EINVAL", err)
	}
	exp.Handle = 99
	if err := f.SyncobjHandleToFD(&exp); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("exporting an unknown syncobj: %v, want ENOENT", err)
	}
	exp.Handle, exp.Flags = out, 2
	if err := f.SyncobjHandleToFD(&exp); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("unknown flags: %v, want EINVAL", err)
	}
	s := fx.valid()
	s.args.OutSync = out
	if err := fx.submit(s); err != nil {
		t.Fatal(err)
	}
	exp = uapi.SyncobjHandle{Handle: out, Flags: uapi.SyncobjHandleToFdExportSyncFile, Fd: -1}
	if err := f.SyncobjHandleToFD(&exp); err != nil {
		t.Fatal(err)
	}
	fd := exp.Fd
	fence, _ := f.SyncobjFence(out)
	fence.Wait()
	fence.Put()
	if !readable(t, fd) {
		t.Error("the job is done but its sync file does not poll readable")
	}
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
		t.Error("the sync file is not close-on-exec (get_unused_fd_flags(O_CLOEXEC))")
	}
	info, fences, err := fileInfo(t, fd, 0)
	if err != nil || info.NumFences != 1 || info.Status != 1 || len(fences) != 0 {
		t.Errorf("FILE_INFO counting: %+v, %v; want 1 fence, status 1", info, err)
	}
	info, fences, err = fileInfo(t, fd, 1)
	if err != nil || len(fences) != 1 || cstr(fences[0].DriverName[:]) != "vc4" || cstr(fences[0].ObjName[:]) != "vc4-v3d" ||
		fences[0].Status != 1 || fences[0].TimestampNs == 0 {
		t.Errorf("FILE_INFO: %+v %+v, %v; want one signalled vc4 / vc4-v3d fence with a timestamp", info, fences, err)
	}
	if !strings.HasPrefix(cstr(info.Name[:]), "vc4-vc4-v3d") {
		t.Errorf("the file's name %q, want sync_file_get_name's driver-timeline-context-seqno", cstr(info.Name[:]))
	}
	bad := uapi.SyncFileInfo{Flags: 1}
	if err := kernel.SyncFileIoctl(kernel.LocalMemory, kernel.LocalFiles, int(fd), uapi.IoctlSyncFileInfo, unsafe.Pointer(&bad)); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("FILE_INFO with flags: %v, want EINVAL", err)
	}

	// Merging the file with a dup of itself: one context, one fence,
	// signalled and so dropped: a signalled stub under the given name.
	dup, err := unix.Dup(int(fd))
	if err != nil {
		t.Fatal(err)
	}
	m := uapi.SyncMergeData{Fd2: int32(dup)}
	copy(m.Name[:], "merged")
	if err := kernel.SyncFileIoctl(kernel.LocalMemory, kernel.LocalFiles, int(fd), uapi.IoctlSyncMerge, unsafe.Pointer(&m)); err != nil {
		t.Fatal(err)
	}
	if mi, _, err := fileInfo(t, m.Fence, 0); err != nil || cstr(mi.Name[:]) != "merged" || mi.Status != 1 || !readable(t, m.Fence) {
		t.Errorf("merged file: %+v, %v; want \"merged\", signalled and readable", mi, err)
	}
	m2 := uapi.SyncMergeData{Fd2: 12345}
	if err := kernel.SyncFileIoctl(kernel.LocalMemory, kernel.LocalFiles, int(fd), uapi.IoctlSyncMerge, unsafe.Pointer(&m2)); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("merging with a bad fd2: %v, want ENOENT", err)
	}

	// Import into another syncobj, then submit waiting on it.
	imp := uapi.SyncobjHandle{Handle: in, Flags: uapi.SyncobjFdToHandleImportSyncFile, Fd: fd}
	if err := f.SyncobjFDToHandle(&imp); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.SyncobjFence(in); got == nil || !got.Signaled() {
		t.Error("the imported syncobj does not hold the sync file's signalled fence")
	} else {
		got.Put()
	}
	imp.Fd = int32(pipeFd(t))
	if err := f.SyncobjFDToHandle(&imp); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("importing a pipe: %v, want EINVAL", err)
	}
	imp = uapi.SyncobjHandle{Handle: 77, Flags: uapi.SyncobjFdToHandleImportSyncFile, Fd: fd}
	if err := f.SyncobjFDToHandle(&imp); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("importing into an unknown syncobj: %v, want ENOENT", err)
	}
	s = fx.valid()
	s.args.InSync = in
	if err := fx.submit(s); err != nil {
		t.Fatal(err)
	}

	for _, n := range []int{int(fd), dup, int(m.Fence)} {
		unix.Close(n)
	}
	if n := kernel.LiveSyncFiles(); n != 0 {
		t.Errorf("%d sync files live after every descriptor was closed", n)
	}
}

// SUBMIT_CL waits for an in_sync fence of another context (a display's
// out-fence) before it queues the job, without holding the driver.
func TestSubmitWaitsForForeignFence(t *testing.T) {
	fx := newFixture(t, 64, 64)
	f := fx.f
	a := uapi.SyncobjCreate{}
	if err := f.SyncobjCreate(&a); err != nil {
		t.Fatal(err)
	}
	foreign := kernel.NewFence(kernel.FenceContextAlloc(), 1, "vc4", "CRTC:95-crtc-0")
	fd, err := kernel.NewSyncFile(kernel.LocalFiles, foreign)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(int(fd))
	if readable(t, fd) {
		t.Error("an unsignalled fence's sync file polls readable")
	}
	if err := f.SyncobjFDToHandle(&uapi.SyncobjHandle{Handle: a.Handle, Flags: uapi.SyncobjFdToHandleImportSyncFile, Fd: fd}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	s := fx.valid()
	s.args.InSync = a.Handle
	go func() { done <- fx.submit(s) }()
	// The driver is not held while the submit waits: another ioctl runs.
	if err := f.SyncobjCreate(&uapi.SyncobjCreate{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("SUBMIT_CL returned (%v) before its in_sync fence signalled", err)
	default:
	}
	foreign.Signal(42)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !readable(t, fd) {
		t.Error("the signalled fence's sync file does not poll readable")
	}
	foreign.Put()
}

// pipeFd returns the read end of a new pipe, closed when the test ends.
func pipeFd(t *testing.T) int {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	return p[0]
}
