package qpuexec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
)

// envCall is one call a program made to its Env, with its arguments.
type envCall struct {
	kind   string
	n      int
	reg    uint8
	v, ms  vec
	mask   uint16
	param  uint32
	direct bool
}

// diffEnv is a deterministic Env: what it returns depends only on its seed
// and on the calls made so far; it records every call, and fails the
// failAt-th one (counting from 1; 0 never).
type diffEnv struct {
	seed   uint64
	calls  []envCall
	failAt int
}

func (e *diffEnv) next() uint32 {
	e.seed = e.seed*6364136223846793005 + 1442695040888963407
	return uint32(e.seed >> 32)
}

func (e *diffEnv) fill(v *[16]uint32) {
	for i := range v {
		v[i] = e.next()
		if i%3 == 0 {
			v[i] = specialWords[v[i]%uint32(len(specialWords))]
		}
	}
}

func (e *diffEnv) call(c envCall) error {
	e.calls = append(e.calls, c)
	if len(e.calls) == e.failAt {
		return fmt.Errorf("diffEnv: injected failure of call %d (%s)", e.failAt, c.kind)
	}
	return nil
}

func (e *diffEnv) Varying(vp, c *[16]uint32) error {
	e.fill(vp)
	e.fill(c)
	return e.call(envCall{kind: "varying", v: *vp, ms: *c})
}

func (e *diffEnv) TMUWrite(unit int, reg TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	return e.call(envCall{kind: "tmuwrite", n: unit, reg: uint8(reg), v: *v, mask: mask, param: param, direct: direct})
}

func (e *diffEnv) TMULoad(unit int, r4 *[16]uint32) error {
	e.fill(r4)
	return e.call(envCall{kind: "tmuload", n: unit, v: *r4})
}

func (e *diffEnv) TLBWrite(reg TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	c := envCall{kind: "tlbwrite", reg: uint8(reg), v: *v, mask: mask, ms: *ms}
	if reg == TLBZ {
		for i := range ms {
			if v[i]&1 != 0 {
				ms[i] = 0
			}
		}
	}
	return e.call(c)
}

func (e *diffEnv) TLBLoad(kind TLBLoad, r4 *[16]uint32) error {
	e.fill(r4)
	return e.call(envCall{kind: "tlbload", reg: uint8(kind), v: *r4})
}

func (e *diffEnv) Scoreboard(unlock bool) error {
	return e.call(envCall{kind: "scoreboard", direct: unlock})
}

func (e *diffEnv) Semaphore(n int, acquire bool) error {
	return e.call(envCall{kind: "semaphore", n: n, direct: acquire})
}

// qpuState is everything a run can change in a QPU, its Env and its VPM.
type qpuState struct {
	RA, RB             [32]vec
	Acc                [6]vec
	N, Z, C            uint16
	ResAdd, ResMul     vec
	PortA, PortB       vec
	UnpA, UnpR4        vec
	Packed             vec
	LastA, LastB       vec
	MS, Rev, VaryC     vec
	SFUVal             vec
	SFUAt, UnifAt, Seq int
	UnifAddr, UnifNext uint32
	UnifOff            int
	TMUParams          [2]int
	NoSwap, SBWaited   bool
	Mutex, HostInt     bool
	VaryPend           bool
	VRQ                [2]vpmRead
	VRN                int
	VW                 vpmSetup
	VWSet              bool
	EndAt, SwitchAt    int
	Jumps              [2]jump
	NJumps, LastBr     int
	Pend               []pendingWrite // the writes waiting (the array past NPend is never read)
	NPend              int
	Warnings           []Violation
	Calls              []envCall
	VPM                VPM
	Result             Result
	Err                string
	ErrIndex           int
	ErrInst            qpu.Inst
}

