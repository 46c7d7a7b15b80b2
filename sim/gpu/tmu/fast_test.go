package tmu

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/texture"
)

// The fast paths' test's size: textures (random type, size, mip levels,
// FLIPY, wrap modes and filters), and per texture the random sequences of
// writes and receives run on a reference unit and a fast one.
const (
	fastTextures  = 400
	fastSequences = 8
)

// TestFastPathsMatchReference runs random request sequences — texture
// lookups (T and S, sometimes B and R, partial masks), direct lookups
// inside and outside the job's memory, receives, FIFOs filled to
// deadlock — on a unit with Reference set and one without, and requires
// the same results, errors, outstanding counts and lookup counts after
// every call. Coordinates are in range, on texel edges, negative, huge,
// ±Inf and NaN.
func TestFastPathsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	types := []struct {
		typ texture.Type
		cpp int
	}{{texture.RGBA8888, 4}, {texture.RGBA8888, 4}, {texture.RGBX8888, 4}, {texture.RGB565, 2},
		{texture.RGBA4444, 2}, {texture.LUMINANCE, 1}, {texture.ALPHA, 1}, {texture.RGBA32R, 4}}
	coord := func(n int) uint32 {
		switch r.IntN(8) {
		case 0:
			return math.Float32bits(float32(r.IntN(4*n)-2*n) / float32(n))
		case 1:
			return math.Float32bits([...]float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e9, -3e9, 1 << 29, -(1 << 29), 0}[r.IntN(8)])
		case 2:
			return math.Float32bits(-0.0) | uint32(r.IntN(2))<<31
		}
		return math.Float32bits(float32(r.Float64()*4 - 1.5))
	}
	textures, calls := fastTextures, 0
	if testing.Short() {
		textures /= 8
	}
	for n := 0; n < textures; n++ {
		tc := types[r.IntN(len(types))]
		w, h := 1+r.IntN(70), 1+r.IntN(70)
		if r.IntN(3) == 0 {
			w, h = 1<<r.IntN(9), 1<<r.IntN(9)
		}
		levels := 1
		if tc.typ != texture.RGBA32R && r.IntN(3) == 0 {
			levels = 1 + r.IntN(4)
		}
		var pics []texture.Picture
		for l := 0; l < levels; l++ {
			pic, err := texture.NewPicture(max(w>>l, 1), max(h>>l, 1), tc.cpp)
			if err != nil {
				t.Fatal(err)
			}
			for i := range pic.Pix {
				pic.Pix[i] = byte(r.Uint32())
			}
			pics = append(pics, pic)
		}
		sm := texture.Sampler{Min: texture.MinFilter(r.IntN(6)), Mag: texture.MagFilter(r.IntN(2)),
			WrapS: texture.Wrap(r.IntN(4)), WrapT: texture.Wrap(r.IntN(4))}
		if r.IntN(2) == 0 {
			sm = texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp}
			if r.IntN(3) == 0 {
				sm.WrapS, sm.WrapT = texture.Wrap(r.IntN(4)), texture.Wrap(r.IntN(4))
			}
		}
		if levels == 1 && sm.Min.UsesMipmaps() {
			sm.Min = texture.MinLinear
		}
		name := fmt.Sprintf("%v %dx%d levels %d %+v", tc.typ, w, h, levels, sm)
		f := newFixture(t, 2<<20)
		flip := r.IntN(2) == 0 && tc.typ != texture.RGBA32R
		p0, p1 := f.upload(t, tc.typ, pics, flip, sm)
		ref, fst := New(f.view), New(f.view)
		ref.Reference = true
		for seq := 0; seq < fastSequences; seq++ {
			ref.Reset(nil)
			fst.Reset(nil)
			for k := 0; k < 24; k++ {
				calls++
				var what string
				var errR, errF error
				var outR, outF [16]uint32
				switch x := r.IntN(10); {
				case x < 3:
					what = "receive"
					errR, errF = ref.Receive(&outR), fst.Receive(&outF)
				case x < 4:
					// A direct lookup: addresses in the texture's buffer,
					// and now and then outside the job's memory.
					var a [16]uint32
					for i := range a {
						a[i] = f.r.Addr + uint32(r.IntN(int(f.r.Size)))
						if r.IntN(40) == 0 {
							a[i] = 0x10
						}
					}
					what = "direct S"
					errR, errF = ref.Write(S, &a, 0xFFFF, 0, true), fst.Write(S, &a, 0xFFFF, 0, true)
				default:
					// A texture lookup: T (or not), maybe B and R, then S.
					var s, tt, b, rr [16]uint32
					for i := range s {
						s[i], tt[i] = coord(w), coord(h)
						b[i] = math.Float32bits(float32(r.NormFloat64() * 2))
						rr[i] = r.Uint32()
					}
					mask := uint16(0xFFFF)
					if r.IntN(5) == 0 {
						mask = uint16(r.Uint32())
					}
					p2, err := texture.P2{Kind: texture.ParamCubeStride, DisableAutoLOD: r.IntN(2) == 0}.Encode()
					if err != nil {
						t.Fatal(err)
					}
					params := []uint32{p0, p1, p2, 0}
					np := 0
					write := func(reg int, v *[16]uint32) {
						if errR != nil || errF != nil {
							return
						}
						pr := params[min(np, 3)]
						np++
						what += fmt.Sprintf(" %d", reg)
						errR, errF = ref.Write(reg, v, mask, pr, false), fst.Write(reg, v, mask, pr, false)
					}
					what = "lookup"
					if r.IntN(6) != 0 {
						write(T, &tt)
					}
					if r.IntN(4) == 0 {
						write(R, &rr)
					}
					if r.IntN(4) == 0 {
						write(B, &b)
					}
					write(S, &s)
				}
				if fmt.Sprint(errR) != fmt.Sprint(errF) || outR != outF ||
					ref.Outstanding() != fst.Outstanding() || ref.Lookups != fst.Lookups {
					t.Fatalf("%s, sequence %d, call %d (%s): reference %v %#x (outstanding %d, lookups %d), fast %v %#x (outstanding %d, lookups %d)",
						name, seq, k, what, errR, outR, ref.Outstanding(), ref.Lookups, errF, outF, fst.Outstanding(), fst.Lookups)
				}
				if errR != nil {
					break // the job would stop here
				}
			}
		}
	}
	t.Logf("%d textures × %d sequences: %d calls on each unit", textures, fastSequences, calls)
}

