package selftest

import (
	"image"

	"github.com/vccube/vccube/internal/refrender"
)

// Orientations as refrender names them (row 0 at the bottom).
const (
	cw  = int(refrender.Clockwise)
	ccw = int(refrender.CounterClockwise)
)

// refOrientation is the forward-facing orientation the clockwise bit
// selects: "Clockwise Primitives" (AG Table 38 id 96), the turning sense
// in the guide's frame with row 0 at the bottom (AG §11).
func refOrientation(clockwiseBit bool) int {
	if clockwiseBit {
		return cw
	}
	return ccw
}

// flatReference draws a job's triangles with the reference rasteriser:
// style(d, t) gives, for triangle t of draw d, which orientations are
// drawn and its colour. clipDepth clips to OpenGL's depth range, as the
// probes' depth mapping makes the model's 0 ≤ Zs ≤ 1.
func flatReference(j *job, clipDepth bool, style func(d, t int) ([2]bool, uint32)) ([]uint32, error) {
	var tris []refrender.FlatTriangle
	for di, d := range j.draws {
		for t := 0; t+3 <= len(d.verts); t += 3 {
			drawn, colour := style(di, t/3)
			ft := refrender.FlatTriangle{Colour: colour, Cull: [2]bool{!drawn[0], !drawn[1]}}
			for k := 0; k < 3; k++ {
				c := d.verts[t+k].clip
				ft.V[k] = [4]float64{float64(c[0]), float64(c[1]), float64(c[2]), float64(c[3])}
			}
			tris = append(tris, ft)
		}
	}
	o := refrender.FlatOptions{
		Width: j.width, Height: j.height,
		CentreX: float64(j.width) / 2, CentreY: float64(j.height) / 2,
		HalfWidth: float64(j.width) / 2, HalfHeight: float64(j.height) / 2,
		SubpixelBits: 4, ClipDepth: clipDepth, Background: j.clearColour,
	}
	if c := j.clip; c != nil {
		o.Scissor = image.Rect(int(c.Left), int(c.Bottom), int(c.Left)+int(c.Width), int(c.Bottom)+int(c.Height))
	}
	return refrender.Flat(o, tris)
}
