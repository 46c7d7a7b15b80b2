// Package qpuexec is the simulated VideoCore IV's QPU: an interpreter that
// runs real QPU machine code from simulated memory on 16 SIMD lanes, and the
// VPM (vertex pipe memory) that vertex and coordinate shaders read their
// attributes from and write shaded vertices to.
//
// The GPU model (sim/gpu) uses it like this:
//
//   - Load (or a Cache) fetches a program from the job's memory, up to its
//     program-end instruction and two delay slots, decodes it once into a
//     form made for the interpreter, and runs the shaders/hazard checker on
//     it: in strict mode a broken restriction fails the load, in permissive
//     mode it is kept as a warning.
//   - A QPU holds one processor's registers; QPU.Run executes a program on
//     one batch (16 fragments, or up to 16 vertices) from a Start, calling an
//     Env for the units it talks to (varyings, TMU, TLB, scoreboard,
//     semaphores). The interpreter reads uniforms itself, through the View.
//   - A VPM is shared by the VCD (which stores attributes with
//     StoreVertexBytes), the QPU (reads and writes through the generic block
//     setups of AG Tables 32-33) and the PTB/PSE (which read shaded vertices
//     back with Word or Row).
//
// Faithfulness. Every rule is the hardware's as the sources describe it: the
// Broadcom "VideoCore IV 3D Architecture Reference Guide" (AG), the vc4asm
// author's hardware-tested addendum (maazl/vc4asm
// doc/VideoCoreIV-addendum.html), and doe300/VC4C's measurements (tables
// run on a Pi: test/opcode_test.h, test/opcode_pack_test.h; SFU accuracy:
// doc/sfu_accuracy.txt). Each file names its sources; where they disagree or
// are silent the choice and its reason sit next to the code. Float
// semantics: float.go. Integer ops and flags: alu.go. Pack and unpack:
// pack.go. SFU: sfu.go. VPM: vpm.go.
package qpuexec
