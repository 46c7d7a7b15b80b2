package qpuexec

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unsafe"

	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// MaxBatch is the most blocks a Batch runs in lockstep.
const MaxBatch = 4

// A Batch runs one fragment shader on several blocks in lockstep: each
// micro-operation of the bound program (bound_bind.go) is done for every
// block before the next, so that one dispatch serves them all. Each block
// has a QPU of its own, with its own Env and Start; the Envs must accept
// their calls interleaved (the blocks' pixels are disjoint, so their tile
// buffer writes and tests commute).
//
// Only a program that reads nothing a run before it left (batch_plan.go
// selfContained) runs in lockstep; the others run one block after
// another on one QPU, as QPU.Run would. A jump that some blocks take and
// others do not splits the batch: from there each block finishes alone
// on its own QPU (QPU.runBound resumes it).
//
// A Batch is the render model's one processor: its blocks run in block
// order as far as anything outside can tell, and the QPU the last block
// ran on is where the next lone run continues.
type Batch struct {
	qs   [MaxBatch]batchQPU
	last int // the QPU the last block in block order ran on
	// splits counts the batches split at a jump, for the tests.
	splits int
	// always makes Takes ignore minFloatShare, for the tests.
	always bool
}

// batchQPU is a Batch's QPU with the padding that makes its size, the
// distance between the Batch's QPUs, batchStride: a multiple of 64, so
// that each QPU's vectors start at a multiple of 64 bytes as the first
// QPU's do, and none straddles two cache lines (QPU). batchFar keeps
// the same vector of two QPUs of a Batch from falling at one address
// modulo 4096. The float kernels' batch forms (faddAVX512N,
// fmulAVX512N) store block j's result and then load block j+1's
// operands. On this page's machine (BenchmarkFloatNLayout) a 64-byte
// load straddling two cache lines that meet an earlier straddling
// store's lines modulo 4096 made a pair of calls 3.3 times as long;
// aligned, no stride tried made a difference, and batchFar is only a
// margin (doc/performance.md, "The QPU's vectors on cache lines").
// TestQPULayout and TestBatchLayout check both, and say what to change
// when a field of the QPU breaks them.
type batchQPU struct {
	QPU
	_ [batchStride - unsafe.Sizeof(QPU{})]byte
}

// batchStride is the QPU's size rounded up to the next multiple of 64
// bytes (never the size itself: Go pads a struct that ends in a field
// of size 0), at least 8192 so that a Batch is a large object (see
// alignedQPU), plus batchFar lines of 64.
const batchStride = max((unsafe.Sizeof(QPU{})+64)&^63, 8192) + 64*batchFar

// batchFar is the 64-byte lines added to the stride to keep
// k*batchStride modulo 4096 at least batchMargin bytes from 0 for k
// from 1 to MaxBatch-1, so that no vector of one QPU falls at the
// address of the same vector of another modulo 4096 (TestBatchLayout):
// with the stride 9216, 1024, 2048 and 1024 bytes.
const batchFar = 16

// batchMargin is how far, in bytes, batchFar keeps the distances
// between a Batch's QPUs from a multiple of 4096.
const batchMargin = 256

// alignedQPU is a QPU padded to more than 32 KB: Go allocates such an
// object on pages of its own, at a multiple of 8192, where a smaller
// one that holds pointers starts after an 8-byte header (Go's
// runtime/malloc.go, maxSmallSize and mallocHeaderSize), so that its
// vectors would straddle cache lines. A Batch is above 32 KB itself
// (batchStride). TestQPULayout checks the addresses.
type alignedQPU struct {
	QPU
	_ [36864 - unsafe.Sizeof(QPU{})]byte
}

// newQPU returns a zero QPU at a multiple of 64 bytes (alignedQPU).
func newQPU() *QPU { return &new(alignedQPU).QPU }

