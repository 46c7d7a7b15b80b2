// Package vcd is the VideoCore IV's vertex fetch and shading for GL mode:
// the VCD that loads a batch's attributes into the VPM per the shader
// record, and the run of the coordinate or vertex shader on a QPU that
// turns them into the shaded formats the binner and the renderer read
// ([AG] §7 "VPM and VCD", §8 "System Pipelines and Modes"). NV-mode
// vertices are read from memory by package vertex.
package vcd

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/gpu/tmu"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/mem"
)

// Stage selects the coordinate shader (binning) or the vertex shader
// (rendering) of a GL shader record.
type Stage uint8

// Stages.
const (
	Coordinate Stage = iota
	VertexStage
)

// String names the stage's shader.
func (s Stage) String() string {
	if s == Coordinate {
		return "coordinate shader"
	}
	return "vertex shader"
}

// fetch is the VCD: for each vertex index it copies every attribute array
// the stage selects — SizeMinusOne+1 bytes from Address + index·stride —
// into the vertex's VPM column at the stage's VPM offset ([AG] §7 "Vertex
// Attribute Format in VPM from VCD", Table 45). Arrays past the record's
// attribute count cannot be selected: the hardware would read attribute
// records that are not there, so the job fails instead.
func fetch(v *mem.View, g *vertex.GLRecord, st Stage, idx []uint32, vpm *qpuexec.VPM, seg qpuexec.Segment) error {
	sel := g.Record.VSAttributeSelect
	if st == Coordinate {
		sel = g.Record.CSAttributeSelect
	}
	for n := 0; n < 8; n++ {
		if sel&(1<<n) == 0 {
			continue
		}
		if n >= g.NumAttributes {
			return fmt.Errorf("VCD: the %v selects attribute array %d but the shader record has %d", st, n, g.NumAttributes)
		}
		a := &g.Attributes[n]
		size := uint32(a.SizeMinusOne) + 1
		off := int(a.VSVPMOffset)
		if st == Coordinate {
			off = int(a.CSVPMOffset)
		}
		s := g.Stride(n) // the 26-bit stride of an extended record
		var sp attrSpan
		for k, index := range idx {
			b, err := sp.read(v, a.Address+index*s, size)
			if err != nil {
				return err
			}
			if err := vpm.StoreVertexBytes(seg, k, off, b); err != nil {
				return fmt.Errorf("VCD: attribute array %d of the %v: %w", n, st, err)
			}
		}
	}
	return nil
}

// attrSpan is the memory region the last attribute read of an array fell
// in: the vertices of a batch read from one buffer, and a read inside
// the region needs no look-up (mem.View.Read searches the job's regions
// for every vertex otherwise). TestFetchSpanMatchesRead holds it to
// View.Read.
type attrSpan struct {
	buf  []byte
	base uint32
}

// read is View.Read of n bytes at addr, n ≥ 1: the same bytes, and the
// same fault recorded for a read outside the job's memory.
func (sp *attrSpan) read(v *mem.View, addr, n uint32) ([]byte, error) {
	if off := uint64(addr) - uint64(sp.base); addr >= sp.base && off+uint64(n) <= uint64(len(sp.buf)) {
		return sp.buf[off : off+uint64(n)], nil
	}
	b, err := v.Read(addr, n, "VCD attribute fetch")
	if err != nil {
		return nil, err
	}
	// A region holds addr (Read found one holding all n bytes), so Span
	// records no fault.
	if buf, off, err := v.Span(addr, false, "VCD attribute fetch"); err == nil {
		sp.buf, sp.base = buf, addr-off
	}
	return b, nil
}

// Unit shades vertices: NV-mode vertices come from memory, GL-mode ones
// from the coordinate or vertex shader run on a QPU, 16 vertices a batch.
// A Unit is used by one goroutine at a time.
type Unit struct {
	view  *mem.View
	cache *qpuexec.Cache
	opts  qpuexec.Options
	qpu   *qpuexec.QPU
	vpm   qpuexec.VPM
	start qpuexec.Start
	env   env

	// Instructions counts the QPU instructions executed (four clocks
	// each, [AG] §3), and Batches the shader runs.
	Instructions uint64
	Batches      uint64
	// TexQuads counts the quads of texture lookups the shaders made
	// (four per lookup of 16 elements, as the fragment stage counts
	// them for VC4_PERFCNT_TMU_TOTAL_TEXT_QUADS_PROCESSED).
	TexQuads uint64

	// prog is the program of the Coords or Vertices call under way, as
	// its first batch loaded it: the batches of one call are one
	// shader's, and the QPUs read code through their instruction caches,
	// which the kernel clears before each job and nothing in a job
	// writes to (Linux vc4_gem.c vc4_flush_caches, V3D_SLCACTL_ICC). Not
	// kept with reference, which loads (and checks) the program for
	// every batch as the cache's general code.
	prog      *qpuexec.Program
	reference bool
}

