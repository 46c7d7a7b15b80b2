package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/present"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// runPresent is "kmsprobe present": the presentation path of vccube on a
// display that is not the GPU's card. Frames come from a stand-in for the
// renderer's colour buffer (three patterned XRGB8888 images with a pitch
// unlike the dumb buffers', each stamped with its frame number), are
// copied into the back buffer and flipped. After each flip completes, the
// probe asks GETCRTC which framebuffer is scanned out and reads that
// buffer back through a second mapping of its own, comparing it with the
// frame. At the end it restores the CRTC and checks the restore with
// GETCRTC. SIGINT/SIGTERM restore at once and end the run with 128+signal.
func runPresent(args []string) int {
	fs := flag.NewFlagSet("present", flag.ExitOnError)
	subcommand(fs, "sets the mode and page-flips dumb buffers through package present, reading each scanned-out frame back, and prints a JSON report.")
	device := fs.String("device", "/dev/dri/card0", "the display's DRM card")
	flips := fs.Int("flips", 300, "page flips after the mode set (0: until stopped)")
	modeFlag := fs.String("mode", "", "mode WxH or WxH@Hz (default: the preferred one)")
	connector := fs.String("connector", "", "connector name (default: the first connected)")
	noRestore := fs.Bool("no-restore", false, "leave the display as it is at exit and ignore signals: a broken program, to test the rig")
	fs.Parse(args)

	rep := PresentReport{Kind: "present", Device: *device, FlipsWanted: *flips}
	code := presentRun(&rep, *device, *connector, *modeFlag, *flips, *noRestore)
	// One JSON object on stdout: the supervisor carries it to the judge.
	b, err := json.Marshal(&rep)
	if err != nil {
		panic(err) // PresentReport always marshals
	}
	fmt.Printf("%s\n", b)
	return code
}

