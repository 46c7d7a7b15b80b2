// Package qpuexec is the simulated VideoCore IV's QPU. It holds two
// things:
//   - an interpreter that runs real QPU machine code from simulated
//     memory, on 16 SIMD lanes;
//   - the VPM (vertex pipe memory). Vertex and coordinate shaders read
//     their attributes from it and write shaded vertices to it.
//
// How the GPU model (sim/gpu) uses it:
//   - Cache.Load fetches a program through the job's *mem.View, up to
//     its program end and two delay slots. It runs the shaders/hazard
//     checker on it. In strict mode a broken restriction fails the load,
//     naming the rule and the instruction. In permissive mode it is kept
//     in Program.Warnings. The program is decoded once into the
//     interpreter's form. The cache keys programs by address, Options
//     and bytes.
//   - A QPU (NewQPU) is one processor: register files, accumulators,
//     flags. QPU.Run executes a Program on one batch from a Start. The
//     Start gives the uniforms address; for a fragment shader, W, Z, the
//     pixel coordinates and the MS flags; for a vertex or coordinate
//     shader, the VPM and its segments. Run calls an Env for the units
//     outside the QPU: varyings, TMU, TLB, scoreboard, semaphores. The
//     QPU reads uniforms itself, through QPU.Mem. Run does not allocate.
//   - A VPM is shared by the VCD (StoreVertexBytes), the QPU (the generic
//     block setups of AG Tables 32-33) and the PTB/PSE (Word, Row).
//
// # Tiers
//
// The file names say the tier:
//   - ref_*.go: the reference. ref_exec.go has the general executors, one
//     per kind of instruction. ref_alu.go, ref_float.go, ref_pack.go and
//     ref_sfu.go have the ALU operations, float semantics, packs and
//     SFU they use.
//   - loop.go: the one run loop and its bookkeeping. A program runs as a
//     table of steps, one per instruction, each naming its executor. The
//     reference table names the general executor for every instruction.
//     QPU.Reference runs it.
//   - step_*.go: the compiled table. step_plan.go chooses an executor for
//     what each instruction does; step_exec.go has those executors. Run
//     uses this table by default.
//   - bound_*.go: bound programs. A program that runs in address order
//     between jumps known at load is bound to each QPU that runs it, as
//     micro-operations with pointers into that QPU's registers. Static
//     branches, one program end and no write delay make it so.
//     bound_bind.go binds; bound_run.go runs.
//   - batch*.go: batches. A Batch runs a bound fragment shader on up to
//     four blocks in lockstep, each on a QPU of its own, a
//     micro-operation for every block before the next. batch_plan.go
//     says which programs it may: those no run of which reads what a
//     run before it left.
//   - kern*.go and kern*.s: the vector kernels that every ALU operation
//     and the colour packs and unpacks run as. On amd64 they are SSE2 and
//     AVX2 assembly (kern_sse2_amd64.s, kern_avx2_amd64.s), unless built
//     with the purego tag.
//
// The tests hold the fast tiers to the reference:
//   - step_test.go runs random valid and permissive programs on both
//     tables from equal states. It requires the same registers, flags,
//     latches, memory, Env calls, results and errors.
//   - batch_test.go runs programs batched and one block at a time on
//     one QPU. It requires the same Env calls, results, errors and the
//     state left for the next run.
//   - kern_test.go compares every kernel with the general ALU code and
//     the hardware tables.
//   - The execution tests run on both paths.
//
// # Faithfulness
//
// The rules are the hardware's as the sources describe it:
//   - the Broadcom "VideoCore IV 3D Architecture Reference Guide" (AG);
//   - the vc4asm author's hardware-tested addendum (maazl/vc4asm
//     doc/VideoCoreIV-addendum.html);
//   - doe300/VC4C's measurements on a Pi (test/opcode_test.h,
//     test/opcode_pack_test.h, doc/sfu_accuracy.txt).
//
// The ALU ops, flags and regfile-A packs are tested against every row of
// VC4C's hardware tables (testdata/README.md). Each file names its
// sources. Float semantics are in ref_float.go; integer ops and flags in
// ref_alu.go; pack and unpack in ref_pack.go; the SFU in ref_sfu.go; the
// VPM in vpm.go. The rest is in ref_exec.go, loop.go, qpu.go and
// compile.go.
//
// Choices where the sources disagree or are silent (each explained at the
// code):
//   - Float results round toward zero: measured for itof and fadd,
//     assumed for fmul. Overflow gives ±Inf. NaN patterns give ±Inf.
//   - float→half packs round the magnitude up (VC4C's measurement).
//     Colour unpack is byte/255 rounded toward zero. The mul colour pack
//     rounds to nearest, ties away (AG: "round").
//   - The SFU's error is modelled, not its bits (ref_sfu.go). recip and
//     rsqrt keep 13 explicit mantissa bits. exp2 and log2 have the
//     one-sided bias VC4C measured: exp2 is (1 + 2^-15) times the exact
//     value; log2 is 3 to 4 units of 2^-16 below it.
//   - r5 writes replicate element 0 of each quad (file A) or element 0
//     (file B), per the addendum. The guide says byte concatenation.
//   - Rotation is full only with both mul operands in r0-r3. Otherwise it
//     is within each quad (addendum).
//   - A register branch uses element 15 (addendum; AG says 0).
//   - Branches closer than three instructions: neither is taken. The
//     addendum says "no branch is taken or the thread will crash".
//   - A new VPM read setup is ignored while more than one read of the
//     previous ones is outstanding (addendum). AG allows two queued
//     setups.
//   - A VPM read too soon after its setup returns the data (the
//     addendum's stall) and is flagged (AG's rule). 8- and 16-bit VPM
//     reads zero-extend.
//   - Peripheral writes (TMU, VPM, SFU, setup registers) happen whatever
//     the write condition. The masked lanes' values stand for undefined
//     data (addendum). HOST_INT and MS_FLAGS honour the condition.
//   - The regfile-A pack applies only to writes to physical registers of
//     file A.
//   - An ALU whose op is NOP but has a write address writes its last
//     result's elements 12-15 per quad (addendum, measured for the mul
//     ALU).
//   - One hardware thread runs at a time. A thread switch poisons the
//     accumulators and registers 16-31 (the other thread's half) instead
//     of interleaving two threads. It keeps the flags: the other thread
//     runs the same program in step, and sets them as this one did when
//     their inputs are uniforms (DERIVED, doc/hardware.md#threads).
//   - A program end poisons location 14 of both files: the next thread's
//     W and Z.
//
// Not modelled, and refused with an error if a program uses them (the vc4
// kernel refuses them too):
//   - VPM DMA (VPM_LD_ADDR/VPM_ST_ADDR);
//   - QUAD_X/QUAD_Y writes;
//   - the software breakpoint signal.
package qpuexec
