package gem_test

import (
	"testing"

	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
)

// The per-frame paths of package gem, against the fake Conn. Run with
// go test -bench . ./gem/.

func BenchmarkSubmitAndWait(b *testing.B) {
	c := drmtest.NewConn()
	drmtest.On(c, uapi.IoctlSubmitCL, func(a *uapi.SubmitCL) error { a.Seqno++; return nil })
	drmtest.On(c, uapi.IoctlWaitSeqno, func(a *uapi.WaitSeqno) error { return nil })
	s := &uapi.SubmitCL{BOHandleCount: 1}
	w := &uapi.WaitSeqno{TimeoutNs: gem.Timeout(-1)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := gem.Submit(c, s); err != nil {
			b.Fatal(err)
		}
		w.Seqno = s.Seqno
		if err := gem.WaitForSeqno(c, w); err != nil {
			b.Fatal(err)
		}
	}
}
