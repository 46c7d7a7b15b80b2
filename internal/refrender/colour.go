package refrender

import "math"

// srgbDecode is the sRGB electro-optical transfer function a Vulkan
// implementation applies when it samples a VK_FORMAT_R8G8B8A8_SRGB texture
// (vkcube's texture format, cube.c demo_prepare_textures): c ≤ 0.04045 →
// c/12.92, else ((c+0.055)/1.055)^2.4 (Khronos Data Format Specification,
// "sRGB EOTF").
func srgbDecode(c float64) float64 {
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// srgbEncode is cube.frag's linearToSrgb, applied by hand because vkcube
// renders into a UNORM swapchain image: l ≤ 0.0031308 → 12.92·l, else
// 1.055·l^(1/2.4) − 0.055.
func srgbEncode(l float64) float64 {
	if l <= 0.0031308 {
		return l * 12.92
	}
	return 1.055*math.Pow(l, 1/2.4) - 0.055
}

// unorm8 converts a float colour value to an 8-bit UNORM value the way
// Vulkan specifies float→UNORM conversion: clamp to [0,1], multiply by 255,
// round to nearest.
func unorm8(f float64) uint8 {
	if !(f > 0) { // also catches NaN
		return 0
	}
	if f >= 1 {
		return 255
	}
	return uint8(math.Floor(f*255 + 0.5))
}

// decodeTable holds srgbDecode(b/255) for every byte value b.
var decodeTable = func() (t [256]float64) {
	for b := range t {
		t[b] = srgbDecode(float64(b) / 255)
	}
	return t
}()

// shade is vkcube's fragment colour for one channel: the texel byte t
// (sRGB-encoded), decoded by the sampler, scaled by the face light, encoded
// again by cube.frag and stored as UNORM.
func shade(t uint8, light float64) uint8 {
	return unorm8(srgbEncode(light * decodeTable[t]))
}

// shade is the package's shade, or the variant's departure from it.
func (va variant) shade(t uint8, light float64) uint8 {
	switch {
	case va.noSRGB:
		return unorm8(light * float64(t) / 255)
	case va.affine8:
		if light <= 0 {
			return 0
		}
		k := math.Pow(light, 1/2.4)
		kb := int(math.Round(k * 255))
		bias := int(math.Round(0.055 * (1 - k) * 255))
		v := (int(t)*kb+127)/255 - bias
		return uint8(max(v, 0))
	}
	return shade(t, light)
}
