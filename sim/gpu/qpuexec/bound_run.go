package qpuexec

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/vccube/vccube/shaders/qpu"
)

// Running a bound program. Its unit is the micro-operation, not the
// instruction, so it cannot be the run loop of loop.go:
//   - an instruction is several micro-operations, and a micro-operation
//     can stand for none (a timed check);
//   - the loop's checks (SFU arrival, uniforms address, delayed writes,
//     thread switch, jumps) are micro-operations placed at the
//     instructions where they can fire, not tests made at every one;
//   - the instruction count is the address plus seqBase, not a counter.
//
// It shares the loop's bookkeeping functions instead: landSFU,
// landUniforms, retire, jumpLands, end and fail (loop.go). A run that may
// hang goes back to the loop itself (runOps).

// boundState is what only the bound tier keeps in a QPU.
type boundState struct {
	bnd     [maxBound]boundProg // the programs bound to this QPU
	bndNext int                 // the slot the next binding takes
	bndLast *boundProg          // the program bound last found, or nil
	// seqBase is the instruction count less the address: each jump
	// moves it.
	seqBase int
	// mAdd and mMul are a conditional instruction's write masks
	// (opFlags).
	mAdd, mMul uint16
	// banksStale says a thread switch happened: registers 16-31 are due
	// their poison (settleBanks).
	banksStale bool
	// banksDue says registers 16-31 of each file are due the poison of
	// a finished run's thread switches, put off (deferBanks) until
	// something may read them: the start of a program that may use them
	// (begin), RA and RB (landBanks).
	banksDue bool
	// endPoison says the program end happened: location 14 of each file
	// is due its poison (landEnd).
	endPoison bool
	// poison14 says location 14 of each file holds the program end's
	// poison, written by landEnd, and nothing has written it since: a
	// program that names neither (Program.names14) cannot, and begin,
	// RA and RB clear it otherwise. landEnd then has nothing to write.
	poison14 bool
	// resume, if not 0, makes the next runBound resume a run at
	// micro-operation resume-1 (Batch.resume).
	resume int
}

