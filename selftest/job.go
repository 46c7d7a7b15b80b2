package selftest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/dump"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
	"github.com/vccube/vccube/uapi"
)

// A probe's job is one DRM_IOCTL_VC4_SUBMIT_CL built with the project's
// encoders, like the renderer's, but small (one to four tiles) and made to
// answer one question. Every draw goes through the same pass-through
// vertex and coordinate shaders (passVS, passCS): the vertex data already
// holds the shaded vertex, so the probe places each vertex exactly, in the
// 1/16-pixel steps of the hardware, and the fragment shader is all the
// probe varies besides the state.

// vertex is one vertex as the pass-through shaders hand it on: the clip
// coordinates for the binner's clipper, the screen position in 1/16 pixel
// relative to the viewport centre, Zs, 1/Wc and the varyings (the words
// of qpu.CoordinateFormat and qpu.VertexFormat).
type vertex struct {
	clip   [4]float32
	xs, ys int16
	zs     float32
	invW   float32
	vary   []float32
}

// uniform is one word of a fragment shader's uniform stream: a value, or
// texture parameter P0 or P1 of a job texture.
type uniform struct {
	kind  uint8 // uniValue, uniP0, uniP1
	value uint32
	tex   int
}

const (
	uniValue = iota
	uniP0
	uniP1
)

func val(v uint32) uniform      { return uniform{kind: uniValue, value: v} }
func valF(f float32) uniform    { return val(math.Float32bits(f)) }
func texP0(tex int) uniform     { return uniform{kind: uniP0, tex: tex} }
func texP1(tex int) uniform     { return uniform{kind: uniP1, tex: tex} }
func texUnis(tex int) []uniform { return []uniform{texP0(tex), texP1(tex)} }

// fragment is a probe's fragment shader.
type fragment struct {
	name     string
	code     []uint64
	varyings int  // varying components it reads
	threaded bool // it switches threads (the record's single-thread bit clear)
}

// draw is one GL shader record and one GL_ARRAY_PRIMITIVE.
type draw struct {
	config cl.ConfigurationBits
	mode   cl.PrimitiveMode
	verts  []vertex
	fs     *fragment
	unis   []uniform
	// samples lists the job textures the shader samples, in the order of
	// its TMU S writes (the block's bo_handles indices).
	samples []int
	// flat is FLAT_SHADE_FLAGS for this draw.
	flat uint32
	// vs, if set, is the vertex shader instead of passVS: it must write
	// qpu.VertexFormat(false, fs.varyings) from the same VPM words.
	vs *vertexShader
}

// vertexShader is a probe's own vertex shader.
type vertexShader struct {
	name string
	code []uint64
}

// texSpec is one texture of a job: its pictures (one per level, in the
// type's own bytes) and how it is sampled.
type texSpec struct {
	typ texture.Type
	// pics are in the type's storage grid (texture.Type.Storage): pixels,
	// or ETC1's 4×4-pixel blocks of 8 bytes.
	pics    []texture.Picture
	flipY   bool
	sampler texture.Sampler
	// stride, if not 0, is the distance in bytes between the rows of a
	// raster texture (one level) as uploaded, instead of the kernel's
	// (texture.NewLayout: the width rounded up to a utile).
	stride int
}

// size is level 0's size in pixels.
func (t *texSpec) size() (w, h int) {
	w, h = t.pics[0].Width, t.pics[0].Height
	if t.typ == texture.ETC1 {
		w, h = 4*w, 4*h
	}
	return w, h
}

// params lays the texture out and returns its P0 and P1 words as the
// uniforms carry them: P0's base is level 0's offset in the texture's own
// BO, which the kernel relocates.
func (t *texSpec) params() (plan texture.MipPlan, p0, p1 uint32, err error) {
	w, h := t.size()
	if plan, err = texture.NewMipPlan(t.typ, w, h, len(t.pics)); err != nil {
		return plan, 0, 0, err
	}
	mode := texture.FlipByCPU // FLIPY clear: the bytes are sampled as stored
	if t.flipY {
		mode = texture.FlipByGPU
	}
	q0, q1, err := plan.Params(0, mode, t.sampler)
	if err != nil {
		return plan, 0, 0, err
	}
	if p0, err = q0.Encode(); err != nil {
		return plan, 0, 0, err
	}
	p1, err = q1.Encode()
	return plan, p0, p1, err
}

