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

// presentRun fills rep and returns the exit status. Its stages, in order:
// open the card, set the display up (restored at exit unless noRestore),
// map the scanout buffers a second time, make the swapchain and the
// stand-in frames, flip, sum up the flips' timing, restore and check the
// restore. The deferred steps undo in reverse: the mappings, the signal
// handler, the display, the card.
func presentRun(rep *PresentReport, device, connector, modeFlag string, flips int, noRestore bool) (code int) {
	p := &presentProbe{rep: rep}
	spec, err := present.ParseModeSpec(modeFlag)
	if err != nil {
		return p.fail(err)
	}
	if p.f, err = drm.Open(device); err != nil {
		return p.fail(err)
	}
	defer p.f.Close()
	p.describeCard()
	if p.d, err = present.Open(p.f, present.Config{Connector: connector, Mode: spec}); err != nil {
		return p.fail(err)
	}
	defer func() {
		if noRestore {
			return
		}
		if err := p.d.Close(); err != nil {
			p.fail(err)
			if code == 0 {
				code = 1
			}
		}
	}()
	ctx, stop := context.Background(), func() {}
	if !noRestore {
		ctx, stop = present.RestoreOnSignal(ctx, p.d)
	}
	defer stop()
	p.describeMode()
	defer p.unmap()
	if err := p.mapBuffers(); err != nil {
		return p.fail(err)
	}
	if err := p.makeSwapchain(flips); err != nil {
		return p.fail(err)
	}
	if err := p.flipLoop(ctx, flips); err != nil {
		return p.fail(err)
	}
	p.sumUp()
	// Restore (again, if a signal did already) and see that it took.
	if noRestore {
		return 0
	}
	return p.restore(ctx)
}

// presentProbe is one run of "kmsprobe present": what its stages make
// and hand on.
type presentProbe struct {
	rep   *PresentReport
	f     *drm.File
	d     *present.Display
	saved drm.Crtc // the CRTC as it was before the mode set
	w, h  uint32
	bufs  [2]*present.Buffer
	// readback holds the second mappings of bufs.
	readback [2][]byte
	s        *present.Swapchain
	// frames are the stand-in colour buffers, of pitch srcPitch: three
	// images, so that the two scanout buffers never hold the same
	// picture twice in a row.
	frames   [3][]byte
	srcPitch int
	// Each completed flip's event time, vblank sequence and wall-clock
	// arrival; queued is when each PAGE_FLIP after the first returned
	// (CLOCK_MONOTONIC).
	times  []time.Duration
	seqs   []uint32
	walls  []time.Time
	queued []time.Duration
	start  time.Time // when the first Present returned
}

// fail records err as the run's error unless there is one already and
// returns the failing exit status.
func (p *presentProbe) fail(err error) int {
	if p.rep.Error == "" {
		p.rep.Error = err.Error()
	}
	return 1
}

// describeCard reports the driver's name and the events' clock.
func (p *presentProbe) describeCard() {
	if v, err := drm.GetVersion(p.f); err == nil {
		p.rep.Driver = v.Name
	}
	if v, err := drm.GetCapability(p.f, uapi.CapTimestampMonotonic); err == nil {
		p.rep.TimestampMonotonic = v == 1
	}
}

// describeMode reports the connector, mode and CRTC chosen and the CRTC's
// framebuffer before the mode set.
func (p *presentProbe) describeMode() {
	m := p.d.Mode()
	p.rep.Connector, p.rep.Mode, p.rep.Crtc = p.d.Connector().Name(), m.String(), p.d.CrtcID()
	p.rep.PeriodNs = int64(m.FramePeriod())
	p.saved, _ = p.d.Saved()
	p.rep.SavedFb = p.saved.FbID
	p.w, p.h = p.d.Size()
}

// mapBuffers makes the two scanout buffers and maps each a second time,
// read-only, taking the page faults now rather than in the frame loop.
func (p *presentProbe) mapBuffers() (err error) {
	for i := range p.bufs {
		if p.bufs[i], err = p.d.NewDumbBuffer(); err != nil {
			return err
		}
		off, err := drm.MapDumb(p.f, p.bufs[i].Handle)
		if err != nil {
			return err
		}
		mm, err := p.f.Mmap(off, int(p.bufs[i].Pitch*p.h), unix.PROT_READ)
		if err != nil {
			return fmt.Errorf("second mapping of scanout buffer %d: %w", i, err)
		}
		p.readback[i] = mm
		for off := 0; off < len(mm); off += 4096 {
			_ = mm[off]
		}
	}
	return nil
}

// unmap undoes mapBuffers' second mappings, the last made first.
func (p *presentProbe) unmap() {
	for i := len(p.readback) - 1; i >= 0; i-- {
		if p.readback[i] != nil {
			p.f.Munmap(p.readback[i])
		}
	}
}

