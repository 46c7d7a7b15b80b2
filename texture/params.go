package texture

import (
	"fmt"
	"strings"
)

// Texture config parameters P0–P3 are the uniforms a TMU lookup consumes,
// one per write to TMUn_T, _R, _B and _S ([AG] §4 "Texture and Memory
// Lookup Unit Setup", Tables 15–17). Their bit fields are described once,
// below; encoding, decoding and printing all read these descriptions.

// bitField is bits hi..lo of a 32-bit config word.
type bitField struct {
	name   string
	hi, lo uint
}

func (f bitField) max() uint32                  { return 1<<(f.hi-f.lo+1) - 1 }
func (f bitField) get(w uint32) uint32          { return w >> f.lo & f.max() }
func (f bitField) mask() uint32                 { return f.max() << f.lo }
func (f bitField) flag(w uint32) bool           { return f.get(w) != 0 }
func (f bitField) putUnchecked(v uint32) uint32 { return (v & f.max()) << f.lo }

// setting is a value for one field of a config word, as Encode packs it.
type setting struct {
	f bitField
	v int
}

// flagSetting is the setting of a one-bit field.
func flagSetting(f bitField, b bool) setting { return setting{f, int(boolBit(b))} }

// pack ORs each setting into w at its field, or reports the first value
// that is negative or does not fit its bits. Every Encode goes through it,
// so a field's range is checked in one place.
func pack(w uint32, settings ...setting) (uint32, error) {
	for _, s := range settings {
		if s.v < 0 || uint64(s.v) > uint64(s.f.max()) {
			return 0, fmt.Errorf("texture: %s = %d does not fit in bits %d:%d (0 to %d)", s.f.name, s.v, s.f.hi, s.f.lo, s.f.max())
		}
		w |= uint32(s.v) << s.f.lo
	}
	return w, nil
}

func boolBit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Parameter 0 ([AG] Table 15; vc4_packet.h VC4_TEX_P0_*).
var (
	p0Base    = bitField{"BASE", 31, 12}
	p0CSwiz   = bitField{"CSWIZ", 11, 10}
	p0CMMode  = bitField{"CMMODE", 9, 9}
	p0FlipY   = bitField{"FLIPY", 8, 8}
	p0Type    = bitField{"TYPE", 7, 4}
	p0MipLvls = bitField{"MIPLVLS", 3, 0}
)

// Parameter 1 ([AG] Table 16; vc4_packet.h VC4_TEX_P1_*).
var (
	p1Type4   = bitField{"TYPE4", 31, 31}
	p1Height  = bitField{"HEIGHT", 30, 20}
	p1ETCFlip = bitField{"ETCFLIP", 19, 19}
	p1Width   = bitField{"WIDTH", 18, 8}
	p1MagFilt = bitField{"MAGFILT", 7, 7}
	p1MinFilt = bitField{"MINFILT", 6, 4}
	p1WrapT   = bitField{"WRAP_T", 3, 2}
	p1WrapS   = bitField{"WRAP_S", 1, 0}
)

// Parameters 2 and 3 ([AG] Table 17, whose child-dimension rows are
// mislabelled; the names here are vc4_packet.h's VC4_TEX_P2_*).
var (
	p2PType    = bitField{"PTYPE", 31, 30}
	p2CMStride = bitField{"CMST", 29, 12}
	p2BSLOD    = bitField{"BSLOD", 0, 0}
	p2CHeight  = bitField{"CHEIGHT", 22, 12}
	p2CWidth   = bitField{"CWIDTH", 10, 0}
	p2CYOff    = bitField{"CYOFF", 22, 12}
	p2CXOff    = bitField{"CXOFF", 10, 0}
)

// SplitType splits a 5-bit texture type into the part P0 holds (bits 3:0)
// and P1's TYPE4 bit ([AG] Tables 15 and 16).
func SplitType(t Type) (low uint8, bit4 bool) { return uint8(t) & 15, t&16 != 0 }

