package qpuexec

import (
	"encoding/binary"
	"errors"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/lanes"
)

// The compiled step executors. A program's compiled table (Program.steps)
// names one of these for each instruction. The choice is made at load,
// for what the instruction does (step_plan.go). So the decisions the
// general executors (ref_exec.go) make at every execution are made once:
//   - which port reads what;
//   - which operation loop runs;
//   - whether a write is a plain register write.
//
// An executor changes the QPU's state exactly as the general executor
// does. That covers the registers, accumulators, flags and ALU result
// latches, the uniform stream, the Env calls (in the same order, with the
// same arguments) and the errors. For what it does not specialise, it
// calls the general code. The run loop around it is loop.go's, the same
// for both tables.
//
// The executors:
//   - execOps: an ALU instruction that only computes. Its operands come
//     from registers, accumulators or a small immediate. It has no
//     unpack, signal, flags or rotation. Its results are written
//     unconditionally and unpacked, to accumulators or (without the write
//     delay) to physical registers. The cube's and Mesa's arithmetic is
//     mostly this.
//   - execFast: an ALU instruction whose ports read registers, a small
//     immediate, uniforms or varyings (planFast). It may unpack, write
//     under a condition and set flags. It writes registers (whole or
//     under a condition), the TMU, the tile buffer, or through writeALU.
//     It may have a signal. It has no rotation and no scoreboard wait.
//   - execALU: any other ALU instruction: FIFO reads, unpacks,
//     conditions, flags, packs, rotations, I/O writes and signals. The
//     rarer parts call the general code.
//   - the general executors (ref_exec.go): load immediates, semaphores
//     and branches. Also every instruction of a program that reads an
//     operand through the NOP address (Program.usesLast): every read must
//     then be remembered, and only the general code does that.
//
// QPU.Reference runs the reference table instead. step_test.go runs
// random programs on both tables and requires the same results.

// nextUniform is popUniform with the common case, a uniform in the
// buffer already found, inline.
func (q *QPU) nextUniform() (uint32, error) {
	if q.unifOff+4 <= len(q.unifBuf) {
		u := binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
		q.unifOff += 4
		q.unifAddr += 4
		return u, nil
	}
	return q.popUniform()
}

// fill stores x in every element of v (lanes.Fill).
func fill(v *vec, x uint32) { lanes.Fill(v, x) }

// execOps runs an instruction that only computes (onlyComputes): the
// general alu's read, execute and write phases with nothing else to do.
func execOps(q *QPU, st *step, pc int) error {
	in := st.in
	pa, pb := &q.portA, &q.portB
	if in.rdA == rdPhys {
		pa = &q.ra[in.regA&31]
	}
	switch in.rdB {
	case rdPhys:
		pb = &q.rb[in.regB&31]
	case rdImm:
		pb = st.imm
	}
	q.src[4], q.src[6], q.src[7] = &q.acc[4], pa, pb
	if st.addK != nil {
		st.addK(&q.resAdd, q.src[in.addA&7], q.src[in.addB&7])
	}
	if st.mulK != nil {
		st.mulK(&q.resMul, q.src[in.mulA&7], q.src[in.mulB&7])
	}
	q.storeAdd(st)
	q.storeMul(st)
	return nil
}

// execFast runs an instruction planFast accepted: execRefALU in ref_exec.go for the
// cases the plan covers.
func execFast(q *QPU, st *step, pc int) error {
	in := st.in
	// Read phase.
	pa, pb := q.portVecs(st)
	if isFIFOPort(st.portA) {
		if err := q.readPort(st.portA, pa); err != nil {
			return err
		}
	}
	if isFIFOPort(st.portB) {
		if err := q.readPort(st.portB, pb); err != nil {
			return err
		}
	}
	if in.unpackA {
		unpackAVec(in.unpack, in.unpackFloat, &q.unpA, pa)
		pa = &q.unpA
	}
	r4 := &q.acc[4]
	if in.unpackR4 {
		unpackR4Vec(in.unpack, &q.unpR4, r4)
		r4 = &q.unpR4
	}
	src := [8]*vec{&q.acc[0], &q.acc[1], &q.acc[2], &q.acc[3], r4, &q.acc[5], pa, pb}

	// Execute.
	if st.addK != nil {
		st.addK(&q.resAdd, src[in.addA&7], src[in.addB&7])
	}
	if st.mulK != nil {
		st.mulK(&q.resMul, src[in.mulA&7], src[in.mulB&7])
	}

	mAdd, mMul := uint16(0xFFFF), uint16(0xFFFF)
	if st.conditional {
		mAdd, mMul = q.stepFlags(st, src[st.flagA&7], src[st.flagB&7])
	}

	// Write back.
	q.landVarying()
	switch st.wkAdd {
	case wkNone:
	case wkPlain:
		if mAdd == 0xFFFF {
			q.storeAdd(st)
		} else {
			mergeLanesVec(q.plainVec(st.dAdd, st.nAdd), &q.resAdd, mAdd, 0xFFFFFFFF)
		}
	default:
		if err := q.writeIO(st, in, pc, true, mAdd); err != nil {
			return err
		}
	}
	switch st.wkMul {
	case wkNone:
	case wkPlain:
		if mMul == 0xFFFF {
			q.storeMul(st)
		} else {
			mergeLanesVec(q.plainVec(st.dMul, st.nMul), &q.resMul, mMul, 0xFFFFFFFF)
		}
	case wkColour:
		q.colourWrite(q.plainVec(st.colD, st.colN), in.pack)
	default:
		if err := q.writeIO(st, in, pc, false, mMul); err != nil {
			return err
		}
	}
	if in.sig == qpu.SigNone || in.sig == qpu.SigSmallImm {
		return nil
	}
	return q.signal(in, pc)
}

