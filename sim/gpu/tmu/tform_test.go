package tmu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vccube/vccube/sim/gpu/internal/utiles"
	"github.com/vccube/vccube/texture"
)

// nearestClampT32 on a level in T format with setT (where the AVX2 loop
// on a power-of-two level works out the texels' offsets itself,
// nearestP2TClampT32AVX2) gives nearestClampT32Go's texels, which index
// the layout's utile table: every power-of-two size from 1 to 2048 on
// each axis, in T format whatever its size (one tile row or column, odd
// and even tile rows, many tiles), both FLIPY settings, coordinates of
// every kind (randomRequest); and sizes that are not powers of two, with
// fixCoord (setFix, as planLookups sets it: nearestFixTClampT32AVX2).
func TestNearestClampT32InTFormat(t *testing.T) {
	for _, v := range nearestClampT32Versions() {
		t.Run(v, func(t *testing.T) {
			defer useNearestClampT32(v)()
			testNearestClampT32InTFormat(t)
		})
	}
}

// tformTestSizes is the level sizes the T-format kernels' tests take:
// every power of two from 1 to 2048 on each axis, then extra, then 40
// random sizes up to 2048.
func tformTestSizes(r *rand.Rand, extra ...[2]int) [][2]int {
	var sizes [][2]int
	for a := 0; a <= 11; a++ {
		for b := 0; b <= 11; b++ {
			sizes = append(sizes, [2]int{1 << a, 1 << b})
		}
	}
	sizes = append(sizes, extra...)
	for range 40 {
		sizes = append(sizes, [2]int{1 + r.IntN(2048), 1 + r.IntN(2048)})
	}
	return sizes
}

// tformLevel is a w×h level of 32-bit texels in T format over the
// first bytes of mem: its utiles a row, its utile table up to the last
// texel's utile, and its bytes; level is nil when it does not fit.
func tformLevel(t *testing.T, w, h int, mem []byte) (upr int, utab []int32, level []byte) {
	t.Helper()
	l, err := texture.NewLayout(texture.TFormat, 4, w, h)
	if err != nil {
		t.Fatal(err)
	}
	if l.Size() > len(mem) {
		return 0, nil, nil
	}
	tab := utiles.For(l)
	upr = tab.PerRow
	maxIdx := (h-1)>>2*upr + (w-1)>>2
	return upr, tab.Off[:maxIdx+1], mem[:l.Size()]
}

func testNearestClampT32InTFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	bytes := randomBytes(r)
	sizes := tformTestSizes(r, [2]int{800, 600}, [2]int{33, 100}, [2]int{640, 480}, [2]int{1000, 70}, [2]int{2048, 1536}, [2]int{1, 3})
	requests := 300
	if testing.Short() {
		requests = 40
	}
	for _, size := range sizes {
		w, h := size[0], size[1]
		upr, utab, mem := tformLevel(t, w, h, bytes)
		if mem == nil {
			continue
		}
		for _, flip := range []int{0, -1} {
			p := newClampT32(w, h, flip, upr, utab, mem)
			p.setT(upr / 8)
			if w != nextPow2(w) || h != nextPow2(h) {
				p.setFix(math.Ldexp(float64(nextPow2(w)), subTexelBits), math.Ldexp(float64(nextPow2(h)), subTexelBits))
			}
			compareNearestClampT32(t, r, &p, w, h, requests, fmt.Sprintf("%dx%d flip %d", w, h, flip))
		}
	}
}

// tSub holds the T format's sub-tile order as texture.TFormat's
// documentation gives it: even tile rows bottom-left, top-left,
// top-right, bottom-right, odd rows top-right, bottom-right,
// bottom-left, top-left (index (ty&1)<<2 | sy<<1 | sx, the offset in
// KiB).
func TestTSubtileOffsets(t *testing.T) {
	want := [8]int32{0, 3, 1, 2, 2, 1, 3, 0}
	for i := range want {
		want[i] *= texture.SubtileBytes
	}
	if tSub != want {
		t.Fatalf("tSub %v, want %v", tSub, want)
	}
}

// The cube's texture, a 256×256 RGBA8888 level in T format clamped to its
// edge and sampled NEAREST, is planned with setT; in LT format it is not.
// Likewise sampled LINEAR (planBilinear).
func TestPlanSetsTFormat(t *testing.T) {
	f := newFixture(t, 1<<20)
	for _, c := range []struct {
		w, h  int
		tform bool
	}{{256, 256, true}, {8, 8, false}} {
		pic, _ := texture.NewPicture(c.w, c.h, 4)
		if tiling, _ := texture.RGBA8888.Tiling(c.w, c.h); (tiling == texture.TFormat) != c.tform {
			t.Fatalf("%dx%d is %v", c.w, c.h, tiling)
		}
		_, smp := f.sampler(t, texture.RGBA8888, pic, true, texture.Sampler{Min: texture.MinNearest, Mag: texture.MagNearest, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp})
		if smp.plan != planNearestClampT32 || smp.clamp.tform != c.tform {
			t.Fatalf("%dx%d: plan %v, tform %v; want planNearestClampT32, %v", c.w, c.h, smp.plan, smp.clamp.tform, c.tform)
		}
		_, smp = f.sampler(t, texture.RGBA8888, pic, true, texture.Sampler{Min: texture.MinLinear, Mag: texture.MagLinear, WrapS: texture.WrapClamp, WrapT: texture.WrapClamp})
		if smp.plan != planBilinear || smp.bil.tform != c.tform {
			t.Fatalf("%dx%d LINEAR: plan %v, tform %v; want planBilinear, %v", c.w, c.h, smp.plan, smp.bil.tform, c.tform)
		}
	}
}

