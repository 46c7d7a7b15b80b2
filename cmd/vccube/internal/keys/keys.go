// Package keys reads vkcube's keys from a terminal: the left and right
// arrows change the spin, space pauses, q or Escape quits (Vulkan-Tools
// cube/cube.c, the key handlers of each window system: the arrows add or
// subtract spin_increment, 0.2 degrees per frame, to spin_angle).
//
// The terminal is put in raw mode with golang.org/x/term (cfmakeraw's
// settings, termios(3)), so that each key arrives as soon as it is
// pressed, and is restored on exit. Raw mode also turns off the
// terminal's signal keys (ISIG) and its output processing (OPOST, which
// turns "\n" into "\r\n"). So Read raises SIGINT itself when it reads
// Ctrl-C, as the terminal would have, and the program then ends cleanly
// and restores the display; a program that prints while the terminal is
// raw writes "\r\n" (CRLF). Ctrl-Z and Ctrl-\ do nothing while the cube
// runs: suspending or dumping the process would leave the display and the
// terminal as the program had set them.
package keys

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// Key is a key the program acts on.
type Key uint8

// The keys.
const (
	None      Key = iota
	Left          // slower: spin −0.2° per frame (vkcube's spin_increment)
	Right         // faster: spin +0.2° per frame
	Pause         // space: stop or restart the cube
	Quit          // q or Escape
	Interrupt     // Ctrl-C (ETX, 0x03): Read raises SIGINT for it
)

// String names the key.
func (k Key) String() string {
	switch k {
	case Left:
		return "left"
	case Right:
		return "right"
	case Pause:
		return "pause"
	case Quit:
		return "quit"
	case Interrupt:
		return "interrupt"
	}
	return "none"
}

const (
	esc   = 0x1b
	ctrlC = 0x03 // what Ctrl-C sends when the terminal does not turn it into SIGINT
)

// Decode appends to dst the keys in one read from the terminal and returns
// the extended slice. Arrows come as CSI or SS3 sequences (ESC [ C, ESC O C
// for right; D for left; ECMA-48 and the VT100's cursor-key mode), possibly
// with parameters (ESC [ 1 ; 5 C); an Escape that does not start such a
// sequence is the Escape key, and so is an ESC at the very end of b. A
// sequence cut short at the end of b is ignored (Read keeps such a tail for
// the next read). Ctrl-C is Interrupt. Other bytes are ignored.
func Decode(dst []Key, b []byte) []Key {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case 'q', 'Q':
			dst = append(dst, Quit)
		case ' ':
			dst = append(dst, Pause)
		case ctrlC:
			dst = append(dst, Interrupt)
		case esc:
			n, final, _ := escape(b[i:])
			switch {
			case n == 1:
				dst = append(dst, Quit)
			case final == 'C':
				dst = append(dst, Right)
			case final == 'D':
				dst = append(dst, Left)
			}
			i += n - 1
		}
	}
	return dst
}

// escape measures what starts with the ESC at b[0]: n bytes, the
// sequence's final byte, and whether it is complete. ESC followed by a
// byte other than '[' (CSI) or 'O' (SS3) is the Escape key on its own
// (n 1, complete); ESC [ or ESC O, parameters (digits and ';') and a final
// byte are a sequence. An ESC, CSI or SS3 that b ends in the middle of is
// incomplete: the rest may still be on its way.
func escape(b []byte) (n int, final byte, complete bool) {
	if len(b) < 2 {
		return len(b), 0, false
	}
	if b[1] != '[' && b[1] != 'O' {
		return 1, 0, true
	}
	j := 2
	for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';') {
		j++
	}
	if j == len(b) {
		return j, 0, false
	}
	return j + 1, b[j], true
}

// incompleteTail returns the length of the escape sequence b ends in the
// middle of (0 if none).
func incompleteTail(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] == esc {
			n, _, complete := escape(b[i:])
			if !complete {
				return len(b) - i
			}
			i += n - 1
		}
	}
	return 0
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool { return term.IsTerminal(fd) }

// Terminal is a terminal in raw mode.
type Terminal struct {
	fd    int
	saved *term.State
	done  atomic.Bool // restored
}

// ErrNotTerminal is returned by Raw for a file that is not a terminal.
var ErrNotTerminal = errors.New("keys: not a terminal")

// Raw switches the terminal fd to raw mode (term.MakeRaw) and returns
// it; Restore puts the saved settings back.
func Raw(fd int) (*Terminal, error) {
	if !term.IsTerminal(fd) {
		return nil, ErrNotTerminal
	}
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	return &Terminal{fd: fd, saved: saved}, nil
}

// Restore puts the terminal back as Raw found it; later calls do nothing.
// It may be called from any goroutine (a signal handler's, say): a
// Terminal is a present.Restorer.
func (t *Terminal) Restore() error {
	if t == nil || !t.done.CompareAndSwap(false, true) {
		return nil
	}
	return term.Restore(t.fd, t.saved)
}

// CRLF returns w, or, while t is raw, a writer that ends each line with
// "\r\n" as the terminal's own output processing did: for what the
// program prints to the same terminal while the keys are read.
func (t *Terminal) CRLF(w io.Writer) io.Writer {
	if t == nil || t.done.Load() {
		return w
	}
	return &crlfWriter{w: w, t: t}
}

// crlfWriter writes "\r\n" for each "\n" while its terminal is raw.
type crlfWriter struct {
	w   io.Writer
	t   *Terminal
	buf []byte
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	if c.t.done.Load() {
		return c.w.Write(p)
	}
	c.buf = c.buf[:0]
	for _, b := range p {
		if b == '\n' {
			c.buf = append(c.buf, '\r')
		}
		c.buf = append(c.buf, b)
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Read reads keys from f until it fails, sending each on ch; it closes ch
// at the end. Run it on its own goroutine: a read from a terminal blocks
// until a key is pressed. Ctrl-C is not sent: Read raises SIGINT for it at
// once, as a terminal not in raw mode does, so that it ends the program
// even while the frame loop is not reading ch.
//
// A terminal writes each key's sequence at once, but keys pile up while
// ch is full (an arrow held down, a paste), and then a read that fills
// the buffer can end in the middle of a sequence. Such a tail is kept and
// completed by the next read, so that its ESC is not taken for the Escape
// key. A read that does not fill the buffer ends where the terminal's
// writes ended: an ESC there is the Escape key.
func Read(f *os.File, ch chan<- Key) {
	defer close(ch)
	var buf [64]byte
	var ks []Key
	held := 0 // bytes of a sequence the last read cut off, at buf[0:held]
	for {
		n, err := f.Read(buf[held:])
		n += held
		end := n
		if n == len(buf) {
			if tail := incompleteTail(buf[:n]); tail < n { // (a whole buffer of one "sequence" is noise)
				end -= tail
			}
		}
		ks = Decode(ks[:0], buf[:end])
		held = copy(buf[:], buf[end:n])
		for _, k := range ks {
			if k == Interrupt {
				unix.Kill(unix.Getpid(), unix.SIGINT)
				continue
			}
			ch <- k
		}
		if err != nil {
			return
		}
	}
}
