package record

import (
	"fmt"
	"math"
)

// minDelay is the shortest frame delay, in 1/100 s, that browsers play as
// written: Firefox (Mozilla bug 139677), Chromium and WebKit show a frame
// whose delay is 0 or 1 (10 ms or less) for 100 ms instead — an animation
// written with delay 1 plays five times slower than one written with 2.
const minDelay = 2

// maxDelay is the largest delay the Graphic Control Extension holds (an
// unsigned 16-bit number of 1/100 s; GIF89a §23).
const maxDelay = 65535

// delays gives each frame's delay in 1/100 s for a frame rate of fps.
//
// GIF delays are whole centiseconds, so a rate whose period is not a
// whole number of them is approximated by rounding the frames' start
// times rather than each period: frame k starts at round(100·k/fps)
// (halves round up) and lasts until frame k+1 starts. At 30 fps the
// delays are 3, 4, 3, 3, 4, 3, … and the animation keeps 30 fps exactly
// over every 3 frames; a per-frame round(3.33) = 3 would play it at 33
// fps. Rates above 50 fps would need delays of 1, which browsers slow down
// to 10 (minDelay): they get 2, and the animation plays at 50 fps — 60
// fps shows 20 % slow.
type delays struct {
	fps float64
	k   int
}

func newDelays(fps float64) (delays, error) {
	if math.IsNaN(fps) || math.IsInf(fps, 0) || fps <= 0 {
		return delays{}, fmt.Errorf("record: a frame rate of %v frames per second: give a positive rate", fps)
	}
	if 100/fps > maxDelay {
		return delays{}, fmt.Errorf("record: a frame rate of %v frames per second needs frames longer than a GIF holds (655.35 s)", fps)
	}
	return delays{fps: fps}, nil
}

// start is frame k's start time in 1/100 s.
func (d *delays) start(k int) int { return int(math.Floor(100*float64(k)/d.fps + 0.5)) }

// next returns the delay of the next frame.
func (d *delays) next() int {
	n := d.start(d.k+1) - d.start(d.k)
	d.k++
	return max(n, minDelay)
}