// BenchmarkNearestClampT32InTFormat is BenchmarkNearestClampT32's
// requests on levels in T format, with the offsets worked out in the
// vectors ("T", setT) and from the utile table ("utab"): a 512×512
// level, and a 640×480 one, which fixes its coordinates ("fix-").
func BenchmarkNearestClampT32InTFormat(b *testing.B) {
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
		l, err := texture.NewLayout(texture.TFormat, 4, w, h)
		if err != nil {
			b.Fatal(err)
		}
		tab := utiles.For(l)
		maxIdx := (h-1)>>2*tab.PerRow + (w-1)>>2
		for _, tform := range []bool{false, true} {
			p := newClampT32(w, h, -1, tab.PerRow, tab.Off[:maxIdx+1], mem[:l.Size()])
			name := "utab"
			if tform {
				p.setT(tab.PerRow / 8)
				name = "T"
			}
			if w != nextPow2(w) {
				p.setFix(math.Ldexp(float64(nextPow2(w)), subTexelBits), math.Ldexp(float64(nextPow2(h)), subTexelBits))
				name = "fix-" + name
			}
			b.Run(name, func(b *testing.B) {
				var out [16]uint32
				for i := 0; i < b.N; i++ {
					k := i % len(s)
					nearestClampT32(&p, &s[k], &t[k], &out)
				}
			})
		}
	}
}

// bilinearT32 on a level in T format with setT (where the AVX2 loop's
// integer form works out the texels' offsets itself,
// bilinearT32IntTAVX2) gives bilinearT32Go's texels, which index the
// layout's utile table: every power-of-two size from 1 to 2048 on each
// axis and 40 others, clamped or repeated (over a power of two), both
// FLIPY settings, requests within the integer form's bounds (texel
// edges and centres, ±0, up to the bound) and of every kind.
func TestBilinearT32InTFormat(t *testing.T) {
	vs := bilinearT32Versions()
	for _, v := range vs {
		t.Run(v, func(t *testing.T) {
			defer useBilinearT32(v)()
			testBilinearT32InTFormat(t)
		})
	}
}

func testBilinearT32InTFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	bytes := randomBytes(r)
	sizes := tformTestSizes(r)
	requests := 100
	if testing.Short() {
		requests = 20
	}
	inInt := 0
	for _, size := range sizes {
		w, h := size[0], size[1]
		upr, utab, mem := tformLevel(t, w, h, bytes)
		if mem == nil {
			continue
		}
		for _, flip := range []int{0, -1} {
			ws, wt := texture.WrapClamp, texture.WrapClamp
			if w&(w-1) == 0 && r.IntN(2) == 0 {
				ws = texture.WrapRepeat
			}
			if h&(h-1) == 0 && r.IntN(2) == 0 {
				wt = texture.WrapRepeat
			}
			p := newBilinT32(w, h, ws, wt, flip, upr, utab, mem)
			p.setT(upr / 8)
			for k := 0; k < requests; k++ {
				s, tt := randomRequest(r, w, h, func(n int) float32 {
					return float32(r.Float64()*3 - 1)
				})
				if k%4 != 0 {
					insideIntBounds(r, &p, &s, &tt, w, h)
				}
				if compareBilinearT32(t, &p, &s, &tt, fmt.Sprintf("%dx%d %v/%v flip %d", w, h, ws, wt, flip)) {
					inInt++
				}
			}
		}
	}
	if inInt < len(sizes)*requests/2 {
		t.Errorf("%d requests within the integer form's bounds: want at least half", inInt)
	}
}

// BenchmarkBilinearT32InTFormat is bilinearT32 on a 640×480 level in T
// format clamped to its edge (glmark2's desktop blur samples one so),
// with the offsets worked out in the vectors ("T", setT) and from the
// utile table ("utab"), on requests of a 4×4 block of lanes wandering
// over it.
func BenchmarkBilinearT32InTFormat(b *testing.B) {
	var s, t [61 * 53][16]uint32
	for i := range s {
		x0, y0 := float32(i%61)/64, float32(i%53)/64
		for l := range s[i] {
			s[i][l] = math.Float32bits(x0 + float32(l%4)/700)
			t[i][l] = math.Float32bits(y0 + float32(l/4)/700)
		}
	}
	mem := randomBytes(rand.New(rand.NewPCG(1, 2)))
	w, h := 640, 480
	l, err := texture.NewLayout(texture.TFormat, 4, w, h)
	if err != nil {
		b.Fatal(err)
	}
	tab := utiles.For(l)
	maxIdx := (h-1)>>2*tab.PerRow + (w-1)>>2
	for _, tform := range []bool{false, true} {
		p := newBilinT32(w, h, texture.WrapClamp, texture.WrapClamp, -1, tab.PerRow, tab.Off[:maxIdx+1], mem[:l.Size()])
		name := "utab"
		if tform {
			p.setT(tab.PerRow / 8)
			name = "T"
		}
		b.Run(name, func(b *testing.B) {
			var out [16]uint32
			for i := 0; i < b.N; i++ {
				k := i % len(s)
				bilinearT32(&p, &s[k], &t[k], &out)
			}
		})
	}
}