// portVecs returns the vectors a planned step's ports yield: a register,
// the small immediate, port A's vector again (portSame), or the port's
// scratch. A FIFO read (isFIFOPort) fills the scratch: readPort in
// execFast, a micro-operation in a bound program (bindInst).
func (q *QPU) portVecs(st *step) (pa, pb *vec) {
	pa, pb = &q.portA, &q.portB
	if st.portA == portPhys {
		pa = &q.ra[st.regA&31]
	}
	switch st.portB {
	case portPhys:
		pb = &q.rb[st.regB&31]
	case portImm:
		pb = st.imm
	case portSame:
		pb = pa
	}
	return pa, pb
}

// isFIFOPort reports whether a port plan reads a FIFO: the uniforms or
// the varyings.
func isFIFOPort(port uint8) bool { return port == portUnif || port == portVary }

// readPort makes a step's FIFO read (portUnif or portVary) into dst.
func (q *QPU) readPort(port uint8, dst *vec) error {
	if port == portVary {
		return q.readVarying(dst)
	}
	u, err := q.nextUniform()
	if err != nil {
		return err
	}
	fill(dst, u)
	return nil
}

// stepFlags is conditionsAndFlags (ref_exec.go) for a planned step: the
// elements each ALU writes, and the flags set from the result of the ALU
// they come from, whose operands are a and b.
func (q *QPU) stepFlags(st *step, a, b *vec) (mAdd, mMul uint16) {
	in := st.in
	mAdd, mMul = q.cond(in.condAdd), q.cond(in.condMul)
	if st.flagsAll {
		// Every element's flags, from the add ALU: the common case,
		// with its C rule chosen without an indirect call.
		n, z := nzFlagsVec(&q.resAdd)
		var c uint16
		switch st.carryKind {
		case carryKPositive:
			// fadd, fsub, itof: C where the result is > 0, that is
			// neither negative nor zero (addCarry).
			c = ^(n | z)
		case carryKSub:
			c = carrySubVec(a, b, &q.resAdd)
		case carryKNone:
		default:
			c = st.carry(a, b, &q.resAdd)
		}
		q.n, q.z, q.c = n, z, c
		return mAdd, mMul
	}
	if !in.sf || (in.flagsMul && in.opMul == qpu.MulNop) {
		return mAdd, mMul
	}
	r, lanes := &q.resAdd, mAdd
	if in.flagsMul {
		r, lanes = &q.resMul, mMul
	}
	n, z := nzFlagsVec(r)
	var c uint16
	if !in.flagsMul && st.carryKind == carryKPositive {
		c = ^(n | z)
	} else {
		c = st.carry(a, b, r)
	}
	q.n = q.n&^lanes | n&lanes
	q.z = q.z&^lanes | z&lanes
	q.c = q.c&^lanes | c&lanes
	return mAdd, mMul
}

// storeAdd stores the add result in the step's plain destination.
func (q *QPU) storeAdd(st *step) {
	switch st.dAdd {
	case dirAcc:
		q.acc[st.nAdd&3] = q.resAdd
	case dirRA:
		q.ra[st.nAdd&31] = q.resAdd
	case dirRB:
		q.rb[st.nAdd&31] = q.resAdd
	}
}

// storeMul stores the mul result in the step's plain destination.
func (q *QPU) storeMul(st *step) {
	switch st.dMul {
	case dirAcc:
		q.acc[st.nMul&3] = q.resMul
	case dirRA:
		q.ra[st.nMul&31] = q.resMul
	case dirRB:
		q.rb[st.nMul&31] = q.resMul
	}
}

