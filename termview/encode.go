package termview

import "strconv"

// The escape sequences, from xterm's ctlseqs ("XTerm Control Sequences",
// invisible-island.net; ECMA-48 for the standard ones):
const (
	// enterSeq switches to the alternate screen buffer, saving the cursor
	// (DECSET 1049), and hides the cursor (DECTCEM off, DECRST 25). The
	// user's screen and scrollback stay untouched underneath.
	enterSeq = "\x1b[?1049h\x1b[?25l"
	// leaveSeq resets the character attributes (SGR 0), shows the cursor
	// (DECSET 25) and leaves the alternate screen, restoring the saved
	// cursor (DECRST 1049): the terminal is as the program found it.
	leaveSeq = "\x1b[0m\x1b[?25h\x1b[?1049l"
	// clearSeq resets the attributes and erases the whole screen (ED 2),
	// which fills it with the default background: the letterbox.
	clearSeq = "\x1b[0m\x1b[2J"
)

// The characters cells are drawn with (Unicode Block Elements). A cell
// shows two pixels: the upper half block in the foreground colour over
// the background colour, or the reverse with the lower half block; a
// cell of one colour is a space on that background.
const (
	upperHalf = "\u2580" // ▀ UPPER HALF BLOCK
	lowerHalf = "\u2584" // ▄ LOWER HALF BLOCK
)

// Colour codes. In the grid, a pixel is a 24-bit colour 0xRRGGBB
// (Truecolour) or a palette index (Colour256); two values outside both
// ranges stand for the terminal's default background and for "not known".
const (
	// blank is the terminal's default colour (SGR 39 or 49): the
	// letterbox, and the lower half of a picture's last cell row when the
	// picture has an odd number of pixel rows.
	blank uint32 = 1 << 24
	// unknown is the encoder's state when it cannot know the terminal's
	// colours; no pixel has this value, so the first cell always sets its
	// colours.
	unknown uint32 = 1 << 25
	// anyColour is a foreground the encoder does not care about (a space
	// shows only its background).
	anyColour uint32 = 1 << 26
)

// encoder turns a picture into the bytes that draw it. It remembers the
// colours and the cursor position it has left the terminal in, so that it
// sends a colour only when it changes from one cell to the next and moves
// the cursor only past cells that it does not redraw.
type encoder struct {
	mode   ColourMode // Truecolour or Colour256
	out    []byte
	fg, bg uint32
	// row and col are the cursor's cell, 0-based; row −1 when unknown.
	row, col int
}

// frame returns the bytes that draw grid — the picture's pixels, imgW per
// row, 2·cellRows rows (a padding row of blank when imgH is odd) — at
// layout l. With full, the screen is cleared and every cell is drawn (and
// the caption, if any); otherwise only the cells that differ from prev,
// the grid drawn before, are sent. The returned slice is reused by the
// next call.
//
// The colours and the cursor are taken as unknown at the start of each
// frame: a frame costs one colour sequence more than it could, and in
// return a frame is drawn right whatever was written to the terminal
// before it (only the picture itself is assumed to be intact).
func (e *encoder) frame(l *layout, grid, prev []uint32, full bool, caption string) []byte {
	b := e.out[:0]
	e.fg, e.bg = unknown, unknown
	e.row, e.col = -1, -1
	if full {
		b = append(b, clearSeq...)
		e.fg, e.bg = blank, blank
		if l.captionRow >= 0 && caption != "" {
			b = e.moveTo(b, l.captionRow, 0)
			b = appendCaption(b, caption, l.size.Cols)
			e.row = -1 // a caption as wide as the window leaves the cursor in the margin
		}
	}
	w := l.imgW
	for cr := 0; cr < l.cellRows; cr++ {
		top := grid[2*cr*w : (2*cr+1)*w]
		bot := grid[(2*cr+1)*w : (2*cr+2)*w]
		var ptop, pbot []uint32
		if !full {
			ptop = prev[2*cr*w : (2*cr+1)*w]
			pbot = prev[(2*cr+1)*w : (2*cr+2)*w]
		}
		for x := range top {
			t, u := top[x], bot[x]
			if !full && ptop[x] == t && pbot[x] == u {
				continue
			}
			b = e.moveTo(b, l.row0+cr, l.col0+x)
			b = e.cell(b, t, u)
		}
	}
	e.out = b
	return b
}

// cell draws one cell showing top over bottom at the cursor.
func (e *encoder) cell(b []byte, top, bottom uint32) []byte {
	switch {
	case top == bottom:
		b = e.setColours(b, anyColour, top)
		b = append(b, ' ')
	case bottom != blank && e.fg == bottom && e.bg == top:
		// The colours are already the other way round.
		b = append(b, lowerHalf...)
	default:
		b = e.setColours(b, top, bottom)
		b = append(b, upperHalf...)
	}
	e.col++
	return b
}

// setColours sends one SGR sequence that sets the foreground and the
// background to fg and bg, leaving out whichever already has its colour
// (all of it when both have). fg may be anyColour.
func (e *encoder) setColours(b []byte, fg, bg uint32) []byte {
	setFG := fg != anyColour && fg != e.fg
	setBG := bg != e.bg
	if !setFG && !setBG {
		return b
	}
	b = append(b, "\x1b["...)
	if setFG {
		b = e.appendColour(b, 30, fg)
		e.fg = fg
		if setBG {
			b = append(b, ';')
		}
	}
	if setBG {
		b = e.appendColour(b, 40, bg)
		e.bg = bg
	}
	return append(b, 'm')
}

// appendColour appends the SGR parameters that set colour c as the
// foreground (base 30) or the background (base 40): base+9 for the
// default, base+8;2;R;G;B for a 24-bit colour, base+8;5;N for a palette
// index.
func (e *encoder) appendColour(b []byte, base int, c uint32) []byte {
	if c == blank {
		return strconv.AppendInt(b, int64(base+9), 10)
	}
	b = strconv.AppendInt(b, int64(base+8), 10)
	if e.mode == Colour256 {
		b = append(b, ";5;"...)
		return strconv.AppendUint(b, uint64(c), 10)
	}
	b = append(b, ";2;"...)
	b = strconv.AppendUint(b, uint64(c>>16&0xff), 10)
	b = append(b, ';')
	b = strconv.AppendUint(b, uint64(c>>8&0xff), 10)
	b = append(b, ';')
	return strconv.AppendUint(b, uint64(c&0xff), 10)
}

// moveTo moves the cursor to the 0-based cell (row, col): nothing if it is
// there, CUF (CSI n C) forward along the same row, else CUP (CSI row;col
// H, 1-based).
func (e *encoder) moveTo(b []byte, row, col int) []byte {
	switch {
	case e.row == row && e.col == col:
		return b
	case e.row == row && col > e.col:
		b = append(b, "\x1b["...)
		if n := col - e.col; n > 1 {
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, 'C')
	default:
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(row+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(col+1), 10)
		b = append(b, 'H')
	}
	e.row, e.col = row, col
	return b
}

// appendCaption appends at most cols characters of s, with anything that
// is not printable ASCII shown as '?': a control character would move
// the cursor, and a wide or combining character would make the count of
// cells wrong.
func appendCaption(b []byte, s string, cols int) []byte {
	n := 0
	for _, r := range s {
		if n == cols {
			break
		}
		if r < 0x20 || r > 0x7e {
			r = '?'
		}
		b = append(b, byte(r))
		n++
	}
	return b
}
