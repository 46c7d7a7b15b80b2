package termview_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/vccube/vccube/termview"
)

// renderFrame stands for a program's renderer: it returns a finished
// frame's XRGB8888 pixels, size and pitch.
func renderFrame(k int) (px []byte, width, height, pitch int) {
	const w, h = 320, 240
	px = make([]byte, 4*w*h)
	for i := 0; i < w*h; i++ {
		px[4*i], px[4*i+1], px[4*i+2] = byte(k), 51, 51 // B, G, R
	}
	return px, w, h, 4 * w
}

// A render loop that shows its frames in the terminal. SIGINT and SIGTERM
// end the loop, and the deferred Close restores the terminal; output to
// the terminal waits until the view is closed. A program shows them on
// its own terminal with termview.Open(os.Stdout, opts) once
// termview.IsTerminal(os.Stdout) says it is one; here the terminal is an
// 80x24 one in memory (New), so that the example runs.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var term bytes.Buffer
	v, err := termview.New(&term, termview.Options{Size: termview.Size{Cols: 80, Rows: 24},
		Colour: termview.Truecolour, Caption: "q quits"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer v.Close()
	for k := 0; k < 30 && ctx.Err() == nil; k++ {
		if err := v.ShowXRGB(renderFrame(k)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
	}
	v.Flush() // the last frame is drawn (the loop does not wait for the terminal)
	v.Close() // before printing anything
	s := v.Stats()
	// Frames the terminal had no time for are dropped, so how many are
	// drawn depends on the terminal's speed; the last one always is.
	fmt.Printf("%d frames, %d drawn or dropped\n", s.Frames, s.Drawn+s.Dropped)
	fmt.Println("last frame's colour sent:", strings.Contains(term.String(), "48;2;51;51;29m"))
	fmt.Println("caption shown:", strings.Contains(term.String(), "q quits"))
	// Output:
	// 30 frames, 30 drawn or dropped
	// last frame's colour sent: true
	// caption shown: true
}
