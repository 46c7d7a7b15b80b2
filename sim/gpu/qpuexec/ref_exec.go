package qpuexec

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/shaders/qpu"
)

// read performs a port read and returns the vector it yields.
func (q *QPU) read(rd, reg uint8, fileB bool, scratch *vec, in *inst, pc int) (*vec, error) {
	switch rd {
	case rdPhys:
		if fileB {
			return &q.rb[reg], nil
		}
		return &q.ra[reg], nil
	case rdUniform:
		u, err := q.popUniform()
		if err != nil {
			return nil, err
		}
		for i := range scratch {
			scratch[i] = u
		}
		return scratch, nil
	case rdVarying:
		if q.env == nil {
			return nil, errors.New("varying read with no Env")
		}
		if err := q.env.Varying(scratch, &q.varyC); err != nil {
			return nil, err
		}
		q.varyPend = true
		return scratch, nil
	case rdElem, rdMutexA:
		if rd == rdMutexA {
			q.mutex = true
		}
		return &elementNumbers, nil
	case rdQPUNum, rdMutexB:
		if rd == rdMutexB {
			q.mutex = true
		}
		return &q.qpuNum, nil
	case rdXCoord:
		return &q.start.X, nil
	case rdYCoord:
		return &q.start.Y, nil
	case rdMSFlags:
		return &q.ms, nil
	case rdRevFlag:
		return &q.rev, nil
	case rdVPM:
		if err := q.vpmReadVector(scratch, pc); err != nil {
			return nil, err
		}
		return scratch, nil
	case rdImm:
		return &q.prog.vecs[in.vec], nil
	case rdLast:
		last := &q.lastA
		if fileB {
			last = &q.lastB
		}
		for i := range scratch {
			scratch[i] = last[12+i&3]
		}
		return scratch, nil
	}
	*scratch = vec{}
	return scratch, nil
}

// execRefALU is the general executor of an ALU instruction (sig 0-13).
func execRefALU(q *QPU, st *step, pc int) error {
	in := st.in
	// Read phase. A FIFO named on both ports pops once and both ports see
	// the value (doc/hardware.md#machine; Linux vc4_validate_shaders.c counts one
	// uniform; VC4C Emulator.cpp readRegister caches the read).
	var pa, pb *vec
	var err error
	switch in.rdA {
	case rdNone:
		pa = &q.portA
	case rdPhys:
		pa = &q.ra[in.regA]
	default:
		if pa, err = q.read(in.rdA, in.regA, false, &q.portA, in, pc); err != nil {
			return err
		}
	}
	switch {
	case in.rdB == rdNone:
		pb = &q.portB
	case in.rdB == rdPhys:
		pb = &q.rb[in.regB]
	case in.sameFIFO:
		pb = pa
	default:
		if pb, err = q.read(in.rdB, in.regB, true, &q.portB, in, pc); err != nil {
			return err
		}
	}
	if q.prog.tracksLast() {
		for i := 0; i < 4; i++ {
			if in.rdA != rdNone {
				q.lastA[12+i] = pa[12+i]
			}
			if in.rdB != rdNone {
				q.lastB[12+i] = pb[12+i]
			}
		}
	}
	if err := q.sources(in, pa, pb); err != nil {
		return err
	}

	// Execute.
	if in.opAdd != qpu.AddNop {
		addALU(in.opAdd, &q.resAdd, q.src[in.addA], q.src[in.addB])
	} else if in.wAdd.kind != wNone {
		staleResult(&q.resAdd)
	}
	if in.opMul != qpu.MulNop {
		mulALU(in.opMul, &q.resMul, q.src[in.mulA], q.src[in.mulB])
		q.rotateMul(in)
	} else if in.wMul.kind != wNone {
		staleResult(&q.resMul)
	}
	mAdd, mMul := q.conditionsAndFlags(in)

	// Write back.
	q.landVarying()
	// The common case first: an unpacked write to r0-r3 in every element.
	if in.wAdd.kind == wAcc && in.packAdd == packNone && mAdd == 0xFFFF {
		q.acc[in.wAdd.n] = q.resAdd
	} else if in.wAdd.kind != wNone {
		if err := q.writeALU(in, pc, in.wAdd, &q.resAdd, mAdd, in.packAdd, in.addFloat, true); err != nil {
			return err
		}
	}
	if in.wMul.kind == wAcc && in.packMul == packNone && mMul == 0xFFFF {
		q.acc[in.wMul.n] = q.resMul
	} else if in.wMul.kind != wNone {
		if err := q.writeALU(in, pc, in.wMul, &q.resMul, mMul, in.packMul, in.mulFloat, false); err != nil {
			return err
		}
	}
	if in.sig == qpu.SigNone || in.sig == qpu.SigSmallImm {
		return nil
	}
	return q.signal(in, pc)
}

