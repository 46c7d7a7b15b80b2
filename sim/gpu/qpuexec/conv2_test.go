package qpuexec

import "testing"

// conv2Program is the fragment shader Mesa's vc4 compiles for piglit's
// glsl-fs-convolution-2 (the same 76 instructions from Mesa 22.3.0, the
// Pi 3 record's release, 22.3.6 and Mesa main of 2021-03-18,
// e3f703e4646, on which the first Pi 3 list that ran the test, with
// it as Fail, was committed; VC4_DEBUG=qpu), the one test that
// passes on the model and fails on a Pi 3 without a known cause
// (doc/conformance.md#every-disagreement-left-with-its-cause). It is
// single-threaded. A loop of 34 iterations (branch back at 63 to 9):
// the stream is reset at the loop head (12: to uniform 1, the bound 34,
// read at 15) and after the break test (36: to uniform 3); three direct
// lookups (40, 42, 45) of c[i], o[i].x and o[i].y, each a clamped 16·i
// added to a uniform; three ldtmu0 (48–50); a 2D lookup (52 T, 53 S)
// popping P0 and P1, uniforms 9 and 10; its ldtmu0 (56); the sums of
// c[i]·texel. The exit block resets the stream (71) two instructions
// before the program end (73).
var conv2Program = []uint64{
	0x100049e0203e303e, 0x10024121213e317e, 0xd0020067159c0fc0, 0xd00200a7159c0fc0,
	0xd00210a7159c0fc0, 0xd00200e7159c0fc0, 0xd00210e7159c0fc0, 0xd0021027159c0fc0,
	0x10021067019e7340, 0xd00229e70d041dc0, 0xe002486700000004, 0xd0040067159c0fc0,
	0x10020a270c827380, 0xd0020827159c0fc0, 0x100009e7009e7000, 0x100229e70d800f80,
	0xd00a0827159dffc0, 0x100229e715067c00, 0xd0040067159c4fc0, 0x100009e7009e7000,
	0x100229e715067d80, 0xf01809e700000040, 0x100009e7009e7000, 0x100009e7009e7000,
	0x100009e7009e7000, 0x100229e715067d80, 0xd0040067159c2fc0, 0x100009e7009e7000,
	0xd00229e70d042dc0, 0xf00809e700000110, 0x100009e7009e7000, 0x100009e7009e7000,
	0x100009e7009e7000, 0x100203a7159c0fc0, 0xe00248a70000000c, 0xd002002711384dc0,
	0x10020a270c827580, 0xd00208a713000dc0, 0xd002082713000dc0, 0x100258ce928005bf,
	0x10021e270c827780, 0x1002086712827180, 0x10021e270c827380, 0xd00208a713000dc0,
	0x100208e712827580, 0x10021e270c827780, 0xd00229e70d044dc0, 0xd0040067159c0fc0,
	0xa00009e7009e7000, 0xa00208a7159e7900, 0xa002086701127d00, 0x10020827019c1f00,
	0x10021e67159e7000, 0x10021e27159e7240, 0x100229e715067d80, 0xd00410270c381dc0,
	0xa00009e7009e7000, 0x190049e3209e7014, 0x1b0440a0210a7cd4, 0x1d0450a1219c2e14,
	0x1f0440e2210e7c54, 0x100410e7019c3e80, 0xd00629e70d041dc0, 0xf02809e7fffffe30,
	0x100009e7009e7000, 0x100009e7009e7000, 0x100009e7009e7000, 0x114049e2800a7036,
	0x115049e2809c203f, 0x116049e2800e7036, 0xe00248e700000030, 0x11724a228c8037bf,
	0x10020ba7159e7480, 0x300009e7009e7000, 0x100009e7009e7000, 0x500009e7009e7000,
}