func snapshot(q *QPU, env *diffEnv, vpm *VPM, res Result, err error) *qpuState {
	q.landBanks() // as RA and RB would
	s := &qpuState{
		RA: q.ra, RB: q.rb, Acc: q.acc, N: q.n, Z: q.z, C: q.c,
		ResAdd: q.resAdd, ResMul: q.resMul, PortA: q.portA, PortB: q.portB,
		UnpA: q.unpA, UnpR4: q.unpR4, Packed: q.packed, LastA: q.lastA, LastB: q.lastB,
		MS: q.ms, Rev: q.rev, VaryC: q.varyC, SFUVal: q.sfuVal,
		SFUAt: q.sfuAt, UnifAt: q.unifAt, Seq: q.seq, UnifAddr: q.unifAddr, UnifNext: q.unifNext,
		UnifOff: q.unifOff, TMUParams: q.tmuParams, NoSwap: q.noSwap, SBWaited: q.sbWaited,
		Mutex: q.mutex, HostInt: q.hostInt, VaryPend: q.varyPend, VRQ: q.vrq, VRN: q.vrn,
		VW: q.vw, VWSet: q.vwSet, EndAt: q.endAt, SwitchAt: q.switchAt, Jumps: q.jumps,
		NJumps: q.njumps, LastBr: q.lastBr, Pend: append([]pendingWrite(nil), q.pend[:q.npend]...), NPend: q.npend,
		Warnings: append([]Violation(nil), q.Warnings...), Calls: env.calls, VPM: *vpm, Result: res,
	}
	if err != nil {
		s.Err = err.Error()
		var re *RunError
		if errors.As(err, &re) {
			s.ErrIndex, s.ErrInst = re.Index, re.Inst
		}
	}
	return s
}

// diffFirst names the first field in which two states differ.
func diffFirst(a, b *qpuState) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			f := va.Type().Field(i).Name
			switch x := va.Field(i).Interface().(type) {
			case []envCall:
				y := vb.Field(i).Interface().([]envCall)
				for k := 0; k < len(x) && k < len(y); k++ {
					if !reflect.DeepEqual(x[k], y[k]) {
						return fmt.Sprintf("%s[%d]: reference %+v, fast %+v", f, k, x[k], y[k])
					}
				}
				return fmt.Sprintf("%s: reference %d calls, fast %d", f, len(x), len(y))
			case [32]vec:
				y := vb.Field(i).Interface().([32]vec)
				for k := range x {
					if x[k] != y[k] {
						return fmt.Sprintf("%s[%d]: reference %#x\n\tfast %#x", f, k, x[k], y[k])
					}
				}
			case [6]vec:
				y := vb.Field(i).Interface().([6]vec)
				for k := range x {
					if x[k] != y[k] {
						return fmt.Sprintf("%s[%d]: reference %#x\n\tfast %#x", f, k, x[k], y[k])
					}
				}
			}
			return fmt.Sprintf("%s: reference %v\n\tfast %v", f, va.Field(i).Interface(), vb.Field(i).Interface())
		}
	}
	return ""
}

// diffRig runs programs on a reference QPU and a fast one from equal
// states and compares everything after each run.
type diffRig struct {
	*rig
	r        *rand.Rand
	ref, fst *QPU
	vpm      [2]VPM
}