// NewUnit returns a unit that loads programs through cache, as QPU number
// qpuNum. permissive keeps broken instruction restrictions as warnings.
func NewUnit(cache *qpuexec.Cache, qpuNum int, permissive bool) *Unit {
	u := &Unit{cache: cache, qpu: qpuexec.NewQPU(qpuNum, nil), opts: qpuexec.Options{Permissive: permissive}}
	u.env = env{u: u, tmu: [2]*tmu.Unit{tmu.New(nil), tmu.New(nil)}}
	return u
}

// SetReference makes the unit's QPU and TMUs run their general code
// (qpuexec.QPU.Reference, tmu.Unit.Reference).
func (u *Unit) SetReference(on bool) {
	u.reference = on
	u.qpu.Reference = on
	u.env.tmu[0].Reference, u.env.tmu[1].Reference = on, on
}

// SetView points the unit at a job's memory.
func (u *Unit) SetView(v *mem.View) {
	u.view = v
	u.qpu.Mem = v
	u.env.tmu[0].Reset(v)
	u.env.tmu[1].Reset(v)
}

// env is what a coordinate or vertex shader reaches besides the VPM: the
// two texture units. Vertex texturing is part of GL ES 2.0 and Mesa's vc4
// compiler emits the same TMU writes in every stage, with an explicit
// level of detail outside the fragment shader (vc4_program.c
// ntq_emit_tex: "If it is mip-mapped and running on the vertex shader,
// then the base texture is used", P2's BSLOD with LOD 0); the kernel
// validates the three shaders' texture lookups alike (vc4_validate_shaders.c
// check_tmu_write, and vc4_validate.c validate_gl_shader_rec relocates
// each stage's texture samples). The varyings, the tile buffer and the
// scoreboard belong to fragment shading ([AG] §3, §5, §6): a vertex
// stage's use of them fails the job.
type env struct {
	u   *Unit
	tmu [2]*tmu.Unit
}

// Varying implements qpuexec.Env: there are no varyings to read before
// the fragment stage.
func (e *env) Varying(vp, c *[16]uint32) error {
	return errors.New("varying read outside a fragment shader: the varyings FIFO is filled only for fragment threads ([AG] §6)")
}

// TMUWrite implements qpuexec.Env.
func (e *env) TMUWrite(unit int, reg qpuexec.TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	return e.tmu[unit&1].Write(int(reg), v, 0xFFFF, param, direct)
}

// TMULoad implements qpuexec.Env.
func (e *env) TMULoad(unit int, r4 *[16]uint32) error {
	if err := e.tmu[unit&1].Receive(r4); err != nil {
		return err
	}
	e.u.TexQuads += 4
	return nil
}

// TLBWrite implements qpuexec.Env: the tile buffer is the fragment
// stage's.
func (e *env) TLBWrite(reg qpuexec.TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	return &tlb.Unsupported{What: fmt.Sprintf("TLB register %v written by a vertex or coordinate shader", reg)}
}

// TLBLoad implements qpuexec.Env.
func (e *env) TLBLoad(kind qpuexec.TLBLoad, r4 *[16]uint32) error {
	return &tlb.Unsupported{What: fmt.Sprintf("TLB %v load in a vertex or coordinate shader", kind)}
}

// Scoreboard implements qpuexec.Env: the scoreboard orders fragment
// threads' tile buffer accesses ([AG] §3 "Tile Buffer"); a vertex stage has
// none to order.
func (e *env) Scoreboard(unlock bool) error {
	return &tlb.Unsupported{What: "a scoreboard signal in a vertex or coordinate shader"}
}

