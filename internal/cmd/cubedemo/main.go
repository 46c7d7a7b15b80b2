// Command cubedemo shows the cube in the terminal through package
// termview, with frames from the reference renderer (internal/refrender)
// instead of the GPU path, so that the view can be looked at on its own:
//
//	go run ./internal/cmd/cubedemo -frames 90
//
// It ends after -frames frames (0: until Ctrl-C), or on SIGINT or SIGTERM,
// restoring the terminal either way; -hold keeps the last frame on the
// screen until a signal comes. With -record out.gif it writes the frames
// to a GIF (package record) instead of showing them.
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/internal/toolflags"
	"github.com/vccube/vccube/record"
	"github.com/vccube/vccube/termview"
	"github.com/vccube/vccube/texture/defaulttex"
)

// usageHead is the start of -h, before the flags.
const usageHead = `cubedemo shows the cube in the terminal through package termview, with
frames from the reference renderer instead of the GPU path, so that the view
can be looked at on its own; with -record it writes the frames to a GIF.
It ends after -frames frames, or on SIGINT or SIGTERM.

Usage: go run ./internal/cmd/cubedemo [flags]

Flags:
`

func main() {
	fs := flag.NewFlagSet("cubedemo", flag.ContinueOnError)
	frames := fs.Int("frames", 90, "frames to show; 0 runs until stopped")
	width := fs.Int("width", 800, "frame width")
	height := fs.Int("height", 600, "frame height")
	fps := fs.Float64("fps", 30, "frames per second at most")
	hold := fs.Bool("hold", false, "keep the last frame on the screen until SIGINT or SIGTERM")
	rec := fs.String("record", "", "write the frames to this GIF file instead of showing them")
	scale := fs.Int("scale", 1, "with -record, divide the frame size by this")
	toolflags.Parse(fs, usageHead, 0)
	var err error
	if *rec != "" {
		err = recordGIF(*rec, *frames, *width, *height, *fps, *scale)
	} else {
		err = run(*frames, *width, *height, *fps, *hold)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cubedemo:", err)
		os.Exit(1)
	}
}

func run(frames, width, height int, fps float64, hold bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	v, err := termview.Open(os.Stdout, termview.Options{Caption: "cubedemo: reference frames through termview; Ctrl-C quits"})
	if err != nil {
		return err
	}
	defer v.Close()
	tex := defaulttex.Image()
	tick := time.NewTicker(time.Duration(float64(time.Second) / fps))
	defer tick.Stop()
	for k := 0; frames == 0 || k < frames; k++ {
		o, err := refrender.Render(refrender.Options{Width: width, Height: height, Frame: k, Texture: tex})
		if err != nil {
			return err
		}
		if err := v.ShowImage(image.Image(o.Image)); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
	if hold {
		<-ctx.Done()
	}
	if err := v.Flush(); err != nil {
		return err
	}
	return v.Close()
}

func recordGIF(path string, frames, width, height int, fps float64, scale int) error {
	g, err := record.Create(path, record.Options{FPS: fps, Scale: scale})
	if err != nil {
		return err
	}
	defer g.Discard()
	tex := defaulttex.Image()
	for k := 0; k < frames; k++ {
		o, err := refrender.Render(refrender.Options{Width: width, Height: height, Frame: k, Texture: tex})
		if err != nil {
			return err
		}
		if err := g.AddImage(o.Image); err != nil {
			return err
		}
	}
	return g.Close()
}
