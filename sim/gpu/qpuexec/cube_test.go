package qpuexec

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/vccube/vccube/internal/shadermodel"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
)

// The cube's own programs (package shaders) run on the interpreter and are
// compared with the Go models of them (shaders.ModelVertex and
// internal/shadermodel's Coordinate, Fragment and ShadeTexel). The models
// round each float op to nearest and start the reciprocal from the exact
// value; the QPU rounds toward zero and its SFU is approximate (refined by
// the shaders' Newton-Raphson step), so floats are compared with a
// relative tolerance of 2^-18 and each half of XsYs within ±1 (as
// shaders/model.go advises). Everything integer (the lighting's byte ops,
// the Z pass-through) must match exactly.

func closeFloat(got, want uint32) bool {
	g, w := float64(math.Float32frombits(got)), float64(math.Float32frombits(want))
	return math.Abs(g-w) <= 0x1p-18*math.Max(math.Abs(w), 1)
}

func closeXsYs(got, want uint32) bool {
	d := func(a, b uint16) int { return int(int16(a)) - int(int16(b)) }
	dx, dy := d(uint16(got), uint16(want)), d(uint16(got>>16), uint16(want>>16))
	return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1
}

type cubeFrame struct {
	mvp    [16]float32
	params shaders.VertexParams
	verts  [scene.NumVertices]scene.Vertex
}

func newCubeFrame(t testing.TB, k int) *cubeFrame {
	s, err := scene.New(800, 600)
	if err != nil {
		t.Fatal(err)
	}
	var f scene.Frame
	s.Update(&f, k)
	vp := s.Viewport()
	return &cubeFrame{
		mvp:    f.MVP,
		params: shaders.VertexParams{XScale16: vp.XScale16(), YScale16: vp.YScale16(), ZScale: scene.ZScale, ZOffset: scene.ZOffset},
		verts:  scene.Vertices(),
	}
}

