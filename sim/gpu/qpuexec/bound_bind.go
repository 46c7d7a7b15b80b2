package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// Bound programs: the fastest path. It is for a program whose every run
// takes its instructions in address order between jumps known at load.
// The cube's programs are such, and most of Mesa's, loops and if/else
// branches included. A program binds (bindable) when:
//   - it has one program end, at the third instruction from the end,
//     where the fetch put it;
//   - its register writes land at once (strict, jumpsNeedWriteDelay);
//   - it reads nothing through the NOP address;
//   - its branches have static targets and are at least four
//     instructions apart;
//   - no timed event (an SFU result, a uniforms address, a thread switch)
//     is in flight across a jump.
//
// Then the run loop's bookkeeping (loop.go) happens at instructions known
// at load: the counting, the SFU and uniforms-address arrivals, the
// thread switch, the program end's delayed writes and end, the jumps.
//
// Such a program is bound once to each QPU that runs it. Binding turns it
// into micro-operations with pointers into that QPU's registers:
//   - the operands of each kernel;
//   - the destination of each result;
//   - the loop's checks, placed at the instructions where the loop would
//     make them. They are the loop's own functions: an SFU result lands
//     where sfuAt says, a jump happens where the branch's pending jump
//     says.
//
// A bound instruction does what its step (step_exec.go) does. An
// instruction the binder does not break up runs its step. A branch with
// an immediate target that writes nothing is one micro-operation
// (opBranch), and so is a condition that sets no flags (opCond); a load
// immediate without flags, conditions or packs is two copies
// (plainLoadImm). bound_run.go runs the micro-operations.
//
// QPU.Reference, and every other program, run in the loop of loop.go.

// uop is one micro-operation of a bound program.
type uop struct {
	op         uint8  // op*
	kNext      bool   // the next micro-operation is an opKernel, which runBound runs after this one without a dispatch (fuse)
	fix        uint16 // if not 0, boundProg.fixes[fix-1] says what a failure here must put in the result latches
	to         int32  // opBranchJump: the instruction the jump lands on
	k          kernel
	d, a, b, w *vec // kernel destination and operands; w: a whole-vector copy of d's result
	in         *inst
	st         *step
	pc         int32
	n          int32
}

// boundProg is a program bound to one QPU.
type boundProg struct {
	p     *Program
	ops   []uop
	fixes []latchFix
	// floats counts the float kernels with a batch form (batch.go
	// floatN) among ops, before fuse; paysBatch says they are enough of
	// ops, then, for a Batch to take the program (Batch.Takes).
	floats    int
	paysBatch bool
	// steps holds the chains' steps (chains): a chain's d points into it.
	steps []chainStep
	// colours holds the colour runs' steps (colourRuns): an opColours'
	// a points into it.
	colours []colourStep
}

// maxBound is the number of programs a QPU keeps bound: the render
// model's QPUs run one fragment shader, or a vertex and a coordinate
// shader, at a time.
const maxBound = 8

// jumpPoint is where a bound program's jump can happen: after
// instruction at (a branch's third delay slot), to instruction to.
type jumpPoint struct{ at, to int }

// bindable reports whether p runs bound (see above), and lists its jump
// points in p.jumpPts.
func (p *Program) bindable() bool {
	n := len(p.code)
	p.jumpPts = nil
	if p.delayWrites || p.usesLast || n < 3 {
		return false
	}
	lastBranch := -4
	for i := range p.Insts {
		in := &p.Insts[i]
		if in.IsBranch() {
			// Static, inside the program, not into the program end's
			// delay slots (the run would leave the program), landing
			// before the end; no branch in another's delay slots (ref_exec.go
			// execBranch: neither is taken).
			c := &p.code[i]
			t, ok := p.staticTarget(i)
			if !ok || c.brReg || i-lastBranch <= 3 || i+3 > n-4 || t > n-3 {
				return false
			}
			lastBranch = i
			p.jumpPts = append(p.jumpPts, jumpPoint{at: i + 3, to: t})
			continue
		}
		if in.Kind() != qpu.KindLoadImm && in.Kind() != qpu.KindSemaphore && in.EndsProgram() != (i == n-3) {
			return false
		}
	}
	// An SFU result or a new uniforms address arrives three instructions
	// after its write, a thread switch two after its signal: none may
	// have a jump in between.
	for i := range p.code {
		c := &p.code[i]
		window := 0
		for _, t := range [2]wtarget{c.wAdd, c.wMul} {
			if t.kind == wSFU || t.kind == wUnifAddr {
				window = 3
			}
		}
		if c.kind == kALU && (c.sig == qpu.SigThreadSwitch || c.sig == qpu.SigLastThreadSwitch) {
			window = max(window, 2)
		}
		for _, j := range p.jumpPts {
			if j.at >= i && j.at < i+window {
				return false
			}
		}
	}
	return true
}

// staticTarget returns the instruction branch b jumps to, if it is an
// immediate (absolute or relative) address of one of p's instructions.
func (p *Program) staticTarget(b int) (int, bool) {
	c := &p.code[b]
	if c.kind != kBranch || c.brReg {
		return 0, false
	}
	t := c.imm
	if c.brRel {
		t += p.link(b)
	}
	return p.index(t)
}

