package qpuexec

import "unsafe"

// A varying's read with the instruction's fadd and fmul as one
// micro-operation. Every fragment shader interpolates a varying as the
// hardware requires: the VARYING read gives VP, which an fmul multiplies
// by W (ra15), and C, which arrives in r5 and an fadd adds to the
// product (VideoCore IV 3D Architecture Reference Guide, section 6
// "Varyings Interpolation"; Mesa's vc4_program.c emit_fragment_varying
// emits the fmul and the fadd, doc/hardware.md#varyings). Mesa's
// scheduler and the cube's shader put the fadd of one varying and the
// fmul of the next in one instruction, with the next one's read:
//
//	nop ; fmul r0, vary, ra15
//	fadd ra0, r0, r5 ; fmul r1, vary, ra15
//	fadd r0, r1, r5 ; fmul r2, vary, ra15
//	fadd r3, r2, r5 ; nop
//
// (kmscube smooth's fragment shader). Each middle instruction binds to
// four micro-operations: opVarying (the read into its port), the fadd's
// kernel (it reads r5, the C of the varying before), the fmul's kernel,
// and opR5 (the new C into r5). varyingPairs makes them one
// opVaryingFAddFMul: one dispatch, the read, one kernel call for both
// (varyAddMul) and r5.
//
// The separate micro-operations keep the instruction's own order: the
// read, the fadd into its destination (and w), the fmul reading its
// operands after that write and writing its destination (and w), then
// r5. The fused kernel keeps it too: it stores the sum before it loads
// the product's operands, so a destination that is an operand of the
// fmul reads as before. Nothing moves across an instruction: the four
// are one instruction's, and only the read can fail, first, with the
// read's fix (the kernels' latches are directWrites' business, done
// before). So a jump can land only on the read (no landing may fall on
// the other three), and the kernels are the unconditional ones that
// set no flags (a condition or flags puts opCond or opFlags between
// the fmul and opR5).
//
// Where the CPU lacks AVX-512, or the AVX2 forms are chosen, in the Go
// build, and where a Batch takes the program for its float kernels
// (paysBatch), the four stay apart.

// varyStep is an opVaryingFAddFMul's two kernels: the fadd's d, a, b and
// w (w nil where the result goes to d alone), then the fmul's, then the
// kernels the micro-operations had, which the fused form calls for the
// elements varyAddMulAVX512 leaves to them. The assembly reads the eight
// vectors at offsets 0 to 56.
type varyStep struct {
	dA, aA, bA, wA *vec
	dM, aM, bM, wM *vec
	kA, kM         kernel
}

// varyingPair reports whether ops[i:i+4] is one instruction's varying
// read, fadd, fmul and r5 (see above) that can be one
// opVaryingFAddFMul, landing marking the micro-operations a jump lands
// on.
func varyingPair(ops []uop, landing []bool, i int) bool {
	if i+3 >= len(ops) || ops[i].op != opVarying {
		return false
	}
	r, a, m, c := &ops[i], &ops[i+1], &ops[i+2], &ops[i+3]
	for _, v := range [3]*uop{a, m, c} {
		if v.pc != r.pc || landing[i+1] || landing[i+2] || landing[i+3] {
			return false
		}
	}
	return a.op == opKernel && a.n == wideFAdd && a.fix == 0 &&
		m.op == opKernel && m.n == wideFMul && m.fix == 0 &&
		c.op == opR5
}

// varyingPairs returns ops with each varying read, fadd, fmul and r5 of
// one instruction (see above) as one opVaryingFAddFMul, its kernels'
// operands in a varyStep its a points to; jumps' indices are moved with
// them. It runs after directWrites and before fuse (which would fuse the
// read with the fadd alone, opVaryingKernel).
//
// The steps are an array of their own, which the micro-operations keep
// alive, not a field of boundProg (binding allocates in any case:
// fuse's tables). That was first done for a 30 % slowdown of glmark2
// terrain with a longer QPU, which did not reproduce; the QPU's layout
// is now held by TestQPULayout and TestBatchLayout (doc/performance.md,
// "The QPU's vectors on cache lines").
func varyingPairs(ops []uop) []uop {
	landing := landings(ops)
	n := 0
	for i := range ops {
		if varyingPair(ops, landing, i) {
			n++
		}
	}
	if n == 0 {
		return ops
	}
	varys := make([]varyStep, 0, n)
	at := make([]int32, len(ops)+1)
	out := ops[:0] // in place: out never passes i
	for i := 0; i < len(ops); {
		at[i] = int32(len(out))
		if !varyingPair(ops, landing, i) {
			out = append(out, ops[i])
			i++
			continue
		}
		a, m := &ops[i+1], &ops[i+2]
		varys = append(varys, varyStep{
			dA: a.d, aA: a.a, bA: a.b, wA: a.w, kA: a.k,
			dM: m.d, aM: m.a, bM: m.b, wM: m.w, kM: m.k,
		})
		u := ops[i] // the read: its d (the port), pc and fix
		u.op, u.a = opVaryingFAddFMul, (*vec)(unsafe.Pointer(&varys[len(varys)-1]))
		for k := i + 1; k < i+4; k++ {
			at[k] = at[i]
		}
		out = append(out, u)
		i += 4
	}
	return relink(out, at)
}

// varyStepOf returns the kernels of opVaryingFAddFMul u.
func varyStepOf(u *uop) *varyStep { return (*varyStep)(unsafe.Pointer(u.a)) }

// runVaryStep runs s's fadd, then its fmul, as their micro-operations
// do: varyAddMul, and the kernels themselves for what it leaves
// (varyLeft). runBound has it inline.
func runVaryStep(s *varyStep) {
	if left := varyAddMul(s); left != 0 {
		varyLeft(s, left)
	}
}

// varyLeft runs the kernels of s that varyAddMul left (left 1: both; 2:
// the fmul).
func varyLeft(s *varyStep, left uint32) {
	if left == 1 {
		s.kA(s.dA, s.aA, s.bA)
		if s.wA != nil {
			copyVec(s.wA, s.dA)
		}
	}
	s.kM(s.dM, s.aM, s.bM)
	if s.wM != nil {
		copyVec(s.wM, s.dM)
	}
}
