package qpuexec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/mem"
)

// rig is a QPU with memory: a pool with a code buffer and a uniforms
// buffer granted to one job's View, and a recording Env.
type rig struct {
	t    testing.TB
	pool *mem.Pool
	view *mem.View
	code mem.Region
	unif mem.Region
	q    *QPU
	env  *fakeEnv
	vpm  VPM
}

func newRig(t testing.TB) *rig {
	t.Helper()
	p, err := mem.NewPool(mem.DefaultBase, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	r := &rig{t: t, pool: p, view: mem.NewView(p), env: &fakeEnv{}}
	if r.code, err = p.Alloc(64<<10, 0); err != nil {
		t.Fatal(err)
	}
	if r.unif, err = p.Alloc(64<<10, 0); err != nil {
		t.Fatal(err)
	}
	r.view.Add(r.code, mem.Read, "code")
	r.view.Add(r.unif, mem.Read, "uniforms")
	r.q = NewQPU(0, r.view)
	r.q.Reference = rigReference
	return r
}

// rigReference makes newRig's QPU run the general interpreter
// (QPU.Reference): TestOnTheReferencePath sets it to run the package's
// execution tests, which otherwise run the compiled steps, on both paths.
var rigReference bool

// asm assembles a program, failing the test on an assembler error.
func asm(t testing.TB, build func(a *qpu.Asm)) []uint64 {
	t.Helper()
	var a qpu.Asm
	build(&a)
	w, err := a.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// ending appends the program end the way Mesa does: thrend on a NOP, two
// NOP delay slots.
func ending(a *qpu.Asm) {
	a.I(qpu.SigProgramEnd)
	a.I()
	a.I()
}

// load writes words at the start of the code buffer and loads them.
func (r *rig) load(words []uint64, opts Options) (*Program, error) {
	copy(r.pool.Bytes(r.code), qpu.Bytes(words))
	return Load(r.view, r.code.Addr, opts)
}

func (r *rig) mustLoad(words []uint64, opts Options) *Program {
	r.t.Helper()
	p, err := r.load(words, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// uniforms stores the words at the start of the uniforms buffer and returns
// its address.
func (r *rig) uniforms(u ...uint32) uint32 {
	b := r.pool.Bytes(r.unif)
	for i, v := range u {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return r.unif.Addr
}

// general loads words as a permissive or strict general-purpose program.
var (
	strictGeneral     = Options{Stage: hazard.General}
	permissiveGeneral = Options{Stage: hazard.General, Permissive: true}
	strictFragment    = Options{Stage: hazard.Fragment}
	permissiveFrag    = Options{Stage: hazard.Fragment, Permissive: true}
	strictVertex      = Options{Stage: hazard.Vertex}
	permissiveVertex  = Options{Stage: hazard.Vertex, Permissive: true}
)

// run loads and runs words; it fails the test on any error.
func (r *rig) run(words []uint64, opts Options, s *Start) Result {
	r.t.Helper()
	p := r.mustLoad(words, opts)
	if s == nil {
		s = &Start{}
	}
	if s.VPM == nil {
		s.VPM = &r.vpm
		if s.VPMRead.Rows == 0 {
			s.VPMRead = Segment{0, 64}
		}
		if s.VPMWrite.Rows == 0 {
			s.VPMWrite = Segment{64, 64}
		}
	}
	res, err := r.q.Run(p, r.env, s)
	if err != nil {
		r.t.Fatal(err)
	}
	return res
}

// fakeEnv records every access and serves varyings and TMU/TLB loads from
// queues the test fills.
type fakeEnv struct {
	varyVP, varyC []vec // popped in order
	tmuData       [2][]vec
	tlbData       []vec
	tmuWrites     []tmuWrite
	tlbWrites     []tlbWrite
	tlbLoads      []TLBLoad
	scoreboard    []bool
	semaphores    []string
	log           []string // every call, in order
}

type tmuWrite struct {
	unit   int
	reg    TMUReg
	v      vec
	mask   uint16
	param  uint32
	direct bool
}

type tlbWrite struct {
	reg  TLBReg
	v    vec
	mask uint16
	ms   vec
}

func (e *fakeEnv) Varying(vp, c *[16]uint32) error {
	if len(e.varyVP) == 0 {
		return errors.New("fake: no varyings left")
	}
	*vp, *c = e.varyVP[0], e.varyC[0]
	e.varyVP, e.varyC = e.varyVP[1:], e.varyC[1:]
	e.log = append(e.log, "vary")
	return nil
}

func (e *fakeEnv) TMUWrite(unit int, reg TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	e.tmuWrites = append(e.tmuWrites, tmuWrite{unit, reg, *v, mask, param, direct})
	e.log = append(e.log, fmt.Sprintf("tmu%d_%v", unit, reg))
	return nil
}

func (e *fakeEnv) TMULoad(unit int, r4 *[16]uint32) error {
	if len(e.tmuData[unit]) == 0 {
		return fmt.Errorf("fake: TMU%d has no results", unit)
	}
	*r4 = e.tmuData[unit][0]
	e.tmuData[unit] = e.tmuData[unit][1:]
	e.log = append(e.log, fmt.Sprintf("ldtmu%d", unit))
	return nil
}

func (e *fakeEnv) TLBWrite(reg TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	e.tlbWrites = append(e.tlbWrites, tlbWrite{reg, *v, mask, *ms})
	e.log = append(e.log, reg.String())
	if reg == TLBZ {
		// A depth test that fails every odd element: clear their masks.
		for i := 1; i < 16; i += 2 {
			ms[i] = 0
		}
	}
	return nil
}

func (e *fakeEnv) TLBLoad(kind TLBLoad, r4 *[16]uint32) error {
	e.tlbLoads = append(e.tlbLoads, kind)
	if len(e.tlbData) > 0 {
		*r4 = e.tlbData[0]
		e.tlbData = e.tlbData[1:]
	}
	e.log = append(e.log, "tlbload "+kind.String())
	return nil
}

func (e *fakeEnv) Scoreboard(unlock bool) error {
	e.scoreboard = append(e.scoreboard, unlock)
	if unlock {
		e.log = append(e.log, "sbdone")
	} else {
		e.log = append(e.log, "sbwait")
	}
	return nil
}

func (e *fakeEnv) Semaphore(n int, acquire bool) error {
	s := fmt.Sprintf("sem%d+", n)
	if acquire {
		s = fmt.Sprintf("sem%d-", n)
	}
	e.semaphores = append(e.semaphores, s)
	e.log = append(e.log, s)
	return nil
}

func fbits(f float32) uint32 { return math.Float32bits(f) }

func splat(x uint32) (v vec) {
	for i := range v {
		v[i] = x
	}
	return v
}

func seq(f func(i int) uint32) (v vec) {
	for i := range v {
		v[i] = f(i)
	}
	return v
}

// encode builds an instruction word from a qpu.Inst, for encodings the
// assembler will not produce (both ports on one FIFO, NOP ops with write
// addresses, ...).
func encode(in qpu.Inst) uint64 { return in.Encode() }

// nopInst is Mesa's NOP (vc4_qpu.c qpu_NOP): sig 1, both write addresses 39,
// read addresses 39, ops 0, conditions never.
func nopInst() qpu.Inst {
	return qpu.Inst{Sig: qpu.SigNone, WaddrAdd: qpu.WNop, WaddrMul: qpu.WNop, RaddrA: qpu.RNop, RaddrB: qpu.RNop}
}
