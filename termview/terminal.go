package termview

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// IsTerminal reports whether f is a terminal the view can draw in (it
// answers TIOCGWINSZ).
func IsTerminal(f *os.File) bool {
	_, err := termSize(f)
	return err == nil
}

// termSize asks the terminal f for its size (TIOCGWINSZ, tty_ioctl(4)),
// or assumes one when it reports 0×0 (assumedSize).
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
	if ws.Col == 0 || ws.Row == 0 {
		return assumedSize(os.Getenv), nil
	}
	return Size{Cols: int(ws.Col), Rows: int(ws.Row), XPixel: int(ws.Xpixel), YPixel: int(ws.Ypixel)}, nil
}

// assumedSize is the size of a terminal that reports none (0 columns or
// rows: a pseudo-terminal whose owner never set one, as some container
// runtimes and serial consoles leave it): the size $COLUMNS and $LINES
// give, when both are whole numbers above 0, else 80×24 — what the
// curses libraries assume in that case, from the same variables and then
// the terminal's terminfo entry (lines#24 and cols#80 in the vt100 and
// xterm entries; ncurses's use_env(3X) and resizeterm(3X) describe the
// order). Without it the view would have no room for a picture and show
// the empty alternate screen until the run ends.
func assumedSize(getenv func(string) string) Size {
	cols, cerr := strconv.Atoi(getenv("COLUMNS"))
	rows, rerr := strconv.Atoi(getenv("LINES"))
	if cerr == nil && rerr == nil && cols > 0 && rows > 0 {
		return Size{Cols: cols, Rows: rows}
	}
	return Size{Cols: 80, Rows: 24}
}
