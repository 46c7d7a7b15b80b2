package termview_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
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
// the terminal waits until the view is closed.
func Example() {
	if !termview.IsTerminal(os.Stdout) {
		return // write the frames somewhere else
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	v, err := termview.Open(os.Stdout, termview.Options{Caption: "q quits"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer v.Close()
	for k := 0; k < 300 && ctx.Err() == nil; k++ {
		if err := v.ShowXRGB(renderFrame(k)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
	}
	v.Close() // before printing anything
	s := v.Stats()
	fmt.Printf("%d frames, %d drawn, %d dropped, %d bytes each\n", s.Frames, s.Drawn, s.Dropped, s.Bytes/max(1, s.Drawn))
}
