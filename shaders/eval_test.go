package shaders_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vccube/vccube/internal/shadermodel"
	"github.com/vccube/vccube/shaders"
	q "github.com/vccube/vccube/shaders/qpu"
)

// A one-element (scalar) evaluator of the subset of the QPU the cube's
// programs use, written for these tests only: it runs the programs'
// decoded words, so it checks the encoding end to end (uniform order, VPM
// output order, packs, muxes) against the Go models. It is not the GPU
// model (sim/gpu): one SIMD element, no rotations, no flags, no thread
// switches; anything else fails the test. It gives results when the
// hardware would (r4 from the SFU at once: the hazard checker guarantees
// the program waits), and the SFU is an exact reciprocal, as in the model.

type varying struct{ vp, c float32 }

type machine struct {
	ra, rb   [32]uint32
	acc      [6]uint32
	unif     []uint32
	vary     []varying
	vpmIn    []uint32
	texel    func(s, t float32) uint32
	tmuQueue []uint32

	vpmOut        []uint32
	tmuS, tmuT    []float32
	tmuParams     []uint32
	tlbZ, colour  []uint32
	vrSet, vwSet  []uint32
	uniformsTaken int
}

func f2u(f float32) uint32 { return math.Float32bits(f) }
func u2f(u uint32) float32 { return math.Float32frombits(u) }

func (m *machine) popUniform() (uint32, error) {
	if m.uniformsTaken >= len(m.unif) {
		return 0, fmt.Errorf("uniform stream exhausted after %d", len(m.unif))
	}
	v := m.unif[m.uniformsTaken]
	m.uniformsTaken++
	return v, nil
}

func bytewise(a, b uint32, f func(x, y uint8) uint8) uint32 {
	var r uint32
	for i := 0; i < 32; i += 8 {
		r |= uint32(f(uint8(a>>i), uint8(b>>i))) << i
	}
	return r
}

func (m *machine) run(words []uint64) error {
	end := -1
	for pc := 0; pc < len(words); pc++ {
		in := q.Decode(words[pc])
		if err := m.step(&in); err != nil {
			return fmt.Errorf("instruction %d (%v): %v", pc, in, err)
		}
		if in.EndsProgram() && end < 0 {
			end = pc + 2
		}
		if pc == end {
			return nil
		}
	}
	return fmt.Errorf("no program end")
}

