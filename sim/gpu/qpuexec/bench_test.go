package qpuexec

import (
	"testing"

	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/shaders/qpu"
)

// benchEnv serves the cube's FS as cheaply as an Env can: fixed varyings
// and texel, no recording. It measures the interpreter, not a TMU or TLB.
type benchEnv struct {
	vp, c, texel vec
	colour       uint32
	// varied, when set, replaces vp and c: the varyings' values in turn
	// (s, then t, then s of the next run ...).
	varied [][2]vec
	next   int
}

func (e *benchEnv) Varying(vp, c *[16]uint32) error {
	if e.varied != nil {
		v := &e.varied[e.next%len(e.varied)]
		e.next++
		*vp, *c = v[0], v[1]
		return nil
	}
	*vp, *c = e.vp, e.c
	return nil
}
func (e *benchEnv) TMUWrite(int, TMUReg, *[16]uint32, uint16, uint32, bool) error {
	return nil
}
func (e *benchEnv) TMULoad(unit int, r4 *[16]uint32) error { *r4 = e.texel; return nil }
func (e *benchEnv) TLBWrite(reg TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	e.colour = v[0]
	return nil
}
func (e *benchEnv) TLBLoad(TLBLoad, *[16]uint32) error { return nil }
func (e *benchEnv) Scoreboard(bool) error              { return nil }
func (e *benchEnv) Semaphore(int, bool) error          { return nil }

// BenchmarkCubeFragmentShader runs the cube's real FS on one 16-lane batch
// per iteration (the frame runs 10^4-10^5 of them). ns/inst is the cost of
// one instruction on 16 lanes.
func BenchmarkCubeFragmentShader(b *testing.B) {
	r := newRig(b)
	copy(r.pool.Bytes(r.code), shaders.FS.Bytes())
	fs, err := Load(r.view, r.code.Addr, strictFragment)
	if err != nil {
		b.Fatal(err)
	}
	var u [shaders.NumFragmentUniforms]uint32
	shaders.FillFragmentUniforms(&u, 0x1000, 0x00100040, shaders.LightFor(0.6))
	s := &Start{Uniforms: r.uniforms(u[:]...), W: splat(fbits(1.25)), Z: splat(0x800000), MSFlags: splat(0xF)}
	env := &benchEnv{vp: splat(fbits(0.1)), c: splat(fbits(0.3)), texel: splat(0x80C0FF40)}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		res, err := r.q.Run(fs, env, s)
		if err != nil {
			b.Fatal(err)
		}
		n += res.Instructions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/inst")
}

// BenchmarkCubeFragmentShaderVaried is BenchmarkCubeFragmentShader with
// inputs that vary from lane to lane as a frame's do: texture coordinates
// across a 4×4 block (one of them 0 at the vertex, so its C is 0), W per
// pixel and texels of different colours. Branches that depend on the data
// cost here what they cost in a frame, which constant inputs hide.
func BenchmarkCubeFragmentShaderVaried(b *testing.B) {
	r := newRig(b)
	copy(r.pool.Bytes(r.code), shaders.FS.Bytes())
	fs, err := Load(r.view, r.code.Addr, strictFragment)
	if err != nil {
		b.Fatal(err)
	}
	var u [shaders.NumFragmentUniforms]uint32
	shaders.FillFragmentUniforms(&u, 0x1000, 0x00100040, shaders.LightFor(0.6))
	w := seq(func(i int) uint32 { return fbits(1.1 + 0.013*float32(i)) })
	s := &Start{Uniforms: r.uniforms(u[:]...), W: w, Z: splat(0x800000), MSFlags: splat(0xF)}
	env := &benchEnv{texel: seq(func(i int) uint32 { return 0x80C0FF40 ^ uint32(i*0x01030507) })}
	for blk := 0; blk < 16; blk++ {
		sv := seq(func(i int) uint32 { return fbits(0.002*float32(blk*4+i&3) - 0.01) })
		tv := seq(func(i int) uint32 { return fbits(0.003*float32(blk*4+i>>2) + 0.001) })
		env.varied = append(env.varied, [2]vec{sv, splat(0)}, [2]vec{tv, splat(fbits(0.25))})
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		res, err := r.q.Run(fs, env, s)
		if err != nil {
			b.Fatal(err)
		}
		n += res.Instructions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/inst")
}

// BenchmarkCubeVertexShader runs the cube's VS on one batch of 16 vertices.
func BenchmarkCubeVertexShader(b *testing.B) {
	r := newRig(b)
	c := newCubeFrame(b, 5)
	copy(r.pool.Bytes(r.code), shaders.VS.Bytes())
	vs, err := Load(r.view, r.code.Addr, strictVertex)
	if err != nil {
		b.Fatal(err)
	}
	var u [shaders.NumVertexUniforms]uint32
	shaders.FillVertexUniforms(&u, &c.mvp, c.params)
	in, out := Segment{0, 8}, Segment{8, 8}
	c.loadBatch(b, &r.vpm, in, 0, false)
	s := &Start{Uniforms: r.uniforms(u[:]...), VPM: &r.vpm, VPMRead: in, VPMWrite: out}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		res, err := r.q.Run(vs, nil, s)
		if err != nil {
			b.Fatal(err)
		}
		n += res.Instructions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/inst")
}

// BenchmarkColourPack is Mesa's colour write: four packs (8a-8d) of
// results just copied into the mul ALU's latch, merged into one register,
// as its fragment shaders end (mov r1.8a, r3 ...), for each version of
// colourPackVec this machine has. A version that reads a vector in wider
// pieces than it was just written in stalls on the store buffer here.
func BenchmarkColourPack(b *testing.B) {
	var src [4]vec
	for k := range src {
		src[k] = seq(func(i int) uint32 { return fbits(float32(i+k) / 19) })
	}
	for _, k := range colourPackVecs() {
		b.Run(k.name, func(b *testing.B) {
			var lat, packed, d vec
			for i := 0; i < b.N; i++ {
				for c := range 4 {
					copyVec(&lat, &src[c])
					k.f(qpu.PackMul8A+qpu.Pack(c), &d, &packed, &lat)
				}
			}
		})
	}
}
