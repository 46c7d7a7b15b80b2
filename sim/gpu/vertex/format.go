package vertex

import "math"

// Format is the layout of one shaded vertex: the words a coordinate or
// vertex shader leaves in its VPM column for the PTB or the PSE, or an NV
// shader state's pre-shaded vertex in memory ([AG] §7 "VPM Vertex Data
// Formats", Figures 10, 11 and 12; hw-vc4.md §2.4). It is the one
// description of their word order, which both NV fetches (this package)
// and GL shading (package vcd) read:
//
//	[Xc Yc Zc Wc]  Xs|Ys  Zs  1/Wc  [point size]  varying 0 … varying n−1
//
// Xs|Ys holds Xs in bits 15:0 and Ys in bits 31:16, both signed 12.4 fixed
// point relative to the viewport centre; every other word is a float32.
// The clip header is in every coordinate shader's output (Figure 11), never
// in a vertex shader's (Figure 10), and in NV data when the record says so
// (Figure 12).
type Format struct {
	// Clip says the vertex starts with the clip header Xc, Yc, Zc, Wc.
	Clip bool
	// PointSize says a point size follows 1/Wc.
	PointSize bool
	// Varyings is the number of varying components at the end.
	Varyings int
}

// clipWords is the length of the clip header, screenWords that of
// Xs|Ys, Zs and 1/Wc.
const (
	clipWords   = 4
	screenWords = 3
)

// Words returns the number of 32-bit words of one vertex in format f.
func (f Format) Words() int { return f.varyingsAt() + f.Varyings }

// varyingsAt is the index of the first varying word.
func (f Format) varyingsAt() int {
	n := screenWords
	if f.Clip {
		n += clipWords
	}
	if f.PointSize {
		n++
	}
	return n
}

// screenAt is the index of the Xs|Ys word.
func (f Format) screenAt() int {
	if f.Clip {
		return clipWords
	}
	return 0
}

// SplitXY returns Xs and Ys of an Xs|Ys word.
func SplitXY(w uint32) (x, y int16) { return int16(uint16(w)), int16(uint16(w >> 16)) }

// DecodeCoord decodes the first f.Words() words of w (f.Varyings is
// ignored: the binner reads no varyings) into out. out.HasClip is f.Clip.
func (f Format) DecodeCoord(w []uint32, out *Coord) {
	*out = Coord{HasClip: f.Clip}
	if f.Clip {
		for k := range out.Clip {
			out.Clip[k] = math.Float32frombits(w[k])
		}
	}
	s := f.screenAt()
	out.X, out.Y = SplitXY(w[s])
	out.Z, out.InvW = math.Float32frombits(w[s+1]), math.Float32frombits(w[s+2])
	if f.PointSize {
		out.PointSize = math.Float32frombits(w[s+3])
	}
}

// DecodeVertex decodes the f.Words() words of w into vertex k of out,
// whose NVary must be f.Varyings. The clip header, if any, is skipped: the
// renderer does not clip.
func (f Format) DecodeVertex(w []uint32, out *Shaded, k int) {
	s := f.screenAt()
	out.X[k], out.Y[k] = SplitXY(w[s])
	out.Z[k], out.InvW[k] = math.Float32frombits(w[s+1]), math.Float32frombits(w[s+2])
	out.PointSize[k] = 0
	if f.PointSize {
		out.PointSize[k] = math.Float32frombits(w[s+3])
	}
	vary := out.Vary[k*out.NVary : (k+1)*out.NVary]
	for j, x := range w[f.varyingsAt() : f.varyingsAt()+len(vary)] {
		vary[j] = math.Float32frombits(x)
	}
}
