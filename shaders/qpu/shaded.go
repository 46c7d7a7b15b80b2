package qpu

import "strconv"

// ShadedFormat is the layout of one shaded vertex: the 32-bit words a
// coordinate shader leaves in its VPM column for the PTB, a vertex shader
// for the PSE, or user space puts in memory for an NV shader state ([AG] §7
// "VPM Vertex Data Formats", Figure 10 "Shaded Vertex Format for PSE" and
// Figure 11 "Shaded Coordinates Format for PTB"; "Shaded Vertex Format in
// Memory", Figure 12; doc/hardware.md#shaded-vertex-formats). It is the one
// description of their word order: the cube's shaders write their outputs in
// it, the shaders' Go models lay their words out by it, and the simulated
// GPU's binner, renderer and NV fetch read it.
//
//	[Xc Yc Zc Wc]  Xs|Ys  Zs  1/Wc  [point size]  varying 0 … varying n−1
//
// Xs|Ys holds Xs in bits 15:0 and Ys in bits 31:16 (PackXsYs), both signed
// 12.4 fixed point in pixels relative to the viewport centre; every other
// word is a float32. The PTB's format always has the clip header and no
// varyings (CoordinateFormat), the PSE's never has the clip header
// (VertexFormat); NV data has it when the record's flag says so.
//
// It lives in package qpu, next to the VPM setup registers, because it is
// what shaders write to the VPM (AG §7) and because both its writers
// (package shaders) and its readers (the simulated GPU) may import this
// package, while package shaders sits above cl/spec in the project's
// layering.
type ShadedFormat struct {
	// ClipHeader says the vertex starts with the clip coordinates Xc, Yc,
	// Zc, Wc.
	ClipHeader bool
	// PointSize says a point size follows 1/Wc.
	PointSize bool
	// Varyings is the number of varying components at the end.
	Varyings int
}

// Fixed parts of a shaded vertex, in words ([AG] Figures 10–12).
const (
	// ShadedClipWords is the clip header: Xc, Yc, Zc, Wc.
	ShadedClipWords = 4
	// ShadedScreenWords is Xs|Ys, Zs and 1/Wc, which every format has.
	ShadedScreenWords = 3
)

// CoordinateFormat is what a coordinate shader writes for the PTB ([AG]
// Figure 11): the clip header, Xs|Ys, Zs, 1/Wc and, when the shader record
// says so, a point size; 7 or 8 words.
func CoordinateFormat(pointSize bool) ShadedFormat {
	return ShadedFormat{ClipHeader: true, PointSize: pointSize}
}

// VertexFormat is what a vertex shader writes for the PSE ([AG] Figure
// 10): Xs|Ys, Zs, 1/Wc, maybe a point size, then the varyings; 3 or 4 words
// plus the varyings.
func VertexFormat(pointSize bool, varyings int) ShadedFormat {
	return ShadedFormat{PointSize: pointSize, Varyings: varyings}
}

// Words returns the number of 32-bit words of one vertex.
func (f ShadedFormat) Words() int { return f.VaryingsAt() + f.Varyings }

// ClipAt returns the index of clip coordinate k (0 Xc, 1 Yc, 2 Zc, 3 Wc),
// or −1 when the format has no clip header.
func (f ShadedFormat) ClipAt(k int) int {
	if !f.ClipHeader {
		return -1
	}
	return k
}

// XsYsAt returns the index of the Xs|Ys word.
func (f ShadedFormat) XsYsAt() int {
	if f.ClipHeader {
		return ShadedClipWords
	}
	return 0
}

// ZsAt returns the index of Zs, the window-space depth.
func (f ShadedFormat) ZsAt() int { return f.XsYsAt() + 1 }

// InvWcAt returns the index of 1/Wc.
func (f ShadedFormat) InvWcAt() int { return f.XsYsAt() + 2 }

// PointSizeAt returns the index of the point size, or −1 when the format
// has none.
func (f ShadedFormat) PointSizeAt() int {
	if !f.PointSize {
		return -1
	}
	return f.XsYsAt() + ShadedScreenWords
}

// VaryingsAt returns the index of varying 0; varying j is at
// VaryingsAt() + j.
func (f ShadedFormat) VaryingsAt() int {
	n := f.XsYsAt() + ShadedScreenWords
	if f.PointSize {
		n++
	}
	return n
}

// WordName names word i of the format as the reference guide's figures
// do: "Xc", "Yc", "Zc", "Wc", "XsYs", "Zs", "1/Wc", "PointSize", then
// "varying 0" …; "" past the end.
func (f ShadedFormat) WordName(i int) string {
	switch {
	case i < 0 || i >= f.Words():
		return ""
	case i >= f.VaryingsAt():
		return "varying " + strconv.Itoa(i-f.VaryingsAt())
	case i == f.PointSizeAt():
		return "PointSize"
	case i == f.XsYsAt():
		return "XsYs"
	case i == f.ZsAt():
		return "Zs"
	case i == f.InvWcAt():
		return "1/Wc"
	}
	return [ShadedClipWords]string{"Xc", "Yc", "Zc", "Wc"}[i]
}

// The regfile-A pack modes that put Xs and Ys into their halves of the
// Xs|Ys word when a shader converts them with FTOI: 16a writes bits 15:0,
// 16b bits 31:16 (AG Table 7 "Regfile-a Pack Encoding"; Mesa vc4_program.c
// emit_scaled_viewport_write uses QPU_PACK_A_16A + i for x and y).
const (
	// XsPack places Xs.
	XsPack = Pack16A
	// YsPack places Ys.
	YsPack = Pack16B
)

// PackXsYs returns the Xs|Ys word of screen coordinates xs and ys, in
// 1/16 pixel: xs in bits 15:0, ys in bits 31:16.
func PackXsYs(xs, ys int16) uint32 { return uint32(uint16(xs)) | uint32(uint16(ys))<<16 }

// SplitXsYs returns Xs and Ys of an Xs|Ys word.
func SplitXsYs(w uint32) (xs, ys int16) { return int16(uint16(w)), int16(uint16(w >> 16)) }