// runBound is Run for a bound program. Its stages:
//  1. bind the program to q, unless q has it bound already (bound);
//  2. run the micro-operations in order, but for the jumps;
//  3. at the end, end the run as the loop does (end);
//  4. on a failure, leave q as the loop leaves a failed run (failed).
//
// The simple micro-operations are done here; the others call the
// general code. Between jumps the instructions run in address order, so
// the instruction count is the address plus q.seqBase. Each jump moves
// seqBase.
//
// Stages 2 and 4 stay in this function. Measured with bench/icount on
// the cube's frame, stage 2 as a function of its own costs 3 % more
// instructions, and stage 4 as one 1 %: the compiler then keeps the
// current micro-operation in memory at every step.
//
// Inside the loop, p and b are read as q.prog and q.bndLast (q.begin
// and q.bound make them so, and a Batch begins q on p before it resumes
// it): as locals they were live in registers at the loop's head, and
// every case that calls out reloaded both from the stack before going
// round again (two loads a micro-operation after a call: 133 reloads in
// the loop's code against 11, -0.8 % of the cube's 1080p frame,
// bench/icount).
//
// With q.resume set it resumes a run a Batch began instead, at
// micro-operation q.resume-1: q's state is that run's, env and s
// unused. (As a parameter, the start cost the loop 2.6 % more
// instructions: bench/icount, glmark2 conditionals.)
func (q *QPU) runBound(p *Program, env Env, s *Start) (Result, error) {
	b := q.bndLast
	if b == nil || b.p != p {
		b = q.bound(p)
	}
	u := &b.ops[0]
	if q.resume == 0 {
		q.begin(p, env, s)
		q.banksStale, q.endPoison = false, false
		q.seqBase = 0
	} else {
		u = &b.ops[q.resume-1]
		q.resume = 0
	}
	// A micro-operation that fails jumps to failed with err: the loop
	// itself carries no error. The loop walks the micro-operations by
	// pointer to the last, opDone (bound): with no index and no length
	// to keep, the step between two is about 6 instructions fewer (bench/icount
	// on the cube's frame).
	var err error
	for {
		switch u.op {
		case opKernel:
			u.k(u.d, u.a, u.b)
			if u.w != nil {
				copyVec(u.w, u.d)
			}
			if u.kNext {
				goto kernels
			}
		case opCopy:
			copyVec(u.d, u.a)
			if u.kNext {
				goto kernels
			}
		case opCopyK:
			copyVec(u.d, u.a)
			if u.w != nil {
				copyVec(u.w, u.a)
			}
		case opUnpackA:
			unpackAVec(u.in.unpack, u.in.unpackFloat, u.d, u.a)
		case opUnpackR4:
			unpackR4Vec(u.in.unpack, u.d, u.a)
			if u.kNext {
				goto kernels
			}
		case opCopyColour:
			copyVec(&q.resMul, u.a)
			fallthrough
		case opColour:
			q.colourWrite(u.d, qpu.Pack(u.n))
		case opColours:
			colourPacks(u.d, &q.packed, &q.resMul, (*colourStep)(unsafe.Pointer(u.a)), int(u.n))
		case opUniform:
			x, ok := q.unifWord()
			if !ok {
				if x, err = q.popUniform(); err != nil {
					goto failed
				}
			}
			fill(u.d, x)
			if u.kNext {
				goto kernels
			}
		case opVarying:
			if err = q.readVarying(u.d); err != nil {
				goto failed
			}
		case opVaryingR5:
			if err = q.readVarying(u.d); err != nil {
				goto failed
			}
			copyVec(&q.acc[5], &q.varyC)
			q.varyPend = false
		case opR5:
			q.landVarying()
			if u.kNext {
				goto kernels
			}
		case opFlags:
			q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
		case opCond:
			q.mAdd, q.mMul = q.cond(u.in.condAdd), q.cond(u.in.condMul)
		case opKernelIf:
			u.k(u.d, u.a, u.b)
			q.mAdd, q.mMul = q.cond(u.in.condAdd), q.cond(u.in.condMul)
			condCopy(u.w, u.d, q.mAdd)
		case opCopyIf:
			copyVec(u.d, u.a)
			q.mAdd, q.mMul = q.cond(u.in.condAdd), q.cond(u.in.condMul)
			condCopy(u.w, u.a, q.mAdd)
		case opKernelFlags:
			u.k(u.d, u.a, u.b)
			q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
		case opCopyFlags:
			copyVec(u.d, u.a)
			q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
		case opSubFlags:
			// stepFlags' masks first: they read the flags before.
			q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
			q.n, q.z, q.c = subFlagsVec(u.d, u.a, u.b)
		case opSubFlagsIf:
			// stepFlags for flags under a condition: only the elements
			// of the add's condition take the new flags.
			q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
			n, z, c := subFlagsVec(u.d, u.a, u.b)
			m := q.mAdd
			q.n, q.z, q.c = q.n&^m|n&m, q.z&^m|z&m, q.c&^m|c&m
		case opKernelNZ:
			u.k(u.d, u.a, u.b)
			q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
			n, z := nzFlagsVec(&q.resAdd)
			q.n, q.z, q.c = n, z, ^(n|z)&uint16(u.n)
		case opFloatNZ:
			n, z, ok := faddFlagsVec(u.d, u.a, u.b, uint32(u.n)<<31)
			if !ok {
				u.k(u.d, u.a, u.b)
				n, z = nzFlagsVec(&q.resAdd)
			}
			q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
			q.n, q.z, q.c = n, z, ^(n | z)
		case opCopyNZ:
			copyVec(u.d, u.a)
			q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
			n, z := nzFlagsVec(&q.resAdd)
			q.n, q.z, q.c = n, z, ^(n|z)&uint16(u.n)
		case opUniformCopy, opUniformKernel:
			x, ok := q.unifWord()
			if !ok {
				if x, err = q.popUniform(); err != nil {
					goto failed
				}
			}
			fill(u.w, x)
			if u.op == opUniformCopy {
				copyVec(u.d, u.w)
			} else {
				u.k(u.d, u.a, u.b)
			}
			if u.kNext {
				goto kernels
			}
		case opVaryingKernel:
			// readVarying, inline.
			if q.env == nil {
				err = errNoEnvVarying
				goto failed
			}
			if err = q.env.Varying(u.w, &q.varyC); err != nil {
				goto failed
			}
			q.varyPend = true
			u.k(u.d, u.a, u.b)
			if u.kNext {
				goto kernels
			}
		case opVaryingR5Kernel:
			// readVarying, inline, and its C to r5 at once.
			if q.env == nil {
				err = errNoEnvVarying
				goto failed
			}
			if err = q.env.Varying(u.w, &q.varyC); err != nil {
				goto failed
			}
			copyVec(&q.acc[5], &q.varyC)
			q.varyPend = false
			u.k(u.d, u.a, u.b)
			if u.kNext {
				goto kernels
			}
		case opVaryingFAddFMul:
			// readVarying, inline, the fadd and the fmul, then the C
			// to r5 (opR5).
			if q.env == nil {
				err = errNoEnvVarying
				goto failed
			}
			if err = q.env.Varying(u.d, &q.varyC); err != nil {
				goto failed
			}
			// runVaryStep, inline.
			if left := varyAddMul(varyStepOf(u)); left != 0 {
				varyLeft(varyStepOf(u), left)
			}
			copyVec(&q.acc[5], &q.varyC)
			q.varyPend = false
			if u.kNext {
				goto kernels
			}
		case opCopyTMUWrite:
			copyVec(u.a, u.b)
			fallthrough
		case opTMUWrite:
			if !q.tmuAtOnce {
				if err = q.tmuWrite(int(u.to)/tmuRegs, TMUReg(int(u.to)%tmuRegs), u.a, 0xFFFF); err != nil {
					goto failed
				}
				break
			}
		tmuNext:
			// tmuWriteAtOnce with its uniform pop and parameter count
			// decided at bind (ioForm).
			var x uint32
			direct := u.n&tmuDirect != 0
			if !direct {
				var ok bool
				if x, ok = q.unifWord(); !ok {
					if x, err = q.popUniform(); err != nil {
						goto failed
					}
				}
			}
			// to is unit·tmuRegs + reg, never negative: unsigned, the
			// division and the remainder are a shift and a mask.
			t := int(uint32(u.to)/uint32(tmuRegs)) ^ q.tmuSwap
			q.tmuParams[t&1] = int(u.n &^ tmuDirect)
			if err = q.start.TMU[t&1].WriteAtOnce(int(uint32(u.to)%uint32(tmuRegs)), u.a, x, direct); err != nil {
				goto failed
			}
			// A request's writes come one after another (the cube's
			// and Mesa's T then S): the next one runs without a
			// dispatch.
			if v := (*uop)(unsafe.Add(unsafe.Pointer(u), unsafe.Sizeof(uop{}))); v.op == opTMUWrite {
				u = v
				goto tmuNext
			}
		case opColoursTLBWrite:
			colourPacks(u.d, &q.packed, &q.resMul, (*colourStep)(unsafe.Pointer(u.w)), int(u.n))
			fallthrough
		case opCopyTLBWrite:
			copyVec(u.a, u.b)
			fallthrough
		case opTLBWrite:
			if !q.sbWaited {
				if err = q.scoreboardWaitFirst(); err != nil {
					goto failed
				}
			}
			if q.env == nil {
				err = errors.New("TLB write with no Env")
				goto failed
			}
			if err = q.env.TLBWrite(TLBReg(u.to), u.a, 0xFFFF, &q.ms); err != nil {
				goto failed
			}
		case opLoadTMU:
			if q.tmuAtOnce {
				q.start.TMU[int(u.n)^q.tmuSwap].ReceiveAtOnce(&q.acc[4])
			} else if err = q.tmuLoad(int(u.n)); err != nil {
				goto failed
			}
		case opUnlock, opUnlockDone:
			if !q.start.InOrder {
				if err = q.signal(u.in, int(u.pc)); err != nil {
					goto failed
				}
			}
			if u.op == opUnlockDone {
				goto done
			}
		case opUnifAddr:
			// write's wUnifAddr, as instruction pc: the new stream starts
			// three instructions on (moveUniforms at opUnifLand).
			q.unifNext, q.unifAt = u.a[0], int(u.pc)+4+q.seqBase
		case opCopyAdd:
			condCopy(u.d, u.a, q.mAdd)
		case opCopyMul:
			condCopy(u.d, u.a, q.mMul)
		case opWriteAdd:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = q.writeIO(u.st, u.st.in, int(u.pc), true, uint16(u.n)); err != nil {
				goto failed
			}
		case opWriteMul:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = q.writeIO(u.st, u.st.in, int(u.pc), false, uint16(u.n)); err != nil {
				goto failed
			}
		case opWriteAddIf:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = q.writeIO(u.st, u.st.in, int(u.pc), true, q.mAdd); err != nil {
				goto failed
			}
		case opWriteMulIf:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = q.writeIO(u.st, u.st.in, int(u.pc), false, q.mMul); err != nil {
				goto failed
			}
		case opSignal:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = q.signal(u.in, int(u.pc)); err != nil {
				goto failed
			}
		case opEnd:
			// programEnd, with its two writes of location 14 made
			// directly at opRetire instead of through the pending
			// writes.
			q.seq = int(u.pc) + 1 + q.seqBase
			q.endAt = q.seq + 2
			q.endPoison = true
		case opSFU:
			// write's wSFU: the result arrives three instructions on.
			sfuFast(int(u.n), &q.sfuVal, u.a)
			q.sfuAt = int(u.pc) + 4 + q.seqBase
		case opBranch:
			q.branch(u, int(u.pc)+1+q.seqBase)
		case opBranchJump:
			if !q.branchNow(u, int(u.pc)+1+q.seqBase) {
				break
			}
			// The jump lands after the third delay slot, at pc+3.
			seq := int(u.pc) + 4 + q.seqBase
			if seq+len(q.prog.code) >= runLimit {
				q.seq = seq
				q.settleBanks()
				return q.run(q.prog, q.prog.steps, int(u.to))
			}
			q.seqBase += int(u.pc) + 4 - int(u.to)
			u = &q.bndLast.ops[u.n]
			continue
		case opStep:
			q.seq = int(u.pc) + 1 + q.seqBase
			if err = u.st.exec(q, u.st, int(u.pc)); err != nil {
				goto failed
			}
		// The run loop's checks at the instructions where they can
		// fire (see bind).
		case opSFULand:
			q.landSFU(int(u.n) + q.seqBase)
		case opUnifLand:
			q.moveUniforms(int(u.n) + q.seqBase)
		case opEndRetire:
			// opEnd, and opRetire after it.
			q.seq = int(u.pc) + 1 + q.seqBase
			q.endAt = q.seq + 2
			q.endPoison = true
			fallthrough
		case opRetire:
			// The program end's writes, made by the instruction before
			// (a straight-line program has no other delayed write).
			q.landEnd()
			if q.npend > 0 {
				q.retire(q.npend)
			}
			// A fragment shader's last sbdone and the run's end come
			// next (opUnlockDone); in order, the sbdone has nothing
			// to do, and the run ends without another dispatch.
			if q.start.InOrder && (*uop)(unsafe.Add(unsafe.Pointer(u), unsafe.Sizeof(uop{}))).op == opUnlockDone {
				goto done
			}
		case opSwitch:
			if q.switchAt == int(u.n)+q.seqBase {
				q.boundSwitch()
			}
		case opJump:
			seq := int(u.pc) + 1 + q.seqBase
			to, ok := q.jumpLands(seq)
			if !ok {
				break
			}
			if seq+len(q.prog.code) >= runLimit {
				// The run may be a hang: the step loop counts it to
				// the instruction where the run loop stops it.
				q.seq = seq
				q.settleBanks()
				return q.run(q.prog, q.prog.steps, to)
			}
			q.seqBase += int(u.pc) + 1 - to
			u = &q.bndLast.ops[u.n]
			continue
		case opDone:
			goto done
		}
		u = (*uop)(unsafe.Add(unsafe.Pointer(u), unsafe.Sizeof(uop{})))
		continue
	kernels:
		// The kernels after u, run without a dispatch (kNext: the cases
		// that most often come before a kernel look at it, so that the
		// others do not pay for it).
		for u.kNext {
			u = (*uop)(unsafe.Add(unsafe.Pointer(u), unsafe.Sizeof(uop{})))
			u.k(u.d, u.a, u.b)
			if u.w != nil {
				copyVec(u.w, u.d)
			}
		}
		u = (*uop)(unsafe.Add(unsafe.Pointer(u), unsafe.Sizeof(uop{})))
	}
done:
	q.deferBanks()
	q.seq = len(q.prog.code) + q.seqBase
	if q.npend > 0 || q.vrn > 0 {
		return q.end(len(q.prog.code) - 1)
	}
	// end with nothing to do.
	return Result{Instructions: q.seq, HostInterrupt: q.hostInt}, nil

failed:
	// Leave q as the run loop leaves a failed run (boundFailed, kept
	// here for the reason above).
	if u.fix != 0 {
		q.bndLast.fixes[u.fix-1].restore(q)
	}
	q.seq = int(u.pc) + 1 + q.seqBase
	q.landEnd()
	q.settleBanks()
	return q.result(), q.fail(int(u.pc), err)
}