// randomBytes returns 16 MiB of random texel bytes.
func randomBytes(r *rand.Rand) []byte {
	b := make([]byte, 16<<20)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b
}

// randomLevelSize returns the n-th random level size: powers of two, small
// sizes and any size up to 2048 in turn.
func randomLevelSize(r *rand.Rand, n int) (w, h int) {
	switch n % 3 {
	case 0:
		return 1 << r.IntN(12), 1 << r.IntN(12)
	case 1:
		return 1 + r.IntN(70), 1 + r.IntN(70)
	}
	return 1 + r.IntN(2048), 1 + r.IntN(2048)
}

// randomUtiles returns a w×h level's utiles per row and a table of random
// utile offsets (multiples of align) into the first span bytes of a
// buffer of size bytes, and where the furthest utile ends (a level's bytes
// can be cut there, as planLookups allows).
func randomUtiles(r *rand.Rand, w, h, size, align int) (upr int, utab []int32, end int) {
	upr = (w + 3) / 4
	utab = make([]int32, (h-1)>>2*upr+(w-1)>>2+1)
	span := 64 + r.IntN(size-64)
	for i := range utab {
		utab[i] = int32(r.IntN(span-63)) &^ int32(align-1)
		end = max(end, int(utab[i])+64)
	}
	return upr, utab, end
}

// compareNearestClampT32 compares nearestClampT32 with
// nearestClampT32Go on requests random requests to p, a w×h level, a
// fifth of their coordinates on texel edges, and stops the test at a
// difference (what names the level).
func compareNearestClampT32(t *testing.T, r *rand.Rand, p *clampT32, w, h, requests int, what string) {
	t.Helper()
	for k := 0; k < requests; k++ {
		s, tt := randomRequest(r, w, h, func(n int) float32 {
			if r.IntN(5) == 0 {
				return float32(r.IntN(4*n)-n) / float32(n) // texel edges
			}
			return float32(r.Float64()*3 - 1)
		})
		var got, want [16]uint32
		nearestClampT32(p, &s, &tt, &got)
		nearestClampT32Go(p, &s, &tt, &want)
		if got != want {
			t.Fatalf("%s: s %#x t %#x: texels %#x, Go %#x", what, s, tt, got, want)
		}
	}
}

