package drm_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// These tests run the real File on a regular file: no DRM device is
// needed to exercise open, ioctl error paths, mmap, read and close.

func TestFileOnRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "card0")
	data := make([]byte, 8192)
	copy(data, "vc4 at offset 0")
	copy(data[4096:], "second page")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := drm.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Fd() < 0 || f.Path() != path {
		t.Errorf("Fd %d, Path %q", f.Fd(), f.Path())
	}
	// A regular file knows no DRM ioctl: the kernel answers ENOTTY.
	_, err = drm.GetVersion(f)
	if !errors.Is(err, unix.ENOTTY) || !strings.Contains(err.Error(), "not a DRM device") {
		t.Errorf("GetVersion on a regular file: %v", err)
	}
	m, err := f.Mmap(4096, 4096, unix.PROT_READ|unix.PROT_WRITE)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(m), "second page") {
		t.Errorf("mapping at 4096 starts %q", m[:11])
	}
	if err := f.Munmap(m); err != nil {
		t.Error(err)
	}
	buf := make([]byte, 15)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "vc4 at offset 0" {
		t.Errorf("Read = %q, %v", buf[:n], err)
	}
	if err := f.SetNonblock(true); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("second Close = %v, want os.ErrClosed", err)
	}
	if err := f.Ioctl(uapi.IoctlVersion, nil); !errors.Is(err, unix.EBADF) {
		t.Errorf("Ioctl after Close = %v, want EBADF", err)
	}
	if f.Fd() != -1 {
		t.Errorf("Fd after Close = %d", f.Fd())
	}
}

func TestOpenErrorsSayWhatToDo(t *testing.T) {
	_, err := drm.Open(filepath.Join(t.TempDir(), "card0"))
	if !errors.Is(err, unix.ENOENT) || !strings.Contains(err.Error(), "dtoverlay=vc4-kms-v3d") {
		t.Errorf("missing node: %v", err)
	}
	if os.Geteuid() == 0 {
		return // root opens anything: EACCES cannot be provoked
	}
	path := filepath.Join(t.TempDir(), "card0")
	if err := os.WriteFile(path, nil, 0o000); err != nil {
		t.Fatal(err)
	}
	_, err = drm.Open(path)
	if !errors.Is(err, unix.EACCES) || !strings.Contains(err.Error(), "video") {
		t.Errorf("no permission: %v", err)
	}
}
