package shaders

import (
	"github.com/vccube/vccube/shaders/hazard"
	q "github.com/vccube/vccube/shaders/qpu"
)

// fragmentProgram writes the FS (single-threaded, 2 varyings, 1 texture
// sample):
//
//   - Interpolate s and t: varying·W then + C, W being ra15 and C arriving
//     in r5 with each varying read (AG §6 "Varyings Interpolation"; Mesa
//     vc4_program.c emit_fragment_varying; doc/hardware.md#varyings).
//   - Sample texture 0: write TMU0_T then TMU0_S (each write pops the next
//     uniform as config parameter P0, P1; T before S, no uniform read in
//     those instructions: Linux vc4_validate_shaders.c check_tmu_write),
//     then ldtmu0 brings the texel to r4 for the next instruction.
//   - Light it (see light.go): three v8muld/v8subs lines and two v8max,
//     on all four bytes at once, with five per-face uniforms.
//   - TLB_Z from rb15 (the interpolated Z; Mesa emit_frag_end) for the
//     depth test, then the colour to TLB_COLOUR_ALL; the first tile-buffer
//     access waits for the scoreboard implicitly (AG §5 "Scoreboard").
//   - Program end, two delay slots, scoreboard unlock in the last one, as
//     Mesa's vc4_qpu_emit.c ends fragment shaders.
//
// Registers: r0 = s, then the g1 line and the result; r1 = t (pre-C), then
// g3; r2 = K1, then the g2 line; r3 = B1.
func fragmentProgram() *Program {
	var a q.Asm
	a.I(q.FMul(q.R0, q.RA(15), q.Vary))                           // s·W ; r5 = C(s)
	a.I(q.FAdd(q.R0, q.R0, q.R5), q.FMul(q.R1, q.RA(15), q.Vary)) // s ; t·W ; r5 = C(t)
	a.I(q.FAdd(q.TMU0T, q.R1, q.R5))                              // t -> TMU0_T, pops P0
	a.I(q.Mov(q.TMU0S, q.R0))                                     // s -> TMU0_S, pops P1, submits
	a.I(q.Mov(q.R2, q.Unif), q.SigLoadTMU0)                       // K1 ; texel -> r4
	a.I(q.Mov(q.R3, q.Unif), q.V8Muld(q.R0, q.R4, q.R2))          // B1 ; c·K1
	a.I(q.V8Subs(q.R0, q.R0, q.R3), q.V8Muld(q.R1, q.R4, q.Unif)) // g1 = c·K1 − B1 ; c·K3
	a.I(q.V8Subs(q.R1, q.R1, q.Unif))                             // g3 = c·K3 − B3
	a.I(q.Mov(q.TLBZ, q.RB(15)), q.V8Muld(q.R2, q.R4, q.Unif))    // depth test ; g2 = c·L
	a.I(q.V8Max(q.R0, q.R0, q.R1))                                // max(g1, g3)
	a.I(q.V8Max(q.TLBColourAll, q.R0, q.R2))                      // colour = max(…, g2)
	a.I(q.SigProgramEnd)
	a.I()
	a.I(q.SigScoreboardUnlock)
	return &Program{
		Name:           "fragment shader",
		Stage:          hazard.Fragment,
		Code:           a.MustAssemble(),
		Uniforms:       fragmentUniforms(),
		TextureSamples: 1,
		Varyings:       2,
	}
}

// FillFragmentUniforms writes the FS uniform values, in slot order, into
// dst (it allocates nothing). p0 and p1 are the texture's config
// parameters as the kernel expects them (P0 holds the level-0 offset in
// the texture BO; the kernel adds the BO's address).
func FillFragmentUniforms(dst *[NumFragmentUniforms]uint32, p0, p1 uint32, light FaceLight) {
	dst[FragmentUniformTexP0] = p0
	dst[FragmentUniformTexP1] = p1
	l := light.Uniforms()
	copy(dst[FragmentUniformLightK1:], l[:])
}
