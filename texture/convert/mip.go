package convert

import (
	"fmt"

	"github.com/vccube/vccube/texture"
)

// Upload converts one picture per level of plan p (pictures[i] must be the
// size of p.Level(i)) into dst, which must hold p.Size() bytes, each level
// in its layout at its offset. flipRows is texture.FlipMode.FlipsRows().
// Bytes between levels are zeroed. Upload does not allocate.
func Upload(p *texture.MipPlan, dst []byte, pictures []texture.Picture, flipRows bool) error {
	if len(pictures) != p.Levels() {
		return fmt.Errorf("texture: %d pictures for a texture of %d mip levels", len(pictures), p.Levels())
	}
	if len(dst) < p.Size() {
		return fmt.Errorf("texture: destination holds %d bytes; the %d-level texture needs %d", len(dst), p.Levels(), p.Size())
	}
	clear(dst[:p.Level(p.Levels()-1).Offset]) // the alignment gap below the smallest level
	for i := 0; i < p.Levels(); i++ {
		l := p.Level(i)
		if err := FromLinear(l.Layout, dst[l.Offset:], pictures[i], flipRows); err != nil {
			return fmt.Errorf("texture: mip level %d: %w", i, err)
		}
	}
	return nil
}