// job is one probe's submit.
type job struct {
	width, height int
	format        cl.RenderFormat // of the colour buffer (linear)
	clearColour   uint32
	storeZ        bool // also store the Z/stencil buffer (T format)
	clearZ        uint32
	clip          *cl.ClipWindow // nil: the whole frame
	// msaa renders with 4x multisampling (32×32-pixel tiles of four
	// samples) and stores the 4x decimation: the draws must set
	// OversampleMode4x.
	msaa bool
	// vpW and vpH are the viewport's size in pixels, centred in the
	// frame (CLIPPER_XY_SCALING); 0 is the frame's.
	vpW, vpH int
	// pointSize and lineWidth, if not 0, are sent as POINT_SIZE and
	// LINE_WIDTH.
	pointSize, lineWidth float32
	textures             []texSpec
	// ubo, if not nil, is a buffer of words for direct TMU lookups,
	// uploaded into a BO of its own; a draw's samples name it as
	// uboSample.
	ubo   []uint32
	draws []draw
}

// uboSample stands for the job's ubo in a draw's samples.
const uboSample = -1

// viewport returns the viewport centre in 1/16 pixel: the frame's centre.
func (j *job) viewport() (cx, cy int) { return j.width * 8, j.height * 8 }

// halfViewport returns half the viewport's size in 1/16 pixel, the
// CLIPPER_XY_SCALING that maps clip coordinates ±Wc to its edges.
func (j *job) halfViewport() (hw, hh float64) {
	w, h := j.width, j.height
	if j.vpW != 0 {
		w, h = j.vpW, j.vpH
	}
	return float64(w * 8), float64(h * 8)
}

// The depth mapping every probe uses, OpenGL's default (Mesa
// vc4_emit.c: CLIPPER_Z_SCALING from the viewport's depth scale and
// translate): Zs = Zc/Wc·½ + ½.
const zScale, zOffset = 0.5, 0.5

// at makes a vertex at pixel position (x, y) of the frame (x to the right,
// y down, both in pixels; they must be multiples of 1/16), depth zs and
// clip w, with the clip coordinates that the viewport (CLIPPER_XY_SCALING
// of half the frame, +y down) and the depth mapping turn into the same
// position: clipped and unclipped vertices then agree.
func (j *job) at(x, y, zs, w float64, vary ...float32) vertex {
	cx, cy := j.viewport()
	xs := math.Round(x*16) - float64(cx)
	ys := math.Round(y*16) - float64(cy)
	hw, hh := j.halfViewport()
	return vertex{
		clip: [4]float32{float32(xs / hw * w), float32(ys / hh * w), float32((zs - zOffset) / zScale * w), float32(w)},
		xs:   int16(xs), ys: int16(ys), zs: float32(zs), invW: float32(1 / w), vary: vary,
	}
}

// atClip makes a vertex from clip coordinates, with the screen position
// and depth the viewport gives them (for vertices the binner may clip).
func (j *job) atClip(c [4]float64, vary ...float32) vertex {
	hw, hh := j.halfViewport()
	xs := math.Round(c[0] / c[3] * hw)
	ys := math.Round(c[1] / c[3] * hh)
	v := vertex{clip: [4]float32{float32(c[0]), float32(c[1]), float32(c[2]), float32(c[3])},
		zs: float32(c[2]/c[3]*zScale + zOffset), invW: float32(1 / c[3]), vary: vary}
	// Screen positions outside the 12.4 range are never used: such a
	// vertex is outside the guard band and the clipper replaces it.
	v.xs = int16(max(-32768, min(32767, xs)))
	v.ys = int16(max(-32768, min(32767, ys)))
	return v
}

// rect returns two triangles covering the pixels [x0, x1) × [y0, y1)
// (corners on pixel corners), counter-clockwise with row 0 at the bottom
// as every probe but the culling one draws them (and draws both faces).
func (j *job) rect(x0, y0, x1, y1 int, zs float64, vary func(x, y int) []float32) []vertex {
	if vary == nil {
		vary = func(int, int) []float32 { return nil }
	}
	v := func(x, y int) vertex { return j.at(float64(x), float64(y), zs, 1, vary(x, y)...) }
	return []vertex{v(x0, y0), v(x1, y0), v(x0, y1), v(x0, y1), v(x1, y0), v(x1, y1)}
}

