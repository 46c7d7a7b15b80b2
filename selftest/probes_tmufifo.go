package selftest

import (
	"github.com/vccube/vccube/cl"
	q "github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/texture"
)

// The TMU's request FIFO: probes for doc/hardware.md#open-questions item
// 16, the lookups of piglit's glsl-fs-convolution-2, which a Pi 3 fails
// and the model passes (doc/conformance.md#every-disagreement-left-with-its-cause).
// The FIFO holds eight request slots, one per S, T, R or B written
// (AG §4 "QPU Interface"); the lead left open is a request that takes the
// eighth slot and the first, counting from the thread's start. Each
// probe's shader makes its lookups one after the other, each read back
// (ldtmu0) before the next is made, and keeps the result of lookup k in
// the pixels of cell k: pixel columns 4k … 4k+3 (X_PIXEL_COORD >> 2).

// fifoLookups is the number of lookups a probe shader makes in a row: 16,
// one per 4-pixel-wide cell of a 64-pixel row.
const fifoLookups = 16

// fifoTexel is the texel of the 16×16 texture that 2D lookup k reads:
// distinct for every k.
func fifoTexel(k int) (x, y int) { return k, (5*k + 3) % 16 }

// fifoSelect starts a probe shader: r2 = the pixel's cell + 1, counted
// down by fifoNext before each lookup's result, so that Z is set for the
// lookup whose result the pixel keeps.
func fifoSelect(a *q.Asm) {
	a.I(q.Mov(q.R0, q.XCoord))
	a.I(q.Shr(q.R2, q.R0, q.SmallInt(2)))
	a.I(q.Add(q.R2, q.R2, q.SmallInt(1)))
}

func fifoNext(a *q.Asm) { a.I(q.Sub(q.R2, q.R2, q.SmallInt(1)).SetFlags()) }

// fifo2D makes 2D lookup k of TMU0 at its texel's centre, T then (if
// bias) B = 0.0 then S, each write taking the next uniform (P0, P1, then
// P2 for B: Mesa vc4_program.c ntq_emit_tex writes B with a uniform of
// its own), reads it back and keeps it in dst where Z is set.
func fifo2D(a *q.Asm, k int, bias bool, dst q.Reg) {
	x, y := fifoTexel(k)
	a.I(q.LoadImmFloat(q.R0, (float32(x)+0.5)/16))
	a.I(q.LoadImmFloat(q.R1, (float32(y)+0.5)/16))
	a.I(q.Mov(q.TMU0T, q.R1))
	if bias {
		a.I(q.Mov(q.TMU0B, q.SmallInt(0))) // 0.0
	}
	a.I(q.Mov(q.TMU0S, q.R0))
	fifoNext(a)
	a.I(q.SigLoadTMU0)
	a.I(q.Mov(dst, q.R4).If(q.CondZS))
}

// fsFIFOSlots makes fifoLookups 2D lookups, the first of three slots (T,
// B, S) when odd is set, so that lookup k ≥ 1 takes slots 2k+2 and 2k+3
// counted from 1: lookups 3, 7, 11 and 15 take the eighth slot of a round
// and the first of the next. Without odd every lookup takes 2k+1 and
// 2k+2, and none does.
func fsFIFOSlots(odd bool) *fragment {
	name := "2D lookups, slots paired"
	if odd {
		name = "2D lookups, the first with B: slots odd"
	}
	return mustFS(name, 0, false, func(a *q.Asm) {
		fifoSelect(a)
		for k := 0; k < fifoLookups; k++ {
			fifo2D(a, k, odd && k == 0, q.R3)
		}
		a.I(q.Mov(q.TLBColourAll, q.R3))
		fsEnd(a)
	})
}

var fsSlotsOdd, fsSlotsEven = fsFIFOSlots(true), fsFIFOSlots(false)

// fifoNearest samples one texel per lookup.
var fifoNearest = texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}

// 2D requests that take the FIFO's eighth slot and its first.
func tmuSlotsProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 32, format: cl.RenderFormatRGBA8888, clearColour: background}
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: []texture.Picture{noisePicture(16, 16, 4, 70)}, sampler: fifoNearest}}
		for row, fs := range []*fragment{fsSlotsOdd, fsSlotsEven} {
			var unis []uniform
			samples := make([]int, fifoLookups)
			for k := 0; k < fifoLookups; k++ {
				unis = append(unis, texUnis(0)...)
				if fs == fsSlotsOdd && k == 0 {
					unis = append(unis, val(0)) // P2 for the B write: no cube stride, no BSLOD
				}
			}
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles,
				verts: j.rect(0, 16*row, 64, 16*row+16, 0.5, nil), fs: fs, unis: unis, samples: samples})
		}
		return j
	}
	return &Probe{
		Name: "tmu-slots",
		Fact: "2D requests across the 8-slot TMU FIFO",
		Belief: "a request's place in the eight-slot request FIFO (AG §4 \"QPU Interface\") changes nothing: every 2D lookup returns its texel, " +
			"whether or not it takes the eighth slot and the first counted from the thread's start " +
			"(sim/gpu/tmu tmu.go Unit.Write; doc/hardware.md#open-questions item 16)",
		Answer: "16 NEAREST lookups of distinct texels of a 16×16 RGBA8888 texture, one after the other on TMU0, lookup k's texel in columns 4k…4k+3; " +
			"top rows: the first lookup also writes B (0.0), so lookups 3, 7, 11 and 15 take the eighth slot and the first; bottom rows: T and S only, none does. " +
			"Wrong texels in those four cells of the top rows alone say a request across the FIFO's end goes wrong",
		build: build,
	}
}
