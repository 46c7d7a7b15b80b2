package termview

import (
	"os"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal the view can draw in (it
// answers TIOCGWINSZ).
func IsTerminal(f *os.File) bool {
	_, err := termSize(f)
	return err == nil
}

// termSize asks the terminal f for its size (TIOCGWINSZ, tty_ioctl(4)).
// It goes through SyscallConn so that the file keeps its blocking mode.
// (golang.org/x/term's GetSize makes the same ioctl but returns only the
// columns and rows; the view also needs ws_xpixel and ws_ypixel, the
// window's size in pixels, for the cells' aspect ratio: layout.go.)
func termSize(f *os.File) (Size, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return Size{}, err
	}
	var ws *unix.Winsize
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ws, ierr = unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
	}); err != nil {
		return Size{}, err
	}
	if ierr != nil {
		return Size{}, ierr
	}
	return Size{Cols: int(ws.Col), Rows: int(ws.Row), XPixel: int(ws.Xpixel), YPixel: int(ws.Ypixel)}, nil
}
