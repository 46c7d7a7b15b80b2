// Package cle is the VideoCore IV control-list executor (CLE): the unit that
// walks a control list in memory, one packet at a time, for the binning
// thread (CT0) and the rendering thread (CT1).
//
// A Thread fetches packets through the job's mem.View, with their lengths
// from the one packet table (cl/spec), and handles the flow-control packets
// itself: NOP, HALT, BRANCH, BRANCH_TO_SUB_LIST and RETURN_FROM_SUB_LIST
// with the two-deep return stack. Every other packet is handed to the caller
// (the binner or the renderer), which may also consume inline data that
// follows a packet (compressed primitive lists).
//
// Facts and their sources:
//   - The thread runs from CTnCA until CTnCA equals CTnEA ([AG] §8 "System
//     Operation": "The CLE advances V3DCTnCA until it exactly matches
//     V3DCTnEA").
//   - BRANCH_TO_SUB_LIST nests at most two levels ([AG] Table 38 id 17);
//     RETURN_FROM_SUB_LIST with an empty stack is ignored ([AG] Table 38
//     id 18: "ignored if nothing on the return stack").
//   - HALT stops the thread ([AG] Table 38 id 0).
//
// What the sources leave open, and what this model does:
//   - A third nested BRANCH_TO_SUB_LIST: the hardware's behaviour is not
//     documented; we stop the job as hung with an error naming the packet.
//   - A reserved packet id: undocumented; the job hangs with an error.
//   - A list that never reaches CTnEA (a branch loop, or a list that runs
//     into other data) would spin forever on the hardware until the kernel's
//     hang check resets the GPU (Linux vc4_gem.c vc4_hangcheck_elapsed). We
//     bound the work instead: Limits.Packets packets per thread, and
//     Limits.IdleFlow flow-control packets in a row without any other
//     packet, then report a hang.
package cle

import (
	"errors"
	"fmt"
	"math"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/mem"
)

// Semaphore is the counting semaphore the two threads share:
// INCREMENT_SEMAPHORE adds one, WAIT_ON_SEMAPHORE waits until it can take
// one ([AG] §8 "System Operation": "The two threads can be synchronised
// via counting semaphores").
type Semaphore struct {
	// Count is the semaphore's value.
	Count int
}

// Increment is INCREMENT_SEMAPHORE.
func (s *Semaphore) Increment() { s.Count++ }

// Take is WAIT_ON_SEMAPHORE: it takes one count and reports true, or, at
// zero, reports false: the thread must wait and try again after the other
// thread increments.
func (s *Semaphore) Take() bool {
	if s.Count == 0 {
		return false
	}
	s.Count--
	return true
}

// Status says why a thread's run returned.
type Status int

// Run outcomes.
const (
	// Done: the list reached its end address or HALT.
	Done Status = iota
	// Waiting: the list is stopped at WAIT_ON_SEMAPHORE with the
	// semaphore at zero; run it again after the other thread increments
	// it.
	Waiting
)

// Limits bound the work a thread may do before it is declared hung.
type Limits struct {
	// Packets is the most packets (of any kind) one thread may execute.
	Packets int
	// IdleFlow is the most flow-control packets (NOP, branches, returns)
	// in a row without another packet in between: a branch loop.
	IdleFlow int
	// Vertices is the most vertices the draws of one thread may name
	// (a GL_ARRAY_PRIMITIVE can name four billion).
	Vertices int
}

// CountVertices adds n, the vertices one draw names, to *total, the
// vertices the thread's draws have named so far, and fails when the total
// passes l.Vertices. The bound is never more than math.MaxInt32 (also when
// l.Vertices is 0 or larger), so that a checked count fits an int on
// every architecture: a GL_ARRAY_PRIMITIVE's 32-bit length can name
// 2³²−1 vertices, which a 32-bit int (GOARCH=arm) cannot hold.
func (l Limits) CountVertices(total *uint64, n uint32) error {
	bound := uint64(math.MaxInt32)
	if l.Vertices > 0 && uint64(l.Vertices) < bound {
		bound = uint64(l.Vertices)
	}
	*total += uint64(n)
	if *total > bound {
		return fmt.Errorf("the draws name %d vertices, more than the model's bound of %d for one job", *total, bound)
	}
	return nil
}

// DefaultLimits are generous enough for any real frame (a 1080p frame of
// many thousand draws is a few million packets) and end a runaway list in
// about a second.
var DefaultLimits = Limits{Packets: 1 << 27, IdleFlow: 1 << 20, Vertices: 1 << 26}

