package tlb

import "github.com/vccube/vccube/cl"

// DepthState is the Z_Test_Mode a fragment shader starts with: the depth
// function and Z update enable of CONFIGURATION_BITS ([AG] §5 "Z and
// Stencil", Table 29).
type DepthState struct {
	Func   cl.DepthFunc
	Update bool
}

// Passes reports whether a fragment of depth z passes against stored depth
// zb under function f (AG Table 38 id 96;
// doc/hardware.md#configuration-bits: 0 never, 1 less, 2 equal, 3 lequal, 4
// greater, 5 notequal, 6 gequal, 7 always — the fragment's value on the
// left, as in OpenGL).
//
// The encoding is a truth table: bit 0 of f says whether a fragment passes
// when z < zb, bit 1 when z == zb, bit 2 when z > zb (never = 0, less = 1,
// equal = 2, lequal = 3, ...), so the test is one shift, with no branch on
// f or on the comparison.
func Passes(f cl.DepthFunc, z, zb uint32) bool {
	return uint8(f)>>order(z, zb)&1 != 0
}

// order is 0 when z < zb, 1 when z == zb and 2 when z > zb.
func order(z, zb uint32) uint {
	var ge, gt uint
	if z >= zb {
		ge = 1
	}
	if z > zb {
		gt = 1
	}
	return ge + gt
}

// stencilFace is one face's stencil configuration ([AG] Table 27).
type stencilFace struct {
	enabled              bool
	fn                   uint8 // 0 never … 7 always, as DepthFunc
	failOp, zfailOp, zOp uint8 // 0 zero, 1 keep, 2 replace, 3 incsat, 4 decsat, 5 invert, 6 inc, 7 dec
	ref, mask, writeMask uint8
}

// Stencil is the Stencil_Mode register of a fragment shader thread: both
// faces disabled at thread start ([AG] Table 29), set up by writes to
// TLB_STENCIL_SETUP.
type Stencil struct {
	front, back stencilFace
}

// Reset disables both faces, as at fragment shader start.
func (s *Stencil) Reset() { *s = Stencil{} }

// Enabled reports whether the face in use has a stencil test: the back
// face's for a reverse-facing primitive, else the front face's.
func (s *Stencil) Enabled(reverse bool) bool {
	if reverse {
		return s.back.enabled
	}
	return s.front.enabled
}

// Setup applies one TLB_STENCIL_SETUP word ([AG] Tables 27 and 28): bits
// 31:30 select the front (1), back (2) or both (3) configurations, or (0)
// the full write masks.
func (s *Stencil) Setup(w uint32) {
	sel := w >> 30
	if sel == 0 {
		// Table 28: back mask in 15:8, front mask in 7:0.
		s.back.writeMask = uint8(w >> 8)
		s.front.writeMask = uint8(w)
		return
	}
	f := stencilFace{
		enabled:   true,
		writeMask: [4]uint8{0x01, 0x03, 0x0f, 0xff}[w>>28&3],
		zfailOp:   uint8(w >> 25 & 7),
		zOp:       uint8(w >> 22 & 7),
		failOp:    uint8(w >> 19 & 7),
		fn:        uint8(w >> 16 & 7),
		ref:       uint8(w >> 8),
		mask:      uint8(w),
	}
	if sel&1 != 0 {
		s.front = f
	}
	if sel&2 != 0 {
		s.back = f
	}
}

func stencilOp(op uint8, s, ref uint8) uint8 {
	switch op {
	case 0:
		return 0
	case 2:
		return ref
	case 3:
		if s == 255 {
			return s
		}
		return s + 1
	case 4:
		if s == 0 {
			return s
		}
		return s - 1
	case 5:
		return ^s
	case 6:
		return s + 1
	case 7:
		return s - 1
	}
	return s // 1 keep
}

// ZWrite is a fragment shader's write to TLB_Z: for every element in mask
// (the thread's MS_FLAGS) it runs the stencil test (if the face's stencil is
// enabled) and the Z test of the value's low 24 bits against pixel idx[i]
// of the tile, updates stencil and Z as configured, and returns the
// elements that passed — the new MS_FLAGS ([AG] §5 "Z and Stencil") — and
// those that failed the stencil test. reverse selects the back-face
// stencil configuration (REV_FLAG).
func (b *Buffer) ZWrite(idx *[16]uint16, z *[16]uint32, mask uint16, d DepthState, st *Stencil, reverse bool) (pass, stencilFail uint16) {
	face := &st.front
	if reverse {
		face = &st.back
	}
	if !face.enabled {
		// No stencil test: the depth test and update alone, the common
		// case (zWrite is the general loop; TestZWriteWithoutStencil
		// compares them).
		pass = mask
		for i := range 16 {
			if mask&(1<<i) == 0 {
				continue
			}
			p := &b.ZS[idx[i]]
			zf := z[i] & 0xFFFFFF
			if !Passes(d.Func, zf, *p>>8) {
				pass &^= 1 << i
			} else if d.Update {
				*p = zf<<8 | *p&0xFF
				b.zs.dirty |= 1 << (idx[i] / Size)
			}
		}
		return pass, 0
	}
	return b.zWrite(idx, z, mask, d, face)
}

// zWrite is ZWrite for any stencil configuration of the face in use.
func (b *Buffer) zWrite(idx *[16]uint16, z *[16]uint32, mask uint16, d DepthState, face *stencilFace) (pass, stencilFail uint16) {
	pass = mask
	for i := range 16 {
		if mask&(1<<i) == 0 {
			continue
		}
		p := &b.ZS[idx[i]]
		b.zs.dirty |= 1 << (idx[i] / Size) // written below, changed or not
		zb, sb := *p>>8, uint8(*p)
		zf := z[i] & 0xFFFFFF
		if face.enabled {
			if !Passes(cl.DepthFunc(face.fn), uint32(face.ref&face.mask), uint32(sb&face.mask)) {
				sb = sb&^face.writeMask | stencilOp(face.failOp, sb, face.ref)&face.writeMask
				*p = zb<<8 | uint32(sb)
				pass &^= 1 << i
				stencilFail |= 1 << i
				continue
			}
		}
		if !Passes(d.Func, zf, zb) {
			if face.enabled {
				sb = sb&^face.writeMask | stencilOp(face.zfailOp, sb, face.ref)&face.writeMask
				*p = zb<<8 | uint32(sb)
			}
			pass &^= 1 << i
			continue
		}
		if face.enabled {
			sb = sb&^face.writeMask | stencilOp(face.zOp, sb, face.ref)&face.writeMask
		}
		if d.Update {
			zb = zf
		}
		*p = zb<<8 | uint32(sb)
	}
	return pass, stencilFail
}

// WriteColor writes c[i] to pixel idx[i] for the elements in mask
// (TLB_COLOUR_ALL, or TLB_COLOUR_MS in non-multisample mode, [AG] §5).
func (b *Buffer) WriteColor(idx *[16]uint16, c *[16]uint32, mask uint16) {
	for i := range 16 {
		if mask&(1<<i) != 0 {
			b.Color[idx[i]] = c[i]
			b.color.dirty |= 1 << (idx[i] / Size)
		}
	}
}

// ReadColor reads the colour of pixel idx[i] into out[i] for every element
// (the colour load signal; [AG] §5 "Color Read and Write").
func (b *Buffer) ReadColor(idx *[16]uint16, out *[16]uint32) {
	for i := range 16 {
		out[i] = b.Color[idx[i]]
	}
}
