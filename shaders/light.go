package shaders

import "math"

// Lighting.
//
// vkcube's fragment colour, per channel, is srgb_encode(light ·
// srgb_decode(texel)): the texture is R8G8B8A8_SRGB (sampling decodes),
// cube.frag multiplies by light = max(0, dot(L, n)) and encodes to sRGB by
// hand (Vulkan-Tools cube/cube.frag; the normal comes from screen-space
// derivatives of the clip-space position, so it is the face's). light is
// constant over a face; the renderer computes it per face per frame
// (math/scene Frame.Light) and passes the constants below as FS uniforms.
//
// The FS cannot afford pow per channel, so it evaluates the exact curve as
// the maximum of three lines, with the QPU's per-byte ops on all four bytes
// of the texel at once (c is a byte 0..255, k = light^(1/2.4)):
//
//   - g1 = k·c − 14.025·(1−k). Where both the texel and the result are in
//     sRGB's power segment, srgb(light·lin(c)) = k·(c + 0.055) − 0.055
//     exactly (in 0..1 units; 0.055·255 = 14.025), an affine function of c.
//   - g3 = the tangent, at the point where g1 meets g2, of the curve
//     255·12.92·light·lin(c), which is the exact result wherever the
//     texel is in the power segment but the lit value falls in sRGB's
//     linear segment (lit value ≤ 0.0031308, output below 10.3 levels).
//     That curve is convex and g1 is nearly its tangent at the knee, so
//     without g3 the result is up to 3 levels too dark for dim faces.
//   - g2 = light·c: both in the linear segments (c ≤ 10).
//
// Each line is v8muld (c·K/255 per byte) then v8subs (saturating at 0), and
// the result is v8max of the three. Against the exact formula the error
// over all 256 texel values and light in [0, 1] is at most 1.75 levels of
// 8 bits (mean ≈ 0.33) with the v8muld rounding doe300/VC4C models
// ((a·b + 127)/255, src/asm/OpCodes.cpp); TestLightError measures it. The
// guide does not state v8muld's rounding (AG Table 13 "multiply two vectors
// of 4 8-bit values in the range [1.0, 0]"); a truncating multiplier would
// add up to one level.
//
// The texel's fourth byte (alpha, which lands in the X byte of XRGB8888)
// goes through the same ops; the display ignores it.

// FaceLight holds the per-face lighting constants, each a byte the FS
// uses replicated to all four bytes of its uniform (see the Lighting
// comment above for the formula).
type FaceLight struct {
	K1, B1 uint8 // g1 = v8muld(c, K1) - B1: the power-segment line
	K3, B3 uint8 // g3 = v8muld(c, K3) - B3: tangent in the mixed region (0, 0 when unused)
	L      uint8 // g2 = v8muld(c, L): the linear-segment line
}

// srgbDecode is sRGB's electro-optical transfer: x in 0..1 to linear.
func srgbDecode(x float64) float64 {
	if x <= 0.04045 {
		return x / 12.92
	}
	return math.Pow((x+0.055)/1.055, 2.4)
}

// srgbEncode is the inverse, as cube.frag writes it.
func srgbEncode(l float64) float64 {
	if l <= 0.0031308 {
		return 12.92 * l
	}
	return 1.055*math.Pow(l, 1/2.4) - 0.055
}

func clamp01(x float64) float64 {
	switch {
	case x != x || x < 0: // NaN too: a face with no defined light is dark
		return 0
	case x > 1:
		return 1
	}
	return x
}

func byteOf(x float64) uint8 {
	switch {
	case x <= 0:
		return 0
	case x >= 255:
		return 255
	}
	return uint8(math.Round(x))
}