// colourWrite is writeALU's colour pack of the mul result into register d
// with every element's condition passing: the packed words in q.packed,
// their bytes merged into d (ref_exec.go write).
func (q *QPU) colourWrite(d *vec, p qpu.Pack) {
	colourPackVec(p, d, &q.packed, &q.resMul)
}

// writeIO writes one ALU's result to a TMU, tile-buffer or other
// register as planned, in the elements of lanes (whose condition passes):
// write and writeALU in ref_exec.go for these targets.
func (q *QPU) writeIO(st *step, in *inst, pc int, isAdd bool, lanes uint16) error {
	wk, t, r, tmu := st.wkMul, in.wMul, &q.resMul, st.tmuMul
	if isAdd {
		wk, t, r, tmu = st.wkAdd, in.wAdd, &q.resAdd, st.tmu
	}
	switch wk {
	case wkTMU:
		if q.tmuAtOnce {
			return q.tmuWriteAtOnce(int(tmu)/tmuRegs, TMUReg(int(tmu)%tmuRegs), r)
		}
		return q.tmuWrite(int(tmu)/tmuRegs, TMUReg(int(tmu)%tmuRegs), r, lanes)
	case wkTLB:
		if err := q.scoreboardWait(); err != nil {
			return err
		}
		if q.env == nil {
			return errors.New("TLB write with no Env")
		}
		return q.env.TLBWrite(TLBReg(t.n), r, lanes, &q.ms)
	}
	if isAdd {
		return q.writeALU(in, pc, t, r, lanes, in.packAdd, in.addFloat, true)
	}
	return q.writeALU(in, pc, t, r, lanes, in.packMul, in.mulFloat, false)
}

// errNoEnvVarying is a varying read's error where the run has no Env.
var errNoEnvVarying = errors.New("varying read with no Env")

// readVarying is read's VARYING_READ.
func (q *QPU) readVarying(dst *vec) error {
	if q.env == nil {
		return errNoEnvVarying
	}
	if err := q.env.Varying(dst, &q.varyC); err != nil {
		return err
	}
	q.varyPend = true
	return nil
}

// execALU runs any ALU instruction of a program that does not read
// through the NOP address: ref_exec.go's execRefALU with the decisions taken at load
// time where they can be.
func execALU(q *QPU, st *step, pc int) error {
	in := st.in
	// Read phase (execRefALU in ref_exec.go).
	var pa, pb *vec
	var err error
	switch in.rdA {
	case rdNone:
		pa = &q.portA
	case rdPhys:
		pa = &q.ra[in.regA&31]
	case rdUniform:
		u, err := q.nextUniform()
		if err != nil {
			return err
		}
		fill(&q.portA, u)
		pa = &q.portA
	default:
		if pa, err = q.read(in.rdA, in.regA, false, &q.portA, in, pc); err != nil {
			return err
		}
	}
	switch {
	case in.rdB == rdNone:
		pb = &q.portB
	case in.rdB == rdPhys:
		pb = &q.rb[in.regB&31]
	case in.rdB == rdImm:
		pb = st.imm
	case in.sameFIFO:
		pb = pa
	case in.rdB == rdUniform:
		u, err := q.nextUniform()
		if err != nil {
			return err
		}
		fill(&q.portB, u)
		pb = &q.portB
	default:
		if pb, err = q.read(in.rdB, in.regB, true, &q.portB, in, pc); err != nil {
			return err
		}
	}
	if err := q.sources(in, pa, pb); err != nil {
		return err
	}

	// Execute.
	if st.addK != nil {
		st.addK(&q.resAdd, q.src[in.addA&7], q.src[in.addB&7])
	} else if in.wAdd.kind != wNone {
		staleResult(&q.resAdd)
	}
	if st.mulK != nil {
		st.mulK(&q.resMul, q.src[in.mulA&7], q.src[in.mulB&7])
		q.rotateMul(in)
	} else if in.wMul.kind != wNone {
		staleResult(&q.resMul)
	}
	mAdd, mMul := q.conditionsAndFlags(in)

	// Write back.
	q.landVarying()
	if st.dAdd != dirNone && mAdd == 0xFFFF {
		q.storeAdd(st)
	} else if in.wAdd.kind != wNone {
		if err := q.writeALU(in, pc, in.wAdd, &q.resAdd, mAdd, in.packAdd, in.addFloat, true); err != nil {
			return err
		}
	}
	if st.dMul != dirNone && mMul == 0xFFFF {
		q.storeMul(st)
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
