package termview

import "fmt"

// Size is a terminal window's size.
type Size struct {
	// Cols and Rows count character cells.
	Cols, Rows int
	// XPixel and YPixel are the window's size in pixels when the terminal
	// reports it (TIOCGWINSZ's ws_xpixel and ws_ypixel; tty_ioctl(4)),
	// else 0. With them the picture keeps its shape on cells that are
	// not twice as tall as they are wide; without them half a cell is
	// taken to be square, which is close for common monospace fonts.
	XPixel, YPixel int
}

// layout places a srcW×srcH frame in a terminal: the picture is scaled to
// the largest size that fits the window with the frame's aspect ratio,
// centred, and the rest (the letterbox) is left blank in the terminal's
// own background colour. Positions are in "pixels" of half a cell: a cell
// holds two, one above the other.
type layout struct {
	size       Size
	srcW, srcH int
	caption    bool
	// imgW and imgH are the picture's size in half-cell pixels.
	imgW, imgH int
	// col0 and row0 are the 0-based cell of the picture's top left
	// corner. The picture starts at the top of a cell, so only its last
	// cell row may be half blank (when imgH is odd).
	col0, row0 int
	// cellRows is the number of cell rows the picture covers.
	cellRows int
	// captionRow is the 0-based row the caption is written on, or -1.
	captionRow int
}

// minCols and minRows are the smallest window the view draws in.
const minCols, minRows = 1, 1

// newLayout fits a srcW×srcH frame into a terminal of size s, keeping
// the last row for the caption if there is one and the window has at
// least two rows. All arithmetic is in integers, so that a layout is the
// same on every machine.
func newLayout(s Size, srcW, srcH int, caption bool) (layout, error) {
	if s.Cols < minCols || s.Rows < minRows {
		return layout{}, fmt.Errorf("termview: a %d×%d terminal has no room for a picture", s.Cols, s.Rows)
	}
	if srcW < 1 || srcH < 1 {
		return layout{}, fmt.Errorf("termview: a %d×%d frame has no pixels", srcW, srcH)
	}
	l := layout{size: s, srcW: srcW, srcH: srcH, caption: caption, captionRow: -1}
	rows := s.Rows
	if caption && rows >= 2 {
		rows--
		l.captionRow = rows
	}
	w, h := int64(s.Cols), int64(2*rows)

	// The width of a half-cell pixel over its height, as aNum/aDen:
	// (XPixel/Cols) / (YPixel/(2·Rows)).
	aNum, aDen := int64(1), int64(1)
	if s.XPixel > 0 && s.YPixel > 0 {
		aNum, aDen = 2*int64(s.XPixel)*int64(s.Rows), int64(s.YPixel)*int64(s.Cols)
	}
	// The picture shows imgW·aNum/aDen wide per imgH tall, which must be
	// srcW per srcH. Try the full height first, then the full width.
	sw, sh := int64(srcW), int64(srcH)
	imgH := h
	imgW := roundDiv(h*sw*aDen, sh*aNum)
	if imgW > w {
		imgW = w
		imgH = roundDiv(w*sh*aNum, sw*aDen)
	}
	imgW, imgH = clamp(imgW, 1, w), clamp(imgH, 1, h)

	l.imgW, l.imgH = int(imgW), int(imgH)
	l.col0 = int(w-imgW) / 2
	l.row0 = int(h-imgH) / 2 / 2 // centred, rounded up to a whole cell
	l.cellRows = (l.imgH + 1) / 2
	return l, nil
}

// roundDiv returns n/d rounded to the nearest integer, halves up, for
// n ≥ 0 and d > 0.
func roundDiv(n, d int64) int64 { return (2*n + d) / (2 * d) }

func clamp(x, lo, hi int64) int64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