func newDiffRig(t testing.TB, seed uint64) *diffRig {
	d := &diffRig{rig: newRig(t), r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	d.ref, d.fst = NewQPU(0, d.view), NewQPU(0, d.view)
	d.ref.Reference = true
	// Uniforms: random words through the whole buffer.
	b := d.pool.Bytes(d.unif)
	g := &progGen{r: d.r}
	for i := 0; i+4 <= len(b); i += 4 {
		binary.LittleEndian.PutUint32(b[i:], g.word())
	}
	return d
}

// randomize gives both QPUs (and their VPMs) the same random state.
func (d *diffRig) randomize() {
	g := &progGen{r: d.r}
	num := d.r.IntN(16)
	var st QPU
	for i := range st.ra {
		for e := range 16 {
			st.ra[i][e], st.rb[i][e] = g.word(), g.word()
		}
	}
	for i := range st.acc {
		for e := range 16 {
			st.acc[i][e] = g.word()
		}
	}
	for e := range 16 {
		st.resAdd[e], st.resMul[e] = g.word(), g.word()
	}
	st.n, st.z, st.c = uint16(d.r.Uint32()), uint16(d.r.Uint32()), uint16(d.r.Uint32())
	for _, q := range []*QPU{d.ref, d.fst} {
		q.Num = num
		q.landBanks() // no poison due to land on the registers set here
		q.poison14 = false
		q.ra, q.rb, q.acc, q.resAdd, q.resMul = st.ra, st.rb, st.acc, st.resAdd, st.resMul
		q.n, q.z, q.c = st.n, st.z, st.c
		q.Warnings = nil
	}
	for r := range d.vpm[0].rows {
		for e := range 16 {
			d.vpm[0].rows[r][e] = g.word()
		}
	}
	d.vpm[1] = d.vpm[0]
}

// start returns a random Start for a program of stage st (the VPM is set
// per QPU by the caller).
func (d *diffRig) start(st hazard.Stage) Start {
	g := &progGen{r: d.r}
	var s Start
	s.Uniforms = d.unif.Addr + uint32(4*d.r.IntN(64))
	if d.r.IntN(20) == 0 {
		s.Uniforms = d.unif.Addr + d.unif.Size - uint32(4*d.r.IntN(4)) // runs off the buffer: a fault
	}
	for e := range 16 {
		s.W[e], s.Z[e] = g.word(), d.r.Uint32()&0xFFFFFF
		s.X[e], s.Y[e] = uint32(d.r.IntN(2048)), uint32(d.r.IntN(2048))
		if d.r.IntN(4) != 0 {
			s.MSFlags[e] = 0xF
		}
	}
	s.RevFlag = uint32(d.r.IntN(2))
	if st != hazard.Fragment {
		s.VPMRead = Segment{Base: d.r.IntN(VPMRows), Rows: 1 + d.r.IntN(64)}
		s.VPMWrite = Segment{Base: d.r.IntN(VPMRows), Rows: 1 + d.r.IntN(64)}
	}
	return s
}

// loadFragment puts words in the rig's code buffer and loads them as a
// strict fragment shader.
func (d *diffRig) loadFragment(t *testing.T, words []uint64, what string) *Program {
	t.Helper()
	copy(d.pool.Bytes(d.code), qpu.Bytes(words))
	p, err := Load(d.view, d.code.Addr, strictFragment)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return p
}

// compareFailing compares the two paths on p, runs times from random
// states, with the Env failing at each call from first to last in turn
// (-1: never).
func (d *diffRig) compareFailing(t *testing.T, p *Program, first, last, runs int, what string) {
	t.Helper()
	for failAt := first; failAt <= last; failAt++ {
		for range runs {
			d.randomize()
			if !d.compare(t, p, d.start(hazard.Fragment), d.r.Uint64(), failAt, fmt.Sprintf("%s, Env failing at call %d", what, failAt)) {
				t.FailNow()
			}
		}
	}
}

// compareInLockstep runs p in lockstep batches of random sizes against
// each QPU alone (batchCase), and stops the test at the first
// difference.
func (d *diffRig) compareInLockstep(t *testing.T, p *Program, name string) {
	t.Helper()
	if !p.Batched() {
		t.Fatalf("%s is not batched", name)
	}
	for range 8 {
		n := 2 + d.r.IntN(MaxBatch-1)
		if diff, _ := d.batchCase(p, n, [MaxBatch]int{}); diff != "" {
			t.Fatalf("%s in lockstep: %s\nprogram:\n%s", name, diff, listing(p))
		}
	}
}

// compare runs p on both QPUs from equal states and environments and
// reports the first difference.
func (d *diffRig) compare(t *testing.T, p *Program, s Start, envSeed uint64, failAt int, what string) bool {
	t.Helper()
	var states [2]*qpuState
	for i, q := range []*QPU{d.ref, d.fst} {
		env := &diffEnv{seed: envSeed, failAt: failAt}
		st := s
		if p.Opts.Stage != hazard.Fragment {
			st.VPM = &d.vpm[i]
		}
		var res Result
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			res, err = q.Run(p, env, &st)
		}()
		states[i] = snapshot(q, env, &d.vpm[i], res, err)
	}
	if diff := diffFirst(states[0], states[1]); diff != "" {
		t.Errorf("%s: the fast path differs from the reference: %s\nprogram:\n%s", what, diff, listing(p))
		return false
	}
	return true
}