// ErrHalted is returned by Next when the thread executed HALT.
var ErrHalted = errors.New("cle: HALT")

// ErrEnd is returned by Next when the thread reached its end address.
var ErrEnd = errors.New("cle: end of list")

// ErrReturned is returned by Next when a list started with Call executes
// its final RETURN_FROM_SUB_LIST.
var ErrReturned = errors.New("cle: returned from sub-list")

// HangError says why a thread could not go on. The GPU model reports it in
// hw.Result.Reason.
type HangError struct {
	// Thread names the thread ("CT0" binning, "CT1" rendering).
	Thread string
	// Addr is the address of the packet (or byte) at fault.
	Addr uint32
	// Msg says what went wrong.
	Msg string
	// Err is the underlying error (a *mem.Fault), if any.
	Err error
}

// Error names the thread, the address and the problem.
func (e *HangError) Error() string {
	return fmt.Sprintf("%s hung at %#08x: %s", e.Thread, e.Addr, e.Msg)
}

// Unwrap returns the underlying error.
func (e *HangError) Unwrap() error { return e.Err }

// Packet is one packet handed to the caller.
type Packet struct {
	// Op is the opcode.
	Op spec.Opcode
	// Addr is the bus address of the opcode byte.
	Addr uint32
	// Bytes is the whole fixed-length packet, opcode first. It aliases
	// GPU memory: copy what must outlive the next call.
	Bytes []byte
}

// Thread is one CLE thread. The zero value is not ready; call Start.
type Thread struct {
	view   *mem.View
	name   string
	what   string // names the thread's fetches in faults
	limits Limits

	pc, end uint32
	stack   [2]uint32
	depth   int
	// called is set when the list was entered with Call: stack[0] is the
	// caller's, and returning to it ends the list.
	called bool
	// deferSubLists makes Next hand BRANCH_TO_SUB_LIST to the caller.
	deferSubLists bool

	// span caches the readable region holding pc: its bytes and the bus
	// address of its first byte, so most packets cost no region lookup.
	span     []byte
	spanBase uint32

	packets  int
	idleFlow int
}

// NewThread returns a thread named name ("CT0" or "CT1") that reads
// through v.
func NewThread(v *mem.View, name string, l Limits) *Thread {
	return &Thread{view: v, name: name, what: name + " control list fetch", limits: l}
}

// SetView points the thread at another job's memory.
func (t *Thread) SetView(v *mem.View) {
	t.view = v
	t.span = nil
}

// Start points the thread at a list, as writing CTnCA and CTnEA does, and
// empties its return stack.
func (t *Thread) Start(start, end uint32) {
	t.pc, t.end = start, end
	t.depth = 0
	t.called = false
	t.span = nil
	t.packets, t.idleFlow = 0, 0
}

// Call runs the sub-list at addr as if a BRANCH_TO_SUB_LIST in a caller's
// list had jumped there: the call takes one level of the return stack, and
// Next returns ErrReturned when the sub-list returns. The renderer uses it
// to run each tile's list on the worker that renders the tile.
func (t *Thread) Call(addr uint32) {
	// An end address the list cannot reach without wrapping around 4 GiB.
	t.Start(addr, addr-1)
	t.stack[0] = 0
	t.depth = 1
	t.called = true
}

// DeferSubLists makes Next return BRANCH_TO_SUB_LIST packets instead of
// following them, for a caller that runs the sub-lists itself.
func (t *Thread) DeferSubLists(on bool) { t.deferSubLists = on }

// PC returns the current address (CTnCA).
func (t *Thread) PC() uint32 { return t.pc }

// End returns the end address (CTnEA).
func (t *Thread) End() uint32 { return t.end }

// ReturnAddr returns the top of the return stack (CTnRA0) or 0.
func (t *Thread) ReturnAddr() uint32 {
	if t.depth == 0 {
		return 0
	}
	return t.stack[t.depth-1]
}

// Limits returns the thread's limits.
func (t *Thread) Limits() Limits { return t.limits }

// Hang returns a HangError for this thread at addr.
func (t *Thread) Hang(addr uint32, msg string, err error) *HangError {
	return &HangError{Thread: t.name, Addr: addr, Msg: msg, Err: err}
}