// bound returns p bound to q, binding it if q has not run it lately.
func (q *QPU) bound(p *Program) *boundProg {
	if b := q.bndLast; b != nil && b.p == p {
		// A fragment shader runs block after block.
		return b
	}
	for i := range q.bnd {
		if q.bnd[i].p == p {
			q.bndLast = &q.bnd[i]
			return q.bndLast
		}
	}
	b := &q.bnd[q.bndNext]
	q.bndNext = (q.bndNext + 1) % len(q.bnd)
	b.p = p
	b.ops = q.bind(p, b.ops[:0])
	b.ops, b.fixes = q.directWrites(b.ops, b.fixes[:0])
	b.floats = 0
	for i := range b.ops {
		if b.ops[i].op == opKernel && b.ops[i].n != 0 {
			b.floats++
		}
	}
	b.paysBatch = hasFloatN() && 100*b.floats >= minFloatShare*len(b.ops)
	if !b.paysBatch && hasVaryAddMul() {
		b.ops = varyingPairs(b.ops)
	}
	b.ops = q.fuse(b.ops, !b.paysBatch)
	b.ops = b.chains(q, kernels, b.ops)
	b.ops = b.colourRuns(q, b.ops)
	// runBound's loop ends at opDone, which it needs no length to find.
	b.ops = append(b.ops, uop{op: opDone, pc: int32(len(p.code) - 1)})
	if n := len(b.ops); n > 1 && b.ops[n-2].op == opUnlock {
		// The thread's last signal (no jump lands on the last two
		// instructions: bindable): opUnlock, then opDone.
		b.ops[n-2].op = opUnlockDone
	}
	q.bndLast = b
	return b
}

// Fused micro-operations: the sequences one instruction's
// micro-operations most often form in Mesa's shaders, done by one
// dispatch. fuse makes them after directWrites, from:
//   - a kernel (or copy) into the add latch, opCond, and opCopyAdd of
//     that latch: a conditional write of the add ALU (opKernelIf,
//     opCopyIf; the conditional destination in w);
//   - a kernel (or copy) into the latch flags come from, and opFlags
//     with the kernel's operands: an instruction that sets flags
//     (opKernelFlags, opCopyFlags; a sub that sets every element's
//     flags, Mesa's loop counts and comparisons, is opSubFlags);
//   - opBranch and its opJump with no micro-operation between them (the
//     delay slots are nops): the branch and, if taken, the jump at once
//     (opBranchJump). Nothing between them could see the pending jump;
//   - a uniform read and the copy of it into a register (Mesa's and the
//     cube's mov r, unif: opUniformCopy), or the kernel after it
//     (opUniformKernel); a varying read and the kernel after it
//     (opVaryingKernel, opVaryingR5Kernel: the cube's fmul r, ra15,
//     vary). The kernel cannot fail, so a failure is the read's, with
//     its fix;
//   - an unconditional TMU or tile-buffer write, with writeIO's
//     decisions (which register, which latch) taken here (opTMUWrite,
//     opTLBWrite), and the ldtmu and sbdone signals without signal's
//     switch (opLoadTMU, opUnlock).
//
// A float kernel with a batch form stays alone where a Batch takes the
// program for its float kernels (paysBatch): the lockstep calls it once
// for all the blocks.
const (
	opKernelIf    = opSFU + 1 + iota // k(d, a, b); the masks (opCond, in); w = d in the elements of q.mAdd
	opCopyIf                         // d = a; the masks; w = a in the elements of q.mAdd
	opKernelFlags                    // k(d, a, b); masks and flags (opFlags, st) from a and b
	opCopyFlags                      // d = a; masks and flags from a and b
	opBranchJump                     // opBranch at pc, to instruction to; if taken, the jump after pc+3 to micro-operation n
	opSubFlags                       // opKernelFlags of sub, with flagsAll: d = a - b and every element's flags in one pass (subFlagsVec)
	opSubFlagsIf                     // opKernelFlags of sub setting the flags of the elements of a condition (add ALU, not flagsAll): subFlagsVec, merged in q.mAdd's elements
	opKernelNZ                       // opKernelFlags with flagsAll and a C of 0 or "> 0": k(d, a, b), the masks, N and Z of the add latch, C = ^(N|Z) & n
	opCopyNZ                         // opCopyFlags so: d = a, the masks, N and Z of the add latch, C = ^(N|Z) & n
	opFloatNZ                        // opKernelNZ of fadd (n 0) or fsub (n 1): the kernel and N and Z in one pass where faddFlagsVec has it, C where > 0
	opNone                           // directWrites: a load immediate's copy into a latch nothing reads, which fuse leaves out
	opUnifAddr                       // bindInst: an unpacked write of a to unif_addr (ref_exec.go write: element 0, whatever the condition), which cannot fail
)

// The fused reads and the I/O forms (fuse, fuseIO, ioForm).
const (
	opUniformCopy     = opUnifAddr + 1 + iota // opUniform into w, then opCopy of it into d: mov from unif into a register
	opUniformKernel                           // opUniform into w, then the kernel k(d, a, b) that follows it (w of its own nil)
	opVaryingKernel                           // opVarying into w, then the kernel k(d, a, b) that follows it
	opVaryingR5Kernel                         // opVaryingR5 into w, then the kernel k(d, a, b) that follows it
	opTMUWrite                                // opWriteAdd or opWriteMul of every element to TMU register to (unit·tmuRegs + reg) from latch a; n: see ioForm
	opTLBWrite                                // opWriteAdd or opWriteMul of every element to tile-buffer register to from latch a
	opLoadTMU                                 // opSignal of ldtmu0 (n 0) or ldtmu1 (n 1)
	opUnlock                                  // opSignal of sbdone
	opDone                                    // the end of the micro-operations (runBound's loop has no length)
	opCopyColour                              // opCopyK of a into the mul latch, then opColour of it (n, d): a mov with a colour pack
	opCopyTMUWrite                            // opCopyK of b into latch a, then opTMUWrite of it: mov tmu0_s, r0
	opEndRetire                               // opEnd, then opRetire (the delay slot between them has no micro-operation)
	opUnlockDone                              // opUnlock, then opDone (bound)
	opCopyTLBWrite                            // opCopyK of b into latch a, then opTLBWrite of it: mov tlb_z, rb15
	opColours                                 // n opCopyColour into d in a row (colours.go): colourPacks of the steps a points to
	opColoursTLBWrite                         // opColours of the steps w points to, then opCopyTLBWrite of d (b) into latch a
	opVaryingFAddFMul                         // opVarying into d, the fadd and fmul of the varyStep a points to (runVaryStep), then opR5 (varyings.go)
)