// execIO is runBound's case of u, one of the fused reads and the I/O
// forms of fuse, for Batch.lockstep.
func (q *QPU) execIO(u *uop) error {
	switch u.op {
	case opUniformCopy, opUniformKernel:
		x, err := q.nextUniform()
		if err != nil {
			return err
		}
		fill(u.w, x)
		if u.op == opUniformCopy {
			fill(u.d, x)
		} else {
			u.k(u.d, u.a, u.b)
		}
	case opVaryingKernel, opVaryingR5Kernel:
		if err := q.readVarying(u.w); err != nil {
			return err
		}
		if u.op == opVaryingR5Kernel {
			copyVec(&q.acc[5], &q.varyC)
			q.varyPend = false
		}
		u.k(u.d, u.a, u.b)
	case opVaryingFAddFMul:
		if err := q.readVarying(u.d); err != nil {
			return err
		}
		runVaryStep(varyStepOf(u))
		q.landVarying()
	case opCopyColour:
		copyVec(&q.resMul, u.a)
		q.colourWrite(u.d, qpu.Pack(u.n))
	case opColours:
		colourPacks(u.d, &q.packed, &q.resMul, (*colourStep)(unsafe.Pointer(u.a)), int(u.n))
	case opCopyTMUWrite, opTMUWrite:
		if u.op == opCopyTMUWrite {
			copyVec(u.a, u.b)
		}
		if q.tmuAtOnce {
			return q.tmuWriteAtOnce(int(u.to)/tmuRegs, TMUReg(int(u.to)%tmuRegs), u.a)
		}
		return q.tmuWrite(int(u.to)/tmuRegs, TMUReg(int(u.to)%tmuRegs), u.a, 0xFFFF)
	case opColoursTLBWrite, opCopyTLBWrite, opTLBWrite:
		if u.op == opColoursTLBWrite {
			colourPacks(u.d, &q.packed, &q.resMul, (*colourStep)(unsafe.Pointer(u.w)), int(u.n))
		}
		if u.op != opTLBWrite {
			copyVec(u.a, u.b)
		}
		return q.tlbWrite(TLBReg(u.to), u.a)
	case opLoadTMU:
		return q.tmuLoad(int(u.n))
	case opEndRetire:
		q.seq = int(u.pc) + 1 + q.seqBase
		q.endAt = q.seq + 2
		q.endPoison = true
		q.landEnd()
		if q.npend > 0 {
			q.retire(q.npend)
		}
	case opUnlock, opUnlockDone:
		if !q.start.InOrder {
			return q.signal(u.in, int(u.pc))
		}
	}
	return nil
}