// insideIntBounds sets every coordinate of s and tt within the integer
// bilinear form's bounds (intAxis) of p, a w×h level: texel edges and
// centres, ±0, anything up to the bound.
func insideIntBounds(r *rand.Rand, p *bilinT32, s, tt *[16]uint32, w, h int) {
	inside := func(b float32, n int) float32 {
		switch r.IntN(4) {
		case 0:
			return float32(r.IntN(8*n)-4*n) / float32(2*n)
		case 1:
			return float32(math.Copysign(0, float64(1-2*r.IntN(2))))
		case 2:
			return (r.Float32()*2 - 1) * b
		}
		return r.Float32()*3 - 1
	}
	for i := range s {
		s[i] = math.Float32bits(inside(p.ix.bound[0], w))
		tt[i] = math.Float32bits(inside(p.iy.bound[0], h))
	}
}

// compareBilinearT32 compares bilinearT32 with bilinearT32Go on one
// request, what they say of its range and each element in range, and
// stops the test at a difference (what names the level). It reports
// whether the request was within the integer form's bounds.
func compareBilinearT32(t *testing.T, p *bilinT32, s, tt *[16]uint32, what string) bool {
	t.Helper()
	var got, want [16]uint32
	okG := bilinearT32(p, s, tt, &got)
	okW := bilinearT32Go(p, s, tt, &want)
	if okG != okW {
		t.Fatalf("%s: s %#x t %#x: all in range %v, Go %v", what, *s, *tt, okG, okW)
	}
	for i := range got {
		if inBilinearRange(math.Float32frombits(s[i]), math.Float32frombits(tt[i]), p) && got[i] != want[i] {
			t.Fatalf("%s: element %d (s %#x t %#x): texel %#08x, Go %#08x", what, i, s[i], tt[i], got[i], want[i])
		}
	}
	return inIntBounds(p, s, tt)
}

// randomRequest returns the s and t coordinates of a 16-element request
// on a w×h level: each one any bits (one in six), a special value (±Inf,
// NaN, ±3e9, 0, ±1; one in six), or else what coord gives for an axis of
// n texels.
func randomRequest(r *rand.Rand, w, h int, coord func(n int) float32) (s, t [16]uint32) {
	pick := func(n int) uint32 {
		switch r.IntN(6) {
		case 0:
			return r.Uint32()
		case 1:
			return math.Float32bits([...]float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e9, -3e9, 0, 1, -1}[r.IntN(8)])
		}
		return math.Float32bits(coord(n))
	}
	for i := range s {
		s[i], t[i] = pick(w), pick(h)
	}
	return s, t
}

// nearestClampT32, each version (SSE2 and AVX2 on amd64), gives
// nearestClampT32Go's texels on 200000 random 16-element requests:
// coordinates of every kind (in range, texel edges, negative, ±0, huge,
// ±Inf, NaN, any bits), sizes 1 to 2048,
// both FLIPY settings, utile tables of random offsets into random bytes
// cut just after the furthest utile (as planLookups allows), with and
// without fixCoord (setFix, at the scales a sampler of the size has).
func TestNearestClampT32MatchesGo(t *testing.T) {
	for _, v := range nearestClampT32Versions() {
		t.Run(v, func(t *testing.T) {
			defer useNearestClampT32(v)()
			testNearestClampT32MatchesGo(t)
		})
	}
}

func testNearestClampT32MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	bytes := randomBytes(r)
	textures, requests := 1000, 200
	if testing.Short() {
		textures /= 10
	}
	for n := 0; n < textures; n++ {
		w, h := randomLevelSize(r, n)
		flip := -r.IntN(2)
		// Offsets anywhere, not only 4-aligned.
		upr, utab, end := randomUtiles(r, w, h, len(bytes), 1)
		p := newClampT32(w, h, flip, upr, utab, bytes[:end])
		if n%2 == 1 {
			p.setFix(math.Ldexp(float64(nextPow2(w)), subTexelBits), math.Ldexp(float64(nextPow2(h)), subTexelBits))
		}
		compareNearestClampT32(t, r, &p, w, h, requests, fmt.Sprintf("%dx%d flip %d fix %v", w, h, flip, p.fix))
	}
}

