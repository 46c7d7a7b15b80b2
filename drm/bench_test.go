package drm_test

import (
	"testing"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
)

// The per-frame paths of package drm, against the fake Conn: what they
// cost above the ioctl itself. Run with go test -bench . ./drm/.

func BenchmarkPageFlip(b *testing.B) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlModePageFlip, func(a *uapi.ModeCrtcPageFlip) error { return nil })
	arg := &uapi.ModeCrtcPageFlip{CrtcID: 31, FbID: 71, Flags: uapi.PageFlipEvent}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		arg.UserData = uint64(i)
		if err := drm.PageFlip(c, arg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEventReaderNext(b *testing.B) {
	c := drmtest.NewConn()
	r := drm.NewEventReader(c)
	read := record(uapi.EventTypeFlipComplete, 1, 2, 3, 4, 5)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.QueueRead(read)
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