// presentRun fills rep and returns the exit status.
func presentRun(rep *PresentReport, device, connector, modeFlag string, flips int, noRestore bool) (code int) {
	fail := func(err error) int {
		if rep.Error == "" {
			rep.Error = err.Error()
		}
		return 1
	}
	spec, err := present.ParseModeSpec(modeFlag)
	if err != nil {
		return fail(err)
	}
	f, err := drm.Open(device)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if v, err := drm.GetVersion(f); err == nil {
		rep.Driver = v.Name
	}
	if v, err := drm.GetCapability(f, uapi.CapTimestampMonotonic); err == nil {
		rep.TimestampMonotonic = v == 1
	}
	d, err := present.Open(f, present.Config{Connector: connector, Mode: spec})
	if err != nil {
		return fail(err)
	}
	defer func() {
		if noRestore {
			return
		}
		if err := d.Close(); err != nil {
			fail(err)
			if code == 0 {
				code = 1
			}
		}
	}()
	ctx, stop := context.Background(), func() {}
	if !noRestore {
		ctx, stop = present.RestoreOnSignal(ctx, d)
	}
	defer stop()

	m := d.Mode()
	rep.Connector, rep.Mode, rep.Crtc = d.Connector().Name(), m.String(), d.CrtcID()
	rep.PeriodNs = int64(m.FramePeriod())
	saved, _ := d.Saved()
	rep.SavedFb = saved.FbID

	w, h := d.Size()
	var bufs [2]*present.Buffer
	var readback [2][]byte // the second mappings
	for i := range bufs {
		if bufs[i], err = d.NewDumbBuffer(); err != nil {
			return fail(err)
		}
		off, err := drm.MapDumb(f, bufs[i].Handle)
		if err != nil {
			return fail(err)
		}
		mm, err := f.Mmap(off, int(bufs[i].Pitch*h), unix.PROT_READ)
		if err != nil {
			return fail(fmt.Errorf("second mapping of scanout buffer %d: %w", i, err))
		}
		defer f.Munmap(mm)
		readback[i] = mm
		for off := 0; off < len(mm); off += 4096 {
			_ = mm[off] // take the page faults now, not in the frame loop
		}
	}
	s, err := d.NewSwapchain(bufs[0], bufs[1])
	if err != nil {
		return fail(err)
	}
	// The stand-in colour buffers: three images, so that the two scanout
	// buffers never hold the same picture twice in a row.
	srcPitch := int(w)*4 + 64
	var frames [3][]byte
	for v := range frames {
		frames[v] = patternImage(int(w), int(h), srcPitch, uint32(v))
	}

	n := flips
	if n == 0 {
		n = -1
	}
	times := make([]time.Duration, 0, max(flips, 1024))
	seqs := make([]uint32, 0, max(flips, 1024))
	walls := make([]time.Time, 0, max(flips, 1024))
	queued := make([]time.Duration, 0, max(flips, 1024)) // when each PAGE_FLIP returned, CLOCK_MONOTONIC
	s.OnFlip = func(fl present.Flip) {
		times, seqs, walls = append(times, fl.Time), append(seqs, fl.Sequence), append(walls, time.Now())
		if fl.Missed > 0 && len(rep.MissedAt) < 16 {
			rep.MissedAt = append(rep.MissedAt, fl.N)
		}
	}
	row := int(w) * 4
	// check compares the buffer on screen with frame k, the frame copied
	// into it, as the kernel reports it scanned out. Under emulation a
	// full compare costs a third of a frame, so frames compare row 0 (the
	// stamp) and every eighth row, starting at row k%8: any eight
	// consecutive frames cover every row. The first and the last frame
	// are compared whole.
	check := func(k int, b *present.Buffer, whole bool) {
		c, err := drm.GetCrtc(f, d.CrtcID())
		if (err != nil || c.FbID != b.FbID) && !d.Restored() {
			rep.ScanoutErrors++ // (unless a signal restored the CRTC meanwhile)
		}
		mm := readback[0]
		if b == bufs[1] {
			mm = readback[1]
		}
		src := frames[k%3]
		rep.PatternChecked++
		step, first := 8, k%8
		if whole {
			step, first = 1, 0
		}
		equal := func(y int) bool {
			rep.RowsChecked++
			return bytes.Equal(mm[y*int(b.Pitch):y*int(b.Pitch)+row], src[y*srcPitch:y*srcPitch+row])
		}
		ok := equal(0)
		for y := first; y < int(h) && ok; y += step {
			ok = equal(y)
		}
		if !ok {
			rep.PatternErrors++
		}
	}
	var start time.Time
	var prev *present.Buffer
	k := 0
	for ; n < 0 || k <= n; k++ {
		if ctx.Err() != nil {
			break
		}
		b, err := s.Acquire()
		if err != nil {
			if errors.Is(err, present.ErrRestored) {
				break
			}
			return fail(err)
		}
		t0 := time.Now()
		if prev != nil {
			check(k-1, prev, k == 1) // Acquire waited for frame k-1's flip: it is on screen
		}
		t1 := time.Now()
		src := frames[k%3]
		stamp(src, k)
		if err := b.CopyFrom(src, srcPitch); err != nil {
			return fail(err)
		}
		t2 := time.Now()
		rep.CheckMaxNs = max(rep.CheckMaxNs, int64(t1.Sub(t0)))
		rep.CopyMaxNs = max(rep.CopyMaxNs, int64(t2.Sub(t1)))
		rep.CheckSumNs += int64(t1.Sub(t0))
		rep.CopySumNs += int64(t2.Sub(t1))
		if err := s.Present(b); err != nil {
			if errors.Is(err, present.ErrRestored) {
				break
			}
			return fail(err)
		}
		if k == 0 {
			start = time.Now()
		} else {
			queued = append(queued, monotonic())
		}
		prev = b
	}
	if ctx.Err() == nil {
		if err := s.Wait(); err != nil {
			return fail(err)
		}
		if prev != nil {
			check(k-1, prev, true)
		}
	}
	st := s.Stats()
	rep.ModeSet, rep.Flips, rep.Completed, rep.Missed = st.ModeSet, st.Flips, st.Completed, st.Missed
	rep.SeqFirst, rep.SeqLast = st.FirstSequence, st.LastSequence
	rep.IntervalMeanNs, rep.IntervalMinNs, rep.IntervalMaxNs = int64(st.MeanInterval()), int64(st.MinInterval), int64(st.MaxInterval)
	rep.VblankPeriodNs = int64(st.VblankPeriod())
	for i := 1; i < len(seqs); i++ {
		step := seqs[i] - seqs[i-1]
		if step != 1 {
			rep.SeqStepsNotOne++
		}
		diff := int64(times[i]-times[i-1]) - int64(step)*rep.PeriodNs
		if diff < -2000 || diff > 2000 {
			rep.TimestampMismatches++
		}
		// Was a missed vblank the guest's lateness? The flip needed to be
		// queued before the vblank after the previous completion.
		if step != 1 && i < len(queued) && rep.TimestampMonotonic {
			margin := int64(times[i-1]) + rep.PeriodNs - int64(queued[i])
			if margin < 0 {
				rep.MissedQueuedLate += int(step - 1)
			} else {
				rep.MissedQueuedOnTime += int(step - 1)
				if rep.MissedQueuedOnTime == int(step-1) || margin > rep.OnTimeMarginMaxNs {
					rep.OnTimeMarginMaxNs = margin
				}
			}
		}
		wall := int64(walls[i].Sub(walls[i-1]))
		if i == 1 || wall < rep.WallMinNs {
			rep.WallMinNs = wall
		}
		rep.WallMaxNs = max(rep.WallMaxNs, wall)
	}
	if len(walls) > 1 {
		rep.WallMeanNs = int64(walls[len(walls)-1].Sub(walls[0])) / int64(len(walls)-1)
	}
	if !start.IsZero() {
		rep.TotalNs = int64(time.Since(start))
	}

	// Restore (again, if a signal did already) and see that it took.
	if noRestore {
		return 0
	}
	if err := d.Restore(); err != nil {
		rep.RestoreError = err.Error()
	}
	if c, err := drm.GetCrtc(f, d.CrtcID()); err == nil {
		rep.Restored = c.FbID == saved.FbID && c.ModeValid == saved.ModeValid && c.Mode == saved.Mode &&
			c.X == saved.X && c.Y == saved.Y
	}
	if cause := context.Cause(ctx); cause != nil {
		var in *present.Interrupted
		if errors.As(cause, &in) {
			rep.Signal = in.Signal.String()
			return in.ExitCode()
		}
	}
	if rep.Error != "" {
		return 1
	}
	return 0
}

// patternImage is a w x h XRGB8888 image of the given pitch whose pixels
// depend on x, y and the variant, with 0xee in the row padding.
func patternImage(w, h, pitch int, variant uint32) []byte {
	img := bytes.Repeat([]byte{0xee}, pitch*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := (uint32(x)*0x9e3779b1 ^ uint32(y)*0x85ebca77 ^ variant*0xc2b2ae3d) & 0x00ffffff
			binary.LittleEndian.PutUint32(img[y*pitch+4*x:], v)
		}
	}
	return img
}

// stamp writes frame number k into the first eight pixels of the image.
func stamp(img []byte, k int) {
	for i := 0; i < 8; i++ {
		binary.LittleEndian.PutUint32(img[4*i:], uint32(k*8+i)&0x00ffffff)
	}
}

// monotonic reads CLOCK_MONOTONIC, the clock of the events' timestamps
// when uapi.CapTimestampMonotonic is 1.
func monotonic() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
