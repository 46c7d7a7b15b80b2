package termview

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the escape-sequence goldens in testdata (check them by hand against testdata/README.md)")

// lockedBuf collects what the writer goroutine writes.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// take returns what was written since the last call.
func (l *lockedBuf) take() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := bytes.Clone(l.b.Bytes())
	l.b.Reset()
	return out
}

// Colours of the hand-made frames.
const (
	cK = 0x000000
	cW = 0xffffff
	cR = 0xff0000
	cG = 0x00ff00
	cB = 0x0000ff
	cY = 0xffff00
	cC = 0x00ffff
	cQ = 0x333333 // vkcube's background, 51 grey
)

func newTestView(t *testing.T, size Size, mode ColourMode, caption string) (*View, *lockedBuf) {
	t.Helper()
	out := &lockedBuf{}
	v, err := New(out, Options{Size: size, Colour: mode, Caption: caption})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, out
}

// show shows a hand-made frame and waits until it is drawn.
func show(t *testing.T, v *View, w, h int, px []uint32) {
	t.Helper()
	buf, pitch := xrgb(w, h, 8, px)
	if err := v.ShowXRGB(buf, w, h, pitch); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
}

// The 4×4 frame in a 4×2 terminal, one pixel per half cell, with every
// byte worked out by hand (see testdata/README.md for the rules): frame 1
// drawn in full, frame 2 and 3 as the cells that changed.
func TestFourByFourByHand(t *testing.T) {
	v, out := newTestView(t, Size{Cols: 4, Rows: 2}, Truecolour, "")
	frame1 := []uint32{
		cQ, cQ, cR, cB,
		cQ, cR, cR, cW,
		cQ, cQ, cB, cR,
		cQ, cQ, cR, cB,
	}
	show(t, v, 4, 4, frame1)
	want := "\x1b[?1049h\x1b[?25l" + // alternate screen, cursor hidden
		"\x1b[0m\x1b[2J" + // full frame: clear to the default background
		"\x1b[1;1H" +
		"\x1b[48;2;51;51;51m " + // grey over grey: a space on grey
		"\x1b[38;2;51;51;51;48;2;255;0;0m▀" + // grey over red
		" " + // red over red: the background is red already
		"\x1b[38;2;0;0;255;48;2;255;255;255m▀" + // blue over white
		"\x1b[2;1H" +
		"\x1b[48;2;51;51;51m " + // grey over grey
		" " + // again
		"\x1b[48;2;255;0;0m▀" + // blue over red: the foreground is blue already
		"▄" // red over blue: fg blue, bg red as they are, so the lower half block
	if got := string(out.take()); got != want {
		t.Fatalf("frame 1:\n got %q\nwant %q", got, want)
	}

	// Frame 2: pixel (3,0) blue → red and (0,3) grey → white change
	// cells (row 0, col 3) and (row 1, col 0). Colours and cursor start
	// unknown in every frame.
	frame2 := append([]uint32(nil), frame1...)
	frame2[0*4+3] = cR
	frame2[3*4+0] = cW
	show(t, v, 4, 4, frame2)
	want = "\x1b[1;4H\x1b[38;2;255;0;0;48;2;255;255;255m▀" + // red over white
		"\x1b[2;1H\x1b[38;2;51;51;51m▀" // grey over white: the background is white already
	if got := string(out.take()); got != want {
		t.Fatalf("frame 2:\n got %q\nwant %q", got, want)
	}

	// Frame 3: cells (0,0) and (0,2) change; the cursor steps over (0,1)
	// with CUF.
	frame3 := append([]uint32(nil), frame2...)
	frame3[0*4+0] = cB
	frame3[1*4+2] = cQ
	show(t, v, 4, 4, frame3)
	want = "\x1b[1;1H\x1b[38;2;0;0;255;48;2;51;51;51m▀" + // blue over grey
		"\x1b[C\x1b[38;2;255;0;0m▀" // red over grey
	if got := string(out.take()); got != want {
		t.Fatalf("frame 3:\n got %q\nwant %q", got, want)
	}

	// A frame with nothing new sends nothing.
	show(t, v, 4, 4, frame3)
	if got := out.take(); len(got) != 0 {
		t.Fatalf("unchanged frame: %q", got)
	}

	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := string(out.take()), "\x1b[0m\x1b[?25h\x1b[?1049l"; got != want {
		t.Fatalf("close: %q, want %q", got, want)
	}
	if s := v.Stats(); s.Frames != 4 || s.Drawn != 4 || s.Dropped != 0 || s.Redraws != 0 {
		t.Errorf("stats %+v: want 4 frames, 4 drawn (the unchanged one by writing nothing), none dropped", s)
	}
}

