package display

import (
	"fmt"

	"github.com/vccube/vccube/uapi"
)

// format is what the display knows of a pixel format: the DRM core's
// description of its memory layout (drm_fourcc.c: drm_format_info's
// num_planes, cpp, hsub, vsub, has_alpha) and what vc4's planes do with it
// (vc4_plane.c: hvs_formats[] and vc4_format_mod_supported).
type format struct {
	fourcc   uint32
	planes   int    // memory planes: 1 for RGB, 2 or 3 for YUV
	cpp      [3]int // bytes per pixel of each plane
	hsub     int    // horizontal chroma subsampling of planes 1 and 2
	vsub     int    // vertical chroma subsampling
	hasAlpha bool
	mods     modSet // the modifiers vc4_format_mod_supported accepts
}

// modSet is a set of vc4's modifier families, compared after
// fourcc_mod_broadcom_mod has cleared a Broadcom modifier's parameter bits.
type modSet uint8

const (
	modLinear modSet = 1 << iota
	modTTiled
	modSAND // SAND64, SAND128 and SAND256, any column height
)

// Broadcom modifiers drm/ does not name (drm_fourcc.h): the SAND column
// layouts of the video decoder, DRM_FORMAT_MOD_BROADCOM_SANDn_COL_HEIGHT(0),
// i.e. fourcc_mod_broadcom_code(3, 0) to (5, 0).
// TODO(drm owner): move these next to uapi.FormatModBroadcomVC4TTiled.
const (
	modBroadcomSAND64  = uapi.FormatModVendorBroadcom<<56 | 3
	modBroadcomSAND128 = uapi.FormatModVendorBroadcom<<56 | 4
	modBroadcomSAND256 = uapi.FormatModVendorBroadcom<<56 | 5
)

// broadcomParamMask covers the parameter of a Broadcom modifier, bits 8 to
// 55 (drm_fourcc.h: __fourcc_mod_broadcom_param_shift 8, _bits 48), which
// fourcc_mod_broadcom_mod clears.
const broadcomParamMask = (1<<48 - 1) << 8

// modFamily maps a modifier to its family as vc4_format_mod_supported sees
// it (switching on fourcc_mod_broadcom_mod(modifier)); 0 for one vc4
// knows nothing of.
func modFamily(modifier uint64) modSet {
	switch modifier &^ broadcomParamMask {
	case uapi.FormatModLinear:
		return modLinear
	case uapi.FormatModBroadcomVC4TTiled:
		return modTTiled
	case modBroadcomSAND64, modBroadcomSAND128, modBroadcomSAND256:
		return modSAND
	}
	return 0
}

// supports is vc4_format_mod_supported (vc4_plane.c): T-tiling for the 16-
// and 32-bit RGB formats, the SAND layouts for NV12 and NV21, linear for
// everything; the modifier is compared without its Broadcom parameter.
func (f *format) supports(modifier uint64) bool {
	fam := modFamily(modifier)
	if fam == modLinear {
		// The formats that switch on fourcc_mod_broadcom_mod accept any
		// linear-family value; the default case wants exactly LINEAR.
		return f.mods&(modTTiled|modSAND) != 0 || modifier == uapi.FormatModLinear
	}
	return fam != 0 && f.mods&fam != 0
}

// String spells the format as its four characters, e.g. "XR24".
func (f *format) String() string { return fourccName(f.fourcc) }

