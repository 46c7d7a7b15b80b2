package qpuexec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// Options say what a program is and how strictly to load it.
type Options struct {
	// Stage is the kind of program; the hazard checker applies the
	// fragment-only and VPM rules by it, and fragment shaders may not
	// touch the VPM (AG §7).
	Stage hazard.Stage
	// Threaded is set for a fragment shader whose shader record clears
	// flag bit 0 ("FS single-threaded"): it runs as one of two hardware
	// threads, sees only registers 0-15 of each file and may thread-switch
	// (AG §3 "Thread Control"; doc/hardware.md#threads).
	Threaded bool
	// Permissive keeps broken instruction restrictions as warnings
	// (Program.Warnings, and QPU.Warnings for those met while running)
	// instead of failing: the hardware does not trap, it computes
	// something else, which the interpreter models where the sources say
	// what. Strict (false) is what tests use.
	Permissive bool
}

// Program is a QPU program decoded once for the interpreter. It is
// immutable and may be shared by QPUs on several goroutines.
type Program struct {
	// Addr is the bus address of the first instruction.
	Addr uint32
	// Opts are the options it was loaded with.
	Opts Options
	// Insts are the decoded instructions, up to the program end and its
	// two delay slots.
	Insts []qpu.Inst
	// Warnings are the restrictions the program breaks (only in
	// permissive mode; a strict load fails instead).
	Warnings []Violation

	code     []inst
	ref      []step // the reference table: each instruction on its general executor (loop.go)
	steps    []step // the compiled table: each on the executor chosen for it (step_plan.go)
	vecs     []vec  // small-immediate and per-element load-immediate vectors
	usesLast bool   // some operand reads the NOP address (rdLast)
	// delayWrites says the program needs the register files' one-cycle
	// write delay modelled (loop.go retire). A strict program never reads
	// a register the instruction before it in address order wrote (hazard
	// rule 7); unless a jump can land on an instruction that reads what
	// the instruction executed before the landing wrote
	// (jumpsNeedWriteDelay), writing at once gives the same results,
	// faster. The general interpreter (QPU.Reference) models the delay
	// always, so the tests hold this reasoning to it.
	delayWrites bool
	words       []byte      // the program's bytes, as fetched (for the cache)
	straight    bool        // runs bound to each QPU (bound_bind.go bindable)
	jumpPts     []jumpPoint // where a bound program's jumps can happen (bound_bind.go bindable)
	readsCoords bool        // some operand reads X_PIXEL_COORD or Y_PIXEL_COORD
	batchable   bool        // a Batch runs it in lockstep (batch_plan.go)
	tmuAtOnce   bool        // no TMU request waits in a request FIFO (tmuatonce.go)
	names14     bool        // some instruction names location 14 of a register file (names14)
}

// ReadsPixelCoords reports whether the program reads X_PIXEL_COORD or
// Y_PIXEL_COORD (AG Table 14), so Start.X and Start.Y matter: a caller may
// leave them unset for a program that does not.
func (p *Program) ReadsPixelCoords() bool { return p.readsCoords }

// Len returns the number of instructions.
func (p *Program) Len() int { return len(p.code) }

// A LoadError says why a program cannot be run.
type LoadError struct {
	Addr       uint32
	Violations []Violation // broken restrictions (strict mode)
	Err        error       // or another reason
}