func listing(p *Program) string {
	s := ""
	for i := range p.Insts {
		s += fmt.Sprintf("\t%3d %-7s %v\n", i, stepKind(&p.steps[i]), p.Insts[i])
	}
	return s
}

// stepKind names the executor a step uses.
func stepKind(st *step) string {
	switch reflect.ValueOf(st.exec).Pointer() {
	case reflect.ValueOf(execOps).Pointer():
		return "ops"
	case reflect.ValueOf(execALU).Pointer():
		return "alu"
	case reflect.ValueOf(execFast).Pointer():
		return "fast"
	case reflect.ValueOf(execRefALU).Pointer(), reflect.ValueOf(execLoadImm).Pointer(), reflect.ValueOf(execBranch).Pointer():
		return "general"
	}
	return "?"
}

// The differential test's size: programs of each kind, and the random
// inputs (register, flag and VPM contents, start values, Env data, an
// injected Env failure or none) each program runs on, on both paths.
const (
	diffStrictPrograms     = 1200
	diffPermissivePrograms = 600
	diffInputs             = 6
)

// TestFastPathMatchesReference runs random valid (strict) programs of
// every stage, and random permissive programs (any instruction the
// loader accepts: broken restrictions, branches, VPM misuse), on the
// reference interpreter and the fast path from equal states, and requires
// equal registers, accumulators, flags, ALU latches, uniform stream, VPM,
// Env calls (in order, with their arguments), warnings, results and
// errors after every run. Each QPU keeps its state from one run to the
// next, as in the GPU model.
func TestFastPathMatchesReference(t *testing.T) {
	progs, inputs := diffStrictPrograms, diffInputs
	perm := diffPermissivePrograms
	if testing.Short() {
		progs, perm = progs/6, perm/6
	}
	d := newDiffRig(t, 1)
	kinds, forms := map[string]int{}, map[string]int{}
	runs, failed, straight, jumping := 0, 0, 0, 0
	var tried, kept int
	for i := 0; i < progs+perm; i++ {
		strict := i < progs
		g := &progGen{r: d.r, strict: strict}
		g.stage = []hazard.Stage{hazard.Fragment, hazard.Fragment, hazard.Vertex, hazard.Coordinate, hazard.General}[d.r.IntN(5)]
		g.threaded = g.stage == hazard.Fragment && d.r.IntN(2) == 0
		g.branches = d.r.IntN(4) == 0
		g.nopReads = d.r.IntN(8) == 0
		g.tame = []int{0, 50, 90}[d.r.IntN(3)]
		words := g.program(1 + d.r.IntN(40))
		tried, kept = tried+g.tried, kept+g.kept
		opts := Options{Stage: g.stage, Threaded: g.threaded, Permissive: !strict}
		p, err := Decode(0x10000, words, opts)
		if err != nil {
			if strict {
				t.Fatalf("program %d: a strict program the generator kept fails to load: %v", i, err)
			}
			continue
		}
		// Decode places the program at 0x10000; run it from the rig's code
		// buffer so that branches and fetches see the same addresses.
		copy(d.pool.Bytes(d.code), qpu.Bytes(words))
		if p, err = Load(d.view, d.code.Addr, opts); err != nil {
			t.Fatalf("program %d: %v", i, err)
		}
		for k := range p.ref {
			// The reference runs every instruction on its general
			// executor: the two paths differ only in the executors.
			if st := &p.ref[k]; st.in != &p.code[k] || reflect.ValueOf(st.exec).Pointer() != reflect.ValueOf(generalExec(st.in.kind)).Pointer() {
				t.Fatalf("program %d, instruction %d: the reference table runs it on %s, not its general executor", i, k, stepKind(st))
			}
		}
		for k := range p.steps {
			kinds[stepKind(&p.steps[k])]++
			if p.steps[k].exec != nil && stepKind(&p.steps[k]) == "fast" && p.steps[k].wkMul == wkColour {
				kinds["fast with a colour pack"]++
			}
		}
		if p.straight && len(p.jumpPts) > 0 {
			jumping++
		}
		if p.straight {
			straight++
			boundForms(d.fst, p, forms)
		}
		d.randomize()
		for j := 0; j < inputs; j++ {
			s := d.start(g.stage)
			failAt := 0
			if d.r.IntN(4) == 0 {
				failAt = 1 + d.r.IntN(6)
			}
			runs++
			if !d.compare(t, p, s, d.r.Uint64(), failAt, fmt.Sprintf("program %d (%v, threaded %v, strict %v), input %d", i, g.stage, g.threaded, strict, j)) {
				failed++
				if failed > 3 {
					t.FailNow()
				}
			}
		}
	}
	if jumping == 0 {
		t.Error("no random program with a branch ran bound: the jumps of bound programs went untested")
	}
	for _, f := range []string{"branch", "load immediate", "condition", "fused conditional write", "fused flags", "SFU write",
		"flags of N and Z", "float flags of N and Z", "uniforms address write", "uniform into a register", "uniform and a kernel",
		"varying and a kernel", "TMU write", "tile-buffer write", "TMU load", "scoreboard unlock"} {
		if forms[f] == 0 && (f != "float flags of N and Z" || hasFAddFlags()) {
			t.Errorf("no bound program had a %s micro-operation: that form went untested", f)
		}
	}
	t.Logf("%d strict and %d permissive programs × %d inputs: %d runs on each path; %d programs bound, %d of them with jumps; steps: %v; bound forms: %v; strict generator kept %d of %d pieces",
		progs, perm, inputs, runs, straight, jumping, kinds, forms, kept, tried)
}

