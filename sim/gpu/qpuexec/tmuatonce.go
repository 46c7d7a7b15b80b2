package qpuexec

import (
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/tmu"
)

// tmuAtOnce reports whether no TMU request of the program ever waits in
// the request FIFO, in the terms of tmu.Unit.WriteAtOnce: a thread that
// starts with its units idle never fills a FIFO, never has a request wait
// for room in the receive FIFO and never reads an empty one, whatever its
// inputs. It is decided once, when the program is loaded, by a walk of
// the instructions in order, so it takes only programs that run each
// instruction once, in order:
//
//   - no branch (the walk would otherwise need every path);
//   - no write to TMU_NOSWAP (the program's TMU numbers then name the same
//     physical unit all through, AG §4 "QPU Interface");
//   - every TMU write unconditional (it happens in every run) and at most
//     one a instruction, and none in an instruction with an ldtmu signal
//     (so their order within the instruction does not matter);
//   - on each TMU, at most three of T, R and B written before each S (so
//     a request holds at most four of the eight request slots and four
//     configuration parameters, AG §4 "QPU Interface", "TMU setup"), S
//     written only while fewer than eight of its lookups' results wait to
//     be read (the receive FIFO's depth, tmu.ReceiveSlots), and every
//     ldtmu after an S whose result it reads.
//
// Mesa's vc4 compiler keeps one or two lookups in flight a TMU
// (glmark2's effect2d blur); the cube's fragment shader keeps one.
//
// A program it refuses runs on the FIFO's general code (tmu.Unit.Write
// and Receive), which keeps the depths and fails a program that overfills
// or underflows them.
func tmuAtOnce(insts []qpu.Inst) bool {
	var params [2]int  // T, R and B written since the last S, per program TMU
	var waiting [2]int // results not yet read, per program TMU
	for i := range insts {
		in := &insts[i]
		if in.IsBranch() {
			return false
		}
		ld := -1
		if in.Sig == qpu.SigLoadTMU0 || in.Sig == qpu.SigLoadTMU1 {
			ld = int(in.Sig - qpu.SigLoadTMU0)
		}
		writes := 0
		for _, w := range [2]struct {
			a qpu.WAddr
			c qpu.Cond
		}{{in.WaddrAdd, in.CondAdd}, {in.WaddrMul, in.CondMul}} {
			if w.a == qpu.WTMUNoSwap {
				return false
			}
			if !w.a.IsTMU() {
				continue
			}
			writes++
			if w.c != qpu.CondAlways || writes > 1 || ld >= 0 {
				return false
			}
			n := int(w.a - qpu.WTMU0S)
			u, reg := n/tmuRegs, TMUReg(n%tmuRegs)
			if reg != TMUS {
				if params[u]++; params[u] > 3 {
					return false
				}
				continue
			}
			if waiting[u] >= tmu.ReceiveSlots {
				return false
			}
			waiting[u]++
			params[u] = 0
		}
		if ld >= 0 {
			if waiting[ld] == 0 {
				return false
			}
			waiting[ld]--
		}
	}
	return true
}