// fuse returns ops with the sequences above fused, each jump's landing
// moved with them; floats says whether float kernels with a batch form
// may be fused.
func (q *QPU) fuse(ops []uop, floats bool) []uop {
	at := make([]int32, len(ops)+1) // each micro-operation's new index
	landing := landings(ops)
	out := ops[:0] // fused in place: out never passes i

	var tmuParams [2]int32 // ioForm's count of T, R and B writes since each TMU's S
	for i := 0; i < len(ops); {
		at[i] = int32(len(out))
		u := ops[i]
		if u.op == opNone {
			i++
			continue
		}
		kern := (u.op == opKernel && (u.n == 0 || floats)) || u.op == opCopyK
		if kern && u.w == nil && u.fix == 0 && i+1 < len(ops) {
			v := &ops[i+1]
			switch {
			case i+2 < len(ops) && u.d == &q.resAdd && v.op == opCond && v.pc == u.pc &&
				ops[i+2].op == opCopyAdd && ops[i+2].a == &q.resAdd && ops[i+2].pc == u.pc:
				u.op, u.in, u.w = opKernelIf, v.in, ops[i+2].d
				if u.k == nil {
					u.op = opCopyIf
				}
				at[i+1], at[i+2] = at[i], at[i]
				out = append(out, u)
				i += 3
				continue
			case v.op == opFlags && v.pc == u.pc && v.a == u.a && (v.b == u.b || u.k == nil) &&
				(u.d == &q.resMul) == v.st.in.flagsMul:
				// (A copy reads a alone; the flags' carry may read b.)
				u.op, u.st, u.b = opKernelFlags, v.st, v.b
				sub := v.st.in.opAdd == qpu.AddSub && !v.st.addCopy && u.d == &q.resAdd
				// stepFlags' C rules that need no operand: none, and
				// "> 0" (carryKPositive), as a mask of N|Z's complement.
				nz := v.st.flagsAll && u.d == &q.resAdd &&
					(v.st.carryKind == carryKNone || v.st.carryKind == carryKPositive)
				switch {
				case u.k == nil && nz:
					u.op = opCopyNZ
				case u.k == nil:
					u.op = opCopyFlags
				case v.st.flagsAll && sub:
					u.op = opSubFlags
				case sub && v.st.in.sf && !v.st.in.flagsMul:
					u.op = opSubFlagsIf
				case nz:
					u.op = opKernelNZ
				}
				if nz {
					u.n = 0
					if v.st.carryKind == carryKPositive {
						u.n = 0xFFFF
					}
				}
				if op := v.st.in.opAdd; u.op == opKernelNZ && (op == qpu.AddFAdd || op == qpu.AddFSub) && hasFAddFlags() {
					u.op, u.n = opFloatNZ, 0
					if op == qpu.AddFSub {
						u.n = 1
					}
				}
				at[i+1] = at[i]
				out = append(out, u)
				i += 2
				continue
			}
		}
		if i+1 < len(ops) && !landing[i+1] {
			if op, ok := q.fusePair(&u, &ops[i+1], &tmuParams); ok {
				u.op = op
				at[i+1] = at[i]
				out = append(out, u)
				i += 2
				continue
			}
			var next *uop
			if i+2 < len(ops) {
				next = &ops[i+2]
			}
			if op, ok := q.fuseIO(&u, &ops[i+1], next, floats); ok {
				u.op = op
				at[i+1] = at[i]
				out = append(out, u)
				i += 2
				continue
			}
		}
		switch u.op {
		case opWriteAdd, opWriteMul:
			src := u.b // directWrites: the mov's source, in place of the latch
			u.op = q.ioForm(&u, &tmuParams)
			if src != nil {
				u.a, u.b = src, nil
			}
		case opSignal:
			switch u.in.sig {
			case qpu.SigLoadTMU0, qpu.SigLoadTMU1:
				u.op, u.n = opLoadTMU, int32(u.in.sig-qpu.SigLoadTMU0)
			case qpu.SigScoreboardUnlock:
				u.op = opUnlock
			}
		}
		// (A jump landing in the delay slots reaches the opJump alone.)
		if u.op == opBranch && i+1 < len(ops) && ops[i+1].op == opJump && ops[i+1].pc == u.pc+3 && !landing[i+1] {
			u.op, u.to, u.n = opBranchJump, u.n, ops[i+1].n
			at[i+1] = at[i]
			out = append(out, u)
			i += 2
			continue
		}
		out = append(out, u)
		i++
	}
	// (The kernels stay in place: a jump may land on one, and the
	// lockstep runs each on its own.)
	return relink(out, at)
}

// landings marks the micro-operations of ops a jump can land on (and
// len(ops), the end): a fusion must not swallow one, as a jump there
// would skip what the fused operation did before it.
func landings(ops []uop) []bool {
	landing := make([]bool, len(ops)+1)
	for i := range ops {
		if ops[i].op == opJump || ops[i].op == opBranchJump {
			landing[ops[i].n] = true
		}
	}
	return landing
}

// relink finishes a pass that fused ops into out (in place), where
// at[i] is the index in out of what ops[i] became (at has len(ops)+1
// entries; the last is set here, the end): each jump is pointed at its
// landing's new index, and kNext is worked out again.
func relink(out []uop, at []int32) []uop {
	at[len(at)-1] = int32(len(out))
	for i := range out {
		if out[i].op == opJump || out[i].op == opBranchJump {
			out[i].n = at[out[i].n]
		}
		out[i].kNext = i+1 < len(out) && out[i+1].op == opKernel
	}
	return out
}

