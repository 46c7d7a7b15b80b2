package present_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
)

// renderFrame stands for the renderer: it draws frame k and waits for the
// GPU to finish (the job's seqno), returning the colour buffer's pixels.
func renderFrame(k int) ([]byte, int) { return make([]byte, 1920*1080*4), 1920 * 4 }

// The frame loop of a program that renders on one card and shows the
// frames on another (here: any KMS card), with every exit path restoring
// the screen. It is compiled, not run: it needs a display.
func Example() {
	os.Exit(run())
}

func run() int {
	card, err := drm.Open("/dev/dri/card0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer card.Close()
	spec, _ := present.ParseModeSpec("1280x720@60")
	d, err := present.Open(card, present.Config{Mode: spec})
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // says what to do: the mode list, a text console, ...
		return 1
	}
	defer d.Close() // restores the CRTC, removes the framebuffers, frees the buffers
	ctx, stop := present.RestoreOnSignal(context.Background(), d)
	defer stop()

	a, err := d.NewDumbBuffer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, err := d.NewDumbBuffer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	chain, err := d.NewSwapchain(a, b)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for k := 0; k < 600 && ctx.Err() == nil; k++ {
		pixels, pitch := renderFrame(k) // finished: its seqno was waited for
		buf, err := chain.Acquire()     // never the buffer on screen
		if err == nil {
			err = buf.CopyFrom(pixels, pitch)
		}
		if err == nil {
			err = chain.Present(buf)
		}
		if errors.Is(err, present.ErrRestored) {
			break // a signal restored the display meanwhile
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	var in *present.Interrupted
	if errors.As(context.Cause(ctx), &in) {
		fmt.Fprintln(os.Stderr, in)
		return in.ExitCode() // 130 after Ctrl-C, 143 after SIGTERM
	}
	if err := chain.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	st := chain.Stats()
	fmt.Printf("%d flips, %d missed vblanks, %v per frame\n", st.Completed, st.Missed, st.MeanInterval())
	return 0
}