// bothFaces draws every triangle whatever its winding, with no depth test.
var bothFaces = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.DepthFuncAlways}

// image32 is one output of a job: a word per pixel, row 0 first.
type image32 struct {
	w, h int
	kind pixelKind
	pix  []uint32
}

// pixelKind says what the words of an image32 hold.
type pixelKind uint8

const (
	kindRGBA8888 pixelKind = iota // the tile buffer's colour word, byte 0 first
	kindBGR565                    // a 16-bit BGR565 pixel in the low half
	kindZS                        // Z in bits 31:8, stencil in 7:0
	kindFloat                     // a float32 the shader wrote as its colour
)

// counter is one performance counter's value after a job.
type counter struct {
	event uint8
	value uint64
}

// outputs is everything a job leaves to compare.
type outputs struct {
	colour   image32
	z        *image32
	counters []counter // nil when the kernel has no perfmons
	dump     string    // the submit, as -dump prints the renderer's
}

// probeCounters are the performance counters every job reads: those that
// count work (uapi.PerfcntCountsWork), which a faithful model reproduces.
var probeCounters = func() []uint8 {
	var e []uint8
	for i := uint8(0); i < uapi.PerfcntNumEvents; i++ {
		if uapi.PerfcntCountsWork(i) {
			e = append(e, i)
		}
	}
	return e
}()

// jobWait bounds the wait for a probe's job: it is tiny, so a job still
// running after this is a hung GPU (the kernel resets it after about 100
// ms without progress, vc4_gem.c vc4_hangcheck_elapsed).
const jobWait = 10 * time.Second

// run builds the job on c, submits it, waits, reads back its outputs and
// frees everything it made. Its stages, in order: the vertex data, the
// textures, the render targets (and the perfmon), the bin CL with each
// draw's shaders, record and uniforms, the render setup, the dump, the
// submit and its wait, the read-back. The order is the order of the BOs'
// handles, which the dump shows: keep it.
func (j *job) run(c uapi.Conn) (out *outputs, err error) {
	r := &jobRun{j: j, c: c, shaderIdx: map[any]uint32{}}
	defer func() {
		if ferr := r.free(); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}()
	r.sj.Reset()
	if err := r.uploadVertices(); err != nil {
		return nil, err
	}
	if err := r.uploadTextures(); err != nil {
		return nil, err
	}
	if err := r.makeTargets(); err != nil {
		return nil, err
	}
	if err := r.buildBinCL(); err != nil {
		return nil, err
	}
	if err := r.setRender(); err != nil {
		return nil, err
	}
	out = &outputs{dump: r.describe()}
	if err := r.submitAndWait(); err != nil {
		return out, err
	}
	return out, r.readBack(out)
}

// jobRun is one run of a job: what its stages make and hand on.
type jobRun struct {
	j       *job
	c       uapi.Conn
	sj      submit.Job
	bos     []*gem.BO // freed in reverse order
	perfmon *gem.Perfmon
	// shaderIdx is each uploaded shader's index in bo_handles, by key:
	// the *fragment or *vertexShader, or [2]int{0, varyings} for passVS
	// and [2]int{1, 0} for passCS.
	shaderIdx map[any]uint32
	offsets   []int  // each draw's first vertex in the vertex BO
	vIdx      uint32 // the vertex BO's index
	texs      []texBO
	uboIdx    uint32 // the ubo's index, if the job has one
	cpp       int    // of the colour buffer
	colour    texture.Layout
	colourMem []byte
	colourIdx uint32
	zs        texture.Layout
	zsMem     []byte
	zsIdx     uint32
	shapes    []uniforms.Shape // of the uniform blocks, for the dump
}

// texBO is one job texture as uploaded: its index in bo_handles and its
// P0 and P1 words.
type texBO struct {
	index  uint32
	p0, p1 uint32
}

// free closes the perfmon and every BO, the last made first.
func (r *jobRun) free() (err error) {
	if r.perfmon != nil {
		err = errors.Join(err, r.perfmon.Close())
	}
	for i := len(r.bos) - 1; i >= 0; i-- {
		err = errors.Join(err, r.bos[i].Close())
	}
	return err
}

