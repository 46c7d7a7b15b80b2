package texture

import "fmt"

// MaxLevels is the most mip levels a texture can have: P0's MIPLVLS is 4
// bits ([AG] Table 15). A 2048-pixel side needs 12 levels to reach 1.
const MaxLevels = 16

// FullChainLevels returns the number of levels of a complete mip chain for
// a width×height level 0: halving the larger side down to 1, that is
// floor(log2(max(width, height))) + 1.
func FullChainLevels(width, height int) int {
	n := 1
	for s := max(width, height); s > 1; s >>= 1 {
		n++
	}
	return n
}

// Level is one mip level of a MipPlan.
type Level struct {
	// Width and Height are the size of the level's picture: max(w>>i, 1) ×
	// max(h>>i, 1) of level 0's w×h (Mesa and GL minify the real size).
	Width, Height int
	// ContainerWidth and ContainerHeight are the size the TMU assumes for
	// the level's address and layout (HardwareLevelSize): level 0's own
	// size, and power-of-two containers below it. (It samples the
	// picture, Width×Height, doc/hardware.md#tmu.) They differ from Width and Height only for
	// levels ≥ 1 of a texture whose sides are not powers of two.
	ContainerWidth, ContainerHeight int
	// Layout stores the picture: Width()×Height() pixels, padded as the
	// container requires, in the format the TMU chooses for the container
	// (Type.Tiling). The picture occupies the container's first rows and
	// columns in memory, as Mesa stores it.
	Layout Layout
	// Offset is the level's first byte from the start of the texture.
	Offset int
}

// MipPlan places the mip levels of one texture in memory as the TMU
// expects them ([AG] §4 "Texture Data Storage"; Mesa vc4_resource.c
// vc4_setup_slices()): level 0 on a 4 KiB boundary, at BaseOffset, where
// P0's BASE points; levels 1, 2, ... immediately below it in memory, each
// directly under the previous one, the smallest at the lowest address. The
// TMU finds level i at BASE minus the sizes of levels 1..i, computed from
// the power-of-two containers (HardwareLevelSize). Size is the whole
// texture, from offset 0 (which is 4 KiB aligned too, if the texture starts
// on a page) to the end of level 0.
//
// The kernel checks the same layout with smaller level sizes (LevelSize:
// Linux vc4_validate.c reloc_tex walks the levels with max(w>>i, 1)),
// which a plan always satisfies.
//
// A MipPlan is a value without pointers; building and using one does not
// allocate.
type MipPlan struct {
	typ    Type
	count  int
	levels [MaxLevels]Level
	size   int
}

// NewMipPlan lays out levels mip levels (1 to MaxLevels; 1 means level 0
// only) of a width×height texture of type t. width and height are 1 to
// MaxSize. The type must have a byte layout (Type.Storage): ETC1 is laid out
// on its 4×4-block grid, and the sub-byte types are refused.
func NewMipPlan(t Type, width, height, levels int) (MipPlan, error) {
	if width < 1 || height < 1 || width > MaxSize || height > MaxSize {
		return MipPlan{}, fmt.Errorf("texture: %d×%d is outside the 1×1 to %d×%d the TMU samples", width, height, MaxSize, MaxSize)
	}
	if levels < 1 || levels > MaxLevels {
		return MipPlan{}, fmt.Errorf("texture: %d mip levels: use 1 to %d", levels, MaxLevels)
	}
	if _, _, _, ok := t.Storage(width, height); !ok {
		return MipPlan{}, fmt.Errorf("texture: type %v has no byte layout in this package (sub-byte or unknown type)", t)
	}
	p := MipPlan{typ: t, count: levels}
	// Lay the levels out smallest first from offset 0, then move them all
	// up so that level 0 starts on a 4 KiB boundary (vc4_setup_slices()).
	offset := 0
	for i := levels - 1; i >= 0; i-- {
		w, h := LevelSize(width, height, i) // the picture: max(w>>i, 1)
		cw, ch := HardwareLevelSize(width, height, i)
		l, err := levelLayout(t, w, h, cw, ch)
		if err != nil {
			return MipPlan{}, err
		}
		p.levels[i] = Level{Width: w, Height: h, ContainerWidth: cw, ContainerHeight: ch, Layout: l, Offset: offset}
		offset += l.Size()
	}
	shift := roundUp(p.levels[0].Offset, TileBytes) - p.levels[0].Offset
	for i := 0; i < levels; i++ {
		p.levels[i].Offset += shift
	}
	p.size = p.levels[0].Offset + p.levels[0].Layout.Size()
	return p, nil
}

// levelLayout is the layout of a w×h picture of type t stored in a cw×ch
// container: the format and the padding come from the container.
func levelLayout(t Type, w, h, cw, ch int) (Layout, error) {
	cpp, gw, gh, _ := t.Storage(w, h)
	_, cgw, cgh, _ := t.Storage(cw, ch)
	tiling, _ := t.Tiling(cw, ch)
	l, err := NewLayout(tiling, cpp, cgw, cgh)
	if err != nil {
		return Layout{}, err
	}
	l.width, l.height = gw, gh
	return l, nil
}

// Type returns the texture type.
func (p *MipPlan) Type() Type { return p.typ }

// Levels returns the number of levels.
func (p *MipPlan) Levels() int { return p.count }

// Level returns level i, 0 ≤ i < Levels().
func (p *MipPlan) Level(i int) Level { return p.levels[i] }

// BaseOffset returns the offset of level 0, a multiple of 4096: add it to
// the texture's own (4 KiB aligned) offset in its buffer object to get P0's
// BASE.
func (p *MipPlan) BaseOffset() int { return p.levels[0].Offset }

// Size returns the bytes from the start of the texture to the end of level
// 0.
func (p *MipPlan) Size() int { return p.size }

// Params returns the P0 and P1 words' values for sampling this texture:
// base is where the texture starts in its buffer object (a multiple of
// 4096), mode says whether FLIPY is set, and s gives filters and wrapping.
// ETCFLIP is set for ETC1, as Mesa vc4_state.c vc4_create_sampler_view()
// does. The result's Encode methods give
// the words to put in the uniform stream.
func (p *MipPlan) Params(base uint32, mode FlipMode, s Sampler) (P0, P1, error) {
	if base%TileBytes != 0 {
		return P0{}, P1{}, fmt.Errorf("texture: texture at offset %#x: it must start on a 4 KiB boundary", base)
	}
	low, bit4 := SplitType(p.typ)
	p0 := P0{
		Base:      base + uint32(p.BaseOffset()),
		FlipY:     mode.SetsFlipY(),
		TypeLow:   low,
		LastLevel: uint8(p.count - 1),
	}
	l0 := p.levels[0]
	p1 := P1{
		Type4:     bit4,
		Width:     l0.Width,
		Height:    l0.Height,
		ETCFlip:   p.typ == ETC1,
		MagFilter: s.Mag,
		MinFilter: s.Min,
		WrapS:     s.WrapS,
		WrapT:     s.WrapT,
	}
	return p0, p1, nil
}