// bilinearLevel0 equals bilinear() element by element on random
// coordinates — in range, texel edges and centres, 0 and 1, just inside
// and outside the picture, negative, huge (either side of where
// bilinearT32 hands elements to bilinear()), ±Inf, NaN, any bits — for
// every pair of wrap modes (those it does not take report false), sizes
// from 1×1 to 512×512 in T and LT format (both must be taken), 32-bit
// types with and without alpha, both FLIPY settings.
func TestBilinearLevel0AgreesWithBilinear(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	coord := func(n int) float32 {
		switch r.IntN(10) {
		case 0:
			return float32(r.IntN(8*n)-4*n) / float32(2*n) // texel edges and centres
		case 1:
			return [...]float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 3e9, -3e9, 1 << 29, -(1 << 29), 0}[r.IntN(8)]
		case 2:
			return [...]float32{0, 1, -0.0, 1 - 1.0/(1<<24), 1.0 / (1 << 24), -1.0 / (1 << 24)}[r.IntN(6)]
		case 3:
			// Around ±2^30 texels, where bilinearT32 stops.
			e := float64(1<<30) / float64(n) * (1 + (r.Float64()-0.5)*1e-6)
			return float32(e * float64(1-2*r.IntN(2)))
		case 4:
			return math.Float32frombits(r.Uint32())
		}
		return float32(r.Float64()*4 - 1.5)
	}
	taken := map[texture.Tiling]int{}
	sizes := [][2]int{{16, 8}, {5, 3}, {64, 64}, {256, 128}, {100, 36}, {1, 1}, {1, 64}, {64, 1}, {2, 2}, {32, 4}, {512, 512}, {33, 65}, {128, 8}}
	for _, size := range sizes {
		// One buffer per size, the picture uploaded again for each
		// lookup's parameters (32-bit ARM's address space does not
		// hold one per case).
		f := newFixture(t, max(256<<10, 2*size[0]*size[1]*4))
		for _, typ := range []texture.Type{texture.RGBA8888, texture.RGBX8888} {
			pic, _ := texture.NewPicture(size[0], size[1], 4)
			for i := range pic.Pix {
				pic.Pix[i] = byte(r.Uint32())
			}
			tiling, _ := typ.Tiling(size[0], size[1])
			for _, flip := range []bool{false, true} {
				for ws := texture.WrapRepeat; ws <= texture.WrapBorder; ws++ {
					for wt := texture.WrapRepeat; wt <= texture.WrapBorder; wt++ {
						name := fmt.Sprintf("%v %dx%d flip=%v %v/%v", typ, size[0], size[1], flip, ws, wt)
						u, smp := f.sampler(t, typ, pic, flip, texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: ws, WrapT: wt})
						for n := 0; n < 200; n++ {
							var s, tt, out [16]uint32
							for i := range s {
								s[i], tt[i] = math.Float32bits(coord(size[0])), math.Float32bits(coord(size[1]))
							}
							if !u.bilinearLevel0(smp, &s, &tt, &out) {
								break
							}
							taken[tiling]++
							for i := range out {
								fs, ft := math.Float32frombits(s[i]), math.Float32frombits(tt[i])
								if want := u.bilinear(smp, 0, fs, ft); out[i] != want {
									t.Fatalf("%s: (%g, %g) → %#08x, bilinear() %#08x", name, fs, ft, out[i], want)
								}
							}
						}
					}
				}
			}
		}
	}
	if taken[texture.TFormat] == 0 || taken[texture.LTFormat] == 0 {
		t.Fatalf("bilinearLevel0 took %d T-format and %d LT-format lookups: want some of each", taken[texture.TFormat], taken[texture.LTFormat])
	}
	t.Logf("lookups taken: %v", taken)
}

// Every version of bilinearT32 but Go (bilinearT32Versions: AVX2 on amd64
// where the CPU has it; skipped, and said so, where there is none) gives
// bilinearT32Go's answer and texels on 200000 random 16-element requests,
// half of them with every coordinate within the bounds of the AVX2
// version's integer form (intAxis):
// coordinates of every kind (in range, texel edges and centres, negative,
// ±0, around ±2^30 texels, ±Inf, NaN, any bits), sizes 1 to 2048 with
// clamp to edge or (powers of two) repeat on each axis, both FLIPY
// settings, utile tables of random 4-aligned offsets into random bytes
// cut just after the furthest utile (as planLookups allows). Elements out
// of range are compared only through the answer: their texels are
// unspecified. Every pair of wrap modes and both FLIPY settings must come
// up.
func TestBilinearT32MatchesGo(t *testing.T) {
	vs := bilinearT32Versions()
	if len(vs) == 1 {
		t.Skipf("no version of bilinearT32 but %s on this machine", vs[0])
	}
	for _, v := range vs[1:] {
		t.Run(v, func(t *testing.T) {
			defer useBilinearT32(v)()
			testBilinearT32MatchesGo(t)
		})
	}
}