// newBO makes and maps a BO of size bytes that free closes.
func (r *jobRun) newBO(size int) (*gem.BO, []byte, error) {
	bo, err := gem.NewBO(r.c, uint32(size))
	if err != nil {
		return nil, nil, err
	}
	r.bos = append(r.bos, bo)
	m, err := bo.Map()
	return bo, m, err
}

// shaderBO uploads code once per key and returns its index in bo_handles.
func (r *jobRun) shaderBO(key any, code []uint64) (uint32, error) {
	if i, ok := r.shaderIdx[key]; ok {
		return i, nil
	}
	bo, err := gem.NewShaderBO(r.c, qpu.Bytes(code))
	if err != nil {
		return 0, fmt.Errorf("uploading a shader: %w", err)
	}
	r.bos = append(r.bos, bo)
	i := r.sj.AddBO(bo.Handle())
	r.shaderIdx[key] = i
	return i, nil
}

// uploadVertices writes every draw's vertices, one after the other, into
// one BO.
func (r *jobRun) uploadVertices() error {
	var vdata []byte
	r.offsets = make([]int, len(r.j.draws))
	for i, d := range r.j.draws {
		r.offsets[i] = len(vdata)
		for _, v := range d.verts {
			vdata = appendVertex(vdata, &v, d.fs.varyings)
		}
	}
	vbo, vmem, err := r.newBO(max(len(vdata), 64))
	if err != nil {
		return fmt.Errorf("vertex BO: %w", err)
	}
	copy(vmem, vdata)
	r.vIdx = r.sj.AddBO(vbo.Handle())
	return nil
}

// uploadTextures lays out and uploads each job texture into a BO of its
// own.
func (r *jobRun) uploadTextures() error {
	r.texs = make([]texBO, len(r.j.textures))
	for i, t := range r.j.textures {
		plan, p0, p1, err := t.params()
		if err != nil {
			return err
		}
		w, h := t.size()
		size := plan.Size()
		var rows texture.Layout
		if t.stride != 0 {
			if rows, err = texture.NewLinearLayout(plan.Level(0).Layout.Cpp(), w, h, t.stride); err != nil {
				return err
			}
			size = max(size, plan.BaseOffset()+rows.Size())
		}
		bo, mem, err := r.newBO(size)
		if err != nil {
			return fmt.Errorf("texture BO: %w", err)
		}
		if t.stride != 0 {
			err = convert.FromLinear(rows, mem[plan.BaseOffset():], t.pics[0], false)
		} else {
			err = convert.Upload(&plan, mem, t.pics, false)
		}
		if err != nil {
			return fmt.Errorf("texture upload: %w", err)
		}
		r.texs[i] = texBO{index: r.sj.AddBO(bo.Handle()), p0: p0, p1: p1}
	}
	if r.j.ubo != nil {
		bo, mem, err := r.newBO(4 * len(r.j.ubo))
		if err != nil {
			return fmt.Errorf("uniform buffer BO: %w", err)
		}
		for i, w := range r.j.ubo {
			binary.LittleEndian.PutUint32(mem[4*i:], w)
		}
		r.uboIdx = r.sj.AddBO(bo.Handle())
	}
	return nil
}

// makeTargets makes the colour buffer (linear), the Z/stencil buffer
// (T format) if the job stores it, and a perfmon if the kernel has them.
func (r *jobRun) makeTargets() (err error) {
	j := r.j
	r.cpp = 4
	if j.format != cl.RenderFormatRGBA8888 {
		r.cpp = 2
	}
	if r.colour, err = texture.NewLayout(texture.Linear, r.cpp, j.width, j.height); err != nil {
		return err
	}
	colour, mem, err := r.newBO(r.colour.Size())
	if err != nil {
		return fmt.Errorf("colour buffer: %w", err)
	}
	r.colourMem, r.colourIdx = mem, r.sj.AddBO(colour.Handle())
	if j.storeZ {
		if r.zs, err = texture.NewLayout(texture.TFormat, 4, j.width, j.height); err != nil {
			return err
		}
		zs, mem, err := r.newBO(r.zs.Size())
		if err != nil {
			return fmt.Errorf("Z/stencil buffer: %w", err)
		}
		r.zsMem, r.zsIdx = mem, r.sj.AddBO(zs.Handle())
	}
	if v, err := gem.Param(r.c, uapi.ParamSupportsPerfmon); err == nil && v != 0 {
		if r.perfmon, err = gem.NewPerfmon(r.c, probeCounters...); err != nil {
			return fmt.Errorf("perfmon: %w", err)
		}
		r.sj.PerfmonID = r.perfmon.ID()
	}
	return nil
}

