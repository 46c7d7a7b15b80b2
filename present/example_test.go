package present_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/uapi"
)

// frame stands for the renderer's colour buffer: 1280x720 XRGB8888.
var frame = make([]byte, 1280*720*4)

// renderFrame stands for the renderer: it draws frame k and waits for the
// GPU to finish (the job's seqno), returning the colour buffer's pixels.
func renderFrame(k int) ([]byte, int) {
	frame[0] = byte(k)
	return frame, 1280 * 4
}

// The frame loop of a program that renders on one card and shows the
// frames on another, with every exit path restoring the screen. On a
// machine the card is drm.Open("/dev/dri/card0") (any KMS card); here it
// is the simulated Pi's, whose display runs on virtual time, so the
// figures are the same on every run.
func Example() {
	s, err := sim.NewSystem(sim.SystemOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	card, err := s.Open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer card.Close()
	// The mode set shows the first frame, the page flips the other 59;
	// the events' timestamps are in microseconds, hence the mean.
	fmt.Println("exit status", run(card))
	// Output:
	// 59 flips, 0 missed vblanks, 16.666672ms per frame
	// exit status 0
}

// run shows 60 frames on card in 1280x720 at 60 Hz and returns the exit
// status.
func run(card uapi.Conn) int {
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
	for k := 0; k < 60 && ctx.Err() == nil; k++ {
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