// boundForms counts the micro-operations of p bound to q that stand for
// whole instructions of their own kinds: a branch (opBranch), a load
// immediate (its copies), a condition without flags (opCond), and the
// fused forms (fuse).
func boundForms(q *QPU, p *Program, forms map[string]int) {
	for _, u := range q.bound(p).ops {
		switch {
		case u.op == opBranch:
			forms["branch"]++
		case u.op == opBranchJump:
			forms["branch and jump"]++
		case u.op == opSFU:
			forms["SFU write"]++
		case u.op == opCond:
			forms["condition"]++
		case u.op == opKernelIf || u.op == opCopyIf:
			forms["fused conditional write"]++
		case u.op == opKernelFlags || u.op == opCopyFlags:
			forms["fused flags"]++
		case u.op == opSubFlags:
			forms["sub with flags"]++
		case u.op == opSubFlagsIf:
			forms["sub with flags under a condition"]++
		case u.op == opKernelNZ || u.op == opCopyNZ:
			forms["flags of N and Z"]++
		case u.op == opFloatNZ:
			forms["float flags of N and Z"]++
		case u.op == opUnifAddr:
			forms["uniforms address write"]++
		case u.op == opUniformCopy:
			forms["uniform into a register"]++
		case u.op == opUniformKernel:
			forms["uniform and a kernel"]++
		case u.op == opVaryingKernel || u.op == opVaryingR5Kernel:
			forms["varying and a kernel"]++
		case u.op == opTMUWrite:
			forms["TMU write"]++
		case u.op == opTLBWrite:
			forms["tile-buffer write"]++
		case u.op == opLoadTMU:
			forms["TMU load"]++
		case u.op == opUnlock:
			forms["scoreboard unlock"]++
		case (u.op == opCopyK || u.op == opCopy) && p.code[u.pc].kind == kLoadImm:
			forms["load immediate"]++
		}
	}
}