// fuseIO returns the fused form of a uniform or varying read u and the
// micro-operation v after it, if they have one: a copy of the port into
// a register (opUniformCopy), or a kernel (opUniformKernel,
// opVaryingKernel, opVaryingR5Kernel), which cannot fail, so that a
// failure of the fused form is the read's. u takes v's operands, the
// port going to w. floats says whether float kernels with a batch form
// may be fused; next is the micro-operation after v, or nil.
func (q *QPU) fuseIO(u, v, next *uop, floats bool) (uint8, bool) {
	var op uint8
	switch u.op {
	case opUniform:
		op = opUniformKernel
		if v.op == opCopy && v.a == u.d && v.fix == 0 {
			u.w, u.d = u.d, v.d
			return opUniformCopy, true
		}
	case opVarying:
		op = opVaryingKernel
	case opVaryingR5:
		op = opVaryingR5Kernel
	default:
		return 0, false
	}
	if v.op != opKernel || v.w != nil || v.fix != 0 || (v.n != 0 && !floats) {
		return 0, false
	}
	if next != nil && next.pc == v.pc && (next.op == opCond || next.op == opFlags) {
		// The kernel's fused forms with its masks and flags come first.
		return 0, false
	}
	u.w, u.k, u.d, u.a, u.b = u.d, v.k, v.d, v.a, v.b
	return op, true
}

// fusePair returns the fused form of u and the micro-operation v after
// it, if they have one: in one instruction, a mov into the mul latch
// and its colour pack (opCopyColour), a mov into a latch and its TMU or
// tile-buffer write (opCopyTMUWrite, opCopyTLBWrite: mov tmu0_s, r0;
// mov tlb_z, rb15); and the program end's opEnd with opRetire in the
// next instruction but one (opEndRetire). u takes v's fields. The first
// micro-operation of each cannot fail, so a failure is v's, with v's
// fix.
func (q *QPU) fusePair(u, v *uop, params *[2]int32) (uint8, bool) {
	switch {
	case u.op == opCopyK && u.w == nil && u.fix == 0 && u.d == &q.resMul && v.op == opColour && v.pc == u.pc:
		a := u.a
		*u = *v
		u.a = a
		return opCopyColour, true
	case u.op == opCopyK && u.w == nil && u.fix == 0 && v.pc == u.pc &&
		(u.d == &q.resAdd && v.op == opWriteAdd || u.d == &q.resMul && v.op == opWriteMul):
		w := *v
		op := uint8(opCopyTMUWrite)
		switch q.ioForm(&w, params) {
		case opTMUWrite:
		case opTLBWrite:
			op = opCopyTLBWrite
		default:
			return 0, false
		}
		src := u.a
		*u = w
		u.b = src
		return op, true
	case u.op == opEnd && v.op == opRetire:
		return opEndRetire, true
	}
	return 0, false
}

// ioForm returns the form of an unconditional write of an ALU's result
// to a TMU or the tile buffer with the decisions writeIO takes at each
// call taken here, setting u's fields for it; other writes keep u.op.
//
// params counts the T, R and B writes since each program TMU's last S,
// as tmuWrite's tmuParams does, for a program that runs each of its TMU
// writes once in order (Program.tmuAtOnce, whose threads run no other
// way): each TMU write's n says whether it is a direct S write
// (tmuDirect) and the count it leaves (the low bits), which runBound
// uses where the thread's tmuAtOnce is set. Elsewhere n is unused.
func (q *QPU) ioForm(u *uop, params *[2]int32) uint8 {
	st, in := u.st, u.st.in
	wk, t, r, tmu := st.wkMul, in.wMul, &q.resMul, st.tmuMul
	if u.op == opWriteAdd {
		wk, t, r, tmu = st.wkAdd, in.wAdd, &q.resAdd, st.tmu
	}
	switch wk {
	case wkTMU:
		unit, reg := int(tmu)/tmuRegs, TMUReg(int(tmu)%tmuRegs)
		n := params[unit] + 1
		switch {
		case reg != TMUS:
		case params[unit] == 0:
			n = tmuDirect
		default:
			n = 0
		}
		params[unit] = n &^ tmuDirect
		u.a, u.to, u.n = r, int32(tmu), n
		return opTMUWrite
	case wkTLB:
		u.a, u.to = r, int32(t.n)
		return opTLBWrite
	}
	return u.op
}

// tmuDirect marks an opTMUWrite's n: an S write with no parameter
// before it, which pops no uniform (tmuWrite's direct).
const tmuDirect = 1 << 8

// The micro-operations. Those that call the general code set q.seq
// first: it reads the instruction count (SFU and uniforms-address
// arrivals, thread switch and program end, VPM read timing).
const (
	opStep       = iota // the instruction's step (st)
	opKernel            // k(d, a, b), then w = d if w is set (d a result latch; or d the destination itself, directWrites); n: its batch form (wideFAdd...), or 0
	opCopy              // d = a
	opCopyK             // d = a (the copy kernel), then w = a if w is set
	opColour            // the mul result's colour pack (pack n) into d
	opUnpackA           // d = the regfile-A unpack of a (port A)
	opUnpackR4          // d = the r4 unpack of a (r4)
	opUniform           // d = the next uniform in every element
	opVarying           // d = the next varying (its C to r5 at opR5)
	opR5                // r5 = the varying's C
	opVaryingR5         // opVarying then opR5 (nothing between them reads r5 or can fail)
	opFlags             // a conditional instruction's write masks (q.mAdd, q.mMul) and flags: step_exec.go stepFlags, a and b the flags' operands
	opCopyAdd           // d = a in the elements of q.mAdd
	opCopyMul           // d = a in the elements of q.mMul
	opWriteAdd          // the add result to its I/O target (step_exec.go writeIO) in the elements of n
	opWriteMul          // the mul result to its I/O target in the elements of n
	opWriteAddIf        // the add result to its I/O target in the elements of q.mAdd
	opWriteMulIf        // the mul result to its I/O target in the elements of q.mMul
	opSignal            // the signal (ref_exec.go signal)
	opEnd               // the program end signal (loop.go programEnd; its writes at opRetire)
	opSFULand           // the run loop's SFU arrival check, for instruction n-1
	opUnifLand          // its uniforms address arrival check
	opRetire            // its delayed writes (the program end's)
	opSwitch            // its thread switch check
	opJump              // the run loop's jump check after instruction pc: a pending jump lands here, at micro-operation n
	opBranch            // a static branch at pc that writes nothing (ref_exec.go execBranch), to instruction n
	opCond              // a conditional instruction's write masks (q.mAdd, q.mMul) when it sets no flags: opFlags without them
	opSFU               // an ALU's unpacked write of a to the SFU, function n (ref_exec.go write: the whole vector, whatever the condition), in sfuFast
)