// unifWord is the uniform stream's next word when the span read last
// holds it (ok), as popUniform would read it, or false for popUniform to
// find it. It reads the word with one bounds check, against the span's
// length: the slice expression and binary.LittleEndian.Uint32 of
// q.unifBuf[q.unifOff:] made two more and the slice's pointer arithmetic,
// about 8 instructions a read (bench/icount; the cube's fragment shader
// reads seven a block). q.unifOff is never negative: every assignment is
// a span's offset (mem.View.Span's, a uint32) or a step of 4 past one.
func (q *QPU) unifWord() (uint32, bool) {
	off := q.unifOff
	if off+4 > len(q.unifBuf) {
		return 0, false
	}
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(q.unifBuf)), off)
	x := binary.LittleEndian.Uint32((*[4]byte)(p)[:])
	q.unifOff = off + 4
	q.unifAddr += 4
	return x, true
}

// tlbWrite is writeIO's write of every element of v to tile-buffer
// register reg.
func (q *QPU) tlbWrite(reg TLBReg, v *vec) error {
	if !q.sbWaited {
		if err := q.scoreboardWaitFirst(); err != nil {
			return err
		}
	}
	if q.env == nil {
		return errors.New("TLB write with no Env")
	}
	return q.env.TLBWrite(reg, v, 0xFFFF, &q.ms)
}