// A program that reads an operand through the NOP address runs every
// instruction on the general code (only it remembers the last values
// read), and gives the reference's results.
func TestFastPathFallsBackForNopReads(t *testing.T) {
	r := newRig(t)
	in := nopInst()
	in.Sig, in.OpAdd, in.AddA, in.AddB, in.WaddrAdd, in.CondAdd = qpu.SigNone, qpu.AddOr, qpu.MuxA, qpu.MuxA, qpu.WAcc0, qpu.CondAlways
	words := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R1, qpu.RA(3)))
		a.I(qpu.FAdd(qpu.R2, qpu.R1, qpu.R1))
		ending(a)
	})
	words = append([]uint64{encode(in)}, words...)
	p := r.mustLoad(words, strictGeneral)
	if !p.usesLast {
		t.Fatal("the program reads the NOP address but usesLast is not set")
	}
	for i := range p.steps {
		if k := stepKind(&p.steps[i]); k != "general" {
			t.Errorf("instruction %d runs on %s, want the general code", i, k)
		}
	}
	// Without the NOP read the same instructions are compiled.
	p2 := r.mustLoad(words[1:], strictGeneral)
	if k := stepKind(&p2.steps[0]); k != "ops" {
		t.Errorf("mov r1, ra3 runs on %s, want ops", k)
	}
	d := newDiffRig(t, 2)
	copy(d.pool.Bytes(d.code), qpu.Bytes(words))
	p, _ = Load(d.view, d.code.Addr, strictGeneral)
	d.randomize()
	d.compare(t, p, d.start(hazard.General), 1, 0, "NOP read program")
}

// The cube's shaders compile to the specialised executors; loads
// immediate and branches use the general code.
func TestCubeShadersCompile(t *testing.T) {
	r := newRig(t)
	fs := r.mustLoad(shaders.FS.Code, strictFragment)
	vs := r.mustLoad(shaders.VS.Code, strictVertex)
	for _, p := range []*Program{fs, vs} {
		n := map[string]int{}
		for i := range p.steps {
			n[stepKind(&p.steps[i])]++
		}
		if n["general"] > 0 && p == fs {
			t.Errorf("the cube's FS has %d instructions on the general code:\n%s", n["general"], listing(p))
		}
		t.Logf("%d instructions: %v", len(p.steps), n)
	}
}

// TestOnTheReferencePath runs the package's execution tests — every test
// that runs programs on a rig's QPU, which by default takes the fast path
// — again on the general interpreter.
func TestOnTheReferencePath(t *testing.T) {
	tests := []func(*testing.T){
		TestBothALUsEveryInstruction, TestConditionsAndFlags, TestFlagsFromMulOnlyWhenAddIsNop,
		TestRegfileReadAfterWriteReturnsOldValue, TestPartialPacksKeepOtherBytes, TestFloatPack16AndUnpack,
		TestR4UnpackColour, TestPerElementLoadImmediates, TestLoadImmediateBothDestinations,
		TestVectorRotation, TestR5Writes, TestReadCache, TestUniformsAddressReset, TestSFULatencyAndValue,
		TestBranches, TestBranchSpacing, TestWriteDelayAcrossJumps, TestBranchRegisterUsesElement15, TestProgramEndDelaySlotsAndLocation14,
		TestVaryingsAndR5, TestTMUParametersAndDirectLookups, TestTLBWritesScoreboardAndMSFlags,
		TestThreadSwitchClobbersAccumulators, TestThreadSwitchKeepsFlags, TestThreadedProgramRegisterHalf, TestHostInterruptAndMutex,
		TestMemoryFaultsAreErrors, TestNopReadReturnsLastValues, TestRunDoesNotAllocate, TestStaleMulResult,
		TestUnmappedReads,
		TestCubeVertexAndCoordinateShaders, TestCubeFragmentShader,
		TestVPMAccessModesFromTheGuide, TestVPMStrideCountAndWrap, TestVPMWritesOutsideTheSegmentAreDropped,
		TestVertexShaderThroughTheVPM, TestVPMReadRules,
		TestCacheDecodesOnce, TestSemaphores, TestProgramSharedAcrossGoroutines,
	}
	rigReference = true
	defer func() { rigReference = false }()
	for _, f := range tests {
		name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
		t.Run(name[strings.LastIndex(name, ".")+1:], f)
	}
}