// The float kernels with a batch form (batch.go floatN), as an opKernel's n.
const (
	wideFAdd = 1 + iota
	wideFSub
	wideFMul
)

// bind appends p's micro-operations, bound to q, to ops.
func (q *QPU) bind(p *Program, ops []uop) []uop {
	n := len(p.code)
	// Where the run loop's timed events can happen: an SFU result
	// arrives three instructions after the write, a new uniforms address
	// takes effect three after its write, a thread switch two after its
	// signal; the program end's two poisoned writes (loop.go programEnd)
	// land after the instruction that follows it.
	sfuLand := make([]bool, n+4)
	unifLand := make([]bool, n+4)
	switchAt := make([]bool, n+4)
	for i := range p.code {
		c := &p.code[i]
		for _, t := range [2]wtarget{c.wAdd, c.wMul} {
			switch t.kind {
			case wSFU:
				sfuLand[i+3] = true
			case wUnifAddr:
				unifLand[i+3] = true
			}
		}
		if c.kind == kALU && (c.sig == qpu.SigThreadSwitch || c.sig == qpu.SigLastThreadSwitch) {
			switchAt[i+2] = true
		}
	}
	start := make([]int, n) // each instruction's first micro-operation
	jumpAt := make([]int, n+4)
	for k, j := range p.jumpPts {
		jumpAt[j.at] = k + 1
	}
	for i := range p.code {
		pc := int32(i)
		start[i] = len(ops)
		if sfuLand[i] {
			ops = append(ops, uop{op: opSFULand, pc: pc, n: int32(i + 1)})
		}
		if unifLand[i] {
			ops = append(ops, uop{op: opUnifLand, pc: pc, n: int32(i + 1)})
		}
		ops = q.bindInst(p, i, ops)
		if i == n-2 {
			ops = append(ops, uop{op: opRetire, pc: pc})
		}
		if switchAt[i] {
			ops = append(ops, uop{op: opSwitch, pc: pc, n: int32(i + 1)})
		}
		if k := jumpAt[i]; k != 0 {
			ops = append(ops, uop{op: opJump, pc: pc, n: int32(p.jumpPts[k-1].to)})
		}
	}
	for i := range ops {
		if ops[i].op == opJump {
			ops[i].n = int32(start[ops[i].n])
		}
	}
	return ops
}