func (m *machine) step(in *q.Inst) error {
	var addRes, mulRes uint32
	newR5 := int64(-1)
	switch in.Kind() {
	case q.KindLoadImm:
		if in.LoadMode != q.LoadImm32 || in.Pack != 0 || in.SF {
			return fmt.Errorf("unsupported load immediate")
		}
		addRes, mulRes = in.Imm, in.Imm
	case q.KindALU, q.KindSmallImm:
		if in.Unpack != 0 || in.SF {
			return fmt.Errorf("unsupported unpack or flags")
		}
		if _, _, rot := in.Rotation(); rot {
			return fmt.Errorf("rotation unsupported")
		}
		var popped uint32
		poppedOK := false
		read := func(f q.RegFile, r q.RAddr) (uint32, error) {
			switch {
			case r < 32:
				if f == q.FileA {
					return m.ra[r], nil
				}
				return m.rb[r], nil
			case r == q.RUniform:
				if !poppedOK {
					v, err := m.popUniform()
					if err != nil {
						return 0, err
					}
					popped, poppedOK = v, true
				}
				return popped, nil
			case r == q.RVarying:
				if len(m.vary) == 0 {
					return 0, fmt.Errorf("varyings exhausted")
				}
				v := m.vary[0]
				m.vary = m.vary[1:]
				newR5 = int64(f2u(v.c))
				return f2u(v.vp), nil
			case r == q.RVPM:
				if len(m.vpmIn) == 0 {
					return 0, fmt.Errorf("VPM reads beyond the input")
				}
				v := m.vpmIn[0]
				m.vpmIn = m.vpmIn[1:]
				return v, nil
			case r == q.RNop:
				return 0, nil
			}
			return 0, fmt.Errorf("read of %s unsupported", r.Name(f))
		}
		va, err := read(q.FileA, in.RaddrA)
		if err != nil {
			return err
		}
		var vb uint32
		if in.Sig == q.SigSmallImm {
			vb, _ = in.SmallImmed.Value()
		} else if vb, err = read(q.FileB, in.RaddrB); err != nil {
			return err
		}
		operand := func(mx q.Mux) uint32 {
			switch mx {
			case q.MuxA:
				return va
			case q.MuxB:
				return vb
			}
			return m.acc[mx]
		}
		a, b := operand(in.AddA), operand(in.AddB)
		switch in.OpAdd {
		case q.AddNop:
		case q.AddFAdd:
			addRes = f2u(u2f(a) + u2f(b))
		case q.AddFSub:
			addRes = f2u(u2f(a) - u2f(b))
		case q.AddFToI:
			addRes = uint32(shaders.FToI(u2f(a)))
		case q.AddOr:
			addRes = a | b
		case q.AddV8Subs:
			addRes = bytewise(a, b, shadermodel.V8Subs)
		default:
			return fmt.Errorf("add op %v unsupported", in.OpAdd)
		}
		a, b = operand(in.MulA), operand(in.MulB)
		switch in.OpMul {
		case q.MulNop:
		case q.MulFMul:
			mulRes = f2u(u2f(a) * u2f(b))
		case q.MulV8Muld:
			mulRes = bytewise(a, b, shadermodel.V8Muld)
		case q.MulV8Max:
			mulRes = bytewise(a, b, func(x, y uint8) uint8 { return max(x, y) })
		case q.MulV8Min:
			mulRes = bytewise(a, b, func(x, y uint8) uint8 { return min(x, y) })
		default:
			return fmt.Errorf("mul op %v unsupported", in.OpMul)
		}
	default:
		return fmt.Errorf("kind %v unsupported", in.Kind())
	}
	// Write back: add then mul.
	for k := 0; k < 2; k++ {
		w, f, c, v := in.WaddrAdd, in.AddFile(), in.CondAdd, addRes
		if k == 1 {
			w, f, c, v = in.WaddrMul, in.MulFile(), in.CondMul, mulRes
		}
		if w == q.WNop {
			continue
		}
		if c != q.CondAlways {
			return fmt.Errorf("conditional write unsupported")
		}
		if err := m.write(in, w, f, v); err != nil {
			return err
		}
	}
	if newR5 >= 0 {
		m.acc[5] = uint32(newR5)
	}
	if in.IsALU() && in.Sig == q.SigLoadTMU0 {
		if len(m.tmuQueue) == 0 {
			return fmt.Errorf("ldtmu0 with no request")
		}
		m.acc[4], m.tmuQueue = m.tmuQueue[0], m.tmuQueue[1:]
	}
	return nil
}

func (m *machine) write(in *q.Inst, w q.WAddr, f q.RegFile, v uint32) error {
	if w < 32 {
		if f == q.FileA && !in.PM && in.Pack != 0 {
			old := m.ra[w]
			switch in.Pack {
			case q.Pack16A:
				v = old&0xffff0000 | v&0xffff
			case q.Pack16B:
				v = old&0xffff | v<<16
			default:
				return fmt.Errorf("pack %v unsupported", in.Pack)
			}
		}
		if f == q.FileA {
			m.ra[w] = v
		} else {
			m.rb[w] = v
		}
		return nil
	}
	if in.Pack != 0 && (in.PM || f == q.FileA) {
		// The regfile-A pack applies to the ALU writing through file A
		// (AG Table 7); the mul colour pack to the mul's write.
		return fmt.Errorf("pack on %s unsupported", w.Name(f))
	}
	switch {
	case w >= q.WAcc0 && w <= q.WAcc3:
		m.acc[w-q.WAcc0] = v
	case w == q.WVPM:
		m.vpmOut = append(m.vpmOut, v)
	case w == q.WVPMVCDSetup && f == q.FileA:
		m.vrSet = append(m.vrSet, v)
	case w == q.WVPMVCDSetup:
		m.vwSet = append(m.vwSet, v)
	case w == q.WSFURecip:
		m.acc[4] = f2u(1 / u2f(v))
	case w == q.WTMU0T || w == q.WTMU0S:
		p, err := m.popUniform()
		if err != nil {
			return err
		}
		m.tmuParams = append(m.tmuParams, p)
		if w == q.WTMU0T {
			m.tmuT = append(m.tmuT, u2f(v))
		} else {
			m.tmuS = append(m.tmuS, u2f(v))
			m.tmuQueue = append(m.tmuQueue, m.texel(u2f(v), m.tmuT[len(m.tmuT)-1]))
		}
	case w == q.WTLBZ:
		m.tlbZ = append(m.tlbZ, v)
	case w == q.WTLBColourAll:
		m.colour = append(m.colour, v)
	default:
		return fmt.Errorf("write to %s unsupported", w.Name(f))
	}
	return nil
}