// TestJumpsAgainstTheWriteDelay runs random strict programs built around
// a branch whose delay slots and target write and read a few registers of
// each file, so that the loader's write-delay analysis
// (Program.jumpsNeedWriteDelay) meets conflicts and near misses often:
// the fast path, which writes at once when the analysis allows, must
// agree with the general interpreter, which always delays. (The general
// random programs rarely put such a pair across a jump.)
func TestJumpsAgainstTheWriteDelay(t *testing.T) {
	d := newDiffRig(t, 11)
	dsts := []qpu.Reg{qpu.RA(0), qpu.RA(1), qpu.RB(0), qpu.RB(1), qpu.R0, qpu.R1}
	as := []qpu.Reg{qpu.RA(0), qpu.RA(1), qpu.R0, qpu.R2}
	bs := []qpu.Reg{qpu.RB(0), qpu.RB(1), qpu.R1, qpu.SmallInt(3)}
	conds := []qpu.BranchCond{qpu.BranchAlways, qpu.BranchAlways, qpu.BranchAnyZS, qpu.BranchAllNC}
	// op is a random add or or; phys makes its destination and operands
	// physical registers (the third delay slot's write, the target's
	// reads).
	op := func(phys bool) qpu.Item {
		n := len(dsts)
		if phys {
			n = 4
		}
		dst, a, b := dsts[d.r.IntN(n)], as[d.r.IntN(len(as))], bs[d.r.IntN(len(bs))]
		if phys {
			a, b = as[d.r.IntN(2)], bs[d.r.IntN(2)]
		}
		if d.r.IntN(2) == 0 {
			return qpu.Add(dst, a, b)
		}
		return qpu.Or(dst, a, b)
	}
	programs, delayed, loaded := 3000, 0, 0
	if testing.Short() {
		programs = 500
	}
	for i := 0; i < programs; i++ {
		var a qpu.Asm
		a.I(qpu.LoadImm(qpu.RA(0), d.r.Uint32()))
		a.I(qpu.LoadImm(qpu.RA(1), d.r.Uint32()))
		a.I(qpu.LoadImm(qpu.RB(0), d.r.Uint32()))
		a.I(qpu.LoadImm(qpu.RB(1), d.r.Uint32()))
		a.I(qpu.Sub(qpu.Null, qpu.ElemNum, qpu.SmallInt(d.r.IntN(16))).SetFlags())
		a.I(qpu.Branch(conds[d.r.IntN(len(conds))], "target"))
		a.I(op(false))
		a.I(op(false))
		a.I(op(true)) // the third delay slot: the instruction before the landing
		for range d.r.IntN(3) {
			a.I(op(false)) // skipped when the branch is taken
		}
		a.Label("target")
		a.I(op(true))
		a.I(op(false))
		ending(&a)
		words, err := a.Assemble()
		if err != nil {
			continue
		}
		copy(d.pool.Bytes(d.code), qpu.Bytes(words))
		p, err := Load(d.view, d.code.Addr, strictGeneral)
		if err != nil {
			continue // a hazard in address order: not this test's subject
		}
		loaded++
		if p.delayWrites {
			delayed++
		}
		d.randomize()
		s := d.start(hazard.General)
		if !d.compare(t, p, s, d.r.Uint64(), 0, fmt.Sprintf("program %d", i)) {
			t.FailNow()
		}
	}
	t.Logf("%d of %d programs loaded, %d of them keeping the write delay", loaded, programs, delayed)
	if delayed < loaded/10 || delayed > loaded-loaded/10 {
		t.Errorf("%d of %d loaded programs keep the write delay: the programs do not test both sides of the analysis", delayed, loaded)
	}
}

// A bound program that fails in a delay slot of its program end (an Env
// call refused there) ends, on both paths, with the program end's writes
// of location 14 made: the general interpreter lands its waiting writes
// when a run fails, and the bound program makes them at once (landEnd).
func TestFailureInProgramEndDelaySlot(t *testing.T) {
	d := newDiffRig(t, 13)
	words := asm(t, func(a *qpu.Asm) {
		a.I(qpu.Mov(qpu.R0, qpu.RA(3)))
		a.I(qpu.SigProgramEnd)
		a.I(qpu.Mov(qpu.TLBColourAll, qpu.R0)) // an Env call in the first delay slot
		a.I()
	})
	p := d.loadFragment(t, words, "program end")
	if !p.straight {
		t.Fatal("the program does not run bound")
	}
	d.compareFailing(t, p, 0, 3, 1, "program end")
}