// buildBinCL writes the bin CL's prefix and then each draw: its state
// changes, shaders, shader record, primitive and uniform blocks.
func (r *jobRun) buildBinCL() error {
	j := r.j
	tx, ty, err := bincl.Tiles(j.width, j.height, j.msaa)
	if err != nil {
		return err
	}
	cx, cy := j.viewport()
	clip := j.clip
	if clip == nil {
		clip = &cl.ClipWindow{Width: uint16(j.width), Height: uint16(j.height)}
	}
	first := j.draws[0].config
	hw, hh := j.halfViewport()
	var ps *cl.PointSize
	if j.pointSize != 0 {
		ps = &cl.PointSize{Size: j.pointSize}
	}
	var lw *cl.LineWidth
	if j.lineWidth != 0 {
		lw = &cl.LineWidth{Width: j.lineWidth}
	}
	r.sj.Bin.Begin(&bincl.Prefix{
		Binning:             cl.TileBinningModeConfig{WidthInTiles: tx, HeightInTiles: ty, Multisample4x: j.msaa},
		PrimitiveListFormat: &cl.PrimitiveListFormat{Type: cl.PrimitiveListTypeTriangles, DataType: cl.PrimitiveListData16BitIndex},
		ClipWindow:          clip,
		Configuration:       &first,
		PointSize:           ps,
		LineWidth:           lw,
		FlatShadeFlags:      &cl.FlatShadeFlags{Flags: j.draws[0].flat},
		ViewportOffset:      &cl.ViewportOffset{X: cl.Subpixel(cx), Y: cl.Subpixel(cy)},
		ClipperXY:           &cl.ClipperXYScaling{HalfWidth: float32(hw), HalfHeight: float32(hh)},
		ClipperZ:            &cl.ClipperZScaling{Scale: zScale, Offset: zOffset},
	})
	for i := range j.draws {
		d := &j.draws[i]
		if i > 0 && d.config != j.draws[i-1].config {
			bincl.Emit(&r.sj.Bin, d.config)
		}
		if i > 0 && d.flat != j.draws[i-1].flat {
			bincl.Emit(&r.sj.Bin, cl.FlatShadeFlags{Flags: d.flat})
		}
		if err := r.addDraw(d, r.offsets[i]); err != nil {
			return err
		}
		r.addUniforms(d)
	}
	r.sj.Bin.End()
	return nil
}

// addDraw uploads d's shaders (once each) and adds its shader record and
// GL_ARRAY_PRIMITIVE; its vertices start at offset in the vertex BO.
func (r *jobRun) addDraw(d *draw, offset int) error {
	n := d.fs.varyings
	fsIdx, err := r.shaderBO(d.fs, d.fs.code)
	if err != nil {
		return err
	}
	var vsIdx uint32
	if d.vs != nil {
		vsIdx, err = r.shaderBO(d.vs, d.vs.code)
	} else {
		vsIdx, err = r.shaderBO([2]int{0, n}, passVS(n))
	}
	if err != nil {
		return err
	}
	csIdx, err := r.shaderBO([2]int{1, 0}, passCS())
	if err != nil {
		return err
	}
	stride := 4 * (qpu.ShadedClipWords + qpu.ShadedScreenWords + n)
	rec := shaderrec.GL{NumAttributes: 2}
	rec.Record = cl.GLShaderRecord{
		FSSingleThreaded:  !d.fs.threaded,
		EnableClipping:    true, // as Mesa (vc4_draw.c vc4_emit_gl_shader_state)
		FSNumVaryings:     uint8(n),
		VSAttributeSelect: 0b10,
		VSAttributesSize:  uint8(4 * (qpu.ShadedScreenWords + n)),
		CSAttributeSelect: 0b01,
		CSAttributesSize:  4 * (qpu.ShadedClipWords + qpu.ShadedScreenWords),
	}
	// Array 0 is the CS's view of the vertex (clip header, Xs|Ys, Zs,
	// 1/Wc), array 1 the VS's (Xs|Ys onwards): the same bytes.
	rec.Attributes[0] = cl.AttributeRecord{Address: uint32(offset),
		SizeMinusOne: 4*(qpu.ShadedClipWords+qpu.ShadedScreenWords) - 1, Stride: uint8(stride)}
	rec.Attributes[1] = cl.AttributeRecord{Address: uint32(offset + 4*qpu.ShadedClipWords),
		SizeMinusOne: uint8(4*(qpu.ShadedScreenWords+n) - 1), Stride: uint8(stride)}
	relocs := shaderrec.Relocs{FS: fsIdx, VS: vsIdx, CS: csIdx, Attributes: [8]uint32{r.vIdx, r.vIdx}}
	r.sj.Bin.Draw(rec.State(), cl.GLArrayPrimitive{Mode: d.mode, Length: uint32(len(d.verts))})
	return r.sj.ShaderRecs.Add(&rec, &relocs)
}