// makeSwapchain makes the swapchain of the two buffers, the stand-in
// frames, and the records of each flip (room for flips of them, or 1024
// when flips is 0).
func (p *presentProbe) makeSwapchain(flips int) (err error) {
	if p.s, err = p.d.NewSwapchain(p.bufs[0], p.bufs[1]); err != nil {
		return err
	}
	p.srcPitch = int(p.w)*4 + 64
	for v := range p.frames {
		p.frames[v] = patternImage(int(p.w), int(p.h), p.srcPitch, uint32(v))
	}
	p.times = make([]time.Duration, 0, max(flips, 1024))
	p.seqs = make([]uint32, 0, max(flips, 1024))
	p.walls = make([]time.Time, 0, max(flips, 1024))
	p.queued = make([]time.Duration, 0, max(flips, 1024))
	p.s.OnFlip = func(fl present.Flip) {
		p.times, p.seqs, p.walls = append(p.times, fl.Time), append(p.seqs, fl.Sequence), append(p.walls, time.Now())
		if fl.Missed > 0 && len(p.rep.MissedAt) < 16 {
			p.rep.MissedAt = append(p.rep.MissedAt, fl.N)
		}
	}
	return nil
}

// check compares the buffer on screen with frame k, the frame copied
// into it, as the kernel reports it scanned out. Under emulation a full
// compare costs a third of a frame, so frames compare row 0 (the stamp)
// and every eighth row, starting at row k%8: any eight consecutive frames
// cover every row. The first and the last frame are compared whole.
func (p *presentProbe) check(k int, b *present.Buffer, whole bool) {
	rep := p.rep
	c, err := drm.GetCrtc(p.f, p.d.CrtcID())
	if (err != nil || c.FbID != b.FbID) && !p.d.Restored() {
		rep.ScanoutErrors++ // (unless a signal restored the CRTC meanwhile)
	}
	mm := p.readback[0]
	if b == p.bufs[1] {
		mm = p.readback[1]
	}
	src := p.frames[k%3]
	rep.PatternChecked++
	step, first := 8, k%8
	if whole {
		step, first = 1, 0
	}
	row := int(p.w) * 4
	equal := func(y int) bool {
		rep.RowsChecked++
		return bytes.Equal(mm[y*int(b.Pitch):y*int(b.Pitch)+row], src[y*p.srcPitch:y*p.srcPitch+row])
	}
	ok := equal(0)
	for y := first; y < int(p.h) && ok; y += step {
		ok = equal(y)
	}
	if !ok {
		rep.PatternErrors++
	}
}

// flipLoop presents flips+1 frames (the mode set and flips page flips;
// without end when flips is 0), checking each frame once its flip is on
// screen, until done, a signal or a restore; then, unless a signal ended
// it, waits for the last flip and checks the last frame whole.
func (p *presentProbe) flipLoop(ctx context.Context, flips int) error {
	rep := p.rep
	n := flips
	if n == 0 {
		n = -1
	}
	var prev *present.Buffer
	k := 0
	for ; n < 0 || k <= n; k++ {
		if ctx.Err() != nil {
			break
		}
		b, err := p.s.Acquire()
		if err != nil {
			if errors.Is(err, present.ErrRestored) {
				break
			}
			return err
		}
		t0 := time.Now()
		if prev != nil {
			p.check(k-1, prev, k == 1) // Acquire waited for frame k-1's flip: it is on screen
		}
		t1 := time.Now()
		src := p.frames[k%3]
		stamp(src, k)
		if err := b.CopyFrom(src, p.srcPitch); err != nil {
			return err
		}
		t2 := time.Now()
		rep.CheckMaxNs = max(rep.CheckMaxNs, int64(t1.Sub(t0)))
		rep.CopyMaxNs = max(rep.CopyMaxNs, int64(t2.Sub(t1)))
		rep.CheckSumNs += int64(t1.Sub(t0))
		rep.CopySumNs += int64(t2.Sub(t1))
		if err := p.s.Present(b); err != nil {
			if errors.Is(err, present.ErrRestored) {
				break
			}
			return err
		}
		if k == 0 {
			p.start = time.Now()
		} else {
			p.queued = append(p.queued, monotonic())
		}
		prev = b
	}
	if ctx.Err() == nil {
		if err := p.s.Wait(); err != nil {
			return err
		}
		if prev != nil {
			p.check(k-1, prev, true)
		}
	}
	return nil
}

// sumUp reports the swapchain's statistics and, from the flips' records,
// the vblank steps, the timestamps that disagree with the period, whether
// each missed vblank was the guest's lateness, and the wall-clock
// intervals.
func (p *presentProbe) sumUp() {
	rep := p.rep
	st := p.s.Stats()
	rep.ModeSet, rep.Flips, rep.Completed, rep.Missed = st.ModeSet, st.Flips, st.Completed, st.Missed
	rep.SeqFirst, rep.SeqLast = st.FirstSequence, st.LastSequence
	rep.IntervalMeanNs, rep.IntervalMinNs, rep.IntervalMaxNs = int64(st.MeanInterval()), int64(st.MinInterval), int64(st.MaxInterval)
	rep.VblankPeriodNs = int64(st.VblankPeriod())
	times, seqs, walls, queued := p.times, p.seqs, p.walls, p.queued
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
	if !p.start.IsZero() {
		rep.TotalNs = int64(time.Since(p.start))
	}
}

// restore restores the CRTC, checks with GETCRTC that it is as saved, and
// returns the exit status: 128+signal if a signal ended the run.
func (p *presentProbe) restore(ctx context.Context) int {
	rep, saved := p.rep, p.saved
	if err := p.d.Restore(); err != nil {
		rep.RestoreError = err.Error()
	}
	if c, err := drm.GetCrtc(p.f, p.d.CrtcID()); err == nil {
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