// NewBatch returns a Batch whose QPUs are number num and read uniforms
// through m.
func NewBatch(num int, m *mem.View) *Batch {
	g := &Batch{}
	for i := range g.qs {
		g.qs[i].Num, g.qs[i].Mem = num, m
		g.qs[i].init()
	}
	return g
}

// SetMem sets every QPU's view (QPU.Mem).
func (g *Batch) SetMem(m *mem.View) {
	for i := range g.qs {
		g.qs[i].Mem = m
	}
}

// SetReference sets every QPU's QPU.Reference. The reference runs one
// block at a time.
func (g *Batch) SetReference(ref bool) {
	for i := range g.qs {
		g.qs[i].Reference = ref
	}
}

// QPU returns the QPU the next lone run goes to: the one that ran the
// last block.
func (g *Batch) QPU() *QPU { return &g.qs[g.last].QPU }

// Batched reports whether p runs the same from any state it starts in
// (batch_plan.go), so that a Batch can run it in lockstep.
func (p *Program) Batched() bool { return p.batchable }

// errNotRun marks a block a Batch left when an earlier one failed.
var errNotRun = errors.New("qpuexec: block not run: an earlier block of its batch failed")

// Run runs p on len(starts) blocks (at most MaxBatch), block j from
// starts[j] with envs[j], its result into res[j]. It returns k, the
// number of blocks whose results count, and the error of block k-1 if it
// failed: blocks run in block order would have stopped there. The
// blocks after a failed one may have made some of their Env calls.
func (g *Batch) Run(p *Program, envs []Env, starts []*Start, res []Result) (int, error) {
	n := len(starts)
	if n == 1 || !g.Takes(p) {
		q := &g.qs[g.last].QPU
		for j := 0; j < n; j++ {
			var err error
			if res[j], err = q.Run(p, envs[j], starts[j]); err != nil {
				return j + 1, err
			}
		}
		return n, nil
	}
	var errs [MaxBatch]error
	qp := g.assign(n)
	g.lockstep(p, envs, starts, res, errs[:n])
	for j := 0; j < n; j++ {
		if errs[j] != nil {
			g.last = g.index(qp[j])
			return j + 1, errs[j]
		}
	}
	return n, nil
}

// minFloatShare is the share of a bound program's micro-operations, in
// percent, that must be float kernels with a batch form (floatN) for a
// batch to pay: the lockstep saves on those calls and costs a little on
// every other micro-operation and block (doc/performance.md, "Several
// blocks per dispatch").
const minFloatShare = 35

// Takes reports whether Run takes p in lockstep: p runs the same from
// any state it starts in (Program.Batched), and it pays: the float
// kernels have their one-call forms on this CPU (hasFloatN; without them
// a batch only costs: doc/performance.md) and are enough of p
// (minFloatShare). Otherwise Run runs the blocks one after another.
func (g *Batch) Takes(p *Program) bool {
	if !p.batchable || g.qs[0].Reference {
		return false
	}
	if g.always {
		return true
	}
	return g.qs[g.last].bound(p).paysBatch
}

// assign returns the QPU each of n blocks runs on: the last block on the
// QPU the last block before it ran on, the others on the rest, in order.
// What the program does not write then stays as a run of the blocks in
// order on one QPU would leave it (batch_plan.go).
func (g *Batch) assign(n int) (qp [MaxBatch]*QPU) {
	k := 0
	for i := range g.qs {
		if i != g.last && k < n-1 {
			qp[k] = &g.qs[i].QPU
			k++
		}
	}
	qp[n-1] = &g.qs[g.last].QPU
	return qp
}

// index returns q's place in g.qs.
func (g *Batch) index(q *QPU) int {
	for i := range g.qs {
		if q == &g.qs[i].QPU {
			return i
		}
	}
	return g.last
}

