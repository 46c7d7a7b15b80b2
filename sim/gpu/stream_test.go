package gpu

import (
	"bytes"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/sim/gpu/internal/gputest"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/mem"
)

// copyJob is a 640×480 job of two passes over the frame in one render
// list: the first clears and draws two triangles over many tiles into
// frame A, the second loads each tile of A and stores it to frame B.
// Every tile of the second pass shares its tile with one of the first,
// so it must run after it: B is A only if it did.
type copyJob struct {
	*tjob
	b             gputest.Buf
	first, second []byte
}

func newCopyJob(t *testing.T) *copyJob {
	j := &copyJob{tjob: newTJob(t, 640, 480)}
	j.b = j.m.Alloc(t, j.stride*j.h, mem.Read|mem.Write, "frame B")
	j.tjob.rcl.ClearColor = clearColor
	j.beginBin(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncLess, ZUpdates: true})
	fs := j.program(fsConstZ())
	j.drawNV(fs, []uint32{0xFF0000FF}, cl.PrimitiveModeTriangles, j.nv(5, 7, 0.7), j.nv(630, 60, 0.2), j.nv(90, 470, 0.4))
	j.drawNV(fs, []uint32{0xFF00FF00}, cl.PrimitiveModeTriangles, j.nv(600, 450, 0.3), j.nv(20, 300, 0.6), j.nv(400, 3, 0.5))
	j.first = j.tjob.rcl.Append(nil)
	// The second pass takes the tiles in reverse order: its first tile
	// is the first pass's last, most likely still being rendered.
	b := cl.TileRenderingModeConfig{Width: uint16(j.w), Height: uint16(j.h), Address: j.b.Addr, Format: cl.RenderFormatRGBA8888}.Append(nil)
	for y := j.ty - 1; y >= 0; y-- {
		for x := j.tx - 1; x >= 0; x-- {
			b = cl.LoadTileBufferGeneral{Buffer: cl.LoadBufferColor, Address: j.color.Addr}.Append(b)
			b = cl.TileCoordinates{Column: uint8(x), Row: uint8(y)}.Append(b)
			if x == 0 && y == 0 {
				b = cl.StoreMSTileBufferAndEOF{}.Append(b)
			} else {
				b = cl.StoreMSTileBuffer{}.Append(b)
			}
		}
	}
	j.second = b
	return j
}

// run runs the job, with an opcode no list has between the passes when
// bad is set.
func (j *copyJob) run(g *GPU, bad bool) hw.Result {
	j.t.Helper()
	lists := j.m.Alloc(j.t, 1<<20, mem.Read, "control lists")
	bin := cl.Flush{}.Append(cl.IncrementSemaphore{}.Append(j.bin))
	bs := lists.Put(0, bin)
	r := append([]byte(nil), j.first...)
	if bad {
		r = append(r, 0xFF)
	}
	r = append(r, j.second...)
	rs := lists.Put(512<<10, r)
	j.counters = hw.Counters{}
	return g.Run(&hw.Job{Mem: j.m.View, BinStart: bs, BinEnd: bs + uint32(len(bin)), RenderStart: rs, RenderEnd: rs + uint32(len(r)), Counters: &j.counters})
}

// The workers render a chain while the pass over the render list reads
// on. A chain that shares a tile with an earlier one still runs after
// it, and the job gives the frames and counters of the general code
// (Options.Reference, which renders after the pass) and of one worker.
func TestChainsRenderWhileThePassReadsOn(t *testing.T) {
	var frames [3][2][]byte
	var counters [3]hw.Counters
	for i, o := range []Options{{Workers: 3}, {Workers: 1}, {Workers: 2, Reference: true}} {
		g := New(o)
		t.Cleanup(g.Close)
		j := newCopyJob(t)
		if r := j.run(g, false); r.Hung {
			t.Fatalf("%+v: job hung: %v", o, r.Reason)
		}
		frames[i] = [2][]byte{bytes.Clone(j.color.B[:j.stride*j.h]), bytes.Clone(j.b.B[:j.stride*j.h])}
		counters[i] = j.counters
		if !bytes.Equal(frames[i][0], frames[i][1]) {
			t.Errorf("%+v: frame B is not frame A: a tile of the second pass ran before the first pass stored it", o)
		}
		if j.pixel(320, 100) == clearColor || j.pixel(639, 479) != clearColor {
			t.Errorf("%+v: pixels %#x and %#x: the triangles are not drawn over the clear colour", o, j.pixel(320, 100), j.pixel(639, 479))
		}
	}
	for i := 1; i < len(frames); i++ {
		if !bytes.Equal(frames[0][0], frames[i][0]) || !bytes.Equal(frames[0][1], frames[i][1]) || counters[0] != counters[i] {
			t.Errorf("run %d renders other frames or counts than the run on three workers", i)
		}
	}
}

// A render list that fails after the workers have started on its chains
// ends the job with the pass's error, and no worker renders once the job
// is over: the next job on the same GPU renders.
func TestPassErrorEndsTheWorkersFirst(t *testing.T) {
	g := New(Options{Workers: 3})
	t.Cleanup(g.Close)
	j := newCopyJob(t)
	r := j.run(g, true)
	if !r.Hung {
		t.Fatal("the job did not hang on the bad opcode")
	}
	t.Log(r.Reason)
	// Frame A, read while a worker still wrote it, would be a data race.
	_ = bytes.Clone(j.color.B)
	k := newCopyJob(t)
	if r := k.run(g, false); r.Hung {
		t.Fatalf("the job after a hang: %v", r.Reason)
	}
	if !bytes.Equal(k.color.B[:k.stride*k.h], k.b.B[:k.stride*k.h]) {
		t.Error("the job after a hang: frame B is not frame A")
	}
}