// addUniforms appends d's fragment shader's uniform block, with the
// texture parameters filled in, and the (empty) vertex and coordinate
// shader blocks.
func (r *jobRun) addUniforms(d *draw) {
	var texIdx []uint32
	for _, t := range d.samples {
		if t == uboSample {
			texIdx = append(texIdx, r.uboIdx)
			continue
		}
		texIdx = append(texIdx, r.texs[t].index)
	}
	// A texture sampled more than once: its k-th P0 (P1) belongs to its
	// k-th sample.
	seen := map[[2]int]int{}
	words := make([]uint32, len(d.unis))
	sh := uniforms.Shape{Samples: len(d.samples), Uniforms: len(d.unis)}
	for k, u := range d.unis {
		switch u.kind {
		case uniValue:
			words[k] = u.value
		case uniP0:
			words[k] = r.texs[u.tex].p0
		case uniP1:
			words[k] = r.texs[u.tex].p1
		}
		if u.kind != uniValue {
			key := [2]int{int(u.kind), u.tex}
			s := nthIndex(d.samples, u.tex, seen[key])
			seen[key]++
			if sh.Params == nil {
				sh.Params = make([][]int, len(d.samples))
			}
			if s >= 0 {
				sh.Params[s] = append(sh.Params[s], k)
			}
		}
	}
	r.sj.Uniforms.AppendBlock(texIdx, words)
	r.sj.Uniforms.AppendBlock(nil, nil)
	r.sj.Uniforms.AppendBlock(nil, nil)
	r.shapes = append(r.shapes, sh, uniforms.Shape{}, uniforms.Shape{})
}

// setRender sets the frame, the surfaces the render list stores and the
// clear values.
func (r *jobRun) setRender() error {
	j := r.j
	if err := r.sj.SetFrame(j.width, j.height, j.msaa); err != nil {
		return err
	}
	rc := cl.TileRenderingModeConfig{Format: j.format, Tiling: cl.TilingLinear}
	if j.msaa { // as Mesa's vc4_job.c vc4_job_submit for a multisampled target
		rc.Multisample4x, rc.Decimate = true, cl.DecimateMode4x
	}
	r.sj.ColorWrite = uapi.SubmitRCLSurface{HIndex: r.colourIdx, Bits: submit.RenderBits(rc)}
	if j.storeZ {
		r.sj.ZSWrite = submit.ZSWrite(r.zsIdx, 0, cl.TilingT)
	}
	r.sj.SetClear(j.clearColour, j.clearZ, 0)
	return nil
}