// bindInst appends instruction i's micro-operations.
func (q *QPU) bindInst(p *Program, i int, ops []uop) []uop {
	st := &p.steps[i]
	c := st.in
	pc := int32(i)
	switch {
	case c.kind == kLoadImm && st.planned:
		// execLoadImm's latches and plain writes (planLoadImm): the add's
		// write, then the mul's, as writeALU makes them.
		// (n 1: a is the program's constant, which directWrites may
		// leave out of a latch nothing reads.)
		return append(ops,
			uop{op: opCopyK, d: &q.resAdd, a: st.imm, w: q.plainVec(st.dAdd, st.nAdd), pc: pc, n: 1},
			uop{op: opCopyK, d: &q.resMul, a: st.imm, w: q.plainVec(st.dMul, st.nMul), pc: pc, n: 1})
	case c.kind == kBranch && !c.brReg && !c.brSF && c.wAdd.kind == wNone && c.wMul.kind == wNone:
		// A static branch that writes nothing: opBranch with its target
		// worked out here (bindable has checked it is one of p's).
		to, _ := p.staticTarget(i)
		return append(ops, uop{op: opBranch, in: c, pc: pc, n: int32(to)})
	case c.kind != kALU || !st.planned:
		return append(ops, uop{op: opStep, st: st, pc: pc})
	}
	// Port reads, then the operands each mux selects.
	pa, pb := q.portVecs(st)
	for _, r := range [2]struct {
		port uint8
		d    *vec
	}{{st.portA, pa}, {st.portB, pb}} {
		switch r.port {
		case portUnif:
			ops = append(ops, uop{op: opUniform, d: r.d, pc: pc})
		case portVary:
			ops = append(ops, uop{op: opVarying, d: r.d, pc: pc})
		}
	}
	// The varying's C goes to r5 in the write phase; when no operand
	// reads r5 and no later part of the read phase can fail (the varying
	// is the last port read), it can go at once.
	r5Now := false
	if n := len(ops); n > 0 && ops[n-1].op == opVarying && ops[n-1].pc == pc && !st.readsR5(c) {
		ops[n-1].op = opVaryingR5
		r5Now = true
	}
	if c.unpackA {
		ops = append(ops, uop{op: opUnpackA, d: &q.unpA, a: pa, in: c, pc: pc})
		pa = &q.unpA
	}
	r4 := &q.acc[4]
	if c.unpackR4 {
		ops = append(ops, uop{op: opUnpackR4, d: &q.unpR4, a: r4, in: c, pc: pc})
		r4 = &q.unpR4
	}
	src := func(m uint8) *vec {
		switch m {
		case 4:
			return r4
		case 6:
			return pa
		case 7:
			return pb
		}
		return &q.acc[m&7]
	}
	// Execute, and the plain writes with the kernel. A plain write copies
	// the latch, which is complete once the kernel has run. The add ALU's
	// writes happen before the mul kernel runs. That is safe, since the
	// mul operands were all read, unless a mul operand is the add's
	// destination. Then the copy waits until after the mul kernel.
	addDst, mulDst := q.plainVec(st.dAdd, st.nAdd), q.plainVec(st.dMul, st.nMul)
	if st.wkAdd != wkPlain {
		addDst = nil
	}
	if st.wkMul != wkPlain {
		mulDst = nil
	}
	ma, mb := src(c.mulA), src(c.mulB)
	early := addDst
	if addDst == ma || addDst == mb || st.conditional {
		early = nil
	}
	// The mul's plain write can go with its kernel too when the add's
	// write cannot fail (none or plain) and cannot be the same register
	// written later. Writes under a condition or with flags to set wait
	// for the masks and flags, which read the operands.
	mulEarly := mulDst
	if (st.wkAdd != wkNone && st.wkAdd != wkPlain) || (addDst == mulDst && early == nil) || st.conditional {
		mulEarly = nil
	}
	kern := func(k kernel, isCopy bool, wide int32, d, a, b, w *vec) uop {
		if isCopy {
			return uop{op: opCopyK, d: d, a: a, w: w, pc: pc}
		}
		return uop{op: opKernel, k: k, d: d, a: a, b: b, w: w, pc: pc, n: wide}
	}
	if st.addK != nil {
		wide := int32(0)
		switch c.opAdd {
		case qpu.AddFAdd:
			wide = wideFAdd
		case qpu.AddFSub:
			wide = wideFSub
		}
		ops = append(ops, kern(st.addK, st.addCopy, wide, &q.resAdd, src(c.addA), src(c.addB), early))
	}
	if st.mulK != nil {
		wide := int32(0)
		if c.opMul == qpu.MulFMul {
			wide = wideFMul
		}
		ops = append(ops, kern(st.mulK, st.mulCopy, wide, &q.resMul, ma, mb, mulEarly))
	}
	// The masks and flags, after the kernels and before the varying's C
	// reaches r5 (the general order: conditionsAndFlags, then the write
	// phase).
	switch {
	case st.conditional && !c.sf:
		ops = append(ops, uop{op: opCond, in: c, pc: pc})
	case st.conditional:
		ops = append(ops, uop{op: opFlags, st: st, a: src(st.flagA), b: src(st.flagB), pc: pc})
	}
	if (st.portA == portVary || st.portB == portVary) && !r5Now {
		ops = append(ops, uop{op: opR5, pc: pc})
	}
	// Write back, in the general order: add, then mul. An ALU's write is
	// masked when the instruction is conditional (its mask is all
	// elements unless its condition is not always).
	copyOp, ioOp, n := uint8(opCopy), uint8(opWriteAdd), int32(0xFFFF)
	if st.conditional && c.condAdd != qpu.CondAlways {
		copyOp, ioOp, n = opCopyAdd, opWriteAddIf, 0
	}
	switch {
	case addDst != nil && early == nil:
		ops = append(ops, uop{op: copyOp, d: addDst, a: &q.resAdd, pc: pc})
	case st.wkAdd == wkGeneral && c.wAdd.kind == wSFU && c.packAdd == packNone:
		ops = append(ops, uop{op: opSFU, a: &q.resAdd, n: int32(c.wAdd.n), pc: pc})
	case st.wkAdd == wkGeneral && c.wAdd.kind == wUnifAddr && c.packAdd == packNone:
		ops = append(ops, uop{op: opUnifAddr, a: &q.resAdd, pc: pc})
	case st.wkAdd == wkTMU || st.wkAdd == wkTLB || st.wkAdd == wkGeneral:
		ops = append(ops, uop{op: ioOp, st: st, n: n, pc: pc})
	}
	copyOp, ioOp, n = opCopy, opWriteMul, 0xFFFF
	if st.conditional && c.condMul != qpu.CondAlways {
		copyOp, ioOp, n = opCopyMul, opWriteMulIf, 0
	}
	switch {
	case mulDst != nil && mulEarly == nil:
		ops = append(ops, uop{op: copyOp, d: mulDst, a: &q.resMul, pc: pc})
	case mulDst != nil:
	case st.wkMul == wkGeneral && c.wMul.kind == wSFU && c.packMul == packNone:
		ops = append(ops, uop{op: opSFU, a: &q.resMul, n: int32(c.wMul.n), pc: pc})
	case st.wkMul == wkGeneral && c.wMul.kind == wUnifAddr && c.packMul == packNone:
		ops = append(ops, uop{op: opUnifAddr, a: &q.resMul, pc: pc})
	case st.wkMul == wkColour:
		ops = append(ops, uop{op: opColour, d: q.plainVec(st.colD, st.colN), n: int32(c.pack), pc: pc})
	case st.wkMul == wkTMU || st.wkMul == wkTLB || st.wkMul == wkGeneral:
		ops = append(ops, uop{op: ioOp, st: st, n: n, pc: pc})
	}
	switch {
	case c.sig == qpu.SigProgramEnd:
		ops = append(ops, uop{op: opEnd, pc: pc})
	case c.sig != qpu.SigNone && c.sig != qpu.SigSmallImm:
		ops = append(ops, uop{op: opSignal, in: c, pc: pc})
	}
	return ops
}

