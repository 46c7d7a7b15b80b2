package drm_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// record lays out a struct drm_event_vblank as the kernel writes it
// (drm.h; offsets from testdata: type@0 length@4 user_data@8 tv_sec@16
// tv_usec@20 sequence@24 crtc_id@28), in the machine's byte order,
// without using the Go struct under test.
func record(typ uint32, user uint64, sec, usec, seq, crtc uint32) []byte {
	b := make([]byte, 32)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], typ)
	ne.PutUint32(b[4:], 32)
	ne.PutUint64(b[8:], user)
	ne.PutUint32(b[16:], sec)
	ne.PutUint32(b[20:], usec)
	ne.PutUint32(b[24:], seq)
	ne.PutUint32(b[28:], crtc)
	return b
}

// other lays out a record of another type with a payload of n bytes
// (e.g. a 32-byte DRM_EVENT_CRTC_SEQUENCE, or a driver event).
func other(typ uint32, n int) []byte {
	b := make([]byte, 8+n)
	for i := range b {
		b[i] = 0xEE
	}
	binary.NativeEndian.PutUint32(b[0:], typ)
	binary.NativeEndian.PutUint32(b[4:], uint32(8+n))
	return b
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestParseEventsSeveralInOneRead(t *testing.T) {
	buf := cat(
		record(uapi.EventTypeFlipComplete, 0x1122334455667788, 100, 999999, 7, 41),
		other(uapi.EventTypeCrtcSequence, 24), // not asked for here: skipped by length
		other(0x80000001, 4),                  // a driver-specific event of odd size
		record(uapi.EventTypeVblank, 5, 101, 16666, 8, 0),
	)
	evs, err := drm.ParseEvents(buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("got %d events, want 2: %+v", len(evs), evs)
	}
	e := evs[0]
	if !e.IsFlipComplete() || e.UserData != 0x1122334455667788 || e.TvSec != 100 || e.TvUsec != 999999 ||
		e.Sequence != 7 || e.CrtcID != 41 || e.Base.Length != 32 {
		t.Errorf("first event = %+v", e)
	}
	if got, want := e.Timestamp(), 100*time.Second+999999*time.Microsecond; got != want {
		t.Errorf("Timestamp = %v, want %v", got, want)
	}
	if e := evs[1]; e.IsFlipComplete() || e.Base.Type != uapi.EventTypeVblank || e.UserData != 5 || e.Sequence != 8 {
		t.Errorf("second event = %+v", e)
	}
}

func TestParseEventsMalformed(t *testing.T) {
	good := record(uapi.EventTypeFlipComplete, 1, 2, 3, 4, 5)
	zeroLen := make([]byte, 8)
	binary.NativeEndian.PutUint32(zeroLen, uapi.EventTypeVblank)
	shortVblank := other(uapi.EventTypeFlipComplete, 8) // 16 bytes claiming to be a flip event
	for _, tc := range []struct {
		name   string
		buf    []byte
		events int // events before the bad record
		offset int
	}{
		{"header cut", cat(good, good[:5]), 1, 32},
		{"record cut", cat(good, good[:31]), 1, 32},
		{"length 0 (would loop forever)", cat(good, zeroLen), 1, 32},
		{"vblank record too short", cat(shortVblank, good), 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := drm.ParseEvents(tc.buf, nil)
			var ee *drm.EventError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want *EventError", err)
			}
			if len(evs) != tc.events || ee.Offset != tc.offset {
				t.Errorf("%d events, error at %d (%v); want %d, at %d", len(evs), ee.Offset, err, tc.events, tc.offset)
			}
		})
	}
}

func TestEventReader(t *testing.T) {
	c := drmtest.NewConn()
	c.QueueRead(cat(record(uapi.EventTypeFlipComplete, 1, 0, 0, 1, 9), other(uapi.EventTypeCrtcSequence, 24),
		record(uapi.EventTypeFlipComplete, 2, 0, 0, 2, 9)))
	c.QueueRead(record(uapi.EventTypeFlipComplete, 3, 0, 0, 3, 9)[:20]) // a broken read
	c.QueueRead(record(uapi.EventTypeVblank, 4, 0, 0, 4, 9))
	r := drm.NewEventReader(c)
	for want := uint64(1); want <= 2; want++ {
		ev, err := r.Next()
		if err != nil || ev.UserData != want {
			t.Fatalf("Next = %+v, %v; want user data %d", ev, err, want)
		}
	}
	if r.Buffered() {
		t.Error("Buffered after the last event of the read")
	}
	var ee *drm.EventError
	if _, err := r.Next(); !errors.As(err, &ee) {
		t.Fatalf("broken read: err = %v, want *EventError", err)
	}
	if ev, err := r.Next(); err != nil || ev.UserData != 4 {
		t.Fatalf("after a broken read: %+v, %v", ev, err)
	}
	if _, err := r.Next(); !errors.Is(err, unix.EAGAIN) {
		t.Fatalf("no event pending: err = %v, want EAGAIN", err)
	}
}

func TestEventReaderDoesNotAllocate(t *testing.T) {
	c := drmtest.NewConn()
	r := drm.NewEventReader(c)
	read := cat(record(uapi.EventTypeFlipComplete, 1, 0, 0, 1, 9), record(uapi.EventTypeFlipComplete, 2, 0, 0, 2, 9))
	allocs := testing.AllocsPerRun(100, func() {
		c.QueueRead(read) // reslices its queue; no allocation once it has grown
		for i := 0; i < 2; i++ {
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("EventReader.Next allocates %.1f times per read", allocs)
	}
}

// FuzzParseEvents feeds arbitrary reads to the parser: it must return
// events or an error, never panic, and never report a record past the
// read.
func FuzzParseEvents(f *testing.F) {
	f.Add(cat(record(uapi.EventTypeFlipComplete, 1, 2, 3, 4, 5), other(3, 24)))
	f.Add(record(uapi.EventTypeVblank, 1, 2, 3, 4, 5)[:17])
	f.Add(other(uapi.EventTypeFlipComplete, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := drm.ParseEvents(b, nil)
		if len(evs)*32 > len(b) {
			t.Fatalf("%d events from %d bytes", len(evs), len(b))
		}
		var ee *drm.EventError
		if err != nil && (!errors.As(err, &ee) || ee.Offset > len(b)) {
			t.Fatalf("err = %v", err)
		}
	})
}