// describe returns the submit as -dump prints the renderer's, followed by
// the frame and the shaders' disassembly.
func (r *jobRun) describe() string {
	j, sj := r.j, &r.sj
	var d bytes.Buffer
	if bin, err := sj.Bin.Bytes(); err == nil {
		_ = dump.Job(&d, bin, sj.ShaderRecs.Bytes(), sj.Uniforms.Bytes(), r.shapes)
	}
	fmt.Fprintf(&d, "bo_handles: %v\nframe %d×%d, colour %v linear, clear colour %#08x", sj.BOHandles, j.width, j.height, j.format, j.clearColour)
	if j.msaa {
		fmt.Fprintf(&d, ", 4x multisampled, stored decimated")
	}
	if j.storeZ {
		fmt.Fprintf(&d, ", Z/S stored (T format), clear Z %#06x", j.clearZ)
	}
	fmt.Fprintln(&d)
	seen := map[*fragment]bool{}
	for _, dr := range j.draws {
		if !seen[dr.fs] {
			seen[dr.fs] = true
			fmt.Fprintf(&d, "fragment shader %q (%d varyings, threaded %v):\n%s", dr.fs.name, dr.fs.varyings, dr.fs.threaded, qpu.Disassemble(dr.fs.code))
		}
	}
	for _, dr := range j.draws {
		if dr.vs != nil {
			fmt.Fprintf(&d, "vertex shader %q:\n%s", dr.vs.name, qpu.Disassemble(dr.vs.code))
			break
		}
	}
	fmt.Fprintf(&d, "pass-through coordinate shader:\n%s", qpu.Disassemble(passCS()))
	return d.String()
}

// submitAndWait submits the job and waits for it, at most jobWait.
func (r *jobRun) submitAndWait() error {
	seqno, err := r.sj.Submit(r.c)
	if err != nil {
		return err
	}
	w := uapi.WaitSeqno{Seqno: seqno, TimeoutNs: gem.Timeout(jobWait)}
	if err := gem.WaitForSeqno(r.c, &w); err != nil {
		return fmt.Errorf("waiting for the job (seqno %d): %w", seqno, err)
	}
	return nil
}

// readBack reads the colour buffer, the Z/stencil buffer if stored and
// the counters into out.
func (r *jobRun) readBack(out *outputs) error {
	j := r.j
	out.colour = image32{w: j.width, h: j.height, kind: kindRGBA8888, pix: make([]uint32, j.width*j.height)}
	if r.cpp == 2 {
		out.colour.kind = kindBGR565
	}
	for y := 0; y < j.height; y++ {
		for x := 0; x < j.width; x++ {
			o := r.colour.Offset(x, y)
			if r.cpp == 4 {
				out.colour.pix[y*j.width+x] = binary.LittleEndian.Uint32(r.colourMem[o:])
			} else {
				out.colour.pix[y*j.width+x] = uint32(binary.LittleEndian.Uint16(r.colourMem[o:]))
			}
		}
	}
	if j.storeZ {
		z := &image32{w: j.width, h: j.height, kind: kindZS, pix: make([]uint32, j.width*j.height)}
		for y := 0; y < j.height; y++ {
			for x := 0; x < j.width; x++ {
				z.pix[y*j.width+x] = binary.LittleEndian.Uint32(r.zsMem[r.zs.Offset(x, y):])
			}
		}
		out.z = z
	}
	if r.perfmon != nil {
		vals, err := r.perfmon.Values()
		if err != nil {
			return err
		}
		for i, e := range probeCounters {
			out.counters = append(out.counters, counter{event: e, value: vals[i]})
		}
	}
	return nil
}

// nthIndex returns the index of the n-th (from 0) v in s, or -1.
func nthIndex(s []int, v, n int) int {
	for i, x := range s {
		if x == v {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return -1
}

// appendVertex appends v's words in the order of qpu.CoordinateFormat
// followed by the varyings: the CS reads the first seven, the VS the
// words from Xs|Ys on (qpu.VertexFormat).
func appendVertex(b []byte, v *vertex, varyings int) []byte {
	f := qpu.CoordinateFormat(false)
	words := make([]uint32, f.Words()+varyings)
	for k := 0; k < qpu.ShadedClipWords; k++ {
		words[f.ClipAt(k)] = math.Float32bits(v.clip[k])
	}
	words[f.XsYsAt()] = qpu.PackXsYs(v.xs, v.ys)
	words[f.ZsAt()] = math.Float32bits(v.zs)
	words[f.InvWcAt()] = math.Float32bits(v.invW)
	for i := 0; i < varyings; i++ {
		if i < len(v.vary) {
			words[f.Words()+i] = math.Float32bits(v.vary[i])
		}
	}
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}
