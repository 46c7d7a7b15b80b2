package vertex

import (
	"math"

	"github.com/vccube/vccube/shaders/qpu"
)

// Shaded vertices are read through qpu.ShadedFormat, the one description
// of their word order ([AG] Figures 10, 11 and 12): the words a coordinate
// or vertex shader leaves in its VPM column (package vcd) and an NV shader
// state's pre-shaded vertices in memory (this package) decode the same way.

// DecodeCoord decodes the first f.Words() words of w into out, as the
// binner reads them (f.Varyings is ignored: the binner reads no varyings).
// out.HasClip is f.ClipHeader.
func DecodeCoord(f qpu.ShadedFormat, w []uint32, out *Coord) {
	*out = Coord{HasClip: f.ClipHeader}
	if f.ClipHeader {
		for k := range out.Clip {
			out.Clip[k] = math.Float32frombits(w[f.ClipAt(k)])
		}
	}
	out.X, out.Y = qpu.SplitXsYs(w[f.XsYsAt()])
	out.Z, out.InvW = math.Float32frombits(w[f.ZsAt()]), math.Float32frombits(w[f.InvWcAt()])
	if f.PointSize {
		out.PointSize = math.Float32frombits(w[f.PointSizeAt()])
	}
}

// DecodeVertex decodes the f.Words() words of w into vertex k of out,
// whose NVary must be f.Varyings, as the renderer reads them. The clip
// header, if any, is skipped: the renderer does not clip.
func DecodeVertex(f qpu.ShadedFormat, w []uint32, out *Shaded, k int) {
	out.X[k], out.Y[k] = qpu.SplitXsYs(w[f.XsYsAt()])
	out.Z[k], out.InvW[k] = math.Float32frombits(w[f.ZsAt()]), math.Float32frombits(w[f.InvWcAt()])
	out.PointSize[k] = 0
	if f.PointSize {
		out.PointSize[k] = math.Float32frombits(w[f.PointSizeAt()])
	}
	vary := out.Vary[k*out.NVary : (k+1)*out.NVary]
	at := f.VaryingsAt()
	for j, x := range w[at : at+len(vary)] {
		vary[j] = math.Float32frombits(x)
	}
}
