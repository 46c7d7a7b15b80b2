package termview

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// vt is a small model of a terminal, written for these tests from xterm's
// ctlseqs for the sequences the view may send — and no others: anything
// else is an error, so a test fails if the view sends what it did not
// mean to. It keeps the state a user would see: which screen is shown,
// whether the cursor is visible, the character attributes, and every
// cell's character and colours.
type vt struct {
	cols, rows    int
	alt           bool
	cursorVisible bool
	main, altScr  [][]vtCell
	row, col      int // 0-based
	savedRow      int
	savedCol      int
	wrapPending   bool
	fg, bg        vtColour
	// scrolled is set if text ever ran past the bottom right corner,
	// which the view must never make a terminal do.
	scrolled bool
}

// vtColour is a colour as SGR set it.
type vtColour struct {
	kind byte // 'd' default, 't' 24-bit, 'p' palette index
	v    uint32
}

var vtDefault = vtColour{kind: 'd'}

func vtRGB(rgb uint32) vtColour { return vtColour{kind: 't', v: rgb} }
func vtIdx(i uint32) vtColour   { return vtColour{kind: 'p', v: i} }

func (c vtColour) String() string {
	switch c.kind {
	case 'd':
		return "default"
	case 't':
		return fmt.Sprintf("#%06x", c.v)
	}
	return fmt.Sprintf("idx%d", c.v)
}

type vtCell struct {
	ch     rune
	fg, bg vtColour
}

func newVT(cols, rows int) *vt {
	t := &vt{cols: cols, rows: rows, cursorVisible: true, fg: vtDefault, bg: vtDefault}
	t.main = t.blankScreen()
	t.altScr = t.blankScreen()
	return t
}

func (t *vt) blankScreen() [][]vtCell {
	s := make([][]vtCell, t.rows)
	for r := range s {
		s[r] = make([]vtCell, t.cols)
		for c := range s[r] {
			s[r][c] = vtCell{' ', t.fg, t.bg}
		}
	}
	return s
}

func (t *vt) screen() [][]vtCell {
	if t.alt {
		return t.altScr
	}
	return t.main
}

