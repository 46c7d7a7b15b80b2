package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// Env is the wiring between a running QPU program and the rest of the
// simulated V3D: the varyings interpolator, the texture units, the tile
// buffer, the scoreboard and the system semaphores. The GPU model (sim/gpu)
// implements it; the interpreter calls it from the instruction that does the
// access, in program order, on the goroutine that called QPU.Run.
//
// What is not in Env, and why:
//   - Uniforms: the interpreter owns the uniform stream. It reads the words
//     through the job's *mem.View from the address given in Start.Uniforms,
//     one per UNIFORM_READ and one per TMU parameter write (AG §3
//     "Uniforms", §4 "TMU setup"), and resets it on UNIFORMS_ADDRESS writes.
//   - The VPM: it is a unit of this package (VPM, Segment) that both sides
//     use; the caller gives the QPU a VPM and the batch's segments in Start.
//   - The SFU: the interpreter computes it (ref_sfu.go) and models its latency.
//   - The mutex and HOST_INT: one QPU runs at a time per Run, so the mutex
//     is always granted (AG §3 "Inter-Processor Mutex"); a host interrupt is
//     reported in Result.
//
// The contract, for every method:
//   - Vectors are passed as pointers to 16 lanes, lane i = SIMD element i.
//     The pointers are only valid during the call; do not keep them.
//   - mask has bit i set when element i's write condition passed (cond_add
//     or cond_mul, AG Table 2). The hardware triggers the peripheral whatever
//     the condition (vc4asm addendum, "No conditional write to peripheral
//     registers": the FIFO receives undefined data in the masked elements),
//     so a write with mask 0 is still a write and still consumes its uniform;
//     the values of masked lanes are what the ALU computed, which stands for
//     the hardware's undefined data.
//   - A non-nil error stops the program: the QPU returns it from Run
//     wrapped with the instruction's index and listing. Return an error for
//     what would hang or fault the hardware (a TMU read with nothing
//     requested, an access outside the job's memory, a semaphore that can
//     never be released), saying what happened.
//   - The methods must not allocate on the success path: they run up to
//     once per instruction of every fragment batch.
type Env interface {
	// Varying pops the next varying component from the varyings FIFO
	// (VARYING_READ, raddr 35 in file A or B; AG §3 "Varyings", §6
	// "Varyings Interpolation"). vp receives the partially interpolated
	// value of each lane (VP = A(x-x0) + B(y-y0)) and c the C coefficient of
	// each lane's quad; the QPU returns vp as the read value and makes c
	// visible in r5 from the next instruction. One instruction that names
	// VARYING_READ on both read ports pops once (doc/hardware.md#machine).
	Varying(vp, c *[16]uint32) error

	// TMUWrite is one write to a texture unit parameter register
	// (AG §4 "TMU setup", Tables 20-24). unit is the physical TMU, 0 or 1,
	// after the QPU2/QPU3 swap (AG §4 "QPU Interface": QPUs 2 and 3 of a
	// slice address TMU1 as TMU0 and vice versa unless TMU_NOSWAP was
	// written non-zero). reg says which parameter; writing TMUS submits the
	// request. v holds the 16 lanes written.
	//
	// Every T, R and B write, and every S write that follows one of them,
	// pops the next uniform from the QPU's stream; the QPU passes it as
	// param, and the TMU numbers them p0, p1, p2, p3 in write order for the
	// request. An S write with no T, R or B write before it since the
	// previous S write of that unit is a direct memory lookup (AG §4: "except
	// for direct memory address lookups"; Linux vc4_validate_shaders.c
	// check_tmu_write): then direct is true, no uniform is popped, param is
	// 0 and v holds the byte addresses to read (the TMU returns the 32-bit
	// word at address &^ 3 for each lane).
	TMUWrite(unit int, reg TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error

	// TMULoad serves an ldtmu0/ldtmu1 signal (sig 10/11, AG Table 4): it
	// pops the oldest result of unit (after the swap, as for TMUWrite) into
	// r4 (16 lanes of packed RGBA8888 data, or the RG/BA halves of an RGBA64
	// texel). The QPU makes r4 visible from the next instruction.
	TMULoad(unit int, r4 *[16]uint32) error

	// TLBWrite is a write to a tile buffer register (AG §5 "QPU Registers
	// for Tile Buffer Access"): TLB_STENCIL_SETUP, TLB_Z, TLB_COLOUR_MS,
	// TLB_COLOUR_ALL or TLB_ALPHA_MASK. ms is the thread's multisample
	// mask, MS_FLAGS, per lane: a Z write performs the stencil and depth
	// tests and updates it (AG §3 "Tile Buffer": "also results in the QPUs
	// multisample mask to be updated"); colour writes are masked by it.
	// The QPU has already done the implicit scoreboard wait before the
	// first TLB access of the program (Scoreboard(false)).
	TLBWrite(reg TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error

	// TLBLoad serves a tile buffer read signal (sig 7 coverage, 8 colour,
	// 9 colour with program end, 12 alpha mask; AG Table 4): it writes the
	// data into r4, which the QPU makes visible from the next instruction.
	TLBLoad(kind TLBLoad, r4 *[16]uint32) error

	// Scoreboard is called with unlock false for a scoreboard wait (the
	// explicit sbwait signal, sig 4, or the implicit wait of the program's
	// first tile buffer access, AG Table 4 note) and with unlock true for
	// the scoreboard unlock signal (sbdone, sig 5). A model that renders
	// the fragments of one tile in primitive order on one goroutine can
	// treat both as no-ops.
	Scoreboard(unlock bool) error

	// Semaphore is the semaphore instruction (sig 14 with mode 4, AG Figure
	// 6): increment (acquire false) or decrement (acquire true) system
	// semaphore n, 0-15. The hardware stalls when decrementing below 0 or
	// incrementing above 15; a model that cannot make progress returns an
	// error.
	Semaphore(n int, acquire bool) error
}

// TMUReg is a texture unit parameter register: its write address's offset
// from the unit's S register (shaders/qpu WTMU0S..WTMU0B for TMU0,
// WTMU1S..WTMU1B for TMU1; AG Table 14).
type TMUReg uint8

// The TMU parameter registers, numbered as their offset from TMU0_S.
const (
	TMUS = TMUReg(qpu.WTMU0S - qpu.WTMU0S) // s coordinate (or direct address); the write submits the request
	TMUT = TMUReg(qpu.WTMU0T - qpu.WTMU0S) // t coordinate
	TMUR = TMUReg(qpu.WTMU0R - qpu.WTMU0S) // r: cube map coordinate or border colour
	TMUB = TMUReg(qpu.WTMU0B - qpu.WTMU0S) // b: LOD bias or explicit LOD
)

// tmuRegs is the number of write addresses of one TMU: TMU1_S follows
// TMU0_B.
const tmuRegs = int(qpu.WTMU1S - qpu.WTMU0S)

// String names the register as the listing does (s, t, r, b).
func (r TMUReg) String() string {
	return [...]string{"s", "t", "r", "b"}[r&3]
}

// TLBReg is a tile buffer write register, numbered as its write address
// (shaders/qpu WTLBStencilSetup..WTLBAlphaMask; AG Table 14).
type TLBReg uint8

// The tile buffer write registers.
const (
	TLBStencilSetup = TLBReg(qpu.WTLBStencilSetup)
	TLBZ            = TLBReg(qpu.WTLBZ)
	TLBColourMS     = TLBReg(qpu.WTLBColourMS)  // one multisample per write
	TLBColourAll    = TLBReg(qpu.WTLBColourAll) // all samples of the pixel
	TLBAlphaMask    = TLBReg(qpu.WTLBAlphaMask)
)

// String names the register as the listing does (qpu.WAddr.Name).
func (r TLBReg) String() string { return qpu.WAddr(r).Name(qpu.FileA) }

// TLBLoad is a tile buffer read requested by a signal, numbered as the
// signal (shaders/qpu; AG Table 4).
type TLBLoad uint8

// The tile buffer reads.
const (
	TLBLoadCoverage  = TLBLoad(qpu.SigCoverageLoad)  // coverage from the Z/stencil buffer (VG)
	TLBLoadColour    = TLBLoad(qpu.SigColourLoad)    // the pixel's colour (also sig 9, with program end)
	TLBLoadAlphaMask = TLBLoad(qpu.SigAlphaMaskLoad) // the alpha mask
)

// String names the load.
func (k TLBLoad) String() string {
	switch k {
	case TLBLoadCoverage:
		return "coverage"
	case TLBLoadColour:
		return "colour"
	case TLBLoadAlphaMask:
		return "alpha mask"
	}
	return "tlb load?"
}
