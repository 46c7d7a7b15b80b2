package drm

import (
	"fmt"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// Events arrive as struct drm_event records read(2) from the DRM fd. The
// kernel only ever returns whole records, several per read when the
// buffer has room (drm_file.c: drm_read), each starting with its type and
// total length, so a reader skips records it does not know by length.

// sizeofEvent and sizeofEventVblank are the record sizes the parser needs,
// taken from the structs that describe the records.
const (
	sizeofEvent       = int(unsafe.Sizeof(uapi.Event{}))
	sizeofEventVblank = int(unsafe.Sizeof(uapi.EventVblank{}))
)

// EventError is a malformed event record: a read that ended inside a
// record, or a record whose length cannot be right.
type EventError struct {
	Offset int    // where the record starts in the read
	Type   uint32 // the record's type, when its header was complete
	Length uint32 // the record's length, when its header was complete
	Have   int    // bytes available from Offset
	Reason string
}

// Error says where the malformed record is and what is wrong with it.
func (e *EventError) Error() string {
	return fmt.Sprintf("malformed DRM event at byte %d (type %d, length %d, %d bytes read): %s",
		e.Offset, e.Type, e.Length, e.Have, e.Reason)
}

// ParseEvent decodes the record at the start of b and returns its length
// n, so that b[n:] starts the next record. For EventTypeVblank and
// EventTypeFlipComplete ev is the whole record; for other types only
// ev.Base is set. A record that does not fit in b, claims a length below
// its header, or is a vblank record shorter than struct drm_event_vblank
// is an *EventError; nothing is read outside b.
func ParseEvent(b []byte) (ev uapi.EventVblank, n int, err error) {
	if len(b) < sizeofEvent {
		return ev, 0, &EventError{Have: len(b), Reason: "the read ended inside an event header"}
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&ev)), sizeofEventVblank)
	copy(raw[:sizeofEvent], b)
	length := int(ev.Base.Length)
	switch {
	case length < sizeofEvent:
		return uapi.EventVblank{}, 0, &EventError{Type: ev.Base.Type, Length: ev.Base.Length, Have: len(b),
			Reason: fmt.Sprintf("length below the %d-byte header", sizeofEvent)}
	case length > len(b):
		return uapi.EventVblank{}, 0, &EventError{Type: ev.Base.Type, Length: ev.Base.Length, Have: len(b),
			Reason: "the read ended inside the event (the kernel returns whole events only)"}
	}
	if ev.Base.Type == uapi.EventTypeVblank || ev.Base.Type == uapi.EventTypeFlipComplete {
		if length < sizeofEventVblank {
			return uapi.EventVblank{}, 0, &EventError{Type: ev.Base.Type, Length: ev.Base.Length, Have: len(b),
				Reason: fmt.Sprintf("a vblank event is %d bytes", sizeofEventVblank)}
		}
		copy(raw, b[:sizeofEventVblank])
	}
	return ev, length, nil
}

// ParseEvents appends to dst the vblank and flip-complete events of one
// read, in order, skipping records of other types by their length. On a
// malformed record it returns the events before it and the error (with
// Offset set).
func ParseEvents(b []byte, dst []uapi.EventVblank) ([]uapi.EventVblank, error) {
	for off := 0; off < len(b); {
		ev, n, err := ParseEvent(b[off:])
		if err != nil {
			err.(*EventError).Offset = off
			return dst, err
		}
		if ev.Base.Type == uapi.EventTypeVblank || ev.Base.Type == uapi.EventTypeFlipComplete {
			dst = append(dst, ev)
		}
		off += n
	}
	return dst, nil
}

// eventBufferSize is the EventReader's read size: 128 vblank records.
// The kernel returns only whole events that fit, and never more than are
// pending, so any size above one record works.
const eventBufferSize = 4096

// EventReader reads vblank and flip-complete events from a Conn through a
// buffer it owns, so reading does not allocate per event or per read.
type EventReader struct {
	c      uapi.Conn
	n, off int
	buf    [eventBufferSize]byte
}

// NewEventReader returns a reader of c's events.
func NewEventReader(c uapi.Conn) *EventReader { return &EventReader{c: c} }

// Buffered reports whether records read earlier remain to be returned; an
// event loop calls Next until it is false before polling the Conn's Fd.
func (r *EventReader) Buffered() bool { return r.off < r.n }

// Next returns the next vblank or flip-complete event. When the buffer is
// spent it reads the Conn once, which blocks until an event is pending,
// or with a non-blocking Conn returns the Conn's error (unix.EAGAIN) at
// once. Records of other types are skipped. A malformed read returns an
// *EventError and is dropped whole, so the next call reads afresh.
func (r *EventReader) Next() (uapi.EventVblank, error) {
	for {
		if r.off >= r.n {
			n, err := r.c.Read(r.buf[:])
			if err != nil {
				r.off, r.n = 0, 0
				return uapi.EventVblank{}, err
			}
			if n <= 0 || n > len(r.buf) {
				r.off, r.n = 0, 0
				return uapi.EventVblank{}, &EventError{Have: n, Reason: "the read returned no event"}
			}
			r.off, r.n = 0, n
		}
		ev, size, err := ParseEvent(r.buf[r.off:r.n])
		if err != nil {
			err.(*EventError).Offset = r.off
			r.off, r.n = 0, 0
			return uapi.EventVblank{}, err
		}
		r.off += size
		if ev.Base.Type == uapi.EventTypeVblank || ev.Base.Type == uapi.EventTypeFlipComplete {
			return ev, nil
		}
	}
}
