package qpuexec

import (
	"errors"
	"fmt"
)

// The run loop. A program runs as a table of steps, one per instruction.
// Each step names the executor that runs its instruction:
//   - the reference table (Program.ref) names the general executors of
//     ref_exec.go for every instruction;
//   - the compiled table (Program.steps) names an executor chosen at load
//     for what the instruction does (step_exec.go).
//
// One loop, run, runs either table. It does the bookkeeping every
// instruction shares:
//   - it counts the instruction and stops a run that hangs;
//   - it lands an SFU result in r4 and a new uniforms address when due;
//   - it applies the register writes of the instruction before (retire);
//   - it makes a thread switch and the program end when due;
//   - it takes a branch's jump after its three delay slots.
//
// An executor does the rest: reads, ALU operations, writes and signals.
// So the two tables differ only in their executors, and the differential
// test (step_test.go) compares exactly those.

// run runs steps (p.ref or p.steps) from instruction pc, q.seq
// instructions having run.
func (q *QPU) run(p *Program, steps []step, pc int) (Result, error) {
	for {
		if pc < 0 || pc >= len(steps) {
			return q.leave(pc)
		}
		st := &steps[pc]
		q.seq++
		if q.seq > runLimit {
			return q.result(), q.fail(pc, fmt.Errorf("still running after %d instructions: a hang on hardware", runLimit))
		}
		q.landSFU(q.seq)
		q.landUniforms(q.seq)
		old := q.npend
		if err := st.exec(q, st, pc); err != nil {
			return q.result(), q.fail(pc, err)
		}
		if q.npend > 0 {
			q.retire(old)
		}
		if q.seq == q.switchAt {
			q.threadSwitch()
		}
		if q.seq == q.endAt {
			return q.end(pc)
		}
		pc++
		if to, ok := q.jumpLands(q.seq); ok {
			pc = to
		}
	}
}

// landSFU puts the SFU result in r4 if it arrives at instruction seq.
// It arrives three instructions after the SFU write (write).
func (q *QPU) landSFU(seq int) {
	if q.sfuAt == seq {
		q.acc[4] = q.sfuVal
		q.sfuAt = 0
	}
}

// landUniforms starts the new uniform stream if its address takes effect
// at instruction seq, three instructions after its write (write).
func (q *QPU) landUniforms(seq int) {
	if q.unifAt == seq {
		q.setUniforms(q.unifNext)
		q.unifAt = 0
	}
}

// jumpLands reports whether a pending jump lands after instruction seq,
// and where. It lands three instructions after its branch (execBranch).
func (q *QPU) jumpLands(seq int) (int, bool) {
	if q.njumps == 0 || q.jumps[0].at != seq {
		return 0, false
	}
	to := q.jumps[0].to
	q.jumps[0] = q.jumps[1]
	q.njumps--
	return to, true
}

// end ends a run at its program end, pc the last instruction run. The
// delayed writes land. VPM reads still queued break a rule.
func (q *QPU) end(pc int) (Result, error) {
	q.commit()
	if q.vrn > 0 {
		return q.result(), q.violate(pc, "VPM read count", "all programmed VPM reads must be consumed before program end [AG §7]; reads remain at program end")
	}
	return q.result(), nil
}

// leave ends a run whose next instruction pc is outside the program.
func (q *QPU) leave(pc int) (Result, error) {
	q.commit()
	return q.result(), &RunError{Addr: q.prog.Addr, Index: pc, Err: fmt.Errorf("execution left the program (%d instructions)", len(q.prog.code))}
}

func (q *QPU) result() Result {
	return Result{Instructions: q.seq, HostInterrupt: q.hostInt}
}

// fail ends a run with err at instruction pc. The writes still waiting
// for the register files' delay land first: the run ends with them made,
// whether the interpreter delayed them or, where nothing reads them
// early, made them at once.
func (q *QPU) fail(pc int, err error) error {
	q.commit()
	var re *RunError
	if errors.As(err, &re) {
		return err
	}
	e := &RunError{Addr: q.prog.Addr, Index: pc, Err: err}
	if pc >= 0 && pc < len(q.prog.Insts) {
		e.Inst = q.prog.Insts[pc]
	}
	return e
}

// Register-file writes are delayed. A physical register written by
// instruction N reads its old value at N+1, and the new one from N+2. AG
// §3: "one cannot write data to a physical QPU register-file in one
// instruction and then read that same data for use in the next
// instruction (no forwarding paths are provided)". Each instruction's
// writes wait in pend. retire applies those of the previous instruction
// once the current one is complete.

// retire applies the first old pending writes (the previous instruction's)
// and keeps the rest (the current instruction's) for the next.
func (q *QPU) retire(old int) {
	for i := 0; i < old; i++ {
		q.apply(&q.pend[i])
	}
	copy(q.pend[:], q.pend[old:q.npend])
	q.npend -= old
}

// commit applies every pending write (at program end).
func (q *QPU) commit() {
	for i := 0; i < q.npend; i++ {
		q.apply(&q.pend[i])
	}
	q.npend = 0
}

func (q *QPU) apply(p *pendingWrite) {
	d := &q.ra[p.reg]
	if p.b {
		d = &q.rb[p.reg]
	}
	mergeLanes(d, &p.v, p.lanes, p.bits)
}

// programEnd schedules the end after two delay slots and writes the next
// thread's W and Z into location 14 of each file (AG §3 Thread Control),
// which this model fills with poison.
func (q *QPU) programEnd() {
	q.endAt = q.seq + 2
	if q.npend+2 <= len(q.pend) {
		q.pend[q.npend] = pendingWrite{b: false, reg: 14, lanes: 0xFFFF, bits: 0xFFFFFFFF, v: poisonVec}
		q.pend[q.npend+1] = pendingWrite{b: true, reg: 14, lanes: 0xFFFF, bits: 0xFFFFFFFF, v: poisonVec}
		q.npend += 2
	}
}

// threadSwitch models the other thread running: accumulators are not
// preserved (AG §3 Thread Control), and the other thread owns physical
// registers 16-31 of each file (this thread's view). The flags stay: see
// switchAccumulators.
func (q *QPU) threadSwitch() {
	q.switchAccumulators()
	q.poisonBanks()
}

// switchAccumulators is threadSwitch but for the registers 16-31 of each
// file: the accumulators the other thread leaves.
//
// The flags are kept. The guide says they are not preserved (AG §3 Thread
// Control). But Mesa's vc4 compiler reads flags set before a switch after
// it: vc4_opt_peephole_sf.c drops a flag update that repeats one made
// before a THRSW. Such shaders pass on a Pi 3 (piglit's
// fs-input-array-*-index-rd in Mesa CI's record). The two threads of a
// QPU run the same program in step. So the flags the other thread leaves
// at a switch are those it set at the same instruction. They equal this
// thread's when their inputs are uniforms (DERIVED,
// doc/hardware.md#threads).
func (q *QPU) switchAccumulators() {
	for a := range q.acc {
		copyVec(&q.acc[a], &poisonVec)
	}
	q.switchAt = -1
}

// poisonBanks is threadSwitch's registers 16-31 of each file.
func (q *QPU) poisonBanks() {
	*(*[16]vec)(q.ra[16:]) = poisonBank
	*(*[16]vec)(q.rb[16:]) = poisonBank
}

// poisonBank is registers 16-31 of a file as a thread switch leaves them.
var poisonBank = func() (b [16]vec) {
	for r := range b {
		b[r] = poisonVec
	}
	return b
}()