// plainVec returns the register a plain destination names, or nil.
func (q *QPU) plainVec(d, n uint8) *vec {
	switch d {
	case dirAcc:
		return &q.acc[n&3]
	case dirRA:
		return &q.ra[n&31]
	case dirRB:
		return &q.rb[n&31]
	}
	return nil
}

// readsR5 reports whether an operation of the instruction reads r5 (mux 5).
func (st *step) readsR5(c *inst) bool {
	return (st.addK != nil && (c.addA == 5 || c.addB == 5)) || (st.mulK != nil && (c.mulA == 5 || c.mulB == 5))
}

// Writes straight to the destination. A kernel whose plain write goes
// with it (w set) computes into its ALU's result latch (resAdd, resMul).
// Then it copies the latch to w. The latch is QPU state: an instruction
// with a NOP op and a destination writes the last result again (qpu.go
// resAdd). So the latch must hold that result wherever anything can see
// it.
//
// Often nothing can see it before the same ALU's next kernel overwrites
// it: no general step, no end of the run. Then the kernel computes into w
// alone. That saves one 64-byte copy. (Every kernel may write into its own
// operands: TestKernelsMatchGeneralALUs.)
//
// A failure between the two kernels is the one place the latch is seen.
// There w still holds the result, since nothing wrote it since. The
// failing micro-operation's fix puts it back in the latch.
// TestFastPathMatchesReference compares the latches after every run,
// failed runs too; so does TestDirectWriteLatchOnFailure.

// latchFix is what the result latches hold at a micro-operation that can
// fail while one or both are left to their kernels' destinations: the
// vectors to copy into them, or nil where the latch is up to date.
type latchFix struct {
	add, mul *vec
	// mulK, if not nil, computes the mul latch instead of mul: the
	// kernel that directWrites moved after the failing write
	// (mulAfterIO), on its operands mulA and mulB.
	mulK       kernel
	mulA, mulB *vec
}

// restore puts f's vectors in the latches.
func (f *latchFix) restore(q *QPU) {
	if f.add != nil {
		copyVec(&q.resAdd, f.add)
	}
	if f.mulK != nil {
		f.mulK(&q.resMul, f.mulA, f.mulB)
	} else if f.mul != nil {
		copyVec(&q.resMul, f.mul)
	}
}

// directWrites turns each kernel with a plain write whose latch nothing
// reads into a kernel that computes into the write's destination (see
// above), recording in fixes what a failure in between must restore.
func (q *QPU) directWrites(ops []uop, fixes []latchFix) ([]uop, []latchFix) {
	var failAt []int
	landing := landings(ops)
	for i := range ops {
		u := &ops[i]
		if u.op == opCopyK && u.w == nil && u.n == 1 {
			// A load immediate with no destination on this ALU (Mesa's
			// ldi writes one register, the other ALU's copy goes
			// nowhere): if nothing reads the latch before the next
			// kernel into it, the copy is left out, and a failure in
			// between puts the constant in the latch.
			failAt = failAt[:0]
			if len(fixes) >= 0xFFFF-len(ops) || !q.latchUnseen(ops[i+1:], landing[i+1:], u.d, u.a, i+1, &failAt) {
				continue
			}
			fixes = q.addFixes(ops, fixes, failAt, u.d, u.a)
			u.op = opNone
			continue
		}
		if q.mulAfterIO(ops, i) {
			// The mul's kernel into its plain destination after the
			// add's TMU or tile-buffer write, when nothing reads the
			// mul latch before its next kernel: the latch copy is left
			// out. The write cannot change the kernel's operands; its
			// failure computes the latch (latchFix.mulK), the general
			// code having run both kernels before the writes.
			c := &ops[i+2]
			failAt = failAt[:0]
			if len(fixes) >= 0xFFFF-len(ops) || !q.latchUnseen(ops[i+3:], landing[i+3:], &q.resMul, c.d, i+3, &failAt) {
				continue
			}
			fixes = q.addFixes(ops, fixes, failAt, &q.resMul, c.d)
			k := *u
			ops[i] = ops[i+1]
			if ops[i].fix == 0 {
				fixes = append(fixes, latchFix{})
				ops[i].fix = uint16(len(fixes))
			}
			f := &fixes[ops[i].fix-1]
			f.mul, f.mulK, f.mulA, f.mulB = nil, k.k, k.a, k.b
			k.d = c.d
			if k.d == k.a || k.d == k.b {
				k.k = kernels.intoKernel(k.n, k.k)
			}
			ops[i+1] = k
			*c = uop{op: opNone, pc: c.pc}
			continue
		}
		if v := q.ioAfterCopy(ops, i); v != nil {
			// A mov into a TMU or tile-buffer register: the write reads
			// the mov's source, and the copy into the latch is left out
			// when nothing reads the latch before the next kernel into
			// it; a failure on the way, the write's own included, puts
			// the source in the latch.
			failAt = append(failAt[:0], i+1)
			if len(fixes) >= 0xFFFF-len(ops) || !q.latchUnseen(ops[i+2:], landing[i+2:], u.d, u.a, i+2, &failAt) {
				continue
			}
			fixes = q.addFixes(ops, fixes, failAt, u.d, u.a)
			v.b = u.a
			u.op = opNone
			continue
		}
		if (u.op != opKernel && u.op != opCopyK) || u.w == nil {
			continue
		}
		failAt = failAt[:0]
		if len(fixes) >= 0xFFFF-len(ops) || !q.latchUnseen(ops[i+1:], landing[i+1:], u.d, u.w, i+1, &failAt) {
			continue
		}
		fixes = q.addFixes(ops, fixes, failAt, u.d, u.w)
		if u.op == opCopyK {
			*u = uop{op: opCopy, d: u.w, a: u.a, pc: u.pc, fix: u.fix}
		} else {
			u.d, u.w = u.w, nil
			if u.d == u.a || u.d == u.b {
				u.k = kernels.intoKernel(u.n, u.k)
			}
		}
	}
	return ops, fixes
}