// loadBatch is the VCD's work for one batch: the attribute bytes of up to
// 16 vertices into the read segment, at the program's VPM offsets.
func (c *cubeFrame) loadBatch(t testing.TB, v *VPM, seg Segment, first int, coord bool) int {
	n := 0
	for i := first; i < len(c.verts) && n < 16; i++ {
		var b [20]byte
		p := c.verts[i].Position
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(b[4*k:], math.Float32bits(p[k]))
		}
		binary.LittleEndian.PutUint32(b[12:], math.Float32bits(c.verts[i].S))
		binary.LittleEndian.PutUint32(b[16:], math.Float32bits(c.verts[i].T))
		a0, a1 := shaders.Attributes[0], shaders.Attributes[1]
		off0 := int(a0.VSVPMOffset)
		if coord {
			off0 = int(a0.CSVPMOffset)
		}
		if err := v.StoreVertexBytes(seg, n, off0, b[:a0.Bytes]); err != nil {
			t.Fatal(err)
		}
		if !coord {
			if err := v.StoreVertexBytes(seg, n, int(a1.VSVPMOffset), b[12:12+a1.Bytes]); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	return n
}

func TestCubeVertexAndCoordinateShaders(t *testing.T) {
	for _, k := range []int{0, 7, 33} {
		c := newCubeFrame(t, k)
		r := newRig(t)
		var u [shaders.NumVertexUniforms]uint32
		shaders.FillVertexUniforms(&u, &c.mvp, c.params)
		addr := r.uniforms(u[:]...)
		vs := r.mustLoad(shaders.VS.Code, strictVertex)
		copy(r.pool.Bytes(r.code)[4096:], shaders.CS.Bytes())
		cs, err := Load(r.view, r.code.Addr+4096, Options{Stage: shaders.CS.Stage})
		if err != nil {
			t.Fatal(err)
		}
		in, out := Segment{0, 8}, Segment{8, 8}
		for first := 0; first < len(c.verts); first += 16 {
			// Vertex shader.
			n := c.loadBatch(t, &r.vpm, in, first, false)
			if _, err := r.q.Run(vs, nil, &Start{Uniforms: addr, VPM: &r.vpm, VPMRead: in, VPMWrite: out}); err != nil {
				t.Fatal(err)
			}
			for v := 0; v < n; v++ {
				vx := c.verts[first+v]
				want := shaders.ModelVertex(&c.mvp, c.params, vx.Position, vx.S, vx.T).Words()
				for w := range want {
					got := r.vpm.Word(out, w, v)
					ok := closeFloat(got, want[w])
					if w == 0 {
						ok = closeXsYs(got, want[w])
					}
					if !ok {
						t.Errorf("frame %d vertex %d VS word %d (%s) = %#08x, model %#08x", k, first+v, w, shaders.VS.Outputs[w], got, want[w])
					}
				}
			}
			// Coordinate shader, same vertices.
			c.loadBatch(t, &r.vpm, in, first, true)
			if _, err := r.q.Run(cs, nil, &Start{Uniforms: addr, VPM: &r.vpm, VPMRead: in, VPMWrite: out}); err != nil {
				t.Fatal(err)
			}
			for v := 0; v < n; v++ {
				want := shadermodel.Coordinate(&c.mvp, c.params, c.verts[first+v].Position).Words()
				for w := range want {
					got := r.vpm.Word(out, w, v)
					ok := closeFloat(got, want[w])
					if w == 4 {
						ok = closeXsYs(got, want[w])
					}
					if !ok {
						t.Errorf("frame %d vertex %d CS word %d (%s) = %#08x, model %#08x", k, first+v, w, shaders.CS.Outputs[w], got, want[w])
					}
				}
			}
		}
	}
}

func TestCubeFragmentShader(t *testing.T) {
	r := newRig(t)
	fs := r.mustLoad(shaders.FS.Code, strictFragment)
	const p0, p1 = 0x12345000, 0x00100040
	for _, light := range []float32{0, 0.1, 0.35, 0.8, 1} {
		fl := shaders.LightFor(light)
		var u [shaders.NumFragmentUniforms]uint32
		shaders.FillFragmentUniforms(&u, p0, p1, fl)
		addr := r.uniforms(u[:]...)

		// Per lane: partial varyings, W, C, texel and Z, all different.
		var vpS, vpT, cS, cT, w, texel, z vec
		for i := 0; i < 16; i++ {
			vpS[i] = fbits(0.01 * float32(i))
			vpT[i] = fbits(-0.02*float32(i) + 0.003)
			cS[i] = fbits(0.25 + float32(i/4)*0.01)
			cT[i] = fbits(0.75)
			w[i] = fbits(1 + float32(i)/7)
			texel[i] = 0x01010101*uint32(i*16) ^ 0x00FF7F10
			z[i] = uint32(i * 0x10101)
		}
		env := &fakeEnv{varyVP: []vec{vpS, vpT}, varyC: []vec{cS, cT}}
		env.tmuData[0] = []vec{texel}
		s := &Start{Uniforms: addr, W: w, Z: z, MSFlags: splat(0xF)}
		if _, err := r.q.Run(fs, env, s); err != nil {
			t.Fatal(err)
		}
		if len(env.tmuWrites) != 2 || env.tmuWrites[0].reg != TMUT || env.tmuWrites[1].reg != TMUS {
			t.Fatalf("TMU writes %+v, want T then S", env.tmuWrites)
		}
		if env.tmuWrites[0].param != p0 || env.tmuWrites[1].param != p1 {
			t.Errorf("TMU parameters %#x %#x, want P0 %#x P1 %#x", env.tmuWrites[0].param, env.tmuWrites[1].param, p0, p1)
		}
		if len(env.tlbWrites) != 2 || env.tlbWrites[0].reg != TLBZ || env.tlbWrites[1].reg != TLBColourAll {
			t.Fatalf("TLB writes %+v, want Z then colour", env.tlbWrites)
		}
		for i := 0; i < 16; i++ {
			f := func(x uint32) float32 { return math.Float32frombits(x) }
			ms, mt := shadermodel.Fragment(f(vpS[i]), f(vpT[i]), f(w[i]), f(cS[i]), f(cT[i]))
			if !closeFloat(env.tmuWrites[1].v[i], fbits(ms)) || !closeFloat(env.tmuWrites[0].v[i], fbits(mt)) {
				t.Errorf("light %g lane %d: s, t = %g, %g; model %g, %g", light, i,
					f(env.tmuWrites[1].v[i]), f(env.tmuWrites[0].v[i]), ms, mt)
			}
			if got := env.tlbWrites[0].v[i]; got != z[i] {
				t.Errorf("lane %d: TLB Z = %#x, want rb15 %#x", i, got, z[i])
			}
			if got, want := env.tlbWrites[1].v[i], shadermodel.ShadeTexel(fl, texel[i]); got != want {
				t.Errorf("light %g lane %d: colour %#08x for texel %#08x, model %#08x", light, i, got, texel[i], want)
			}
		}
		if got := env.scoreboard; len(got) != 2 || got[0] || !got[1] {
			t.Errorf("scoreboard calls %v, want the implicit wait then sbdone", got)
		}
	}
}