// feed interprets b.
func (t *vt) feed(b []byte) error {
	for len(b) > 0 {
		if b[0] == 0x1b {
			n, err := t.escape(b)
			if err != nil {
				return err
			}
			b = b[n:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError || r < 0x20 {
			return fmt.Errorf("vt: unexpected byte %q", b[0])
		}
		t.print(r)
		b = b[n:]
	}
	return nil
}

func (t *vt) print(r rune) {
	if t.wrapPending {
		t.wrapPending = false
		t.col = 0
		if t.row == t.rows-1 {
			t.scrolled = true
		} else {
			t.row++
		}
	}
	t.screen()[t.row][t.col] = vtCell{r, t.fg, t.bg}
	if t.col == t.cols-1 {
		t.wrapPending = true
	} else {
		t.col++
	}
}

// escape interprets the CSI sequence at the start of b and returns its
// length.
func (t *vt) escape(b []byte) (int, error) {
	if len(b) < 3 || b[1] != '[' {
		return 0, fmt.Errorf("vt: not a CSI sequence: %q", b)
	}
	i := 2
	private := false
	if b[i] == '?' {
		private = true
		i++
	}
	start := i
	for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == ';') {
		i++
	}
	if i == len(b) {
		return 0, fmt.Errorf("vt: unterminated sequence %q", b)
	}
	var params []int
	if i > start {
		for _, p := range strings.Split(string(b[start:i]), ";") {
			n, err := strconv.Atoi(p)
			if err != nil {
				return 0, fmt.Errorf("vt: empty or bad parameter in %q", b[:i+1])
			}
			params = append(params, n)
		}
	}
	final := b[i]
	seq := b[:i+1]
	param := func(k, def int) int {
		if k < len(params) && params[k] != 0 {
			return params[k]
		}
		return def
	}
	switch {
	case private && (final == 'h' || final == 'l') && len(params) == 1:
		on := final == 'h'
		switch params[0] {
		case 25:
			t.cursorVisible = on
		case 1049:
			if on && !t.alt {
				t.savedRow, t.savedCol = t.row, t.col
				t.alt = true
				t.altScr = t.blankScreen()
			} else if !on && t.alt {
				t.alt = false
				t.row, t.col = t.savedRow, t.savedCol
			}
		default:
			return 0, fmt.Errorf("vt: unexpected mode %q", seq)
		}
	case private:
		return 0, fmt.Errorf("vt: unexpected private sequence %q", seq)
	case final == 'm':
		if err := t.sgr(params); err != nil {
			return 0, fmt.Errorf("%v in %q", err, seq)
		}
	case final == 'H':
		r, c := param(0, 1), param(1, 1)
		if r > t.rows || c > t.cols || len(params) > 2 {
			return 0, fmt.Errorf("vt: CUP outside the %d×%d screen: %q", t.cols, t.rows, seq)
		}
		t.row, t.col, t.wrapPending = r-1, c-1, false
	case final == 'C':
		n := param(0, 1)
		if t.col+n >= t.cols {
			return 0, fmt.Errorf("vt: CUF %d from column %d runs into the margin: %q", n, t.col+1, seq)
		}
		t.col += n
		t.wrapPending = false
	case final == 'J' && len(params) == 1 && params[0] == 2:
		// Erase with the current background (xterm's back-colour erase).
		s := t.screen()
		for r := range s {
			for c := range s[r] {
				s[r][c] = vtCell{' ', t.fg, t.bg}
			}
		}
	default:
		return 0, fmt.Errorf("vt: unexpected sequence %q", seq)
	}
	return i + 1, nil
}

func (t *vt) sgr(p []int) error {
	if len(p) == 0 {
		p = []int{0}
	}
	for k := 0; k < len(p); k++ {
		switch n := p[k]; {
		case n == 0:
			t.fg, t.bg = vtDefault, vtDefault
		case n == 39:
			t.fg = vtDefault
		case n == 49:
			t.bg = vtDefault
		case n == 38 || n == 48:
			var c vtColour
			switch {
			case k+4 < len(p) && p[k+1] == 2:
				for _, v := range p[k+2 : k+5] {
					if v > 255 {
						return fmt.Errorf("vt: colour component %d", v)
					}
				}
				c = vtRGB(uint32(p[k+2])<<16 | uint32(p[k+3])<<8 | uint32(p[k+4]))
				k += 4
			case k+2 < len(p) && p[k+1] == 5:
				if p[k+2] > 255 {
					return fmt.Errorf("vt: palette index %d", p[k+2])
				}
				c = vtIdx(uint32(p[k+2]))
				k += 2
			default:
				return fmt.Errorf("vt: bad extended colour")
			}
			if n == 38 {
				t.fg = c
			} else {
				t.bg = c
			}
		default:
			return fmt.Errorf("vt: unexpected SGR %d", n)
		}
	}
	return nil
}

// pixels returns the two colours cell (row, col) shows, top then bottom,
// as the half-block characters draw them.
func (t *vt) pixels(row, col int) (top, bottom vtColour, err error) {
	c := t.screen()[row][col]
	switch c.ch {
	case ' ':
		return c.bg, c.bg, nil
	case '▀':
		return c.fg, c.bg, nil
	case '▄':
		return c.bg, c.fg, nil
	}
	return top, bottom, fmt.Errorf("cell %d,%d holds %q", row, col, c.ch)
}

// attrsReset reports whether the current attributes are the defaults.
func (t *vt) attrsReset() bool { return t.fg == vtDefault && t.bg == vtDefault }

// text returns row r of the current screen as a string.
func (t *vt) text(r int) string {
	var sb strings.Builder
	for _, c := range t.screen()[r] {
		sb.WriteRune(c.ch)
	}
	return sb.String()
}