// JoinType is the texture type a lookup with these P0 and P1 uses: P0's
// TYPE in bits 3:0 and P1's TYPE4 as bit 4 (as Linux vc4_validate.c
// reloc_tex() reads it).
func JoinType(p0 P0, p1 P1) Type { return Type(p0.TypeLow&15) | Type(boolBit(p1.Type4)<<4) }

// P0 is texture config parameter 0 ([AG] Table 15).
type P0 struct {
	// Base is the address of mip level 0, a multiple of 4096 (bits 31:12
	// hold Base/4096). In the uniform stream user space writes the offset
	// within the texture's buffer object; the kernel adds the object's
	// bus address (vc4_validate.c reloc_tex(): "*validated_p0 = paddr + p0").
	Base uint32
	// CacheSwizzle is CSWIZ, 0–3 (Mesa always leaves it 0).
	CacheSwizzle uint8
	// CubeMap is CMMODE: the lookup is a cube map; P2 or P3 carries the
	// face stride.
	CubeMap bool
	// FlipY is FLIPY, "Flip Texture Y Axis": the texture is stored top row
	// first (see FlipYRow and FlipMode).
	FlipY bool
	// TypeLow is the texture type's bits 3:0 (see SplitType).
	TypeLow uint8
	// LastLevel is MIPLVLS, "Number of Mipmap Levels minus 1": the index of
	// the smallest mip level, 0–15, stored below Base.
	LastLevel uint8
}

// Encode returns the 32-bit word, or an error naming the field that does
// not fit.
func (p P0) Encode() (uint32, error) {
	if p.Base%TileBytes != 0 {
		return 0, fmt.Errorf("texture: P0 base %#x is not a multiple of 4096: level 0 must start on a 4 KiB boundary", p.Base)
	}
	return pack(p.Base,
		setting{p0CSwiz, int(p.CacheSwizzle)},
		flagSetting(p0CMMode, p.CubeMap),
		flagSetting(p0FlipY, p.FlipY),
		setting{p0Type, int(p.TypeLow)},
		setting{p0MipLvls, int(p.LastLevel)})
}

// DecodeP0 splits a P0 word into its fields; every word decodes.
func DecodeP0(w uint32) P0 {
	return P0{
		Base:         w & p0Base.mask(),
		CacheSwizzle: uint8(p0CSwiz.get(w)),
		CubeMap:      p0CMMode.flag(w),
		FlipY:        p0FlipY.flag(w),
		TypeLow:      uint8(p0Type.get(w)),
		LastLevel:    uint8(p0MipLvls.get(w)),
	}
}

// String prints the fields in a control-list dump, e.g.
// "P0{base=0x00012000 type[3:0]=0 miplvls=0 flipy}". Flags appear only
// when set. The type is printed as bits, since its bit 4 is in P1.
func (p P0) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "P0{base=%#08x type[3:0]=%d miplvls=%d", p.Base, p.TypeLow, p.LastLevel)
	if p.CacheSwizzle != 0 {
		fmt.Fprintf(&b, " cswiz=%d", p.CacheSwizzle)
	}
	if p.CubeMap {
		b.WriteString(" cubemap")
	}
	if p.FlipY {
		b.WriteString(" flipy")
	}
	b.WriteString("}")
	return b.String()
}

// MagFilter is P1's MAGFILT ([AG] Table 19).
type MagFilter uint8

// Magnification filters.
const (
	MagLinear  MagFilter = 0 // sample 2×2 texels and blend (bilinear)
	MagNearest MagFilter = 1 // nearest texel (point sample)
)

// String returns the name [AG] Table 19 uses, in lower case.
func (f MagFilter) String() string {
	switch f {
	case MagLinear:
		return "linear"
	case MagNearest:
		return "nearest"
	}
	return fmt.Sprintf("MagFilter(%d)", uint8(f))
}

// MinFilter is P1's MINFILT ([AG] Table 19).
type MinFilter uint8