// formats are the pixel formats the planes of a Pi 0-3's vc4 scan out:
// hvs_formats[] of vc4_plane.c without the hvs5_only ones (P030 and the
// 10-bit RGB formats, BCM2711 and later), in that table's order, which is
// also the order vc4_plane_init lists them in. Layout numbers are
// drm_fourcc.c's format table (drm_format_info); the modifiers are
// vc4_format_mod_supported's.
var formats = [...]format{
	{fourcc: uapi.FormatXRGB8888, planes: 1, cpp: [3]int{4}, hsub: 1, vsub: 1, mods: modLinear | modTTiled},
	{fourcc: uapi.FormatARGB8888, planes: 1, cpp: [3]int{4}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear | modTTiled},
	{fourcc: uapi.Fourcc('A', 'B', '2', '4'), planes: 1, cpp: [3]int{4}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear | modTTiled}, // ABGR8888
	{fourcc: uapi.Fourcc('X', 'B', '2', '4'), planes: 1, cpp: [3]int{4}, hsub: 1, vsub: 1, mods: modLinear | modTTiled},                 // XBGR8888
	{fourcc: uapi.FormatRGB565, planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear | modTTiled},
	{fourcc: uapi.Fourcc('B', 'G', '1', '6'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear | modTTiled},                 // BGR565
	{fourcc: uapi.Fourcc('A', 'R', '1', '5'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear | modTTiled}, // ARGB1555
	{fourcc: uapi.Fourcc('X', 'R', '1', '5'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear | modTTiled},                 // XRGB1555
	{fourcc: uapi.Fourcc('R', 'G', '2', '4'), planes: 1, cpp: [3]int{3}, hsub: 1, vsub: 1, mods: modLinear},                             // RGB888
	{fourcc: uapi.Fourcc('B', 'G', '2', '4'), planes: 1, cpp: [3]int{3}, hsub: 1, vsub: 1, mods: modLinear},                             // BGR888
	{fourcc: uapi.Fourcc('Y', 'U', '1', '6'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 2, vsub: 1, mods: modLinear},                       // YUV422
	{fourcc: uapi.Fourcc('Y', 'V', '1', '6'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 2, vsub: 1, mods: modLinear},                       // YVU422
	{fourcc: uapi.Fourcc('Y', 'U', '2', '4'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 1, vsub: 1, mods: modLinear},                       // YUV444
	{fourcc: uapi.Fourcc('Y', 'V', '2', '4'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 1, vsub: 1, mods: modLinear},                       // YVU444
	{fourcc: uapi.Fourcc('Y', 'U', '1', '2'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 2, vsub: 2, mods: modLinear},                       // YUV420
	{fourcc: uapi.Fourcc('Y', 'V', '1', '2'), planes: 3, cpp: [3]int{1, 1, 1}, hsub: 2, vsub: 2, mods: modLinear},                       // YVU420
	{fourcc: uapi.Fourcc('N', 'V', '1', '2'), planes: 2, cpp: [3]int{1, 2}, hsub: 2, vsub: 2, mods: modLinear | modSAND},                // NV12
	{fourcc: uapi.Fourcc('N', 'V', '2', '1'), planes: 2, cpp: [3]int{1, 2}, hsub: 2, vsub: 2, mods: modLinear | modSAND},                // NV21
	{fourcc: uapi.Fourcc('N', 'V', '1', '6'), planes: 2, cpp: [3]int{1, 2}, hsub: 2, vsub: 1, mods: modLinear},                          // NV16
	{fourcc: uapi.Fourcc('N', 'V', '6', '1'), planes: 2, cpp: [3]int{1, 2}, hsub: 2, vsub: 1, mods: modLinear},                          // NV61
	{fourcc: uapi.Fourcc('R', 'G', 'B', '8'), planes: 1, cpp: [3]int{1}, hsub: 1, vsub: 1, mods: modLinear},                             // RGB332
	{fourcc: uapi.Fourcc('B', 'G', 'R', '8'), planes: 1, cpp: [3]int{1}, hsub: 1, vsub: 1, mods: modLinear},                             // BGR233
	{fourcc: uapi.Fourcc('X', 'R', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear},                             // XRGB4444
	{fourcc: uapi.Fourcc('A', 'R', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear},             // ARGB4444
	{fourcc: uapi.Fourcc('X', 'B', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear},                             // XBGR4444
	{fourcc: uapi.Fourcc('A', 'B', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear},             // ABGR4444
	{fourcc: uapi.Fourcc('B', 'X', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear},                             // BGRX4444
	{fourcc: uapi.Fourcc('B', 'A', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear},             // BGRA4444
	{fourcc: uapi.Fourcc('R', 'X', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, mods: modLinear},                             // RGBX4444
	{fourcc: uapi.Fourcc('R', 'A', '1', '2'), planes: 1, cpp: [3]int{2}, hsub: 1, vsub: 1, hasAlpha: true, mods: modLinear},             // RGBA4444
}

// lookupFormat finds a format of the table, or nil.
func lookupFormat(fourcc uint32) *format {
	for i := range formats {
		if formats[i].fourcc == fourcc {
			return &formats[i]
		}
	}
	return nil
}

// planeWidth and planeHeight are drm_format_info_plane_width/_height
// (drm_fourcc.h): plane 0 has the framebuffer's size, the chroma planes
// that size divided by the subsampling, rounded up.
func (f *format) planeWidth(width uint32, plane int) uint32 {
	if plane == 0 {
		return width
	}
	return (width + uint32(f.hsub) - 1) / uint32(f.hsub)
}

func (f *format) planeHeight(height uint32, plane int) uint32 {
	if plane == 0 {
		return height
	}
	return (height + uint32(f.vsub) - 1) / uint32(f.vsub)
}

// fourccName spells a fourcc code as its characters, e.g. "XR24", or as a
// number when they are not printable.
func fourccName(f uint32) string {
	b := [4]byte{byte(f), byte(f >> 8), byte(f >> 16), byte(f >> 24)}
	for _, c := range b {
		if c < ' ' || c > '~' {
			return fmt.Sprintf("0x%08x", f)
		}
	}
	return string(b[:])
}
