package kernel_test

import (
	"encoding/binary"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/sim/gpu/vertex"
	"github.com/vccube/vccube/sim/hw"
	"github.com/vccube/vccube/sim/kernel"
	"github.com/vccube/vccube/sim/kernel/cleargpu"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
)

// auditGPU is the tests' GPU: before the placeholder runs the render list
// (every access through the job's View), it touches, through the same
// View, every range of memory the hardware would read or write for the
// validated bin CL: the binner's tile state and allocation memory, each
// shader record, the shaders' code up to their program end, their uniform
// blocks, the attribute arrays up to the largest index the primitives use,
// the index lists and the textures with their mip chains as the TMU places
// them. A range the kernel let through but the job may not reach is a
// fault on the View, so a test that sees zero faults has shown that the
// validated job stays inside its BOs.
//
// How many uniforms a shader reads and where its lookups take their
// parameters is the shader validator's count (kernel.ValidateShader), on
// code fetched through the View: the hardware reads a uniform per read
// and per TMU parameter write, which is what that count is.
//
// Then the job runs twice more on the same View: on the placeholder
// (cleargpu: the render list's clears, loads and stores) and on the GPU
// model (sim/gpu: binning, shading, texturing and the tile buffer as the
// hardware does them), whose result is the job's.
type auditGPU struct {
	clear *cleargpu.GPU
	model *gpu.GPU
}

// newAuditGPU makes the tests' GPU; the GPU model is closed when the test
// ends, after the driver using it (cleanups run last registered first).
func newAuditGPU(t testing.TB) *auditGPU {
	g := &auditGPU{clear: cleargpu.New(), model: gpu.New(gpu.Options{Workers: 1})}
	t.Cleanup(g.model.Close)
	return g
}

func (g *auditGPU) Run(job *hw.Job) hw.Result {
	if job.BinEnd > job.BinStart {
		auditBin(job.Mem, job.BinStart, job.BinEnd)
	}
	g.clear.Run(job)
	return g.model.Run(job)
}

// shaderStateUse is one GL_SHADER_STATE and the largest index its
// primitives use.
type shaderStateUse struct {
	state    cl.GLShaderState
	maxIndex uint32
	used     bool
}

func auditBin(v *mem.View, start, end uint32) {
	bin, err := v.Read(start, end-start, "CLE bin list")
	if err != nil {
		return
	}
	var cur *shaderStateUse
	flush := func() {
		if cur != nil && cur.used {
			auditRecord(v, cur)
		}
	}
	for off := 0; off < len(bin); {
		op := spec.Opcode(bin[off])
		p := spec.Lookup(op)
		if p == nil || off+p.Len > len(bin) {
			break
		}
		pkt := bin[off : off+p.Len]
		switch op {
		case spec.OpTileBinningModeConfig:
			var c cl.TileBinningModeConfig
			_ = c.Unpack(pkt)
			v.Write(c.TileStateAddress, spec.TileStateBytes*uint32(c.WidthInTiles)*uint32(c.HeightInTiles), "PTB tile state")
			v.Write(c.TileAllocAddress, c.TileAllocSize, "PTB tile allocation")
		case spec.OpGLShaderState:
			flush()
			cur = &shaderStateUse{}
			_ = cur.state.Unpack(pkt)
		case spec.OpGLArrayPrimitive:
			var a cl.GLArrayPrimitive
			_ = a.Unpack(pkt)
			if cur != nil && a.Length > 0 {
				cur.maxIndex = max(cur.maxIndex, a.First+a.Length-1)
				cur.used = true
			}
		case spec.OpGLIndexedPrimitive:
			var ip cl.GLIndexedPrimitive
			_ = ip.Unpack(pkt)
			size := uint32(1)
			if ip.IndexType != 0 {
				size = 2
			}
			if ip.Length > 0 {
				v.Read(ip.IndexAddress, ip.Length*size, "VCD index list")
			}
			if cur != nil {
				// The hardware clamps indices to the declared maximum.
				cur.maxIndex = max(cur.maxIndex, ip.MaxIndex)
				cur.used = true
			}
		case spec.OpHalt:
			off = len(bin)
			continue
		}
		off += p.Len
	}
	flush()
}

func auditRecord(v *mem.View, st *shaderStateUse) {
	// The record as the VCD reads it.
	s, err := vertex.DecodeState(v, st.state.Append(nil))
	if err != nil {
		return
	}
	g := &s.GL
	r := &g.Record
	auditShader(v, r.FSCodeAddress, r.FSUniformsAddress)
	auditShader(v, r.VSCodeAddress, r.VSUniformsAddress)
	auditShader(v, r.CSCodeAddress, r.CSUniformsAddress)
	for i := 0; i < g.NumAttributes; i++ {
		a := &g.Attributes[i]
		stride := g.Stride(i) // what the VCD fetches with
		size := uint64(a.SizeMinusOne) + 1 + uint64(st.maxIndex)*uint64(stride)
		if size > 1<<32 {
			size = 1 << 32
		}
		v.Read(a.Address, uint32(size), "VCD attribute array")
	}
}

// auditShader fetches a shader up to its program end and the two delay
// slots, and reads its uniforms and texture data.
func auditShader(v *mem.View, code, unis uint32) {
	var prog []byte
	end := -1
	for i := 0; i < 4096 && (end < 0 || i <= end+2); i++ {
		w, err := v.Read(code+8*uint32(i), 8, "QPU instruction fetch")
		if err != nil {
			return
		}
		prog = append(prog, w...)
		if in := qpu.Decode(binary.LittleEndian.Uint64(w)); end < 0 && in.Sig == qpu.SigProgramEnd {
			end = i
		}
	}
	sh, err := kernel.ValidateShader(prog)
	if err != nil || sh.UniformsSize == 0 {
		return
	}
	u, err := v.Read(unis, sh.UniformsSize, "QPU uniform fetch")
	if err != nil {
		return
	}
	for _, s := range sh.Samples {
		p0 := binary.LittleEndian.Uint32(u[s.POffset[0]:])
		p1 := binary.LittleEndian.Uint32(u[s.POffset[1]:])
		if s.Direct {
			// base + a clamped offset in [0, p1], four bytes read.
			v.Read(p0, p1+4, "TMU direct read")
			continue
		}
		var p2, p3 uint32
		if s.POffset[2] != kernel.NoParam {
			p2 = binary.LittleEndian.Uint32(u[s.POffset[2]:])
		}
		if s.POffset[3] != kernel.NoParam {
			p3 = binary.LittleEndian.Uint32(u[s.POffset[3]:])
		}
		auditTexture(v, p0, p1, p2, p3)
	}
}

func auditTexture(v *mem.View, p0, p1, p2, p3 uint32) {
	d0, d1 := texture.DecodeP0(p0), texture.DecodeP1(p1)
	typ := texture.JoinType(d0, d1)
	plan, err := texture.NewMipPlan(typ, d1.Width, d1.Height, int(d0.LastLevel)+1)
	if err != nil {
		return
	}
	below := uint32(plan.BaseOffset() - plan.Level(int(d0.LastLevel)).Offset)
	level0 := uint32(plan.Level(0).Layout.Size())
	faces, stride := 1, uint32(0)
	if d0.CubeMap {
		faces = 6
		for _, w := range []uint32{p2, p3} {
			if q := texture.DecodeP2(w); q.Kind == texture.ParamCubeStride {
				stride = q.CubeStride
			}
		}
	}
	for f := 0; f < faces; f++ {
		base := d0.Base + uint32(f)*stride
		v.Read(base-below, below+level0, "TMU texture fetch")
	}
}