// Minification filters; 6 and 7 are not defined.
const (
	MinLinear      MinFilter = 0 // bilinear from level 0 only
	MinNearest     MinFilter = 1 // nearest texel of level 0 only
	MinNearMipNear MinFilter = 2 // nearest texel of the nearest level
	MinNearMipLin  MinFilter = 3 // nearest texel of the two nearest levels, blended
	MinLinMipNear  MinFilter = 4 // bilinear from the nearest level
	MinLinMipLin   MinFilter = 5 // bilinear from the two nearest levels, blended (trilinear)
)

var minFilterNames = [...]string{"linear", "nearest", "near_mip_near", "near_mip_lin", "lin_mip_near", "lin_mip_lin"}

// String returns the name [AG] Table 19 uses, in lower case.
func (f MinFilter) String() string {
	if int(f) < len(minFilterNames) {
		return minFilterNames[f]
	}
	return fmt.Sprintf("MinFilter(%d)", uint8(f))
}

// UsesMipmaps reports whether the filter reads levels other than 0.
func (f MinFilter) UsesMipmaps() bool { return f >= MinNearMipNear && f <= MinLinMipLin }

// Wrap is a wrap mode of P1's WRAP_S and WRAP_T ([AG] Table 16).
type Wrap uint8

// Wrap modes.
const (
	WrapRepeat Wrap = 0
	WrapClamp  Wrap = 1 // clamp to edge
	WrapMirror Wrap = 2 // mirrored repeat
	WrapBorder Wrap = 3 // clamp to border colour
)

// String names the mode as [AG] Table 16 does.
func (w Wrap) String() string {
	switch w {
	case WrapRepeat:
		return "repeat"
	case WrapClamp:
		return "clamp"
	case WrapMirror:
		return "mirror"
	case WrapBorder:
		return "border"
	}
	return fmt.Sprintf("Wrap(%d)", uint8(w))
}

// P1 is texture config parameter 1 ([AG] Table 16).
type P1 struct {
	// Type4 is TYPE4, bit 4 of the texture type (see SplitType).
	Type4 bool
	// Width and Height are the size of level 0 in pixels, 1–2048; the
	// 11-bit fields store 2048 as 0.
	Width, Height int
	// ETCFlip is ETCFLIP, "Flip ETC Y (per block)" (Mesa sets it for ETC1).
	ETCFlip bool
	// MagFilter and MinFilter are MAGFILT and MINFILT.
	MagFilter MagFilter
	MinFilter MinFilter
	// WrapS and WrapT are WRAP_S and WRAP_T.
	WrapS, WrapT Wrap
}

// Encode returns the 32-bit word, or an error naming the field that does
// not fit.
func (p P1) Encode() (uint32, error) {
	var w uint32
	for _, d := range []struct {
		f    bitField
		size int
	}{{p1Width, p.Width}, {p1Height, p.Height}} {
		if d.size < 1 || d.size > MaxSize {
			return 0, fmt.Errorf("texture: P1 %s %d is outside 1–%d", d.f.name, d.size, MaxSize)
		}
		w |= d.f.putUnchecked(uint32(d.size)) // 2048 wraps to 0, as [AG] Table 16 wants
	}
	if p.MinFilter > MinLinMipLin {
		return 0, fmt.Errorf("texture: P1 MINFILT %d is undefined: use 0–5 ([AG] Table 19)", p.MinFilter)
	}
	return pack(w,
		flagSetting(p1Type4, p.Type4),
		flagSetting(p1ETCFlip, p.ETCFlip),
		setting{p1MagFilt, int(p.MagFilter)},
		setting{p1MinFilt, int(p.MinFilter)},
		setting{p1WrapT, int(p.WrapT)},
		setting{p1WrapS, int(p.WrapS)})
}