// sources finishes an ALU instruction's read phase, for alu and the
// fast path's execALU alike: the regfile-A and r4 unpacks, the operand
// table q.src the ALU mux indices select from, and sbwait's stall until
// the tile buffer is safe to use.
func (q *QPU) sources(in *inst, pa, pb *vec) error {
	if in.unpackA {
		for i := range q.unpA {
			q.unpA[i] = unpackA(in.unpack, in.unpackFloat, pa[i])
		}
		pa = &q.unpA
	}
	q.src[6], q.src[7] = pa, pb
	if in.unpackR4 {
		for i := range q.unpR4 {
			q.unpR4[i] = unpackR4(in.unpack, q.acc[4][i])
		}
		q.src[4] = &q.unpR4
	} else {
		q.src[4] = &q.acc[4]
	}
	if in.sig == qpu.SigScoreboardWait {
		return q.scoreboardWait()
	}
	return nil
}

// rotateMul applies the instruction's vector rotation to the mul result.
func (q *QPU) rotateMul(in *inst) {
	if in.rot != 0 {
		n := int(in.rot)
		if in.rot == rotByR5 {
			n = int(q.acc[5][0] & 15)
		}
		rotate(&q.resMul, n, in.rotFull)
	}
}

// conditionsAndFlags returns the elements each ALU writes (its condition)
// and, for an instruction with SF, sets the flags from the add result, or
// from the mul result when the add ALU is a NOP.
func (q *QPU) conditionsAndFlags(in *inst) (mAdd, mMul uint16) {
	mAdd, mMul = q.cond(in.condAdd), q.cond(in.condMul)
	if in.sf {
		if !in.flagsMul {
			q.setFlags(&q.resAdd, addCarry(in.opAdd, q.src[in.addA], q.src[in.addB], &q.resAdd), mAdd)
		} else if in.opMul != qpu.MulNop {
			q.setFlags(&q.resMul, mulCarry(in.opMul, q.src[in.mulA], q.src[in.mulB]), mMul)
		}
	}
	return mAdd, mMul
}

// landVarying puts the C term of a varying this instruction read into r5,
// at the start of its write phase: before the ALU results, so an ALU
// write to r5 in the same instruction is what stays (doc/hardware.md#varyings).
func (q *QPU) landVarying() {
	if q.varyPend {
		copyVec(&q.acc[5], &q.varyC)
		q.varyPend = false
	}
}

// staleResult is what an ALU whose op is NOP writes when given a write
// address: its last result, of which only elements 12-15 survive,
// replicated to every quad (vc4asm addendum, "Secret access to previous MUL
// ALU result"; assumed the same for the add ALU).
func staleResult(r *vec) {
	for i := 0; i < 12; i++ {
		r[i] = r[12+i&3]
	}
}

// rotate rotates a mul result upwards by n elements (element 0 moves to
// element n, AG Table 5): across all 16 elements, or within each quad by n
// & 3 (vc4asm addendum).
func rotate(r *vec, n int, full bool) {
	t := *r
	if full {
		for i := range t {
			r[(i+n)&15] = t[i]
		}
		return
	}
	n &= 3
	for i := range t {
		r[i&^3|(i+n)&3] = t[i]
	}
}