// Semaphore implements qpuexec.Env: one shader runs at a time on this
// unit, so no other thread could release a semaphore it waits for.
func (e *env) Semaphore(n int, acquire bool) error {
	return &tlb.Unsupported{What: fmt.Sprintf("semaphore %d in a vertex or coordinate shader", n)}
}

// The VPM segments of a batch. The sources do not say where in its
// allocation the hardware puts the inputs and the outputs; we give them
// separate 64-row windows, so a shader may write outputs before it has
// read all its inputs.
var (
	readSeg  = qpuexec.Segment{Base: 0, Rows: 64}
	writeSeg = qpuexec.Segment{Base: 64, Rows: 64}
)

// shade runs the stage's shader on up to 16 vertices; the outputs are then
// in writeSeg.
func (u *Unit) shade(g *vertex.GLRecord, st Stage, idx []uint32) error {
	code, unif := g.Record.VSCodeAddress, g.Record.VSUniformsAddress
	u.opts.Stage = hazard.Vertex
	if st == Coordinate {
		code, unif = g.Record.CSCodeAddress, g.Record.CSUniformsAddress
		u.opts.Stage = hazard.Coordinate
	}
	p := u.prog
	if p == nil {
		var err error
		if p, err = u.cache.Load(u.view, code, u.opts); err != nil {
			return fmt.Errorf("%v at %#08x: %w", st, code, err)
		}
		if !u.reference {
			u.prog = p
		}
	}
	if err := fetch(u.view, g, st, idx, &u.vpm, readSeg); err != nil {
		return err
	}
	u.start = qpuexec.Start{Uniforms: unif, VPM: &u.vpm, VPMRead: readSeg, VPMWrite: writeSeg}
	u.env.tmu[0].Reset(nil)
	u.env.tmu[1].Reset(nil)
	r, err := u.qpu.Run(p, &u.env, &u.start)
	u.Instructions += uint64(r.Instructions)
	u.Batches++
	if err != nil {
		return fmt.Errorf("%v at %#08x: %w", st, code, err)
	}
	return nil
}

// column gathers the first len(dst) words of vertex k's column of the
// write segment: its shaded output.
func (u *Unit) column(k int, dst []uint32) []uint32 {
	for y := range dst {
		dst[y] = u.vpm.Word(writeSeg, y, k)
	}
	return dst
}

// Coords shades coordinates for the binner: out[i] for vertex idx[i]
// (qpu.CoordinateFormat, [AG] Figure 11).
func (u *Unit) Coords(s *vertex.State, idx []uint32, out []vertex.Coord) error {
	if s.Kind == vertex.NV {
		return vertex.NVCoords(u.view, s, idx, out)
	}
	g := &s.GL
	f := qpu.CoordinateFormat(g.Record.PointSizeIncluded)
	var col [qpuexec.VPMWindowRows]uint32
	u.prog = nil
	defer u.forget()
	for base := 0; base < len(idx); base += 16 {
		batch := idx[base:min(base+16, len(idx))]
		if err := u.shade(g, Coordinate, batch); err != nil {
			return err
		}
		for k := range batch {
			vertex.DecodeCoord(f, u.column(k, col[:f.Words()]), &out[base+k])
		}
	}
	return nil
}

// forget drops the program kept for the batches of a call.
func (u *Unit) forget() { u.prog = nil }

// Vertices shades vertices for the renderer into out, which must have been
// Reset for len(idx) vertices and the state's varyings (qpu.VertexFormat,
// [AG] Figure 10).
func (u *Unit) Vertices(s *vertex.State, idx []uint32, out *vertex.Shaded) error {
	if s.Kind == vertex.NV {
		return vertex.NVVertices(u.view, s, idx, out)
	}
	g := &s.GL
	f := qpu.VertexFormat(g.Record.PointSizeIncluded, out.NVary)
	if f.Words() > qpuexec.VPMWindowRows {
		return fmt.Errorf("%d varyings do not fit a %d-row VPM window", out.NVary, qpuexec.VPMWindowRows)
	}
	var col [qpuexec.VPMWindowRows]uint32
	u.prog = nil
	defer u.forget()
	for base := 0; base < len(idx); base += 16 {
		batch := idx[base:min(base+16, len(idx))]
		if err := u.shade(g, VertexStage, batch); err != nil {
			return err
		}
		for k := range batch {
			vertex.DecodeVertex(f, u.column(k, col[:f.Words()]), out, base+k)
		}
	}
	return nil
}
