// Package qpuexec is the simulated VideoCore IV's QPU: an interpreter that
// runs real QPU machine code from simulated memory on 16 SIMD lanes, and the
// VPM (vertex pipe memory) that vertex and coordinate shaders read their
// attributes from and write shaded vertices to.
//
// How the GPU model (sim/gpu) uses it:
//
//   - Cache.Load fetches a program through the job's *mem.View,
//     up to its program end and two delay slots, runs the shaders/hazard
//     checker on it (strict: a broken restriction fails the load, naming the
//     rule and the instruction; permissive: it is kept in
//     Program.Warnings), and decodes it once into the interpreter's form.
//     The cache keys programs by address, Options and bytes.
//   - A QPU (NewQPU) is one processor: register files, accumulators, flags.
//     QPU.Run executes a Program on one batch from a Start (uniform address;
//     W, Z, pixel coordinates and MS flags for a fragment shader; the VPM
//     and segments for a vertex or coordinate shader) and calls an Env for
//     the units outside the QPU: varyings, TMU, TLB, scoreboard, semaphores.
//     Uniforms are read by the QPU itself through QPU.Mem. Run does not
//     allocate.
//   - A VPM is shared by the VCD (StoreVertexBytes), the QPU (the generic
//     block setups of AG Tables 32-33) and the PTB/PSE (Word, Row).
//
// Speed. Run executes a program's compiled form: each instruction decoded
// once more into a step whose executor was chosen for what it does
// (step_exec.go), and a program that runs in address order between jumps known
// at load (static branches, one program end, no write delay) bound to
// each QPU that runs it as micro-operations with pointers to that QPU's
// registers (bound_bind.go). Every ALU operation, the
// colour packs and unpacks run as vector kernels (kern.go; SSE2 and
// AVX2 assembly on amd64, kern_sse2_amd64.s and kern_avx2_amd64.s, unless
// built with the purego tag). The general interpreter (Run's own loop, alu, read, write) is the
// reference: QPU.Reference runs it instead, and step_test.go runs random
// valid and permissive programs on both from equal states and requires
// the same registers, flags, latches, memory, Env calls, results and
// errors; kern_test.go compares every kernel with the general ALU code
// and the hardware tables, and the execution tests run on both paths.
//
// Faithfulness. The rules are the hardware's as the sources describe it:
// the Broadcom "VideoCore IV 3D Architecture Reference Guide" (AG), the
// vc4asm author's hardware-tested addendum (maazl/vc4asm
// doc/VideoCoreIV-addendum.html), and doe300/VC4C's measurements on a Pi
// (test/opcode_test.h, test/opcode_pack_test.h, doc/sfu_accuracy.txt). The
// ALU ops, flags and regfile-A packs are tested against every row of VC4C's
// hardware tables (testdata/README.md). Each file names its sources: float
// semantics ref_float.go, integer ops and flags ref_alu.go, pack and unpack
// ref_pack.go, SFU ref_sfu.go, VPM vpm.go, the rest qpu.go and compile.go.
//
// Choices where the sources disagree or are silent (each explained at the
// code):
//   - Float results round toward zero (measured for itof and fadd, assumed
//     for fmul); overflow gives ±Inf; NaN patterns give ±Inf.
//   - float→half packs round the magnitude up (VC4C's measurement); colour
//     unpack is byte/255 rounded toward zero; the mul colour pack rounds to
//     nearest, ties away (AG: "round").
//   - The SFU's error is modelled, not its bits: 13 explicit mantissa bits
//     for recip and rsqrt; for exp2 and log2 the one-sided bias VC4C
//     measured, exp2 (1 + 2^-15) times the exact value and log2 3 to 4
//     units of 2^-16 below it (ref_sfu.go).
//   - r5 writes replicate element 0 of each quad (file A) or element 0 (file
//     B), per the addendum, not the guide's byte concatenation.
//   - Rotation is full only with both mul operands in r0-r3, else within
//     each quad (addendum). A register branch uses element 15 (addendum; AG
//     says 0). Branches closer than three instructions: neither is taken (the
//     addendum: "no branch is taken or the thread will crash").
//   - A new VPM read setup is ignored while more than one read of the
//     previous ones is outstanding (addendum; AG allows two queued setups);
//     a read too soon after its setup returns the data (addendum's stall)
//     and is flagged (AG's rule); 8- and 16-bit VPM reads zero-extend.
//   - Peripheral writes (TMU, VPM, SFU, setup registers) happen whatever the
//     write condition, with the masked lanes' values standing for undefined
//     data (addendum); HOST_INT and MS_FLAGS honour the condition.
//   - The regfile-A pack applies only to writes to physical registers of
//     file A. An ALU whose op is NOP but has a write address writes its last
//     result's elements 12-15 per quad (addendum, measured for the mul ALU).
//   - One hardware thread runs at a time: a thread switch poisons the
//     accumulators and registers 16-31 (the other thread's half) instead
//     of interleaving two threads, and keeps the flags, which the other
//     thread, running the same program in step, sets as this one did when
//     their inputs are uniforms (DERIVED, doc/hardware.md#threads); a
//     program end poisons location 14 of both files (the next thread's W
//     and Z).
//
// Not modelled, and refused with an error if a program uses them (the vc4
// kernel refuses them too): VPM DMA (VPM_LD_ADDR/VPM_ST_ADDR), QUAD_X/QUAD_Y
// writes, the software breakpoint signal.
package qpuexec