// writeALU writes one ALU's result to its target under the lane mask,
// through the instruction's pack if it applies to this ALU.
func (q *QPU) writeALU(in *inst, pc int, t wtarget, r *vec, lanes uint16, pack uint8, float, isAdd bool) error {
	v, bits := r, uint32(0xFFFFFFFF)
	switch pack {
	case packRegA:
		var fl packFlags
		var ov, cf, nf, zf uint16
		if isAdd && in.flagsForPack {
			ov = addOverflow(in.opAdd, q.src[in.addA], q.src[in.addB], r)
			cf = addCarry(in.opAdd, q.src[in.addA], q.src[in.addB], r)
			nf, zf = nzFlags(r)
		}
		for i := range q.packed {
			if ov != 0 {
				b := uint16(1) << i
				fl = packFlags{overflow: ov&b != 0, c: cf&b != 0, n: nf&b != 0, z: zf&b != 0}
			}
			q.packed[i] = packA(in.pack, float, r[i], fl)
		}
		v, bits = &q.packed, packMask(in.pack)
	case packColour:
		for i := range q.packed {
			q.packed[i] = colourPack(in.pack, r[i])
		}
		v, bits = &q.packed, colourPackMask(in.pack)
	}
	return q.write(in, pc, t, v, lanes, bits)
}

// write stores v into target t in the elements of lanes, changing only the
// bits in bits.
func (q *QPU) write(in *inst, pc int, t wtarget, v *vec, lanes uint16, bits uint32) error {
	switch t.kind {
	case wPhysA, wPhysB:
		if in.sig.EndsProgram() && in.kind == kALU {
			// The program-end instruction's write cycle writes the next
			// thread's W and Z instead (AG §3 Thread Control): the write
			// is lost. (A strict load refuses this, rule 2.)
			return nil
		}
		if lanes == 0 {
			return nil
		}
		if !q.prog.delayWrites && !q.Reference {
			// The program never reads a register in the instruction
			// after the write (Program.delayWrites), so the write can
			// land at once. The general interpreter always models the
			// delay: it is what the fast paths are held to.
			d := &q.ra[t.n]
			if t.kind == wPhysB {
				d = &q.rb[t.n]
			}
			mergeLanes(d, v, lanes, bits)
			return nil
		}
		p := &q.pend[q.npend]
		q.npend++
		p.b, p.reg, p.lanes, p.bits, p.v = t.kind == wPhysB, t.n, lanes, bits, *v
	case wAcc:
		mergeLanes(&q.acc[t.n], v, lanes, bits)
	case wR5Quad:
		// A-file write: element 0 of each quad to the whole quad; B-file:
		// element 0 to all (vc4asm addendum "Writing to r5", against AG
		// §3's byte concatenation; VC4C emulates the addendum).
		var x vec
		for i := range x {
			x[i] = v[i&^3]
		}
		mergeLanes(&q.acc[5], &x, lanes, bits)
	case wR5Rep:
		var x vec
		for i := range x {
			x[i] = v[0]
		}
		mergeLanes(&q.acc[5], &x, lanes, bits)
	case wTMU:
		return q.tmuWrite(int(t.n)/tmuRegs, TMUReg(int(t.n)%tmuRegs), v, lanes)
	case wTLB:
		if err := q.scoreboardWait(); err != nil {
			return err
		}
		if q.env == nil {
			return errors.New("TLB write with no Env")
		}
		return q.env.TLBWrite(TLBReg(t.n), v, lanes, &q.ms)
	case wSFU:
		// The SFU gets the whole vector; the condition only gates the
		// register write, and a peripheral write happens regardless
		// (vc4asm addendum).
		sfuVec(int(t.n), &q.sfuVal, v)
		q.sfuAt = q.seq + 3
	case wVPM:
		// All 16 elements are written whatever the condition: the FIFO
		// takes the vector regardless (vc4asm addendum, "No conditional
		// write to peripheral registers").
		return q.vpmWrite(v, pc)
	case wVPMReadSetup:
		return q.vpmReadSetup(v[0], pc)
	case wVPMWriteSetup:
		return q.vpmWriteSetup(v[0], pc)
	case wVPMDMA:
		return errors.New("VPM DMA (VPM_LD_ADDR/VPM_ST_ADDR) is not modelled; the vc4 kernel refuses it (Linux vc4_validate_shaders.c check_reg_write)")
	case wUnifAddr:
		// The new stream starts after two more instructions (AG §3
		// "Uniforms": "there must be at least two nonuniform-accessing
		// instructions following a pointer change"); uniform reads in
		// between still see the old stream's prefetched values.
		q.unifNext, q.unifAt = v[0], q.seq+3
	case wHostInt:
		for i := range v {
			if lanes&(1<<i) != 0 && v[i] != 0 {
				q.hostInt = true
			}
		}
	case wNoSwap:
		q.noSwap = v[0] != 0 // element 0, any non-zero value (vc4asm addendum)
	case wMSFlags:
		mergeLanes(&q.ms, v, lanes, bits)
	case wRevFlag:
		mergeLanes(&q.rev, v, lanes, bits)
		q.revStale = true
	case wQuadXY:
		return errors.New("QUAD_X/QUAD_Y writes are not modelled (AG Table 14 names them without describing them)")
	case wMutexRelease:
		q.mutex = false
	}
	return nil
}