// mulAfterIO reports whether ops[i] is a mul kernel into its latch,
// ops[i+1] the add's unconditional TMU or tile-buffer write and ops[i+2]
// the copy of the mul latch into its plain destination, all of one
// instruction: bindInst's order when the add's write can fail (mul
// kernel, add write, mul write), as in the cube's mov tlb_z, rb15 ;
// v8muld r2, r4, unif.
func (q *QPU) mulAfterIO(ops []uop, i int) bool {
	if i+2 >= len(ops) {
		return false
	}
	u, v, c := &ops[i], &ops[i+1], &ops[i+2]
	return u.op == opKernel && u.d == &q.resMul && u.w == nil &&
		v.op == opWriteAdd && v.pc == u.pc && (v.st.wkAdd == wkTMU || v.st.wkAdd == wkTLB) &&
		c.op == opCopy && c.pc == u.pc && c.a == &q.resMul && c.fix == 0
}

// ioAfterCopy returns ops[i+1] if ops[i] is a plain mov, with no
// destination on its ALU but its latch, of one of the registers r0-r3,
// ra or rb, and ops[i+1] is that latch's unconditional write to a TMU or
// the tile buffer: mov tmu0_s, r0. Such a write may read the source
// instead of the latch (directWrites), the source being a register only
// a kernel or a copy writes (latchUnseen's clobbers). Else it returns
// nil.
func (q *QPU) ioAfterCopy(ops []uop, i int) *uop {
	u := &ops[i]
	if u.op != opCopyK || u.w != nil || u.n != 0 || i+1 >= len(ops) || !q.plainReg(u.a) {
		return nil
	}
	v := &ops[i+1]
	if v.pc != u.pc || v.b != nil {
		return nil
	}
	switch {
	case u.d == &q.resAdd && v.op == opWriteAdd:
		if v.st.wkAdd == wkTMU || v.st.wkAdd == wkTLB {
			return v
		}
	case u.d == &q.resMul && v.op == opWriteMul:
		if v.st.wkMul == wkTMU || v.st.wkMul == wkTLB {
			return v
		}
	}
	return nil
}

// plainReg reports whether v is one of q's registers r0-r3, ra0-31 or
// rb0-31.
func (q *QPU) plainReg(v *vec) bool {
	for i := range q.ra {
		if v == &q.ra[i] || v == &q.rb[i] || i < 4 && v == &q.acc[i] {
			return true
		}
	}
	return false
}

// addFixes records in fixes that at each micro-operation of failAt a
// failure puts v in latch.
func (q *QPU) addFixes(ops []uop, fixes []latchFix, failAt []int, latch, v *vec) []latchFix {
	for _, j := range failAt {
		o := &ops[j]
		if o.fix == 0 {
			fixes = append(fixes, latchFix{})
			o.fix = uint16(len(fixes))
		}
		if latch == &q.resAdd {
			fixes[o.fix-1].add = v
		} else {
			fixes[o.fix-1].mul = v
		}
	}
	return fixes
}

// latchUnseen reports whether, in rest (the micro-operations after a
// kernel into latch whose result also goes to w), the same latch is
// overwritten by a kernel before anything can read it, and before
// anything can fail once w has been written again; it appends to failAt
// the indexes (rest[k] is ops[base+k]) of the micro-operations on the way
// that can fail. Unknown code (a general step), the program end's delayed
// writes, a thread switch (it poisons the accumulators) and the end of
// the run all count as reading it, and so do a jump and the place where
// one lands.
func (q *QPU) latchUnseen(rest []uop, landing []bool, latch, w *vec, base int, failAt *[]int) bool {
	clobbered := false // w no longer holds the latch's value
	for k := range rest {
		v := &rest[k]
		if landing[k] {
			// Reached from a jump too, with another kernel's result in
			// the latch.
			return false
		}
		canFail := false
		switch v.op {
		case opKernel, opCopyK:
			if v.d == latch {
				return true
			}
			clobbered = clobbered || v.d == w || v.w == w
		case opCopy, opCopyAdd, opCopyMul:
			if v.a == latch {
				return false
			}
			clobbered = clobbered || v.d == w
		case opColour:
			// The colour pack reads the mul latch.
			if latch == &q.resMul {
				return false
			}
			clobbered = clobbered || v.d == w
		case opSFU, opUnifAddr:
			// It reads a latch, writes no register and cannot fail.
			if v.a == latch {
				return false
			}
		case opFlags:
			// N and Z come from the latch of the ALU that sets flags.
			if v.st.in.sf && (latch == &q.resMul) == v.st.in.flagsMul {
				return false
			}
		case opUnpackA, opUnpackR4, opR5, opSFULand, opUnifLand, opEnd, opCond:
			// They write only temporaries, r4 and r5.
		case opUniform, opVarying, opVaryingR5, opSignal:
			// They write ports, r4 or r5, and can fail.
			canFail = true
		case opWriteAdd, opWriteMul, opWriteAddIf, opWriteMulIf:
			// A TMU or tile-buffer write reads its own ALU's latch; any
			// other may land in w.
			isAdd := v.op == opWriteAdd || v.op == opWriteAddIf
			wk, reads := v.st.wkMul, &q.resMul
			if isAdd {
				wk, reads = v.st.wkAdd, &q.resAdd
			}
			if (wk != wkTMU && wk != wkTLB) || reads == latch {
				return false
			}
			canFail = true
		default:
			return false
		}
		if canFail {
			if clobbered {
				return false
			}
			*failAt = append(*failAt, base+k)
		}
	}
	return false
}
