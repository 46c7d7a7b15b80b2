package gpu

import (
	"errors"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/gpu/internal/modelbug"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// fuzzJob runs arbitrary control-list bytes after a valid prefix: the
// model must end every job (done or hung), never panic, whatever the
// bytes say.
func fuzzJob(t *testing.T, g *GPU, bin, render []byte) {
	j := newTJob(t, 128, 64)
	lists := j.m.Alloc(t, 64<<10, mem.Read, "lists")
	var prefix []byte
	if bin != nil {
		j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncLess, ZUpdates: true})
		fs := j.program(fsTexture())
		j.drawNV(fs, []uint32{j.data.Addr &^ 0xFFF, 0x10010095}, cl.PrimitiveModeTriangles, j.quad(0.5, [4]float32{0, 1, 0, 1}, [4]float32{0, 0, 1, 1})...)
		prefix = append(j.bin, bin...)
	}
	var job hw.Job
	job.Mem = j.m.View
	if prefix != nil {
		job.BinStart = lists.Put(0, prefix)
		job.BinEnd = job.BinStart + uint32(len(prefix))
	}
	r := j.rcl.Append(nil)
	r = append(r, render...)
	job.RenderStart = lists.Put(32<<10, r)
	job.RenderEnd = job.RenderStart + uint32(len(r))
	// Run recovers a panic into the job's hang reason, as it must for a
	// device; here it is a failure.
	if res := g.Run(&job); errors.As(res.Reason, new(*modelbug.Error)) {
		t.Fatal(res.Reason)
	}
}

func FuzzControlLists(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add(cl.Flush{}.Append(nil), []byte{})
	f.Add(cl.GLArrayPrimitive{Mode: cl.PrimitiveModeTriangleStrip, Length: 5}.Append(nil), cl.Halt{}.Append(nil))
	f.Add([]byte{0x20, 0x14, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0}, []byte{0x73, 1, 0, 0x18})
	f.Add([]byte{0x31, 0xff, 0xff, 0xff, 0xff}, []byte{0x30, 0x81, 1, 0, 2, 0, 3, 0, 0x80})
	g := New(Options{Workers: 2, Limits: limitsForFuzz})
	f.Cleanup(g.Close)
	f.Fuzz(func(t *testing.T, bin, render []byte) {
		fuzzJob(t, g, bin, render)
	})
}

var limitsForFuzz = gputest.FuzzLimits