// mergeLanes writes the bits of v selected by bits into d, in lanes.
func mergeLanes(d, v *vec, lanes uint16, bits uint32) {
	if lanes == 0xFFFF && bits == 0xFFFFFFFF {
		copyVec(d, v)
		return
	}
	if lanes == 0xFFFF {
		// Every element, some bits: the colour packs (8a-8d) of
		// Mesa's fragment shaders, one byte per write. Two elements
		// per word (pairs): the same bits of each.
		m := uint64(bits) | uint64(bits)<<32
		dp, vp := pairs(d), pairs(v)
		for i := range dp {
			dp[i] = dp[i]&^m | vp[i]&m
		}
		return
	}
	for i := range d {
		if lanes&(1<<i) != 0 {
			d[i] = d[i]&^bits | v[i]&bits
		}
	}
}

// signal handles the signal of an ALU instruction after its writes.
func (q *QPU) signal(in *inst, pc int) error {
	switch in.sig {
	case qpu.SigBreakpoint:
		return errors.New("software breakpoint (sig 0): the hardware halts for a debugger; the vc4 kernel refuses it")
	case qpu.SigThreadSwitch, qpu.SigLastThreadSwitch:
		if !q.prog.Opts.Threaded {
			return errors.New("thread switch in a program run single-threaded (shader record flag bit 0 set); the kernel refuses the pair")
		}
		q.switchAt = q.seq + 2
	case qpu.SigProgramEnd:
		q.programEnd()
	case qpu.SigScoreboardUnlock:
		if q.start.InOrder {
			return nil
		}
		if q.env == nil {
			return errors.New("scoreboard unlock with no Env")
		}
		return q.env.Scoreboard(true)
	case qpu.SigCoverageLoad, qpu.SigColourLoad, qpu.SigColourLoadProgramEnd, qpu.SigAlphaMaskLoad:
		if err := q.scoreboardWait(); err != nil {
			return err
		}
		kind := TLBLoad(in.sig)
		if in.sig == qpu.SigColourLoadProgramEnd {
			kind = TLBLoadColour
			q.programEnd()
		}
		if q.env == nil {
			return errors.New("TLB load with no Env")
		}
		return q.env.TLBLoad(kind, &q.acc[4])
	case qpu.SigLoadTMU0, qpu.SigLoadTMU1:
		return q.tmuLoad(int(in.sig - qpu.SigLoadTMU0))
	}
	return nil
}