// A rotating, perspective MVP like the scene's (mgl32 column-major
// layout), and the viewport of a 800×600 frame.
func testMVP(angle float64) [16]float32 {
	c, s := float32(math.Cos(angle)), float32(math.Sin(angle))
	// Projection (fovy 45°, aspect 4/3, near 0.1, far 100) · view (eye
	// (0,3,5) looking at the origin) · rotation about Y, multiplied out
	// by mvpMul below.
	proj := [16]float32{1.8106601, 0, 0, 0, 0, 2.4142137, 0, 0, 0, 0, -1.002002, -1, 0, 0, -0.2002002, 0}
	view := [16]float32{1, 0, 0, 0, 0, 0.857493, 0.514496, 0, 0, -0.514496, 0.857493, 0, 0, 0, -5.830952, 1}
	rot := [16]float32{c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1}
	return mvpMul(mvpMul(proj, view), rot)
}

func mvpMul(a, b [16]float32) (r [16]float32) {
	for col := 0; col < 4; col++ {
		for row := 0; row < 4; row++ {
			var s float32
			for k := 0; k < 4; k++ {
				s += a[k*4+row] * b[col*4+k]
			}
			r[col*4+row] = s
		}
	}
	return r
}

var testParams = shaders.VertexParams{XScale16: 800 * 8, YScale16: -600 * 8, ZScale: 0.5, ZOffset: 0.5}

func vertexMachine(mvp *[16]float32, in []uint32) *machine {
	var u [shaders.NumVertexUniforms]uint32
	shaders.FillVertexUniforms(&u, mvp, testParams)
	return &machine{unif: u[:], vpmIn: in}
}

// The VS, run on its own words, writes exactly shaders.ModelVertex's five
// words in order, consuming the 20 uniforms and the 5 attribute words.
func TestVertexShaderOutputs(t *testing.T) {
	for _, angle := range []float64{0, 0.3, 1.1, 2.5, 4} {
		mvp := testMVP(angle)
		for _, v := range cubeCorners() {
			m := vertexMachine(&mvp, []uint32{f2u(v[0]), f2u(v[1]), f2u(v[2]), f2u(0.25), f2u(0.75)})
			if err := m.run(shaders.VS.Code); err != nil {
				t.Fatal(err)
			}
			want := shaders.ModelVertex(&mvp, testParams, v, 0.25, 0.75).Words()
			if fmt.Sprint(m.vpmOut) != fmt.Sprint(want[:]) {
				t.Errorf("angle %v vertex %v: VS wrote %x, model %x", angle, v, m.vpmOut, want)
			}
			if m.uniformsTaken != shaders.NumVertexUniforms || len(m.vpmIn) != 0 {
				t.Errorf("VS took %d uniforms, left %d VPM words", m.uniformsTaken, len(m.vpmIn))
			}
			if len(m.vrSet) != 1 || m.vrSet[0] != 0x00501a00 || len(m.vwSet) != 1 || m.vwSet[0] != 0x00001a00 {
				t.Errorf("VPM setups %x %x", m.vrSet, m.vwSet)
			}
		}
	}
}

// The CS writes exactly shadermodel.Coordinate's seven words.
func TestCoordinateShaderOutputs(t *testing.T) {
	for _, angle := range []float64{0, 0.7, 3} {
		mvp := testMVP(angle)
		for _, v := range cubeCorners() {
			m := vertexMachine(&mvp, []uint32{f2u(v[0]), f2u(v[1]), f2u(v[2])})
			if err := m.run(shaders.CS.Code); err != nil {
				t.Fatal(err)
			}
			want := shadermodel.Coordinate(&mvp, testParams, v).Words()
			if fmt.Sprint(m.vpmOut) != fmt.Sprint(want[:]) {
				t.Errorf("angle %v vertex %v: CS wrote %x, model %x", angle, v, m.vpmOut, want)
			}
			if m.uniformsTaken != shaders.NumVertexUniforms || len(m.vpmIn) != 0 || len(m.vrSet) != 1 || m.vrSet[0] != 0x00301a00 {
				t.Errorf("CS took %d uniforms, left %d VPM words, read setups %x", m.uniformsTaken, len(m.vpmIn), m.vrSet)
			}
		}
	}
}

func cubeCorners() [][3]float32 {
	var c [][3]float32
	for i := 0; i < 8; i++ {
		c = append(c, [3]float32{float32(i&1*2 - 1), float32(i>>1&1*2 - 1), float32(i>>2&1*2 - 1)})
	}
	return c
}