// goldenCase is a small frame drawn into a small terminal, recorded as an
// escape-sequence golden in testdata.
type goldenCase struct {
	name    string
	size    Size
	mode    ColourMode
	caption string
	w, h    int
	frames  [][]uint32
	// want is each frame's expected picture, cell by cell, as pairs of
	// (top, bottom) colours in the terminal model; blank is the default
	// background. Rows of cells not covered are not checked.
	want [][][][2]vtColour
}

var (
	rgbQ, rgbW = vtRGB(cQ), vtRGB(cW)
	none       = vtDefault
)

var goldenCases = []goldenCase{
	{
		// One pixel per half cell, 3 rows: the second cell row's lower
		// half is letterbox, and the third row is never written.
		name: "6x3_in_6x3_truecolour", size: Size{Cols: 6, Rows: 3}, mode: Truecolour, w: 6, h: 3,
		frames: [][]uint32{{
			cK, cK, cK, cW, cW, cW,
			cR, cR, cG, cG, cB, cB,
			cY, cY, cY, cC, cC, cC,
		}},
		want: [][][][2]vtColour{{
			{{vtRGB(cK), vtRGB(cR)}, {vtRGB(cK), vtRGB(cR)}, {vtRGB(cK), vtRGB(cG)}, {rgbW, vtRGB(cG)}, {rgbW, vtRGB(cB)}, {rgbW, vtRGB(cB)}},
			{{vtRGB(cY), none}, {vtRGB(cY), none}, {vtRGB(cY), none}, {vtRGB(cC), none}, {vtRGB(cC), none}, {vtRGB(cC), none}},
			{{none, none}, {none, none}, {none, none}, {none, none}, {none, none}, {none, none}},
		}},
	},
	{
		// The same in xterm's 256 colours: K 16, R 196, G 46, W 231,
		// B 21, Y 226, C 51.
		name: "6x3_in_6x3_256", size: Size{Cols: 6, Rows: 3}, mode: Colour256, w: 6, h: 3,
		frames: [][]uint32{{
			cK, cK, cK, cW, cW, cW,
			cR, cR, cG, cG, cB, cB,
			cY, cY, cY, cC, cC, cC,
		}},
		want: [][][][2]vtColour{{
			{{vtIdx(16), vtIdx(196)}, {vtIdx(16), vtIdx(196)}, {vtIdx(16), vtIdx(46)}, {vtIdx(231), vtIdx(46)}, {vtIdx(231), vtIdx(21)}, {vtIdx(231), vtIdx(21)}},
			{{vtIdx(226), none}, {vtIdx(226), none}, {vtIdx(226), none}, {vtIdx(51), none}, {vtIdx(51), none}, {vtIdx(51), none}},
		}},
	},
	{
		// 4×4 into 2×1 cells: each half cell averages a 2×2 block.
		// TL (0,0,0,4 grey) → 1 grey; TR red; BL two blue, two green →
		// (0, 127.5, 127.5) → (0, 128, 128); BR 51 grey.
		name: "4x4_in_2x1_box", size: Size{Cols: 2, Rows: 1}, mode: Truecolour, w: 4, h: 4,
		frames: [][]uint32{{
			cK, cK, cR, cR,
			cK, 0x040404, cR, cR,
			cB, cB, cQ, cQ,
			cG, cG, cQ, cQ,
		}},
		want: [][][][2]vtColour{{
			{{vtRGB(0x010101), vtRGB(0x008080)}, {vtRGB(cR), rgbQ}},
		}},
	},
	{
		// A caption on the last row; the 4×4 picture centred in 8
		// columns (columns 3–6). Frame 2 changes one pixel.
		name: "4x4_in_8x3_caption", size: Size{Cols: 8, Rows: 3}, mode: Truecolour, caption: "q: quit", w: 4, h: 4,
		frames: [][]uint32{
			{
				cQ, cQ, cQ, cQ,
				cQ, cQ, cQ, cQ,
				cQ, cQ, cQ, cQ,
				cQ, cQ, cQ, cW,
			},
			{
				cQ, cQ, cQ, cQ,
				cQ, cQ, cR, cQ,
				cQ, cQ, cQ, cQ,
				cQ, cQ, cQ, cW,
			},
		},
		want: [][][][2]vtColour{
			{
				{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {none, none}, {none, none}},
				{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbW}, {none, none}, {none, none}},
			},
			{
				{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, vtRGB(cR)}, {rgbQ, rgbQ}, {none, none}, {none, none}},
				{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbQ}, {rgbQ, rgbW}, {none, none}, {none, none}},
			},
		},
	},
}

