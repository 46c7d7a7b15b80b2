package present

import (
	"errors"
	"fmt"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// bufferState is where a buffer is in the presentation cycle.
type bufferState uint8

const (
	stateFree     bufferState = iota // may be drawn into; Acquire hands it out
	stateAcquired                    // the caller draws into it
	stateQueued                      // a flip to it is pending
	stateFront                       // it is being scanned out
)

// DefaultFlipTimeout bounds the wait for a flip-complete event. A flip
// completes at the next vblank (16.7 ms at 60 Hz, 42 ms at 24 Hz), so a
// missing event after this long is a driver or display fault, reported
// as an error instead of a hang. It is the kernel's own limit for a
// flip's completion (drm_atomic_helper.c:
// drm_atomic_helper_wait_for_flip_done, 10 s). A shorter one (2 s until
// 2026-12-05) failed runs on the simulated display, which shares the
// machine's CPUs, when other work starved the process for that long.
const DefaultFlipTimeout = 10 * time.Second

// Flip is one completed page flip, as its event reported it.
type Flip struct {
	N        uint64        // the flip's number, from 1; also its event's user data
	Buffer   int           // index of the buffer now on screen
	Sequence uint32        // the CRTC's vblank counter at the flip
	Time     time.Duration // the vblank's timestamp (CLOCK_MONOTONIC with uapi.CapTimestampMonotonic)
	// Missed counts the vblanks since the previous flip that showed no
	// new frame: the sequence step minus one (0 for the first flip).
	Missed uint32
}

// Stats sums up the flips of a Swapchain. Intervals are measured between
// consecutive flip-complete events by the kernel's vblank timestamps,
// which are exact, where the wall-clock arrival of events is not.
type Stats struct {
	ModeSet   bool   // the first frame was shown with SETCRTC (or an atomic mode set)
	Atomic    bool   // the frames were shown with atomic commits (Display.EnableAtomic)
	OutFences uint64 // atomic commits' out-fences checked when their flip event arrived
	// OutFencesLate counts out-fences that had not signalled when their
	// flip's event arrived (the kernel signals both together).
	OutFencesLate uint64
	Flips         uint64 // PAGE_FLIPs queued
	Completed     uint64 // flip-complete events received
	Missed        uint64 // vblanks that showed no new frame (see Flip.Missed)

	FirstSequence, LastSequence uint32        // vblank counters of the first and last completion
	FirstTime, LastTime         time.Duration // their timestamps
	MinInterval, MaxInterval    time.Duration // between consecutive completions
}

// MeanInterval is the mean time between consecutive flips, 0 before two
// completions.
func (s Stats) MeanInterval() time.Duration {
	if s.Completed < 2 {
		return 0
	}
	return (s.LastTime - s.FirstTime) / time.Duration(s.Completed-1)
}

// VblankPeriod is the display's measured refresh period: the time between
// the first and last completion over the vblanks counted in between
// (missed ones included), 0 before two completions.
func (s Stats) VblankPeriod() time.Duration {
	n := s.LastSequence - s.FirstSequence
	if s.Completed < 2 || n == 0 {
		return 0
	}
	return (s.LastTime - s.FirstTime) / time.Duration(n)
}

// Swapchain presents frames from a fixed set of buffers. It is used from
// one goroutine (the frame loop); the Display under it may be restored
// from another.
type Swapchain struct {
	d       *Display
	bufs    []*Buffer
	events  *drm.EventReader
	pollFds [1]unix.PollFd
	fenceFd [1]unix.PollFd
	waiter  *eventWaiter // the Display's; nil: poll(2)

	front, queued int // buffer indices, -1 for none
	next          int // where Acquire starts looking, for a fixed rotation
	flips         uint64

	// Timeout bounds each wait for a flip-complete event (default
	// DefaultFlipTimeout).
	Timeout time.Duration
	// OnFlip, if set, is called for every completed flip, in order, from
	// the goroutine that called Acquire, Present or Wait.
	OnFlip func(Flip)

	stats Stats
}

// NewSwapchain presents the given buffers (two for double buffering, or
// more) on d. The buffers must be the Display's own, of its size.
//
// When the Conn can be switched to non-blocking reads (drm.File can), it
// is, so that a read after poll never blocks.
func (d *Display) NewSwapchain(bufs ...*Buffer) (*Swapchain, error) {
	if len(bufs) < 2 {
		return nil, fmt.Errorf("present: a swapchain needs at least two buffers, got %d", len(bufs))
	}
	w, h := d.Size()
	for i, b := range bufs {
		if b == nil || b.FbID == 0 || b.Width != w || b.Height != h || !d.owns(b.FbID) {
			return nil, fmt.Errorf("present: buffer %d is not a %dx%d framebuffer of this display", i, w, h)
		}
		for _, o := range bufs[:i] {
			if o == b {
				return nil, fmt.Errorf("present: buffer %d is given twice", i)
			}
		}
		b.state = stateFree
	}
	if nb, ok := d.conn.(interface{ SetNonblock(bool) error }); ok {
		if err := nb.SetNonblock(true); err != nil {
			return nil, fmt.Errorf("present: making the display's event reads non-blocking: %w", err)
		}
	}
	// The atomic path checks its mode set before the first frame: a
	// test-only commit (kmscube's drm-atomic.c does the real one first).
	if err := d.testModeset(bufs[0].FbID); err != nil {
		return nil, err
	}
	s := &Swapchain{d: d, bufs: append([]*Buffer(nil), bufs...), events: drm.NewEventReader(d.conn),
		front: -1, queued: -1, Timeout: DefaultFlipTimeout, waiter: d.eventWaiter()}
	s.stats.Atomic = d.Atomic()
	return s, nil
}

// Buffers returns the swapchain's buffers in the order given.
func (s *Swapchain) Buffers() []*Buffer { return s.bufs }

// Stats returns the flips so far.
func (s *Swapchain) Stats() Stats { return s.stats }

// Acquire returns a buffer to draw the next frame into: one that is
// neither on screen nor waiting to be. When every such buffer is taken it
// waits for the pending flip to complete, which frees the buffer that was
// on screen. Buffers come in a fixed rotation.
func (s *Swapchain) Acquire() (*Buffer, error) {
	for {
		for k := range s.bufs {
			i := (s.next + k) % len(s.bufs)
			if b := s.bufs[i]; b.state == stateFree {
				b.state = stateAcquired
				s.next = (i + 1) % len(s.bufs)
				return b, nil
			}
		}
		if s.queued < 0 {
			return nil, errors.New("present: every buffer is acquired and none is on its way to the screen; Present one first")
		}
		if err := s.waitFlip(); err != nil {
			return nil, err
		}
	}
}

// Present shows b, a buffer from Acquire whose frame is complete: the
// caller has waited for its rendering (the render job's seqno) or copied
// the finished frame into it. The first Present sets the mode; later ones
// queue a page flip at the next vblank, after waiting for the previous
// flip to complete, so that the kernel never sees a second flip while one
// is pending. Present returns once the flip is queued, not shown; Acquire
// waits for that when it needs the buffer on screen back.
//
// If Present fails, b is free again and the next Acquire returns it. After the Display was restored it
// returns ErrRestored.
func (s *Swapchain) Present(b *Buffer) error {
	i := s.index(b)
	if i < 0 || b.state != stateAcquired {
		return errors.New("present: Present needs a buffer from this swapchain's Acquire")
	}
	if s.front < 0 {
		if err := s.d.setMode(b.FbID); err != nil {
			s.release(i)
			return fmt.Errorf("present: setting %s: %w", s.d, err)
		}
		s.front, b.state = i, stateFront
		s.stats.ModeSet = true
		return nil
	}
	if s.queued >= 0 {
		if err := s.waitFlip(); err != nil {
			s.release(i)
			return err
		}
	}
	s.flips++
	if err := s.d.flip(b.FbID, s.flips); err != nil {
		s.flips--
		s.release(i)
		if errors.Is(err, ErrRestored) {
			return err
		}
		return fmt.Errorf("present: %w", err)
	}
	s.queued, b.state = i, stateQueued
	s.stats.Flips++
	return nil
}

// Wait waits until no flip is pending, so that the last frame presented is
// on screen and counted in Stats.
func (s *Swapchain) Wait() error {
	for s.queued >= 0 {
		if err := s.waitFlip(); err != nil {
			return err
		}
	}
	return nil
}

// release makes acquired buffer i free again and the next one Acquire
// returns, so that a failed Present does not change the rotation.
func (s *Swapchain) release(i int) {
	s.bufs[i].state = stateFree
	s.next = i
}

// index returns b's index in the swapchain, or -1.
func (s *Swapchain) index(b *Buffer) int {
	for i, o := range s.bufs {
		if o == b {
			return i
		}
	}
	return -1
}

// waitFlip waits for the pending flip's completion event and moves the
// buffers on: the flipped one is on screen, the one it replaced is free.
// Vblank events (from DRM_IOCTL_WAIT_VBLANK) are skipped; a flip
// completion that is not ours is an error, since this file queues no
// other flips.
func (s *Swapchain) waitFlip() error {
	deadline := time.Now().Add(s.Timeout)
	for s.queued >= 0 {
		if !s.events.Buffered() {
			if err := s.poll(deadline); err != nil {
				return err
			}
		}
		ev, err := s.events.Next()
		if errors.Is(err, unix.EAGAIN) {
			if s.d.conn.Fd() < 0 {
				return fmt.Errorf("present: no flip-complete event for flip %d is pending, and the device has no descriptor to wait on", s.flips)
			}
			continue // a wake-up without an event: poll again
		}
		if err != nil {
			return fmt.Errorf("present: reading the display's events: %w", err)
		}
		if !ev.IsFlipComplete() {
			continue
		}
		if ev.UserData != s.flips {
			return fmt.Errorf("present: a flip-complete event for flip %d arrived while flip %d was pending; "+
				"something else flips pages on this file", ev.UserData, s.flips)
		}
		s.complete(&ev)
	}
	return nil
}

// poll waits until the device has an event to read or the deadline
// passes. A Conn without a descriptor is read at once instead (test fakes
// answer EAGAIN when they hold no event).
func (s *Swapchain) poll(deadline time.Time) error {
	fd := s.d.conn.Fd()
	if fd < 0 {
		return nil
	}
	if s.waiter != nil {
		revents, err := s.waiter.wait(deadline)
		if isTimeout(err) {
			return s.timedOut()
		}
		if err != nil {
			return fmt.Errorf("present: waiting for the display's events: %w", err)
		}
		return s.checkRevents(revents)
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return s.timedOut()
		}
		s.pollFds[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		ms := int((left + time.Millisecond - 1) / time.Millisecond)
		n, err := unix.Poll(s.pollFds[:], ms)
		if err == unix.EINTR {
			continue // a signal (the Go runtime sends some): wait again for the time left
		}
		if err != nil {
			return fmt.Errorf("present: waiting for the display's events: %w", err)
		}
		if n > 0 {
			return s.checkRevents(s.pollFds[0].Revents)
		}
	}
}

// timedOut is poll's error when no event came by the deadline.
func (s *Swapchain) timedOut() error {
	return fmt.Errorf("present: flip %d on %s did not complete within %v (no flip-complete event); "+
		"the display driver stopped reporting vblanks", s.flips, s.d, s.Timeout)
}

// checkRevents is poll's error for a descriptor that woke it with an
// error and nothing to read.
func (s *Swapchain) checkRevents(revents int16) error {
	if revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 && revents&unix.POLLIN == 0 {
		return fmt.Errorf("present: the display's descriptor reports an error (poll revents 0x%x)", revents)
	}
	return nil
}

// complete records a completed flip and moves the buffers on.
func (s *Swapchain) complete(ev *uapi.EventVblank) {
	f := Flip{N: ev.UserData, Buffer: s.queued, Sequence: ev.Sequence, Time: ev.Timestamp()}
	st := &s.stats
	if st.Completed == 0 {
		st.FirstSequence, st.FirstTime = f.Sequence, f.Time
	} else {
		if step := f.Sequence - st.LastSequence; step > 1 {
			f.Missed = step - 1
			st.Missed += uint64(f.Missed)
		}
		iv := f.Time - st.LastTime
		if st.Completed == 1 || iv < st.MinInterval {
			st.MinInterval = iv
		}
		if iv > st.MaxInterval {
			st.MaxInterval = iv
		}
	}
	st.Completed++
	st.LastSequence, st.LastTime = f.Sequence, f.Time
	if fd := s.d.takeOutFence(); fd >= 0 {
		st.OutFences++
		if !signalled(fd, &s.fenceFd) {
			st.OutFencesLate++
		}
		unix.Close(fd)
	}
	if s.front >= 0 {
		s.bufs[s.front].state = stateFree
	}
	s.front, s.queued = s.queued, -1
	s.bufs[s.front].state = stateFront
	if s.OnFlip != nil {
		s.OnFlip(f)
	}
}