// condCopy is a conditional write's copy of a into d in the elements of
// mask (ref_exec.go mergeLanes). Conditions are most often the same in
// every element (a loop's count, a uniform's test): all of them copy the
// whole vector, none copies nothing.
func condCopy(d, a *vec, mask uint16) {
	switch mask {
	case 0xFFFF:
		copyVec(d, a)
	case 0:
	default:
		mergeLanesVec(d, a, mask, 0xFFFFFFFF)
	}
}

// branch is opBranch, u's static branch run as instruction seq:
// execBranch (ref_exec.go) for a branch bindable has placed (at least
// three instructions from the one before, whatever jumps came between),
// which writes nothing. A taken branch leaves its link address in both
// result latches and its jump pending, to land at opJump.
func (q *QPU) branch(u *uop, seq int) {
	if q.branchNow(u, seq) {
		q.jumps[q.njumps] = jump{at: seq + 3, to: int(u.n)}
		q.njumps++
	}
}

// branchNow is branch without the pending jump: whether the branch is
// taken, with its link address in the latches if it is.
func (q *QPU) branchNow(u *uop, seq int) bool {
	q.lastBr = seq
	if !q.branchTaken(u.in.brCond) {
		return false
	}
	fill(&q.resAdd, q.prog.link(int(u.pc)))
	copyVec(&q.resMul, &q.resAdd)
	return true
}

