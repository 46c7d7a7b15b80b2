// Package ptytest opens pseudo-terminals for tests of programs that draw
// on a terminal (termview's, vccube's live view): the program gets the
// slave, the test reads what it wrote from the master.
package ptytest

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal pair (pty(7): /dev/ptmx, unlockpt and
// ptsname as their ioctls TIOCSPTLCK and TIOCGPTN) of cols×rows cells,
// closed when the test ends. Where there are no pseudo-terminals it skips
// the test.
func Open(t testing.TB, cols, rows int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n uint32
	Control(t, m, func(fd int) (err error) {
		if err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
			return err
		}
		n, err = unix.IoctlGetUint32(fd, unix.TIOCGPTN) // ptsname
		return err
	})
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	Resize(t, m, cols, rows)
	return m, s
}

// Resize sets the terminal's size (TIOCSWINSZ on the master), as a
// terminal emulator does when its window changes; the kernel then sends
// SIGWINCH to the terminal's foreground process group.
func Resize(t testing.TB, master *os.File, cols, rows int) {
	t.Helper()
	Control(t, master, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	})
}

// Control runs op on f's descriptor and fails the test on an error. It
// goes through SyscallConn rather than Fd, which would make reads block
// where Close cannot end them.
func Control(t testing.TB, f *os.File, op func(fd int) error) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(int(fd)) }); err != nil {
		t.Fatal(err)
	}
	if opErr != nil {
		t.Fatal(opErr)
	}
}