// TestConvolution2ProgramAsDocumented runs conv2Program on the QPU as
// the documents describe the hardware (doc/hardware.md#qpu,
// doc/hardware.md#tmu): the uniforms each iteration reads, the 136
// lookups it makes and their order, and the colour it writes, with
// piglit's values (c[20] = 1 and o[20] = (0, 0); every other c[i] = 0
// and o[i] = (−1, 1)). A Pi 3 fails the test with this program, so one
// of these steps differs on the hardware; the test pins what the model
// does, which a rule found for it would change. Among the 12,184 piglit
// tests of the record and dEQP-GLES2's uniform, indexing, loop, struct,
// random and texture-unit groups, this is the only program that mixes
// direct and 2D lookups on one TMU (doc/conformance.md).
func TestConvolution2ProgramAsDocumented(t *testing.T) {
	for _, ref := range []bool{false, true} {
		r := newRig(t)
		r.q.Reference = ref
		const (
			ubo    = 0xC0100000 // the UBO's address: the fake TMU reads no memory
			p0, p1 = 0x00A0_0101, 0x0080_8815
			iters  = 34
			hit    = 20         // the one c[i] that is 1
			texel  = 0xFF0000FF // the texel at o[20]: red, alpha 1
			other  = 0x80C0E0F0 // every other lookup's texel, weighted 0
		)
		base := r.unif.Addr
		// The stream as Mesa lays it out and the kernel patches it (the
		// uniforms-address uniforms 0, 2 and 11 hold the stream's own
		// address: Linux vc4_validate.c validate_gl_shader_rec). 3–8 are
		// the clamps (range − 4) and UBO addresses of c, o.x and o.y.
		r.uniforms(base, iters, base, 540, ubo+608, 540, ubo+64, 536, ubo+68, p0, p1, base)
		s, tc := float32(0.25), float32(0.75) // the texture coordinate (C of the varyings, W = 1)
		r.env.varyVP = []vec{splat(0), splat(0)}
		r.env.varyC = []vec{splat(fbits(s)), splat(fbits(tc))}
		for i := 0; i < iters; i++ {
			c, ox, oy, tx := float32(0), float32(-1), float32(1), uint32(other)
			if i == hit {
				c, ox, oy, tx = 1, 0, 0, texel
			}
			r.env.tmuData[0] = append(r.env.tmuData[0], splat(fbits(c)), splat(fbits(ox)), splat(fbits(oy)), splat(tx))
		}
		st := &Start{Uniforms: base, W: splat(fbits(1))}
		r.run(conv2Program, strictFragment, st)

		var want []tmuWrite
		for i := 0; i < iters; i++ {
			ox, oy := float32(-1), float32(1)
			if i == hit {
				ox, oy = 0, 0
			}
			off := uint32(16 * i)
			want = append(want,
				tmuWrite{0, TMUS, splat(ubo + 608 + off), 0xFFFF, 0, true},
				tmuWrite{0, TMUS, splat(ubo + 64 + off), 0xFFFF, 0, true},
				tmuWrite{0, TMUS, splat(ubo + 68 + off), 0xFFFF, 0, true},
				tmuWrite{0, TMUT, splat(fbits(tc + oy)), 0xFFFF, p0, false},
				tmuWrite{0, TMUS, splat(fbits(s + ox)), 0xFFFF, p1, false})
		}
		if len(r.env.tmuWrites) != len(want) {
			t.Fatalf("reference %v: %d TMU writes, want %d (34 iterations of 3 direct lookups and one 2D lookup)", ref, len(r.env.tmuWrites), len(want))
		}
		for i := range want {
			if r.env.tmuWrites[i] != want[i] {
				t.Fatalf("reference %v: TMU write %d (iteration %d) = %+v, want %+v", ref, i, i/5, r.env.tmuWrites[i], want[i])
			}
		}
		if n := len(r.env.tmuData[0]); n != 0 {
			t.Errorf("reference %v: %d TMU results left unread", ref, n)
		}
		if len(r.env.tlbWrites) != 1 || r.env.tlbWrites[0].reg != TLBColourAll || r.env.tlbWrites[0].v != splat(texel) {
			t.Errorf("reference %v: TLB writes %+v, want one colour write of %#x (c[20] times the texel at o[20])", ref, r.env.tlbWrites, uint32(texel))
		}
	}
}