func testBilinearT32MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	type mode struct {
		ws, wt texture.Wrap
		flip   int
	}
	seen := map[mode]int{}
	seenInt := 0
	bytes := randomBytes(r)
	textures, requests := 1000, 200
	if testing.Short() {
		// Fewer requests, not fewer textures: a hundred textures need not
		// meet every wrap and flip mode the check at the end asks for.
		requests /= 10
	}
	for n := 0; n < textures; n++ {
		w, h := randomLevelSize(r, n)
		ws, wt := texture.WrapClamp, texture.WrapClamp
		if w&(w-1) == 0 && r.IntN(2) == 0 {
			ws = texture.WrapRepeat
		}
		if h&(h-1) == 0 && r.IntN(2) == 0 {
			wt = texture.WrapRepeat
		}
		flip := -r.IntN(2)
		upr, utab, end := randomUtiles(r, w, h, len(bytes), 4)
		p := newBilinT32(w, h, ws, wt, flip, upr, utab, bytes[:end])
		seen[mode{ws, wt, flip}]++
		for k := 0; k < requests; k++ {
			s, tt := randomRequest(r, w, h, func(n int) float32 {
				switch r.IntN(10) {
				case 0:
					return float32(r.IntN(8*n)-4*n) / float32(2*n) // texel edges and centres
				case 1:
					// Around ±2^30 texels, where bilinearT32 stops.
					e := float64(1<<30) / float64(n) * (1 + (r.Float64()-0.5)*1e-6)
					return float32(e * float64(1-2*r.IntN(2)))
				case 2:
					return float32(math.Copysign(0, -1))
				}
				return float32(r.Float64()*3 - 1)
			})
			if k%2 == 1 {
				insideIntBounds(r, &p, &s, &tt, w, h)
			}
			if compareBilinearT32(t, &p, &s, &tt, fmt.Sprintf("%dx%d %v/%v flip %d", w, h, ws, wt, flip)) {
				seenInt++
			}
		}
	}
	for _, ws := range []texture.Wrap{texture.WrapClamp, texture.WrapRepeat} {
		for _, wt := range []texture.Wrap{texture.WrapClamp, texture.WrapRepeat} {
			for _, flip := range []int{0, -1} {
				if seen[mode{ws, wt, flip}] == 0 {
					t.Errorf("no texture with wraps %v/%v and flip %d", ws, wt, flip)
				}
			}
		}
	}
	if seenInt < textures*requests/4 {
		t.Errorf("%d requests within the integer form's bounds: want at least a quarter", seenInt)
	}
}

// inIntBounds says every coordinate of a request is within its axis'
// intAxis bound, where bilinearT32 takes the integer form on amd64.
func inIntBounds(p *bilinT32, s, t *[16]uint32) bool {
	for i := range s {
		if !(abs32(math.Float32frombits(s[i])) < p.ix.bound[0] && abs32(math.Float32frombits(t[i])) < p.iy.bound[0]) {
			return false
		}
	}
	return true
}

// BenchmarkBilinearT32 is bilinearT32 alone, per version, on
// BenchmarkBilinearLookup's requests: a 512×512 level, repeat both ways,
// its 128×128 utiles one after another in memory (1 MiB), the lanes a
// 4×4 block 1/700 apart in s and t at positions that wander over it.
func BenchmarkBilinearT32(b *testing.B) {
	const n = 512
	const upr = n / 4
	utab := make([]int32, upr*upr)
	for i := range utab {
		utab[i] = int32(i * 64)
	}
	mem := randomBytes(rand.New(rand.NewPCG(1, 2)))[:len(utab)*64]
	p := newBilinT32(n, n, texture.WrapRepeat, texture.WrapRepeat, 0, upr, utab, mem)
	for _, v := range bilinearT32Versions() {
		b.Run(v, func(b *testing.B) {
			defer useBilinearT32(v)()
			var s, t, out [16]uint32
			for i := 0; i < b.N; i++ {
				x0, y0 := float32(i%61)/64, float32(i%53)/64
				for l := range s {
					s[l] = math.Float32bits(x0 + float32(l%4)/700)
					t[l] = math.Float32bits(y0 + float32(l/4)/700)
				}
				if !bilinearT32(&p, &s, &t, &out) {
					b.Fatal("coordinates out of range")
				}
			}
		})
	}
}

