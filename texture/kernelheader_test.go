package texture

import "testing"

// TestParamFieldsAgainstKernelHeader checks the P0–P3 field table of
// params.go, written from [AG] Tables 15–17, against the kernel's own copy
// of the same facts: the VC4_TEX_P*_MASK defines of Linux
// drivers/gpu/drm/vc4/vc4_packet.h, copied here by hand as bit ranges
// (VC4_MASK(high, low)), and the value defines of the enumerations.
func TestParamFieldsAgainstKernelHeader(t *testing.T) {
	for _, c := range []struct {
		f      bitField
		hi, lo uint
		define string
	}{
		{p0Base, 31, 12, "VC4_TEX_P0_OFFSET_MASK"},
		{p0CSwiz, 11, 10, "VC4_TEX_P0_CSWIZ_MASK"},
		{p0CMMode, 9, 9, "VC4_TEX_P0_CMMODE_MASK"},
		{p0FlipY, 8, 8, "VC4_TEX_P0_FLIPY_MASK"},
		{p0Type, 7, 4, "VC4_TEX_P0_TYPE_MASK"},
		{p0MipLvls, 3, 0, "VC4_TEX_P0_MIPLVLS_MASK"},
		{p1Type4, 31, 31, "VC4_TEX_P1_TYPE4_MASK"},
		{p1Height, 30, 20, "VC4_TEX_P1_HEIGHT_MASK"},
		{p1ETCFlip, 19, 19, "VC4_TEX_P1_ETCFLIP_MASK"},
		{p1Width, 18, 8, "VC4_TEX_P1_WIDTH_MASK"},
		{p1MagFilt, 7, 7, "VC4_TEX_P1_MAGFILT_MASK"},
		{p1MinFilt, 6, 4, "VC4_TEX_P1_MINFILT_MASK"},
		{p1WrapT, 3, 2, "VC4_TEX_P1_WRAP_T_MASK"},
		{p1WrapS, 1, 0, "VC4_TEX_P1_WRAP_S_MASK"},
		{p2PType, 31, 30, "VC4_TEX_P2_PTYPE_MASK"},
		{p2CMStride, 29, 12, "VC4_TEX_P2_CMST_MASK"},
		{p2BSLOD, 0, 0, "VC4_TEX_P2_BSLOD_MASK"},
		{p2CHeight, 22, 12, "VC4_TEX_P2_CHEIGHT_MASK"},
		{p2CWidth, 10, 0, "VC4_TEX_P2_CWIDTH_MASK"},
		{p2CYOff, 22, 12, "VC4_TEX_P2_CYOFF_MASK"},
		{p2CXOff, 10, 0, "VC4_TEX_P2_CXOFF_MASK"},
	} {
		if c.f.hi != c.hi || c.f.lo != c.lo {
			t.Errorf("%s is bits %d:%d, %s is VC4_MASK(%d, %d)", c.f.name, c.f.hi, c.f.lo, c.define, c.hi, c.lo)
		}
	}
	for _, c := range []struct {
		got, want uint8
		define    string
	}{
		{uint8(MagLinear), 0, "VC4_TEX_P1_MAGFILT_LINEAR"},
		{uint8(MagNearest), 1, "VC4_TEX_P1_MAGFILT_NEAREST"},
		{uint8(MinLinear), 0, "VC4_TEX_P1_MINFILT_LINEAR"},
		{uint8(MinNearest), 1, "VC4_TEX_P1_MINFILT_NEAREST"},
		{uint8(MinNearMipNear), 2, "VC4_TEX_P1_MINFILT_NEAR_MIP_NEAR"},
		{uint8(MinNearMipLin), 3, "VC4_TEX_P1_MINFILT_NEAR_MIP_LIN"},
		{uint8(MinLinMipNear), 4, "VC4_TEX_P1_MINFILT_LIN_MIP_NEAR"},
		{uint8(MinLinMipLin), 5, "VC4_TEX_P1_MINFILT_LIN_MIP_LIN"},
		{uint8(WrapRepeat), 0, "VC4_TEX_P1_WRAP_REPEAT"},
		{uint8(WrapClamp), 1, "VC4_TEX_P1_WRAP_CLAMP"},
		{uint8(WrapMirror), 2, "VC4_TEX_P1_WRAP_MIRROR"},
		{uint8(WrapBorder), 3, "VC4_TEX_P1_WRAP_BORDER"},
		{uint8(ParamUnused), 0, "VC4_TEX_P2_PTYPE_IGNORED"},
		{uint8(ParamCubeStride), 1, "VC4_TEX_P2_PTYPE_CUBE_MAP_STRIDE"},
		{uint8(ParamChildSize), 2, "VC4_TEX_P2_PTYPE_CHILD_IMAGE_DIMENSIONS"},
		{uint8(ParamChildOffset), 3, "VC4_TEX_P2_PTYPE_CHILD_IMAGE_OFFSETS"},
		{uint8(RGBA32R), 16, "VC4_TEXTURE_TYPE_RGBA32R"},
		{uint8(YUYV422R), 17, "VC4_TEXTURE_TYPE_YUV422R"},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d here, %d in vc4_packet.h", c.define, c.got, c.want)
		}
	}
}