// bytesAt returns at least n readable bytes at addr, or a fault.
func (t *Thread) bytesAt(addr uint32, n uint32) ([]byte, error) {
	if t.span != nil && addr >= t.spanBase {
		off := uint64(addr - t.spanBase)
		if off+uint64(n) <= uint64(len(t.span)) {
			return t.span[off:], nil
		}
	}
	buf, off, err := t.view.Span(addr, false, t.what)
	if err != nil {
		return nil, err
	}
	t.span, t.spanBase = buf, addr-off
	if uint64(off)+uint64(n) > uint64(len(buf)) {
		// The packet runs off the end of its buffer: ask for exactly
		// those bytes so that the fault names them.
		if _, err := t.view.Read(addr, n, t.what); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("packet crosses the end of its buffer")
	}
	return buf[off:], nil
}

// Next executes flow-control packets and returns the next other packet.
// It returns ErrEnd when the thread has reached its end address, ErrHalted
// after HALT, and a *HangError if the list faults or runs away.
func (t *Thread) Next() (Packet, error) {
	for {
		if t.pc == t.end {
			return Packet{}, ErrEnd
		}
		if t.packets >= t.limits.Packets {
			return Packet{}, t.Hang(t.pc, fmt.Sprintf("control list did not end after %d packets", t.packets), nil)
		}
		t.packets++
		b, err := t.bytesAt(t.pc, 1)
		if err != nil {
			return Packet{}, t.Hang(t.pc, "control list runs outside the job's memory", err)
		}
		op := spec.Opcode(b[0])
		desc := spec.Lookup(op)
		if desc == nil || desc.Pseudo {
			return Packet{}, t.Hang(t.pc, fmt.Sprintf("reserved packet id %d", uint8(op)), nil)
		}
		n := uint32(desc.Len)
		if n > 1 {
			if b, err = t.bytesAt(t.pc, n); err != nil {
				return Packet{}, t.Hang(t.pc, fmt.Sprintf("%v runs outside the job's memory", op), err)
			}
		}
		addr := t.pc
		switch op {
		case spec.OpNOP:
			t.pc += n
			if err := t.flow(addr); err != nil {
				return Packet{}, err
			}
			continue
		case spec.OpHalt:
			t.pc += n
			return Packet{}, ErrHalted
		case spec.OpBranch:
			var q cl.Branch
			q.Unpack(b)
			t.pc = q.Address
			if err := t.flow(addr); err != nil {
				return Packet{}, err
			}
			continue
		case spec.OpBranchToSubList:
			if t.deferSubLists {
				t.idleFlow = 0
				t.pc += n
				return Packet{Op: op, Addr: addr, Bytes: b[:n:n]}, nil
			}
			if t.depth == len(t.stack) {
				return Packet{}, t.Hang(addr, fmt.Sprintf("BRANCH_TO_SUB_LIST nested more than %d deep", len(t.stack)), nil)
			}
			var q cl.BranchToSubList
			q.Unpack(b)
			t.stack[t.depth] = t.pc + n
			t.depth++
			t.pc = q.Address
			if err := t.flow(addr); err != nil {
				return Packet{}, err
			}
			continue
		case spec.OpReturnFromSubList:
			t.pc += n
			if t.depth > 0 {
				t.depth--
				t.pc = t.stack[t.depth]
				if t.depth == 0 && t.called {
					t.called = false
					return Packet{}, ErrReturned
				}
			}
			if err := t.flow(addr); err != nil {
				return Packet{}, err
			}
			continue
		}
		t.idleFlow = 0
		t.pc += n
		return Packet{Op: op, Addr: addr, Bytes: b[:n:n]}, nil
	}
}

func (t *Thread) flow(addr uint32) error {
	t.idleFlow++
	if t.idleFlow > t.limits.IdleFlow {
		return t.Hang(addr, fmt.Sprintf("%d flow-control packets in a row: a branch loop", t.idleFlow), nil)
	}
	return nil
}

// Inline returns the readable bytes from the current address to the end of
// its buffer, for a caller that decodes inline data (a compressed primitive
// list) after a packet. Advance by what was consumed with Skip.
func (t *Thread) Inline() ([]byte, error) {
	b, err := t.bytesAt(t.pc, 1)
	if err != nil {
		return nil, t.Hang(t.pc, "inline data runs outside the job's memory", err)
	}
	return b, nil
}

// Skip advances the current address by n bytes of consumed inline data.
func (t *Thread) Skip(n int) { t.pc += uint32(n) }

// Jump moves the current address to addr (a branch inside inline data).
func (t *Thread) Jump(addr uint32) { t.pc = addr }