// moveUniforms is landUniforms (loop.go) in a bound run: a new address
// inside the memory span the stream reads from now stays in that span,
// without looking it up again (setUniforms, popUniform). mem.View.Span
// gives the whole region holding an address, so it would give the same
// bytes; the view's regions do not change during a run. Mesa's loops
// rewind the stream to the same buffer at every turn (glmark2 loop).
func (q *QPU) moveUniforms(seq int) {
	if q.unifAt != seq {
		return
	}
	q.unifAt = 0
	addr := q.unifNext
	base := q.unifAddr - uint32(q.unifOff) // the span's first byte
	if q.unifBuf != nil && addr-base < uint32(len(q.unifBuf)) {
		q.unifAddr, q.unifOff = addr, int(addr-base)
		return
	}
	q.setUniforms(addr)
}

// landEnd makes opEnd's writes: the poison programEnd (loop.go) puts in
// location 14 of each file, unless it is there already (poison14). A
// fragment shader that never names them ends block after block with the
// same 128 bytes to write: two of the cube's eleven 64-byte copies a
// block.
func (q *QPU) landEnd() {
	if q.endPoison {
		if !q.poison14 {
			copyVec(&q.ra[14], &poisonVec)
			copyVec(&q.rb[14], &poisonVec)
			// The instructions after the end may write them.
			q.poison14 = !q.prog.names14
		}
		q.endPoison = false
	}
}

// boundSwitch is a bound program's thread switch. A threaded program
// never touches registers 16-31: a strict load refuses one that does
// (program.go extraChecks). So their poison is put there once, when the
// run ends (settleBanks). Mesa's threaded shaders switch at every
// texture fetch.
func (q *QPU) boundSwitch() {
	if !q.prog.Opts.Threaded {
		q.threadSwitch()
		return
	}
	q.switchAccumulators()
	q.banksStale = true
}

// settleBanks puts in registers 16-31 what the run's thread switches
// left there.
func (q *QPU) settleBanks() {
	if q.banksStale {
		q.poisonBanks()
		q.banksStale = false
	}
}

// deferBanks is settleBanks at a run's end: the poison is left due
// (banksDue) instead of written. Until a program that may use registers
// 16-31 starts, nothing reads them (a strict threaded program cannot
// name them, program.go extraChecks), and the poison is the same
// whenever it lands. Writing it, 2 KiB, at the end of every run with a
// thread switch was about 390 instructions a run (callgrind, kmscube
// rgba, whose fragment shader switches at its texture fetch).
func (q *QPU) deferBanks() {
	if q.banksStale {
		q.banksStale = false
		q.banksDue = true
	}
}

// landBanks writes the poison deferBanks left due.
func (q *QPU) landBanks() {
	if q.banksDue {
		q.poisonBanks()
		q.banksDue = false
	}
}