// The models against an independent computation of the same quantities:
// MVP·p by rows, the perspective divide, and the 12.4 packing, with a
// tolerance for the order of float operations.
func TestVertexModelMeaning(t *testing.T) {
	mvp := testMVP(0.9)
	for _, v := range cubeCorners() {
		var c [4]float64
		for row := 0; row < 4; row++ {
			c[row] = float64(mvp[row])*float64(v[0]) + float64(mvp[4+row])*float64(v[1]) +
				float64(mvp[8+row])*float64(v[2]) + float64(mvp[12+row])
		}
		o := shadermodel.Coordinate(&mvp, testParams, v)
		for i, got := range [4]float32{o.Xc, o.Yc, o.Zc, o.Wc} {
			if math.Abs(float64(got)-c[i]) > 1e-5*math.Max(1, math.Abs(c[i])) {
				t.Errorf("%v: clip[%d] = %v, want %v", v, i, got, c[i])
			}
		}
		xs := int16(o.XsYs)
		ys := int16(o.XsYs >> 16)
		wantXs := c[0] / c[3] * 6400 // x_ndc · width/2 · 16
		wantYs := c[1] / c[3] * -4800
		if math.Abs(float64(xs)-math.Trunc(wantXs)) > 1 || math.Abs(float64(ys)-math.Trunc(wantYs)) > 1 {
			t.Errorf("%v: Xs Ys = %d %d, want %.2f %.2f", v, xs, ys, wantXs, wantYs)
		}
		if want := c[2]/c[3]*0.5 + 0.5; math.Abs(float64(o.Zs)-want) > 1e-6 {
			t.Errorf("%v: Zs = %v, want %v", v, o.Zs, want)
		}
		if want := 1 / c[3]; math.Abs(float64(o.InvWc)-want) > 1e-6*math.Abs(want) {
			t.Errorf("%v: 1/Wc = %v, want %v", v, o.InvWc, want)
		}
		if vo := shaders.ModelVertex(&mvp, testParams, v, 0.5, 0.125); vo.S != 0.5 || vo.T != 0.125 {
			t.Errorf("%v: the VS model does not pass the varyings through: %+v", v, vo)
		}
	}
	// Negative offsets pack as two's complement halves.
	if got := uint32(uint16(shaders.FToI(-16.9))) | uint32(uint16(shaders.FToI(33.2)))<<16; got != 0x0021fff0 {
		t.Errorf("packing of -16, 33: %#x", got)
	}
}

// The FS, run on its own words: interpolation, the texture request with
// P0 then P1, the light, TLB_Z = rb15, and the colour ShadeTexel gives.
func TestFragmentShaderOutputs(t *testing.T) {
	const p0, p1 = 0x00010100, 0x40040000
	for _, light := range []float32{0, 0.004, 0.05, 0.3, 0.71, 1} {
		fl := shaders.LightFor(light)
		var u [shaders.NumFragmentUniforms]uint32
		shaders.FillFragmentUniforms(&u, p0, p1, fl)
		const texel = 0xff3080c0
		m := &machine{
			unif: u[:],
			vary: []varying{{vp: 0.125, c: 0.5}, {vp: -0.25, c: 0.75}},
			texel: func(s, tt float32) uint32 {
				return texel
			},
		}
		const w, z = 2.0, 0x00abcdef
		m.ra[15], m.rb[15] = f2u(w), z
		if err := m.run(shaders.FS.Code); err != nil {
			t.Fatal(err)
		}
		s, tt := shadermodel.Fragment(0.125, -0.25, w, 0.5, 0.75)
		if len(m.tmuS) != 1 || m.tmuS[0] != s || m.tmuT[0] != tt || s != 0.75 || tt != 0.25 {
			t.Errorf("TMU s, t = %v %v, want %v %v (0.75, 0.25)", m.tmuS, m.tmuT, s, tt)
		}
		if fmt.Sprint(m.tmuParams) != fmt.Sprint([]uint32{p0, p1}) {
			t.Errorf("TMU parameters %x, want P0 then P1", m.tmuParams)
		}
		if fmt.Sprint(m.tlbZ) != fmt.Sprint([]uint32{z}) {
			t.Errorf("TLB_Z %x", m.tlbZ)
		}
		if want := shadermodel.ShadeTexel(fl, texel); len(m.colour) != 1 || m.colour[0] != want {
			t.Errorf("light %v: colour %x, want %x", light, m.colour, want)
		}
		if m.uniformsTaken != shaders.NumFragmentUniforms || len(m.vary) != 0 {
			t.Errorf("FS took %d uniforms, left %d varyings", m.uniformsTaken, len(m.vary))
		}
	}
}