// Error says which program failed and why, one broken restriction a line.
func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "qpuexec: program at %#08x", e.Addr)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	for i, v := range e.Violations {
		if i == 8 {
			fmt.Fprintf(&b, "\n\t... and %d more", len(e.Violations)-i)
			break
		}
		b.WriteString("\n\t")
		b.WriteString(v.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error (a *mem.Fault for a fetch outside the
// job's memory).
func (e *LoadError) Unwrap() error { return e.Err }

// maxProgram bounds the instruction fetch of one program, to keep a
// runaway fetch through a huge buffer cheap to refuse: 64 Ki instructions
// (512 KiB of code; the cube's shaders are a few dozen instructions).
const maxProgram = 1 << 16

// fetch returns the bytes of the program at addr: every instruction up to
// the first program end and its two delay slots, as the QPU fetches them
// (AG §3 "Thread Control": two delay slots follow Program End; Linux
// vc4_validate_shaders.c stops at the same place). The fetch follows the
// addresses into the next buffer if the job may read it, as the hardware
// would; fetching outside the job's memory records a fault in v and fails.
// When the program lies in one buffer the result aliases the pool.
func fetch(v *mem.View, addr uint32) ([]byte, error) {
	if addr%8 != 0 {
		return nil, fmt.Errorf("code address is not 8-byte aligned")
	}
	buf, off, err := v.Span(addr, false, "QPU instruction fetch")
	if err != nil {
		return nil, err
	}
	code := buf[off:]
	end := -1
	for i := 0; ; i++ {
		if i == maxProgram {
			return nil, fmt.Errorf("no program end in the first %d instructions", maxProgram)
		}
		if 8*i+8 > len(code) {
			next := addr + uint32(len(code))
			nb, noff, err := v.Span(next, false, "QPU instruction fetch")
			if err != nil || len(code)%8 != 0 {
				return nil, fmt.Errorf("no program end (and two delay slots) before the end of the readable code: %w", err)
			}
			code = append(append([]byte(nil), code...), nb[noff:]...)
		}
		w := binary.LittleEndian.Uint64(code[8*i:])
		if end < 0 && qpu.Signal(w>>60).EndsProgram() {
			end = i
		}
		if end >= 0 && i == end+2 {
			return code[:8*i+8], nil
		}
	}
}

func decodeBytes(addr uint32, b []byte, opts Options) (*Program, error) {
	n := len(b) / 8
	p := &Program{Addr: addr, Opts: opts, words: append([]byte(nil), b...)}
	p.Insts = make([]qpu.Inst, n)
	for i := range p.Insts {
		p.Insts[i] = qpu.Decode(binary.LittleEndian.Uint64(b[8*i:]))
	}
	if opts.Stage < hazard.Fragment || opts.Stage > hazard.General {
		return nil, &LoadError{Addr: addr, Err: fmt.Errorf("Options.Stage %d is not a shader stage", opts.Stage)}
	}
	var bad, tolerated []Violation
	for _, v := range hazard.Check(p.Insts, opts.Stage) {
		// A rule the hardware is known to tolerate (hazard.Rule.Tolerated)
		// is kept as a warning only: the run does what the hardware does.
		if _, ok := v.Rule.Tolerated(); ok {
			tolerated = append(tolerated, fromHazard(v))
			continue
		}
		bad = append(bad, fromHazard(v))
	}
	bad = append(bad, p.extraChecks()...)
	if len(bad) > 0 && !opts.Permissive {
		return nil, &LoadError{Addr: addr, Violations: bad}
	}
	p.Warnings = append(bad, tolerated...)
	p.delayWrites = opts.Permissive
	p.code = make([]inst, n)
	for i := range p.Insts {
		if err := p.compile(i); err != nil {
			return nil, &LoadError{Addr: addr, Err: fmt.Errorf("instruction %d (%v): %w", i, p.Insts[i], err)}
		}
		c := &p.code[i]
		if c.rdA == rdLast || c.rdB == rdLast {
			p.usesLast = true
		}
		if c.rdA == rdXCoord || c.rdB == rdXCoord || c.rdA == rdYCoord || c.rdB == rdYCoord {
			p.readsCoords = true
		}
	}
	if !p.delayWrites {
		p.delayWrites = p.jumpsNeedWriteDelay()
	}
	p.compileSteps()
	p.straight = p.bindable()
	p.tmuAtOnce = tmuAtOnce(p.Insts)
	p.names14 = names14(p.Insts)
	p.batchable = p.straight && opts.Stage == hazard.Fragment && !opts.Permissive && p.selfContained()
	return p, nil
}

// link is the address a branch at instruction b writes as its link and
// jumps relative to: the instruction after its three delay slots, PC + 4
// instructions (AG Table 10; shaders/qpu Inst.BranchTarget, which the
// kernel's validator rule follows).
func (p *Program) link(b int) uint32 { return p.Addr + uint32(8*(b+4)) }

// index returns the number of the instruction at address a, if a is the
// address of one of p's instructions.
func (p *Program) index(a uint32) (int, bool) {
	d := int64(a) - int64(p.Addr)
	if d%8 != 0 || d < 0 || d/8 >= int64(len(p.code)) {
		return 0, false
	}
	return int(d / 8), true
}

// jumpsNeedWriteDelay reports whether a jump of the program can land on
// an instruction that reads a physical register which the instruction
// executed just before the landing may write. A branch's jump lands after
// the third instruction executed after it (ref_exec.go execBranch): that is b+3,
// or, when a branch three instructions before b jumped after b, the
// third instruction from that jump's target t (branches closer together
// cancel each other, ref_exec.go execBranch). So the instructions a landing can
// follow are among b+3 and t+2 for every branch b and target t. A
// register branch's target is not known at load: it needs the delay.
func (p *Program) jumpsNeedWriteDelay() bool {
	n := len(p.code)
	var from, to []int
	for b := range p.code {
		c := &p.code[b]
		if c.kind != kBranch {
			continue
		}
		if c.brReg {
			return true
		}
		t, ok := p.staticTarget(b)
		if !ok {
			continue // the jump fails (ref_exec.go execBranch): nothing runs after it
		}
		from = append(from, b+3, t+2)
		to = append(to, t)
	}
	for _, x := range from {
		if x >= n {
			continue
		}
		for _, t := range to {
			if p.code[x].writesRegRead(&p.code[t]) {
				return true
			}
		}
	}
	return false
}

// writesRegRead reports whether c may write a physical register that r
// reads (a conditional write counts).
func (c *inst) writesRegRead(r *inst) bool {
	for _, w := range [2]wtarget{c.wAdd, c.wMul} {
		switch w.kind {
		case wPhysA:
			if r.rdA == rdPhys && r.regA == w.n {
				return true
			}
		case wPhysB:
			if r.rdB == rdPhys && r.regB == w.n {
				return true
			}
		}
	}
	return false
}

// tracksLast reports whether the interpreter must remember the last values
// read through each port, for operands that read the NOP address (vc4asm
// addendum, "Secret access to previous input values through the NOP
// register": elements 12-15 of the last value read through that file).
func (p *Program) tracksLast() bool { return p.usesLast }

// extraChecks are rules the shaders/hazard checker does not cover, broken
// programs the hardware would misrun, reported the same way.
//   - A threaded fragment shader may use only registers 0-15 of each file
//     (AG §3 "Thread Control"; Linux vc4_validate_shaders.c rejects the
//     others); the other half belongs to the other thread.
//   - The mul ALU's single-byte colour packs cannot write I/O registers
//     (vc4asm addendum "MUL ALU pack modes and I/O register targets").
func (p *Program) extraChecks() (out []Violation) {
	for i := range p.Insts {
		in := &p.Insts[i]
		if p.Opts.Threaded {
			for f := qpu.FileA; f <= qpu.FileB; f++ {
				for r := uint8(16); r < 32; r++ {
					if in.UsesPhysical(f, r) || in.WritesPhysical(f, r) || (in.IsALU() && in.Reads(f, qpu.RAddr(r))) {
						out = append(out, Violation{Index: i, Inst: *in, Rule: "threaded registers",
							Text: fmt.Sprintf("a threaded shader owns registers 0-15 of each file, this one uses r%v%d [AG §3 Thread Control; Linux vc4_validate_shaders.c]", f, r)})
					}
				}
			}
		}
		if in.Kind() != qpu.KindBranch && in.PM && in.Pack >= qpu.PackMul8A && in.Pack <= qpu.PackMul8D && isIO(in.WaddrMul) {
			out = append(out, Violation{Index: i, Inst: *in, Rule: "byte pack to I/O",
				Text: "the mul ALU's single-byte colour packs cannot write an I/O register [vc4asm addendum, MUL ALU pack modes and I/O register targets]"})
		}
	}
	return out
}

// isIO reports whether w is an I/O register: not a physical register, not
// an accumulator (r0-r3, r5) and not the NOP address.
func isIO(w qpu.WAddr) bool {
	_, acc := w.IsAccumulator()
	return !w.IsPhysical() && !acc && w != qpu.WNop
}

// A Violation is a broken instruction restriction: one found by the
// shaders/hazard checker when the program is loaded, one of this package's
// own load-time checks, or one met while running (VPM read timing, branch
// spacing, ...).
type Violation struct {
	Index int      // instruction index in the program
	Inst  qpu.Inst // the instruction
	Rule  string   // which rule, e.g. "rule 7" or "VPM read count"
	Text  string   // what the rule says, its source and what happened
}

// Error formats the violation with the instruction's index and listing.
func (v Violation) Error() string {
	return fmt.Sprintf("instruction %d (%v): %s: %s", v.Index, v.Inst, v.Rule, v.Text)
}

func fromHazard(h hazard.Violation) Violation {
	t := h.Rule.Title() + " [" + h.Rule.Source() + "]"
	if h.Detail != "" {
		t += ": " + h.Detail
	}
	return Violation{Index: h.Index, Inst: h.Inst, Rule: h.Rule.String(), Text: t}
}

// Cache holds decoded programs keyed by code address and content, so each
// shader BO is decoded once across frames (shader BOs are immutable on vc4:
// Linux vc4_bo.c refuses to map a validated shader BO writable). It holds
// at most MaxCached programs: a client that keeps making new shaders (new
// BOs, or new code at a freed BO's address) would otherwise grow it for
// ever; past the bound it starts again, and programs already handed out
// stay valid. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	progs map[cacheKey][]*Program
	n     int
}

// MaxCached is the most programs a Cache keeps (a frame of vccube uses
// three).
const MaxCached = 1024

type cacheKey struct {
	addr uint32
	opts Options
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{progs: make(map[cacheKey][]*Program)} }

// Load returns the program at addr, decoding it only if no program with the
// same address, options and bytes has been loaded before. A hit costs an
// instruction fetch and a byte comparison, and allocates nothing.
func (c *Cache) Load(v *mem.View, addr uint32, opts Options) (*Program, error) {
	b, err := fetch(v, addr)
	if err != nil {
		return nil, &LoadError{Addr: addr, Err: err}
	}
	k := cacheKey{addr, opts}
	c.mu.Lock()
	for _, p := range c.progs[k] {
		if bytes.Equal(p.words, b) {
			c.mu.Unlock()
			return p, nil
		}
	}
	c.mu.Unlock()
	p, err := decodeBytes(addr, b, opts)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.n >= MaxCached {
		clear(c.progs)
		c.n = 0
	}
	c.progs[k] = append(c.progs[k], p)
	c.n++
	c.mu.Unlock()
	return p, nil
}

// Len returns the number of programs in the cache.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// names14 reports whether an instruction of insts may read or write
// location 14 of either register file: one of its read or write address
// fields holds 14, whatever the instruction's kind and file (a load
// immediate's or a branch's fields count too). A program that names
// neither leaves there what the last program end put (QPU.landEnd).
func names14(insts []qpu.Inst) bool {
	for i := range insts {
		in := &insts[i]
		if in.WaddrAdd == 14 || in.WaddrMul == 14 || in.RaddrA == 14 || in.RaddrB == 14 {
			return true
		}
	}
	return false
}