// readable writes an escape-sequence stream one sequence per line: ESC as
// \e starting a new line, a space as ␠ (so that editors keep it),
// backslash and newline escaped. The goldens are stored this way.
func readable(b []byte) string {
	var sb strings.Builder
	for _, r := range string(b) {
		switch r {
		case 0x1b:
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(`\e`)
		case ' ':
			sb.WriteString("␠")
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('\n')
	return sb.String()
}

// checkScreen compares the model's cells with want.
func checkScreen(t *testing.T, term *vt, want [][][2]vtColour, what string) {
	t.Helper()
	for r, row := range want {
		for c, cell := range row {
			top, bot, err := term.pixels(r, c)
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			if top != cell[0] || bot != cell[1] {
				t.Errorf("%s: cell row %d col %d shows %v over %v, want %v over %v", what, r, c, top, bot, cell[0], cell[1])
			}
		}
	}
}

func TestGoldens(t *testing.T) {
	for _, gc := range goldenCases {
		t.Run(gc.name, func(t *testing.T) {
			v, out := newTestView(t, gc.size, gc.mode, gc.caption)
			term := newVT(gc.size.Cols, gc.size.Rows)
			var stream []byte
			for i, f := range gc.frames {
				show(t, v, gc.w, gc.h, f)
				b := out.take()
				stream = append(stream, b...)
				if err := term.feed(b); err != nil {
					t.Fatalf("frame %d: %v", i+1, err)
				}
				checkScreen(t, term, gc.want[i], "frame "+string(rune('1'+i)))
			}
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			b := out.take()
			stream = append(stream, b...)
			if err := term.feed(b); err != nil {
				t.Fatal(err)
			}
			checkRestored(t, term)
			if gc.caption != "" {
				// Still on the alternate screen the caption was on the last
				// row; after Close the main screen is back, so check the
				// stream instead.
				if !strings.Contains(string(stream), "\x1b[3;1Hq: quit") {
					t.Errorf("the caption is not written on row 3")
				}
			}

			path := filepath.Join("testdata", gc.name+".golden")
			got := readable(stream)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to record it, then check it by hand)", err)
			}
			if got != string(want) {
				t.Errorf("stream differs from %s:\n got:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// checkRestored checks that the model terminal is as a program found it.
func checkRestored(t *testing.T, term *vt) {
	t.Helper()
	if term.alt {
		t.Error("still on the alternate screen")
	}
	if !term.cursorVisible {
		t.Error("cursor still hidden")
	}
	if !term.attrsReset() {
		t.Errorf("attributes not reset: fg %v, bg %v", term.fg, term.bg)
	}
	if term.scrolled {
		t.Error("the screen scrolled")
	}
}

// A frame whose size changes and a window that changes size are drawn in
// full at the new layout.
func TestResize(t *testing.T) {
	v, out := newTestView(t, Size{Cols: 4, Rows: 2}, Truecolour, "")
	px := []uint32{
		cQ, cR, cR, cQ,
		cQ, cR, cR, cQ,
		cQ, cB, cB, cQ,
		cQ, cB, cB, cQ,
	}
	show(t, v, 4, 4, px)
	out.take()

	// Wider window: 8×2 cells = 8×4 pixels; the 4×4 picture is centred
	// at columns 2–5 and the frame is drawn again without a new Show.
	v.Resize(Size{Cols: 8, Rows: 2})
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	b := out.take()
	if !bytes.HasPrefix(b, []byte(clearSeq)) {
		t.Fatalf("after a resize the frame is not drawn in full: %q", b)
	}
	term := newVT(8, 2)
	term.alt = true
	if err := term.feed(b); err != nil {
		t.Fatal(err)
	}
	rgbR, rgbB := vtRGB(cR), vtRGB(cB)
	checkScreen(t, term, [][][2]vtColour{
		{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbR, rgbR}, {rgbR, rgbR}, {rgbQ, rgbQ}, {none, none}, {none, none}},
		{{none, none}, {none, none}, {rgbQ, rgbQ}, {rgbB, rgbB}, {rgbB, rgbB}, {rgbQ, rgbQ}, {none, none}, {none, none}},
	}, "after resize")

	// A frame of another size: 2×2 into the 8×2 window = 8×4 pixels,
	// enlarged to 4×4 by the box filter (each source pixel covers 2×2).
	show(t, v, 2, 2, []uint32{cR, cG, cB, cW})
	b = out.take()
	if !bytes.HasPrefix(b, []byte(clearSeq)) {
		t.Fatalf("a frame of a new size is not drawn in full: %q", b)
	}
	term = newVT(8, 2)
	term.alt = true
	if err := term.feed(b); err != nil {
		t.Fatal(err)
	}
	rgbG := vtRGB(cG)
	checkScreen(t, term, [][][2]vtColour{
		{{none, none}, {none, none}, {rgbR, rgbR}, {rgbR, rgbR}, {rgbG, rgbG}, {rgbG, rgbG}, {none, none}, {none, none}},
		{{none, none}, {none, none}, {rgbB, rgbB}, {rgbB, rgbB}, {rgbW, rgbW}, {rgbW, rgbW}, {none, none}, {none, none}},
	}, "new frame size")
}

// blockingWriter holds every write until it is released, like a terminal
// that cannot keep up.
type blockingWriter struct {
	entered chan struct{}
	release chan struct{}
	buf     lockedBuf
}

func (w *blockingWriter) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte(enterSeq)) || bytes.HasPrefix(p, []byte(leaveSeq)) {
		return w.buf.Write(p)
	}
	w.entered <- struct{}{}
	<-w.release
	return w.buf.Write(p)
}

// While the terminal is busy, Show does not wait, and the frames that
// arrive replace each other: only the newest is drawn next.
func TestSlowTerminalDropsFrames(t *testing.T) {
	w := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	v, err := New(w, Options{Size: Size{Cols: 4, Rows: 2}, Colour: Truecolour})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	frame := func(c uint32) []byte {
		px := make([]uint32, 16)
		for i := range px {
			px[i] = c
		}
		b, _ := xrgb(4, 4, 0, px)
		return b
	}
	if err := v.ShowXRGB(frame(0x000001), 4, 4, 16); err != nil {
		t.Fatal(err)
	}
	<-w.entered // the writer is now stuck writing frame 1
	for c := uint32(2); c <= 10; c++ {
		// Each call returns although the terminal takes nothing.
		if err := v.ShowXRGB(frame(c), 4, 4, 16); err != nil {
			t.Fatal(err)
		}
	}
	if s := v.Stats(); s.Frames != 10 || s.Dropped != 8 || s.Drawn != 0 {
		t.Errorf("while blocked: %+v, want 10 frames, 8 dropped, 0 drawn", s)
	}
	go func() {
		for range w.entered {
			w.release <- struct{}{}
		}
	}()
	w.release <- struct{}{}
	if err := v.Flush(); err != nil {
		t.Fatal(err)
	}
	if s := v.Stats(); s.Frames != 10 || s.Dropped != 8 || s.Drawn != 2 {
		t.Errorf("after: %+v, want 10 frames, 8 dropped, 2 drawn", s)
	}
	// The second frame drawn is the last one given: colour 10.
	term := newVT(4, 2)
	if err := term.feed(w.buf.take()); err != nil {
		t.Fatal(err)
	}
	top, bot, err := term.pixels(1, 3)
	if err != nil || top != vtRGB(10) || bot != vtRGB(10) {
		t.Errorf("last cell shows %v over %v (%v), want the last frame's #00000a", top, bot, err)
	}
	v.Close()
	close(w.entered)
}

// failingWriter fails every write after the first n.
type failingWriter struct {
	n   int
	buf lockedBuf
}

var errBroken = errors.New("broken pipe")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.buf.mu.Lock()
	w.n--
	n := w.n
	w.buf.mu.Unlock()
	if n < 0 {
		return 0, errBroken
	}
	return w.buf.Write(p)
}

// When the terminal fails, Show and Flush report it and Close still tries
// to restore the terminal.
func TestWriteErrorReported(t *testing.T) {
	w := &failingWriter{n: 1} // the enter sequence goes through, the first frame fails
	v, err := New(w, Options{Size: Size{Cols: 4, Rows: 2}, Colour: Truecolour})
	if err != nil {
		t.Fatal(err)
	}
	buf, pitch := xrgb(4, 4, 0, make([]uint32, 16))
	if err := v.ShowXRGB(buf, 4, 4, pitch); err != nil {
		t.Fatal(err)
	}
	if err := v.Flush(); !errors.Is(err, errBroken) {
		t.Fatalf("Flush: %v, want the write error", err)
	}
	if err := v.ShowXRGB(buf, 4, 4, pitch); !errors.Is(err, errBroken) {
		t.Fatalf("Show after the error: %v", err)
	}
	w.n = 100 // the terminal works again: Close must restore it
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(w.buf.take()); got != enterSeq+leaveSeq {
		t.Errorf("stream %q, want the enter and leave sequences", got)
	}
	if err := v.ShowXRGB(buf, 4, 4, pitch); !errors.Is(err, ErrClosed) {
		t.Errorf("Show after Close: %v", err)
	}
}

// Restore, called while frames are being shown (as a signal handler
// would), leaves the terminal restored: nothing is written after it.
func TestRestoreWhileShowing(t *testing.T) {
	out := &lockedBuf{}
	v, err := New(out, Options{Size: Size{Cols: 20, Rows: 10}, Colour: Truecolour})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		px := make([]uint32, 40*20)
		for c := uint32(0); ; c++ {
			select {
			case <-stop:
				return
			default:
			}
			for i := range px {
				px[i] = c * uint32(i)
			}
			b, pitch := xrgb(40, 20, 0, px)
			v.ShowXRGB(b, 40, 20, pitch)
		}
	}()
	for v.Stats().Drawn < 3 {
		v.Flush()
	}
	if err := v.Restore(); err != nil {
		t.Fatal(err)
	}
	restoredAt := len(out.take())
	for v.Stats().Frames < 20 {
		v.Flush()
	}
	close(stop)
	<-done
	v.Close()
	if after := out.take(); len(after) != 0 || restoredAt == 0 {
		t.Errorf("%d bytes written after Restore", len(after))
	}
	// The frames given after Restore were dropped: every frame is
	// counted once, drawn or dropped.
	if s := v.Stats(); s.Frames != s.Drawn+s.Dropped || s.Dropped == 0 {
		t.Errorf("stats %+v: want frames = drawn + dropped, some dropped", s)
	}
}

// The stream of a whole run, fed to the terminal model, leaves the
// terminal as it was — whatever was drawn.
func TestCloseRestoresTerminal(t *testing.T) {
	v, out := newTestView(t, Size{Cols: 6, Rows: 3}, Colour256, "keys")
	term := newVT(6, 3)
	term.row, term.col = 2, 5 // where the shell left the cursor
	show(t, v, 6, 3, goldenCases[0].frames[0])
	if err := term.feed(out.take()); err != nil {
		t.Fatal(err)
	}
	if !term.alt || term.cursorVisible || term.attrsReset() {
		t.Fatalf("while showing: alt %v, cursor %v, attributes reset %v", term.alt, term.cursorVisible, term.attrsReset())
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil { // a second Close does nothing
		t.Fatal(err)
	}
	if err := term.feed(out.take()); err != nil {
		t.Fatal(err)
	}
	checkRestored(t, term)
	if term.row != 2 || term.col != 5 {
		t.Errorf("cursor at %d,%d, want it back at 2,5", term.row, term.col)
	}
	if term.text(0) != "      " {
		t.Errorf("the main screen was written on: %q", term.text(0))
	}
}

func TestShowErrors(t *testing.T) {
	v, _ := newTestView(t, Size{Cols: 4, Rows: 2}, Truecolour, "")
	px := make([]byte, 64)
	for _, tc := range []struct {
		name             string
		w, h, pitch, len int
	}{
		{"zero width", 0, 4, 16, 64},
		{"huge", MaxFrameSide + 1, 1, 4 * (MaxFrameSide + 1), 64},
		{"short pitch", 4, 4, 12, 64},
		{"short buffer", 4, 4, 16, 60},
		{"short buffer with pitch", 4, 4, 20, 72},
	} {
		if err := v.ShowXRGB(px[:min(tc.len, len(px))], tc.w, tc.h, tc.pitch); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := New(&lockedBuf{}, Options{}); err == nil {
		t.Error("New without a size: no error")
	}
}

// A frame still waiting when the view is closed is counted as dropped:
// after Close every frame given is drawn or dropped.
func TestCloseDropsTheWaitingFrame(t *testing.T) {
	w := &blockingWriter{entered: make(chan struct{}), release: make(chan struct{})}
	v, err := New(w, Options{Size: Size{Cols: 4, Rows: 2}, Colour: Truecolour})
	if err != nil {
		t.Fatal(err)
	}
	px := make([]byte, 4*4*4)
	if err := v.ShowXRGB(px, 4, 4, 16); err != nil {
		t.Fatal(err)
	}
	<-w.entered // the writer is stuck on frame 1
	px[0] = 0xff
	if err := v.ShowXRGB(px, 4, 4, 16); err != nil { // frame 2 waits
		t.Fatal(err)
	}
	closed := make(chan error)
	go func() { closed <- v.Close() }()
	// Once Show answers ErrClosed, Close has told the writer to stop;
	// then let frame 1's write finish.
	for v.ShowXRGB(px, 4, 4, 16) != ErrClosed {
		runtime.Gosched()
	}
	go func() {
		for range w.entered {
			w.release <- struct{}{}
		}
	}()
	w.release <- struct{}{}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	// (Show may have been given more frames before it saw the close;
	// each replaced the one waiting.)
	if s := v.Stats(); s.Frames < 2 || s.Drawn != 1 || s.Dropped != s.Frames-1 {
		t.Errorf("stats %+v: want frame 1 drawn, every later one dropped", s)
	}
}
