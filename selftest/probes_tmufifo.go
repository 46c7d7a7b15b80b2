package selftest

import (
	"fmt"

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
// probe's shader makes its lookups one after the other, each 2D lookup
// read back (ldtmu0) before the next request (a shader's direct lookups
// of one iteration are read back together), and keeps the results of
// iteration k in the pixels of cell k: pixel columns 4k … 4k+3
// (X_PIXEL_COORD >> 2).

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
// its own), reads it back and keeps it in dst where Z is set (counting
// the cell down first if next).
func fifo2D(a *q.Asm, k int, bias, next bool, dst q.Reg) {
	x, y := fifoTexel(k)
	a.I(q.LoadImmFloat(q.R0, (float32(x)+0.5)/16))
	a.I(q.LoadImmFloat(q.R1, (float32(y)+0.5)/16))
	a.I(q.Mov(q.TMU0T, q.R1))
	if bias {
		a.I(q.Mov(q.TMU0B, q.SmallInt(0))) // 0.0
	}
	a.I(q.Mov(q.TMU0S, q.R0))
	if next {
		fifoNext(a)
	}
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
			fifo2D(a, k, odd && k == 0, true, q.R3)
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

// fifoUBO is the tmu-mixed probe's uniform buffer of 48 distinct words:
// the shader of one direct lookup an iteration reads word k in iteration
// k, that of three reads words 3k, 3k+1 and 3k+2.
var fifoUBO = func() []uint32 {
	w := make([]uint32, 3*fifoLookups)
	for k := range w {
		w[k] = uint32(0xFF000000) | uint32(k)<<16 | uint32(0x5A00+37*k)
	}
	return w
}()

// fifoMixedWord is what the pixels of iteration k show for its direct
// lookups in a shader of n a iteration: the word, or the XOR of the
// words.
func fifoMixedWord(n, k int) uint32 {
	var w uint32
	for d := 0; d < n; d++ {
		w ^= fifoUBO[n*k+d]
	}
	return w
}

// fsFIFOMixed makes fifoLookups iterations, unrolled, of n direct
// lookups of UBO words nk … nk+n−1 and then 2D lookup k, all on TMU0.
// The direct lookups are the kernel's clamped form (Linux
// vc4_validate_shaders.c check_tmu_write, track_live_clamps; Mesa
// vc4_program.c indirect_uniform_load writes the same): max(offset, 0),
// min that with a uniform (the clamp), add a uniform (the UBO's address,
// which the kernel relocates) into S alone. They are all made before
// their results are read back (ldtmu0) and XORed, and the 2D lookup is
// made after that and read back at once: with n = 3 the order of
// glsl-fs-convolution-2's loop (doc/conformance.md, The program).
// Iteration k takes slots (n+2)k+1 … (n+2)k+n+2 counted from 1, so the
// 2D requests of iterations 2 and 10 (n = 1) or 4 and 12 (n = 3, as
// convolution-2's 4, 12, 20, 28) take the eighth slot and the first of
// the next round. The pixels of cell k keep iteration k's direct word (or
// XOR) in r3 and its texel in rb3; rows 16m … 16m+15 show the word for
// even m, the texel for odd m.
func fsFIFOMixed(n int) *fragment {
	name := "a direct then a 2D lookup, one TMU"
	if n > 1 {
		name = fmt.Sprintf("%d direct then a 2D lookup, one TMU", n)
	}
	return mustFS(name, 0, false, func(a *q.Asm) {
		fifoSelect(a)
		for k := 0; k < fifoLookups; k++ {
			for d := 0; d < n; d++ {
				a.I(q.LoadImm(q.R0, uint32(4*(n*k+d))))
				a.I(q.Max(q.R0, q.R0, q.SmallInt(0)))
				a.I(q.Min(q.R0, q.R0, q.Unif))
				a.I(q.Add(q.TMU0S, q.R0, q.Unif))
			}
			fifoNext(a)
			a.I(q.SigLoadTMU0)
			a.I(q.Mov(q.R1, q.R4))
			for d := 1; d < n; d++ {
				a.I(q.SigLoadTMU0)
				a.I(q.Xor(q.R1, q.R1, q.R4))
			}
			a.I(q.Mov(q.R3, q.R1).If(q.CondZS))
			fifo2D(a, k, false, false, q.RB(3))
		}
		a.I(q.Mov(q.R0, q.YCoord))
		a.I(q.Shr(q.R0, q.R0, q.SmallInt(4)))
		a.I(q.And(q.R0, q.R0, q.SmallInt(1)).SetFlags())
		a.I(q.Mov(q.R3, q.RB(3)).If(q.CondZC))
		a.I(q.Mov(q.TLBColourAll, q.R3))
		fsEnd(a)
	})
}

// fifoMixedDirects are the tmu-mixed probe's shaders' direct lookups an
// iteration: rows 0–31 and 32–63.
var fifoMixedDirects = []int{1, 3}

var fsFIFOMixed1, fsFIFOMixed3 = fsFIFOMixed(1), fsFIFOMixed(3)

// Direct and 2D lookups on one TMU, as glsl-fs-convolution-2 makes them.
func tmuMixedProbe() *Probe {
	build := func() *job {
		j := &job{width: 64, height: 64, format: cl.RenderFormatRGBA8888, clearColour: background, ubo: fifoUBO}
		j.textures = []texSpec{{typ: texture.RGBA8888, pics: []texture.Picture{noisePicture(16, 16, 4, 71)}, sampler: fifoNearest}}
		for i, fs := range []*fragment{fsFIFOMixed1, fsFIFOMixed3} {
			var unis []uniform
			var samples []int
			for k := 0; k < fifoLookups; k++ {
				for d := 0; d < fifoMixedDirects[i]; d++ {
					// The clamp (the last word's offset: the kernel
					// wants offset + clamp + 4 within the BO) and the
					// UBO's offset.
					unis = append(unis, val(uint32(4*(len(fifoUBO)-1))), val(0))
					samples = append(samples, uboSample)
				}
				unis = append(unis, texUnis(0)...)
				samples = append(samples, 0)
			}
			j.draws = append(j.draws, draw{config: bothFaces, mode: cl.PrimitiveModeTriangles,
				verts: j.rect(0, 32*i, 64, 32*i+32, 0.5, nil), fs: fs, unis: unis, samples: samples})
		}
		return j
	}
	return &Probe{
		Name: "tmu-mixed",
		Fact: "direct then 2D lookups on one TMU",
		Belief: "direct (general-memory: S alone, no uniform, AG §4 \"Texture and Memory Lookup Unit Setup\") and 2D lookups mix freely on one TMU: each returns what it would alone, " +
			"whatever slots of the request FIFO it takes (sim/gpu/tmu tmu.go Unit.Write; doc/hardware.md#open-questions item 16)",
		Answer: "16 iterations (unrolled) of clamped direct lookups of a 48-word uniform buffer, then a NEAREST lookup of a distinct texel of a 16×16 RGBA8888 texture, all on TMU0, " +
			"iteration k in columns 4k…4k+3. Rows 0–31: one direct lookup an iteration, its word in rows 0–15 and the texel in 16–31 (iterations 2 and 10: the 2D request takes the eighth slot and the first, counted from the thread's start); " +
			"rows 32–63: three, all made before they are read, as glsl-fs-convolution-2's loop, their XOR in rows 32–47 and the texel in 48–63 (iterations 4 and 12 cross). " +
			"A wrong cell names the lookup and the iteration",
		build: build,
	}
}
