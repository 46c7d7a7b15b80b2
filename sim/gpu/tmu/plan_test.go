package tmu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
)

// A unit keeps its last sampler, with its plan (planLookups) and level
// bytes, while the requests' parameters stay the same.
// TestPlanFollowsSamplersAndViews runs one fast unit through request
// sequences that switch between textures and samplers (type, size, T/LT,
// mip levels, filters, wrap modes, FLIPY, border colour, a third
// parameter), and through the changes a kept sampler must not outlive: a
// new job's view (the same View emptied and refilled, with a texture's
// region cut short so that its level 0 is no longer in one region; a view
// of another pool whose bytes differ at the same addresses), and texture
// bytes rewritten within a job. The first request after each change
// repeats the parameters of the last one before it, so a sampler kept by
// mistake would be used. The judge of every request is a new unit running
// the reference code (a long-lived reference unit would share any such
// mistake: it keeps its sampler the same way); results and errors must
// agree.
func TestPlanFollowsSamplersAndViews(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	texs := []*planTex{
		{typ: texture.RGBA8888, w: 64, h: 64, levels: 1},
		{typ: texture.RGBA8888, w: 20, h: 12, levels: 2},
		{typ: texture.RGB565, w: 16, h: 8, levels: 1},
		{typ: texture.RGBA8888, w: 5, h: 3, levels: 1},
		{typ: texture.RGBA8888, w: 256, h: 128, levels: 1},
		{typ: texture.RGBA8888, w: 128, h: 64, levels: 3},
	}
	// Two pools with the same buffers at the same addresses, filled with
	// different bytes.
	var pools [2]*mem.Pool
	for k := range pools {
		p, err := mem.NewPool(mem.DefaultBase, 8<<20)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		pools[k] = p
		for _, x := range texs {
			plan, err := texture.NewMipPlan(x.typ, x.w, x.h, x.levels)
			if err != nil {
				t.Fatal(err)
			}
			reg, err := p.Alloc(plan.Size(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if k > 0 && reg != x.reg {
				t.Fatalf("pool %d places a texture at %v, pool 0 at %v", k, reg, x.reg)
			}
			x.plan, x.reg = plan, reg
			fill(t, r, p.Bytes(reg), x)
		}
	}
	samplers := []texture.Sampler{
		{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp},
		{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapRepeat, WrapT: texture.WrapMirror},
		{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapBorder, WrapT: texture.WrapClamp},
		{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp},
		{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapRepeat, WrapT: texture.WrapBorder},
		{Min: texture.MinNearMipNear, Mag: texture.MagLinear, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp},
		{Min: texture.MinNearMipLin, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapRepeat},
		{Min: texture.MinLinMipLin, Mag: texture.MagLinear, WrapS: texture.WrapMirror, WrapT: texture.WrapClamp},
	}
	type variant struct {
		name   string
		tex    int
		p0, p1 uint32
	}
	var variants []variant
	for ti, x := range texs {
		for _, s := range samplers {
			if x.levels == 1 && s.Min.UsesMipmaps() {
				continue
			}
			for _, flip := range []bool{false, true} {
				p0, p1 := params(t, &x.plan, x.reg.Addr, flip, s)
				variants = append(variants, variant{fmt.Sprintf("%v %dx%d levels %d flip %v %+v", x.typ, x.w, x.h, x.levels, flip, s), ti, p0, p1})
			}
		}
	}
	// The third parameter written: none (0), BSLOD set or not, a child
	// image (not modelled: an error).
	var thirds [4]uint32
	for i, p := range []texture.P2{{}, {Kind: texture.ParamCubeStride, DisableAutoLOD: true},
		{Kind: texture.ParamCubeStride}, {Kind: texture.ParamChildSize, ChildWidth: 4, ChildHeight: 4}} {
		w, err := p.Encode()
		if err != nil {
			t.Fatal(err)
		}
		thirds[i] = w
	}

	view := mem.NewView(pools[0])
	grant := func(v *mem.View, cut *planTex) {
		v.Reset()
		for _, x := range texs {
			reg := x.reg
			if x == cut {
				reg.Size /= 2
			}
			v.Add(reg, mem.Read, "texture")
		}
	}
	grant(view, nil)
	cur := view
	fst := New(view)

	// A request: its variant, whether it writes T, R (the border colour)
	// and B, and a third parameter.
	type request struct {
		v          int
		t, rr, b   bool
		border     uint32
		third      int
		s, tt, bia [16]uint32
	}
	coord := func() uint32 {
		switch r.IntN(6) {
		case 0:
			return math.Float32bits([...]float32{float32(math.Inf(1)), float32(math.NaN()), -3e9, 0, 1, -0.5}[r.IntN(6)])
		}
		return math.Float32bits(float32(r.Float64()*3 - 1))
	}
	var last request
	calls, nerr, nrecv := 0, 0, 0
	var plans [planBilinear + 1]int
	run := func(phase string, n int) {
		for k := 0; k < n; k++ {
			q := last
			if k > 0 { // the first request of a phase repeats the last one's parameters
				if r.IntN(3) == 0 {
					q.v = r.IntN(len(variants))
				}
				if r.IntN(4) == 0 {
					q.t, q.rr, q.b = r.IntN(6) != 0, r.IntN(3) == 0, r.IntN(4) == 0
					q.third = [...]int{0, 0, 1, 1, 2, 3}[r.IntN(6)]
					q.border = r.Uint32()
				}
			}
			for i := range q.s {
				q.s[i], q.tt[i] = coord(), coord()
				q.bia[i] = math.Float32bits(float32(r.NormFloat64() * 2))
			}
			last = q
			if r.IntN(20) == 0 {
				fst.Reset(nil) // a new thread
			}
			// The judge: a new unit running the reference code, with no
			// sampler or plan from an earlier request.
			ref := New(cur)
			ref.Reference = true
			v := variants[q.v]
			ps := []uint32{v.p0, v.p1, thirds[q.third], 0}
			np := 0
			var errR, errF error
			write := func(reg int, vals *[16]uint32) {
				if errR != nil || errF != nil {
					return
				}
				p := ps[min(np, 3)]
				np++
				errR, errF = ref.Write(reg, vals, 0xFFFF, p, false), fst.Write(reg, vals, 0xFFFF, p, false)
			}
			var border [16]uint32
			border[0] = q.border
			if q.t {
				write(T, &q.tt)
			}
			if q.rr {
				write(R, &border)
			}
			if q.b {
				write(B, &q.bia)
			}
			write(S, &q.s)
			var outR, outF [16]uint32
			if errR == nil && errF == nil {
				errR, errF = ref.Receive(&outR), fst.Receive(&outF)
			}
			calls++
			if fst.hasLast {
				plans[fst.last.plan]++
			}
			if errR != nil {
				nerr++
			} else if outR != [16]uint32{} {
				nrecv++
			}
			if fmt.Sprint(errR) != fmt.Sprint(errF) || outR != outF || ref.Outstanding() != fst.Outstanding() {
				t.Fatalf("%s, request %d (%s, T %v R %v (%#x) B %v third %#x): reference %v %#x (outstanding %d), fast %v %#x (outstanding %d)",
					phase, k, v.name, q.t, q.rr, q.border, q.b, thirds[q.third], errR, outR, ref.Outstanding(), errF, outF, fst.Outstanding())
			}
			if errR != nil {
				fst.Reset(nil) // the job would stop here
			}
		}
	}
	const n = 3000
	last.v = 0
	run("job 1", n)
	// The program rewrites every texture in the same buffers: no new job,
	// no new view.
	for _, x := range texs {
		fill(t, r, pools[0].Bytes(x.reg), x)
	}
	run("job 1, textures rewritten", n)
	for ti, cut := range texs {
		// The next job reuses the view; one texture's buffer is
		// granted only in part.
		grant(view, cut)
		fst.Reset(view)
		if variants[last.v].tex != ti {
			// Start on the cut texture, then repeat that request.
			for i, v := range variants {
				if v.tex == ti {
					last.v = i
					break
				}
			}
			run(fmt.Sprintf("a job with %v %dx%d cut short, first request", cut.typ, cut.w, cut.h), 1)
		}
		run(fmt.Sprintf("a job with %v %dx%d cut short", cut.typ, cut.w, cut.h), n/4)
	}
	// A job on the other pool: other bytes at the same addresses.
	other := mem.NewView(pools[1])
	grant(other, nil)
	cur = other
	fst.Reset(other)
	run("a job on another pool", n)
	grant(view, nil)
	cur = view
	fst.Reset(view)
	run("back on the first pool", n)
	t.Logf("%d requests, %d errors, %d non-zero results; requests by plan (lanes, nearest, nearest clamp T32, bilinear): %v", calls, nerr, nrecv, plans)
	for p, n := range plans {
		if n == 0 {
			t.Errorf("no request planned %d", p)
		}
	}
}

// planTex is a texture of TestPlanFollowsSamplersAndViews: its type,
// size and mip levels, its layout and its buffer.
type planTex struct {
	typ    texture.Type
	w, h   int
	levels int
	plan   texture.MipPlan
	reg    mem.Region
}

// fill uploads random pictures of x's levels into its buffer b.
func fill(t *testing.T, r *rand.Rand, b []byte, x *planTex) {
	t.Helper()
	var pics []texture.Picture
	for l := 0; l < x.levels; l++ {
		pic, err := texture.NewPicture(max(x.w>>l, 1), max(x.h>>l, 1), x.typ.BitsPerPixel()/8)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pic.Pix {
			pic.Pix[i] = byte(r.Uint32())
		}
		pics = append(pics, pic)
	}
	if err := convert.Upload(&x.plan, b, pics, false); err != nil {
		t.Fatal(err)
	}
}