// coordFix is fixCoord's fast path: on random coordinates of both signs
// and the special values, at every power-of-two container from 1 to
// 2,048 texels, it gives fixCoord's bits.
func TestCoordFixMatchesFixCoord(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 0))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1.0 / 256, -1.0 / 256,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32}
	for k := 0; k <= 11; k++ {
		scale := math.Ldexp(1, k+subTexelBits)
		f := newCoordFix(scale)
		for n := 0; n < 3000; n++ {
			var c float32
			switch n % 4 {
			case 0:
				c = special[rng.IntN(len(special))]
			case 1:
				c = math.Float32frombits(rng.Uint32())
			default:
				c = float32(rng.NormFloat64() * 4)
			}
			got := f.fix(math.Float32bits(c))
			want := math.Float32bits(fixCoord(c, scale))
			if got != want {
				t.Fatalf("scale 2^%d: coordFix(%#08x) = %#08x, fixCoord %#08x", k+subTexelBits, math.Float32bits(c), got, want)
			}
		}
	}
}

// texelFix gives float64(fixCoord(c))·n bit for bit (NaN as NaN), for
// sizes n of every power-of-two container up to 2048 and coordinates of
// every kind: ±0, ±Inf, NaN of either sign, the largest and smallest,
// any bits, and texel edges and centres either side of zero.
func TestTexelFixMatchesFixCoord(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 0))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1.0 / 256, -1.0 / 256,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32}
	for k := 0; k <= 11; k++ {
		for _, n := range []int{1 << k, 1<<k - 1, 1<<k/2 + 1} {
			if n < 1 || nextPow2(n) != 1<<k {
				continue
			}
			scale := math.Ldexp(float64(nextPow2(n)), subTexelBits)
			f := newTexelFix(n, scale)
			for i := 0; i < 4000; i++ {
				var c float32
				switch i % 4 {
				case 0:
					c = special[rng.IntN(len(special))]
				case 1:
					c = math.Float32frombits(rng.Uint32())
				case 2:
					c = float32(rng.IntN(16*n)-8*n) / float32(2*n)
				default:
					c = float32(rng.NormFloat64() * 2)
				}
				got := f.texel(math.Float32bits(c))
				want := float64(fixCoord(c, scale)) * float64(n)
				if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
					t.Fatalf("%d texels: texelFix(%#08x) = %v, fixCoord·n %v", n, math.Float32bits(c), got, want)
				}
			}
		}
	}
}

// BenchmarkNearestClampT32 is nearestClampT32 alone, per version, on
// requests of the cube's kind: a 512×512 level, its 128×128 utiles one
// after another in memory (1 MiB), the lanes a 4×4 block 1/700 apart in
// s and t at positions that wander over it; "fix" is the same requests
// on a 640×480 level, which fixes its coordinates (as the 800×600
// texture of glmark2's effect2d does).
func BenchmarkNearestClampT32(b *testing.B) {
	// The requests, made first: 61·53 positions.
	var s, t [61 * 53][16]uint32
	for i := range s {
		x0, y0 := float32(i%61)/64, float32(i%53)/64
		for l := range s[i] {
			s[i][l] = math.Float32bits(x0 + float32(l%4)/700)
			t[i][l] = math.Float32bits(y0 + float32(l/4)/700)
		}
	}
	mem := randomBytes(rand.New(rand.NewPCG(1, 2)))
	for _, size := range [][2]int{{512, 512}, {640, 480}} {
		w, h := size[0], size[1]
		upr := w / 4
		utab := make([]int32, upr*h/4)
		for i := range utab {
			utab[i] = int32(i * 64)
		}
		p := newClampT32(w, h, 0, upr, utab, mem[:len(utab)*64])
		name := ""
		if w != nextPow2(w) {
			p.setFix(math.Ldexp(float64(nextPow2(w)), subTexelBits), math.Ldexp(float64(nextPow2(h)), subTexelBits))
			name = "fix-"
		}
		for _, v := range nearestClampT32Versions() {
			b.Run(name+v, func(b *testing.B) {
				defer useNearestClampT32(v)()
				var out [16]uint32
				for i := 0; i < b.N; i++ {
					k := i % len(s)
					nearestClampT32(&p, &s[k], &t[k], &out)
				}
			})
		}
	}
}