// DecodeP1 splits a P1 word into its fields; every word decodes (a zero
// width or height is 2048).
func DecodeP1(w uint32) P1 {
	size := func(f bitField) int {
		if v := f.get(w); v != 0 {
			return int(v)
		}
		return MaxSize
	}
	return P1{
		Type4:     p1Type4.flag(w),
		Width:     size(p1Width),
		Height:    size(p1Height),
		ETCFlip:   p1ETCFlip.flag(w),
		MagFilter: MagFilter(p1MagFilt.get(w)),
		MinFilter: MinFilter(p1MinFilt.get(w)),
		WrapT:     Wrap(p1WrapT.get(w)),
		WrapS:     Wrap(p1WrapS.get(w)),
	}
}

// String prints the fields in a control-list dump, e.g.
// "P1{256x256 min=nearest mag=nearest wrap_s=clamp wrap_t=clamp}".
func (p P1) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "P1{%dx%d min=%v mag=%v wrap_s=%v wrap_t=%v", p.Width, p.Height, p.MinFilter, p.MagFilter, p.WrapS, p.WrapT)
	if p.Type4 {
		b.WriteString(" type4")
	}
	if p.ETCFlip {
		b.WriteString(" etcflip")
	}
	b.WriteString("}")
	return b.String()
}

// ParamType is PTYPE, which says what a P2 or P3 word holds ([AG] Table 17).
type ParamType uint8

// The four meanings of P2 and P3.
const (
	ParamUnused      ParamType = 0 // e.g. a 2D lookup with a bias
	ParamCubeStride  ParamType = 1 // cube-map face stride and BSLOD
	ParamChildSize   ParamType = 2 // child image width and height
	ParamChildOffset ParamType = 3 // child image x and y offset
)

// String names the meaning.
func (t ParamType) String() string {
	switch t {
	case ParamUnused:
		return "unused"
	case ParamCubeStride:
		return "cube_stride"
	case ParamChildSize:
		return "child_size"
	case ParamChildOffset:
		return "child_offset"
	}
	return fmt.Sprintf("ParamType(%d)", uint8(t))
}

// P2 is texture config parameter 2 or 3, which share one layout ([AG]
// Table 17). Only the fields of its Kind are encoded; the others must be
// zero.
type P2 struct {
	// Kind is PTYPE.
	Kind ParamType
	// CubeStride (ParamCubeStride) is the distance in bytes from one cube
	// face's level 0 to the next, a multiple of 4096 below 1 GiB (CMST holds
	// it in 4 KiB units).
	CubeStride uint32
	// DisableAutoLOD (ParamCubeStride) is BSLOD, "Disable automatic LOD,
	// use bias only" (Mesa uses PTYPE 1 with BSLOD for explicit-LOD lookups).
	DisableAutoLOD bool
	// ChildWidth and ChildHeight (ParamChildSize) and ChildX and ChildY
	// (ParamChildOffset) are the raw 11-bit fields, 0–2047. [AG] does not
	// say whether a 0 size means 2048 as it does in P1; its erratum HW-2753
	// says child images of width or height 2048 fail anyway.
	ChildWidth, ChildHeight int
	ChildX, ChildY          int
	// Reserved holds the bits the kind leaves undefined, so that any word
	// decodes and encodes back unchanged; keep it 0 when building a word.
	Reserved uint32
}

// p2Fields lists the fields each kind uses, besides PTYPE.
var p2Fields = [4][]bitField{
	ParamUnused:      nil,
	ParamCubeStride:  {p2CMStride, p2BSLOD},
	ParamChildSize:   {p2CHeight, p2CWidth},
	ParamChildOffset: {p2CYOff, p2CXOff},
}

// p2Reserved returns the bits of a word that the kind leaves undefined.
func p2Reserved(k ParamType) uint32 {
	used := p2PType.mask()
	for _, f := range p2Fields[k&3] {
		used |= f.mask()
	}
	return ^used
}

