package qpuexec

import (
	"unsafe"

	"github.com/vccube/vccube/shaders/qpu"
)

// A block's colour packs as one micro-operation. Mesa's fragment shaders
// pack each colour channel with its own mul pack into one register, the
// one they then write to the tile buffer: kmscube's smooth shader
//
//	nop ; mov r1.8a, r3
//	nop ; mov r1.8b, r0
//	nop ; mov r1.8c, ra0
//	nop ; mov r1.8d, 1.0
//
// and glmark2 pulsar's three into ra0. Each is an opCopyColour (a mov
// into the mul latch, then the latch's pack merged into d, fusePair).
// colourRuns makes a run of two to four of them one opColours, whose
// kernel (colourPacks) converts every source and merges the bytes into
// d in order, reading and writing d once. It leaves what the packs one
// by one leave: d with every pack merged in order, the mul latch holding
// the last pack's source and q.packed the last pack's words
// (colourWrite).
//
// Only what nothing can see changes: the intermediate values of d, the
// latch and q.packed. So a run is packs with nothing between them:
//   - no jump lands after its first micro-operation (a landing starts a
//     run of its own);
//   - every pack is unconditional (a conditional pack is a general
//     write, step_plan.go, and not an opCopyColour), and cannot fail;
//   - every pack writes the same register d;
//   - no pack but the first reads d: its pack would read the packs
//     before it merged in, which the kernel holds in a register (such a
//     pack starts a run of its own).
//
// A run whose register the next instruction writes to the tile buffer
// (mov tlb_colour_all, r1: opCopyTLBWrite of d) is one
// opColoursTLBWrite with that write: one dispatch fewer a block. The
// write keeps its failure (pc and fix), after the packs as before.

// colourStep is one pack of an opColours: its source and the pack's
// shift, bits and replication (colourPackWith's), and the pack itself.
// The assembly reads it at these offsets: src 0, shift 8, mask 12, rep
// 16.
type colourStep struct {
	src              *vec
	shift, mask, rep uint32
	pack             uint32
}

// colourSlack is the steps b.colours has room for past its last run:
// an opColours keeps its steps as a *vec (uop.a), and Go's checkptr
// (-race builds) requires the 64 bytes such a pointer covers to lie in
// one allocation, more than a run of two steps at the end fills.
const colourSlack = (int(unsafe.Sizeof(vec{})) + int(unsafe.Sizeof(colourStep{})) - 1) / int(unsafe.Sizeof(colourStep{}))

// maxColourRun is the longest run colourRuns fuses: a register has four
// bytes to pack.
const maxColourRun = 4

// newColourStep returns the step of pack p from src.
func newColourStep(p qpu.Pack, src *vec) colourStep {
	s := colourStep{src: src, mask: 0xFFFFFFFF, rep: 0xFFFFFFFF, pack: uint32(p)}
	if p != qpu.PackMul8888 {
		s.shift, s.mask, s.rep = uint32(8*(p-qpu.PackMul8A)), colourPackMask(p), 0
	}
	return s
}

// colourRunLen returns the length of the run of packs that can be one
// opColours starting at ops[i] (1 if none), landing marking the
// micro-operations a jump lands on.
func (q *QPU) colourRunLen(ops []uop, landing []bool, i int) int {
	if ops[i].op != opCopyColour {
		return 1
	}
	d := ops[i].d
	j := i + 1
	for j < len(ops) && j-i < maxColourRun && !landing[j] {
		v := &ops[j]
		if v.op != opCopyColour || v.d != d || v.a == d || v.fix != 0 {
			break
		}
		j++
	}
	return j - i
}

// colourRuns returns ops with each run of packs (see above) as one
// opColours, its steps in b.colours; jumps' indices are moved with them.
// b.colours is not appended to after ops point into it.
func (b *boundProg) colourRuns(q *QPU, ops []uop) []uop {
	landing := landings(ops)
	// Count the steps first: the runs' a point into b.colours.
	steps := 0
	for i := 0; i < len(ops); {
		n := q.colourRunLen(ops, landing, i)
		if n >= 2 {
			steps += n
		}
		i += n
	}
	if steps == 0 {
		return ops
	}
	if cap(b.colours) < steps+colourSlack {
		b.colours = make([]colourStep, 0, steps+colourSlack)
	}
	b.colours = b.colours[:0]
	at := make([]int32, len(ops)+1)
	out := ops[:0] // in place: out never passes i
	for i := 0; i < len(ops); {
		at[i] = int32(len(out))
		n := q.colourRunLen(ops, landing, i)
		if n < 2 {
			out = append(out, ops[i])
			i++
			continue
		}
		first := len(b.colours)
		u := ops[i]
		for k := i; k < i+n; k++ {
			at[k] = at[i]
			b.colours = append(b.colours, newColourStep(qpu.Pack(ops[k].n), ops[k].a))
		}
		// (u.pc is the first pack's: nothing in a run can fail.)
		u.op, u.a, u.n = opColours, (*vec)(unsafe.Pointer(&b.colours[first])), int32(n)
		i += n
		if i < len(ops) && ops[i].op == opCopyTLBWrite && ops[i].b == u.d && !landing[i] {
			v := &ops[i]
			// The register written to the tile buffer at once (mov
			// tlb_colour_all, r1): the write's fields, the steps in w.
			// The write is the one that can fail, with its pc and fix.
			at[i] = at[i-n]
			w := *v
			w.op, w.d, w.w, w.n = opColoursTLBWrite, u.d, u.a, u.n
			u = w
			i++
		}
		out = append(out, u)
	}
	return relink(out, at)
}

// colourSteps returns the steps of opColours or opColoursTLBWrite u.
func colourSteps(u *uop) []colourStep {
	p := u.a
	if u.op == opColoursTLBWrite {
		p = u.w
	}
	return unsafe.Slice((*colourStep)(unsafe.Pointer(p)), int(u.n))
}

// colourPacksGo is opColours one pack at a time, as the packs unfused
// make them (opCopyColour): the form where the CPU lacks AVX-512 and in
// builds without the assembly.
func colourPacksGo(d, packed, lat *vec, s *colourStep, n int) {
	for _, st := range unsafe.Slice(s, n) {
		copyVec(lat, st.src)
		colourPackVec(qpu.Pack(st.pack), d, packed, lat)
	}
}
