// Package qpu is the VideoCore IV QPU instruction set as Go values: the
// decoded form of a 64-bit instruction word (Inst), Decode and Encode, a
// disassembler in the style of Mesa's and vc4asm's listings, and an
// assembler (Asm) in which the project's shaders are written; and the two
// VPM formats programs deal in: the VPM setup registers (VPMSetup) and the
// shaded vertex formats a coordinate or vertex shader writes (ShadedFormat).
//
// Sources. The bit layout, the enumerations and their names come from the
// Broadcom "VideoCore IV 3D Architecture Reference Guide" (VideoCoreIV-AG100-R,
// 2013; cited as AG), section 3: Figure 3 "QPU Instruction Encoding", Figures
// 4-7, Tables 1-14. The same numbers are in Linux
// drivers/gpu/drm/vc4/vc4_qpu_defines.h and Mesa
// src/gallium/drivers/vc4/vc4_qpu_defines.h; the behaviours the simulator
// relies on, with their sources, are in doc/hardware.md#qpu.
//
// Instruction words. An instruction is 64 bits. In memory it is two 32-bit
// little-endian words, low word first, which is exactly a little-endian
// uint64 (doc/hardware.md#conventions). Bits 63:60 are the signal (sig); sig 13
// makes raddr_b a small immediate, sig 14 is a load immediate (or, with mode
// 4, a semaphore instruction) and sig 15 a branch. Every field is described
// once, in the table in fields.go; Decode, Encode and the helpers read that
// table.
//
// Decode never fails: every 64-bit value is some instruction, reserved
// encodings decode to values whose String says "reserved", and bits the
// guide leaves unassigned for an instruction kind are kept in Inst.Spare, so
// Encode(Decode(w)) == w for every w.
package qpu