// execLoadImm runs a load immediate or semaphore instruction: the immediate
// appears at both ALU outputs and is written like an ALU result (AG "Load
// Immediate Instructions", "Semaphore Instruction").
func execLoadImm(q *QPU, st *step, pc int) error {
	in := st.in
	// Both latches are written 16 bytes a store (copyVec, fill), as the
	// kernels and the register writes that read them next load them: a
	// loop of 4-byte stores here made each of those loads wait for the
	// stores to reach the cache.
	if in.vec >= 0 {
		copyVec(&q.resAdd, &q.prog.vecs[in.vec])
		copyVec(&q.resMul, &q.prog.vecs[in.vec])
	} else {
		fill(&q.resAdd, in.imm)
		fill(&q.resMul, in.imm)
	}
	mAdd, mMul := q.cond(in.condAdd), q.cond(in.condMul)
	if in.sf {
		q.setFlags(&q.resAdd, 0, mAdd)
	}
	if in.kind == kSemaphore {
		if q.env == nil {
			return errors.New("semaphore with no Env")
		}
		if err := q.env.Semaphore(int(in.semN), in.semAcq); err != nil {
			return err
		}
	}
	if in.wAdd.kind != wNone {
		if err := q.writeALU(in, pc, in.wAdd, &q.resAdd, mAdd, in.packAdd, false, true); err != nil {
			return err
		}
	}
	if in.wMul.kind != wNone {
		if err := q.writeALU(in, pc, in.wMul, &q.resMul, mMul, in.packMul, false, false); err != nil {
			return err
		}
	}
	return nil
}

// execBranch runs a branch instruction (AG "Branch Instruction", Tables
// 10-11).
func execBranch(q *QPU, st *step, pc int) error {
	in := st.in
	var target uint32
	if in.brReg {
		// The register's element 15 (vc4asm addendum, measured; AG says
		// element 0).
		target = q.ra[in.brRaddr][15]
	}
	if q.seq-q.lastBr < 3 {
		// "There must be at least two non branch instructions between
		// every two branch instructions. Otherwise no branch is taken or
		// the thread will crash" (vc4asm addendum). We take none: this
		// one, and the earlier one whose jump is still pending (a jump
		// lands three instructions after its branch, so every pending
		// jump is that branch's).
		q.lastBr = q.seq
		q.njumps = 0
		return q.violate(pc, "branch spacing", "at least two non-branch instructions must separate branches [vc4asm addendum]; neither branch is taken")
	}
	q.lastBr = q.seq
	if !q.branchTaken(in.brCond) {
		return nil
	}
	link := q.prog.link(pc)
	target += in.imm
	if in.brRel {
		target += link
	}
	to, ok := q.prog.index(target)
	if !ok {
		return fmt.Errorf("branch target %#08x is not an instruction of the program [%#08x, %#08x)", target, q.prog.Addr, q.prog.Addr+uint32(8*len(q.prog.code)))
	}
	q.jumps[q.njumps] = jump{at: q.seq + 3, to: to}
	q.njumps++
	// The link address appears at both ALU outputs and is written only when
	// the branch is taken, as are the flags of an odd raddr_a (vc4asm
	// addendum).
	for i := range q.resAdd {
		q.resAdd[i] = link
	}
	q.resMul = q.resAdd
	if in.brSF {
		q.setFlags(&q.resAdd, 0, 0xFFFF)
	}
	if in.wAdd.kind != wNone {
		if err := q.write(in, pc, in.wAdd, &q.resAdd, 0xFFFF, 0xFFFFFFFF); err != nil {
			return err
		}
	}
	if in.wMul.kind != wNone {
		if err := q.write(in, pc, in.wMul, &q.resMul, 0xFFFF, 0xFFFFFFFF); err != nil {
			return err
		}
	}
	return nil
}

// branchTaken evaluates cond_br over all 16 elements (AG Table 11).
func (q *QPU) branchTaken(c qpu.BranchCond) bool {
	var f uint16
	switch c >> 2 {
	case 0:
		f = q.z
	case 1:
		f = q.n
	case 2:
		f = q.c
	default:
		return true // 15: always (12-14 are refused at load)
	}
	if c&1 != 0 {
		f = ^f
	}
	if c&2 != 0 {
		return f != 0 // any
	}
	return f == 0xFFFF // all
}