// Encode returns the 32-bit word, or an error naming the field that does
// not fit or does not belong to the kind.
func (p P2) Encode() (uint32, error) {
	if p.Kind > ParamChildOffset {
		return 0, fmt.Errorf("texture: P2 PTYPE %d does not fit in 2 bits", p.Kind)
	}
	if p.Reserved&^p2Reserved(p.Kind) != 0 {
		return 0, fmt.Errorf("texture: P2 reserved bits %#08x overlap the fields of a %v parameter", p.Reserved, p.Kind)
	}
	stray := func(name string, v int) error {
		return fmt.Errorf("texture: P2 of kind %v has %s = %d; that field belongs to another kind", p.Kind, name, v)
	}
	if p.Kind != ParamCubeStride && (p.CubeStride != 0 || p.DisableAutoLOD) {
		return 0, stray("CubeStride/DisableAutoLOD", int(p.CubeStride))
	}
	if p.Kind != ParamChildSize && (p.ChildWidth != 0 || p.ChildHeight != 0) {
		return 0, stray("ChildWidth/ChildHeight", p.ChildWidth|p.ChildHeight)
	}
	if p.Kind != ParamChildOffset && (p.ChildX != 0 || p.ChildY != 0) {
		return 0, stray("ChildX/ChildY", p.ChildX|p.ChildY)
	}
	w := uint32(p.Kind)<<p2PType.lo | p.Reserved
	switch p.Kind {
	case ParamCubeStride:
		if p.CubeStride%TileBytes != 0 {
			return 0, fmt.Errorf("texture: P2 cube-map stride %#x is not a multiple of 4096", p.CubeStride)
		}
		return pack(w, setting{p2CMStride, int(p.CubeStride / TileBytes)}, flagSetting(p2BSLOD, p.DisableAutoLOD))
	case ParamChildSize:
		return pack(w, setting{p2CHeight, p.ChildHeight}, setting{p2CWidth, p.ChildWidth})
	case ParamChildOffset:
		return pack(w, setting{p2CYOff, p.ChildY}, setting{p2CXOff, p.ChildX})
	}
	return w, nil
}

// DecodeP2 splits a P2 or P3 word into its fields; every word decodes.
func DecodeP2(w uint32) P2 {
	k := ParamType(p2PType.get(w))
	p := P2{Kind: k, Reserved: w & p2Reserved(k)}
	switch k {
	case ParamCubeStride:
		p.CubeStride = p2CMStride.get(w) * TileBytes
		p.DisableAutoLOD = p2BSLOD.flag(w)
	case ParamChildSize:
		p.ChildHeight, p.ChildWidth = int(p2CHeight.get(w)), int(p2CWidth.get(w))
	case ParamChildOffset:
		p.ChildY, p.ChildX = int(p2CYOff.get(w)), int(p2CXOff.get(w))
	}
	return p
}

// String prints the fields in a control-list dump, e.g.
// "P2{cube_stride stride=0x6000 bslod}".
func (p P2) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "P2{%v", p.Kind)
	switch p.Kind {
	case ParamCubeStride:
		fmt.Fprintf(&b, " stride=%#x", p.CubeStride)
		if p.DisableAutoLOD {
			b.WriteString(" bslod")
		}
	case ParamChildSize:
		fmt.Fprintf(&b, " %dx%d", p.ChildWidth, p.ChildHeight)
	case ParamChildOffset:
		fmt.Fprintf(&b, " x=%d y=%d", p.ChildX, p.ChildY)
	}
	if p.Reserved != 0 {
		fmt.Fprintf(&b, " reserved=%#08x", p.Reserved)
	}
	b.WriteString("}")
	return b.String()
}

// Sampler is the filtering and wrapping of a lookup, the P1 fields that are
// not about the image.
type Sampler struct {
	Min          MinFilter
	Mag          MagFilter
	WrapS, WrapT Wrap
}

// VkcubeSampler samples as vkcube does: NEAREST minification and
// magnification, CLAMP_TO_EDGE in both directions (Vulkan-Tools cube.c
// demo_prepare_textures).
var VkcubeSampler = Sampler{Min: MinNearest, Mag: MagNearest, WrapS: WrapClamp, WrapT: WrapClamp}