// lockstep runs p's micro-operations for n blocks at once. It is
// runBound (bound_run.go) with each case done for every block; the cases
// that decide the path (a jump, a failure) leave the lockstep.
func (g *Batch) lockstep(p *Program, envs []Env, starts []*Start, res []Result, errs []error) {
	n := len(starts)
	var ops [MaxBatch][]uop
	var bs [MaxBatch]*boundProg
	qp := g.assign(n)
	for j := 0; j < n; j++ {
		q := qp[j]
		if q.src[0] == nil {
			q.init()
		}
		bs[j] = q.bound(p)
		ops[j] = bs[j].ops
		q.begin(p, envs[j], starts[j])
		q.banksStale, q.endPoison = false, false
		q.seqBase = 0
	}
	total := len(ops[0]) - 1 // not opDone
	for pos := 0; pos < total; pos++ {
		u0 := &ops[0][pos]
		var err error
		j := 0
		switch u0.op {
		case opKernel:
			if u0.n != 0 {
				// A float kernel: one call for every block where the
				// build has the batch form; the blocks it leaves run
				// their own.
				var d, a, b [MaxBatch]*vec
				for j = 0; j < n; j++ {
					u := &ops[j][pos]
					d[j], a[j], b[j] = u.d, u.a, u.b
				}
				if slow, ok := floatN(u0.n, &d, &a, &b, n); ok {
					for ; slow != 0; slow &= slow - 1 {
						u := &ops[bits.TrailingZeros32(slow)][pos]
						u.k(u.d, u.a, u.b)
					}
					for j = 0; j < n; j++ {
						if u := &ops[j][pos]; u.w != nil {
							copyVec(u.w, u.d)
						}
					}
					break
				}
			}
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				u.k(u.d, u.a, u.b)
				if u.w != nil {
					copyVec(u.w, u.d)
				}
			}
		case opCopy:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				copyVec(u.d, u.a)
			}
		case opCopyK:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				copyVec(u.d, u.a)
				if u.w != nil {
					copyVec(u.w, u.a)
				}
			}
		case opUnpackA:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				unpackAVec(u.in.unpack, u.in.unpackFloat, u.d, u.a)
			}
		case opUnpackR4:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				unpackR4Vec(u.in.unpack, u.d, u.a)
			}
		case opColour:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				qp[j].colourWrite(u.d, qpu.Pack(u.n))
			}
		case opUniform:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				var x uint32
				if q.unifOff+4 <= len(q.unifBuf) {
					x = binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
					q.unifOff += 4
					q.unifAddr += 4
				} else if x, err = q.popUniform(); err != nil {
					break
				}
				fill(u.d, x)
			}
		case opVarying:
			for j = 0; j < n; j++ {
				if err = qp[j].readVarying(ops[j][pos].d); err != nil {
					break
				}
			}
		case opVaryingR5:
			for j = 0; j < n; j++ {
				q := qp[j]
				if err = q.readVarying(ops[j][pos].d); err != nil {
					break
				}
				copyVec(&q.acc[5], &q.varyC)
				q.varyPend = false
			}
		case opR5:
			for j = 0; j < n; j++ {
				qp[j].landVarying()
			}
		case opFlags:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
			}
		case opCond:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.mAdd, q.mMul = q.cond(u0.in.condAdd), q.cond(u0.in.condMul)
			}
		case opKernelIf:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				u.k(u.d, u.a, u.b)
				q.mAdd, q.mMul = q.cond(u.in.condAdd), q.cond(u.in.condMul)
				condCopy(u.w, u.d, q.mAdd)
			}
		case opCopyIf:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				copyVec(u.d, u.a)
				q.mAdd, q.mMul = q.cond(u.in.condAdd), q.cond(u.in.condMul)
				condCopy(u.w, u.a, q.mAdd)
			}
		case opKernelFlags:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				u.k(u.d, u.a, u.b)
				q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
			}
		case opCopyFlags:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				copyVec(u.d, u.a)
				q.mAdd, q.mMul = q.stepFlags(u.st, u.a, u.b)
			}
		case opSubFlags:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
				q.n, q.z, q.c = subFlagsVec(u.d, u.a, u.b)
			}
		case opSubFlagsIf:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
				fn, fz, fc := subFlagsVec(u.d, u.a, u.b)
				m := q.mAdd
				q.n, q.z, q.c = q.n&^m|fn&m, q.z&^m|fz&m, q.c&^m|fc&m
			}
		case opKernelNZ:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				u.k(u.d, u.a, u.b)
				q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
				fn, fz := nzFlagsVec(&q.resAdd)
				q.n, q.z, q.c = fn, fz, ^(fn|fz)&uint16(u.n)
			}
		case opFloatNZ:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				fn, fz, ok := faddFlagsVec(u.d, u.a, u.b, uint32(u.n)<<31)
				if !ok {
					u.k(u.d, u.a, u.b)
					fn, fz = nzFlagsVec(&q.resAdd)
				}
				q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
				q.n, q.z, q.c = fn, fz, ^(fn | fz)
			}
		case opCopyNZ:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				copyVec(u.d, u.a)
				q.mAdd, q.mMul = q.cond(u.st.in.condAdd), q.cond(u.st.in.condMul)
				fn, fz := nzFlagsVec(&q.resAdd)
				q.n, q.z, q.c = fn, fz, ^(fn|fz)&uint16(u.n)
			}
		case opUnifAddr:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.unifNext, q.unifAt = ops[j][pos].a[0], int(u0.pc)+4+q.seqBase
			}
		case opCopyAdd:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				condCopy(u.d, u.a, qp[j].mAdd)
			}
		case opCopyMul:
			for j = 0; j < n; j++ {
				u := &ops[j][pos]
				condCopy(u.d, u.a, qp[j].mMul)
			}
		case opWriteAdd, opWriteMul, opWriteAddIf, opWriteMulIf:
			isAdd := u0.op == opWriteAdd || u0.op == opWriteAddIf
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				mask := uint16(u.n)
				switch u.op {
				case opWriteAddIf:
					mask = q.mAdd
				case opWriteMulIf:
					mask = q.mMul
				}
				q.seq = int(u.pc) + 1 + q.seqBase
				if err = q.writeIO(u.st, u.st.in, int(u.pc), isAdd, mask); err != nil {
					break
				}
			}
		case opSignal:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.seq = int(u.pc) + 1 + q.seqBase
				if err = q.signal(u.in, int(u.pc)); err != nil {
					break
				}
			}
		case opUniformCopy, opUniformKernel:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				var x uint32
				if q.unifOff+4 <= len(q.unifBuf) {
					x = binary.LittleEndian.Uint32(q.unifBuf[q.unifOff:])
					q.unifOff += 4
					q.unifAddr += 4
				} else if x, err = q.popUniform(); err != nil {
					break
				}
				fill(u.w, x)
				if u.op == opUniformCopy {
					copyVec(u.d, u.w)
				} else {
					u.k(u.d, u.a, u.b)
				}
			}
		case opVaryingKernel, opVaryingR5Kernel:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				if err = q.readVarying(u.w); err != nil {
					break
				}
				if u.op == opVaryingR5Kernel {
					copyVec(&q.acc[5], &q.varyC)
					q.varyPend = false
				}
				u.k(u.d, u.a, u.b)
			}
		case opTMUWrite, opTLBWrite, opLoadTMU, opUnlock,
			opCopyColour, opColours, opColoursTLBWrite, opCopyTMUWrite, opCopyTLBWrite, opEndRetire, opUnlockDone,
			opVaryingFAddFMul:
			for j = 0; j < n; j++ {
				if err = qp[j].execIO(&ops[j][pos]); err != nil {
					break
				}
			}
		case opEnd:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.seq = int(u.pc) + 1 + q.seqBase
				q.endAt = q.seq + 2
				q.endPoison = true
			}
		case opSFU:
			for j = 0; j < n; j++ {
				q := qp[j]
				sfuFast(int(u0.n), &q.sfuVal, ops[j][pos].a)
				q.sfuAt = int(u0.pc) + 4 + q.seqBase
			}
		case opBranch:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.branch(&ops[j][pos], int(u0.pc)+1+q.seqBase)
			}
		case opStep:
			for j = 0; j < n; j++ {
				q, u := qp[j], &ops[j][pos]
				q.seq = int(u.pc) + 1 + q.seqBase
				if err = u.st.exec(q, u.st, int(u.pc)); err != nil {
					break
				}
			}
		case opSFULand:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.landSFU(int(u0.n) + q.seqBase)
			}
		case opUnifLand:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.moveUniforms(int(u0.n) + q.seqBase)
			}
		case opRetire:
			for j = 0; j < n; j++ {
				q := qp[j]
				q.landEnd()
				if q.npend > 0 {
					q.retire(q.npend)
				}
			}
		case opSwitch:
			for j = 0; j < n; j++ {
				q := qp[j]
				if q.switchAt == int(u0.n)+q.seqBase {
					q.boundSwitch()
				}
			}
		case opJump, opBranchJump:
			// Every block is at the same instruction count: they took
			// the same jumps so far. at is the instruction after which
			// the jump lands.
			at := int(u0.pc)
			var to [MaxBatch]int
			var taken [MaxBatch]bool
			same := true
			if u0.op == opBranchJump {
				at += 3
				for j = 0; j < n; j++ {
					q := qp[j]
					taken[j], to[j] = q.branchNow(u0, int(u0.pc)+1+q.seqBase), int(u0.to)
					same = same && taken[j] == taken[0]
				}
			} else {
				for j = 0; j < n; j++ {
					to[j], taken[j] = qp[j].jumpLands(at + 1 + qp[j].seqBase)
					same = same && taken[j] == taken[0]
				}
			}
			seq := at + 1 + qp[0].seqBase
			if same && !taken[0] {
				continue
			}
			if same && seq+len(p.code) < runLimit {
				for j = 0; j < n; j++ {
					qp[j].seqBase += at + 1 - to[j]
				}
				pos = int(u0.n) - 1
				continue
			}
			// The blocks part here (or the run may be a hang, which the
			// step loop counts, as runBound does): each goes on alone.
			g.splits++
			for j = 0; j < n; j++ {
				q := qp[j]
				switch {
				case !taken[j]:
					res[j], errs[j] = q.resumeBound(p, pos+1)
				case seq+len(p.code) >= runLimit:
					q.seq = seq
					q.settleBanks()
					res[j], errs[j] = q.run(p, p.steps, to[j])
				default:
					q.seqBase += at + 1 - to[j]
					res[j], errs[j] = q.resumeBound(p, int(u0.n))
				}
			}
			return
		}
		if err != nil {
			// Block j failed here. The blocks before it have done this
			// micro-operation and go on alone; those after it would not
			// have run.
			for k := 0; k < j; k++ {
				res[k], errs[k] = qp[k].resumeBound(p, pos+1)
			}
			res[j], errs[j] = qp[j].boundFailed(bs[j], &ops[j][pos], err)
			for k := j + 1; k < n; k++ {
				errs[k] = errNotRun
			}
			return
		}
	}
	for j := 0; j < n; j++ {
		q := qp[j]
		q.deferBanks()
		q.seq = len(p.code) + q.seqBase
		res[j], errs[j] = q.end(len(p.code) - 1)
	}
}

// boundFailed leaves q as the run loop leaves a failed run, failed at
// micro-operation u of b: the result latches as the general code had
// them, the delayed writes made (runBound's failed).
func (q *QPU) boundFailed(b *boundProg, u *uop, err error) (Result, error) {
	if u.fix != 0 {
		b.fixes[u.fix-1].restore(q)
	}
	q.seq = int(u.pc) + 1 + q.seqBase
	q.landEnd()
	q.settleBanks()
	return q.result(), q.fail(int(u.pc), err)
}

// resumeBound resumes at micro-operation from a bound run of p that a
// Batch began on q.
func (q *QPU) resumeBound(p *Program, from int) (Result, error) {
	q.resume = from + 1
	return q.runBound(p, nil, nil)
}