// LightFor returns the FS constants for a face lit by light (cube.frag's
// max(0, dot(L, n)); values outside [0, 1] are clamped). It allocates
// nothing; the renderer calls it per face per frame.
func LightFor(light float32) FaceLight {
	L := clamp01(float64(light))
	if L == 0 {
		return FaceLight{}
	}
	k := math.Pow(L, 1/2.4)
	f := FaceLight{K1: byteOf(255 * k), L: byteOf(255 * L)}
	// Mixed region: texel inputs from the knee of the output down to the
	// input knee (c = 10.3). cKnee is where light·lin(c) = 0.0031308.
	cKnee := 255.0
	if lk := 0.0031308 / L; lk < 1 {
		cKnee = 255 * srgbEncode(lk) // srgbEncode inverts srgbDecode

	}
	// B1 balances the rounding of K1 over the power-segment inputs
	// [cKnee, 255]: the bias is the exact 14.025·(1−k) plus the slope
	// error at the middle of that range.
	mid := (math.Min(cKnee, 255) + 255) / 2
	f.B1 = byteOf(14.025*(1-k) + (float64(f.K1)/255-k)*mid)
	if cKnee > 10.32 && k > L {
		// g1 meets g2 at cm; the tangent of 255·12.92·L·lin(c) there.
		cm := math.Min(14.025*(1-k)/(k-L), math.Min(cKnee, 255))
		x := cm / 255
		val := 255 * 12.92 * L * srgbDecode(x)
		slope := 12.92 * L // per level of c, in levels
		if x > 0.04045 {
			slope = 12.92 * L * 2.4 / 1.055 * math.Pow((x+0.055)/1.055, 1.4)
		}
		k3, b3 := slope*255, slope*cm-val
		if k3 < 255.5 && b3 >= -0.5 {
			f.K3, f.B3 = byteOf(k3), byteOf(b3)
		}
	}
	return f
}

// Uniforms returns the five FS light uniforms in the order the FS reads
// them (see FragmentUniformLight1K in the FS interface): each byte
// replicated to the four bytes of a word.
func (f FaceLight) Uniforms() [5]uint32 {
	rep := func(b uint8) uint32 { return uint32(b) * 0x01010101 }
	return [5]uint32{rep(f.K1), rep(f.B1), rep(f.K3), rep(f.B3), rep(f.L)}
}

// LightCache remembers LightFor's results, so that a renderer pays for
// LightFor's two math.Pow calls only the first time a light value comes
// up. The values repeat: a face's light depends only on the cube's turn,
// and at vkcube's 4° per frame (0.2° steps with the arrow keys) the turns
// come round again every 90 frames (1800 steps at most), so after the
// first turn nearly every lookup hits. It is keyed on the light's exact
// bits and holds exactly what LightFor returned, so For(x) == LightFor(x)
// for every x: a capture does not change by a bit. A miss (a new value,
// or one whose set is full) just calls LightFor again.
//
// The zero value is ready to use; For allocates nothing. A LightCache is
// about 12 KiB: keep it in a long-lived struct, not on the stack.
type LightCache struct {
	sets [lightCacheSets][2]lightCacheSlot
}

// The cache has 2^lightCacheBits sets of two slots, 1024 slots in all,
// well above the distinct values one turn at 4° per frame shows (at most
// three lit faces in each of 90 frames; about 130 at 800×600 and at
// 1920×1080, as many faces are dark or repeat): three of them rarely land
// in one set.
const (
	lightCacheBits = 9
	lightCacheSets = 1 << lightCacheBits
)

type lightCacheSlot struct {
	bits  uint32 // math.Float32bits of the light
	full  bool   // the slot holds a value
	light FaceLight
}

// For returns LightFor(light), from the cache when it has it.
func (c *LightCache) For(light float32) FaceLight {
	bits := math.Float32bits(light)
	// Fibonacci hashing: the top bits of bits·2^32/φ spread values that
	// differ only in their low mantissa bits over the whole table.
	set := &c.sets[(bits*0x9E3779B9)>>(32-lightCacheBits)]
	if set[0].full && set[0].bits == bits {
		return set[0].light
	}
	if set[1].full && set[1].bits == bits {
		return set[1].light
	}
	fl := LightFor(light)
	// The newest value goes first, the one it displaces second, so a
	// set keeps the two it saw last.
	set[1] = set[0]
	set[0] = lightCacheSlot{bits: bits, full: true, light: fl}
	return fl
}
