package scene

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl32"
)

// MaxViewportSize is the largest width or height a Viewport may have.
// VIEWPORT_OFFSET holds the viewport centre as signed 12.4 fixed point in
// 16 bits ([AG] Table 38 id 103; Mesa v3d_packet_v21.xml type s12.4), so
// the centre, width/2, must stay below 2048 pixels.
const MaxViewportSize = 4095

// ZScale and ZOffset map OpenGL's normalised depth (−1..+1, the clip space
// mgl32.Perspective produces) to the window depth 0..1 the hardware stores:
// Zs = z_ndc·ZScale + ZOffset. They are the values Mesa's vc4 emits for the
// default depth range (CLIPPER_Z_SCALING; vc4_emit.c, vc4_program.c
// emit_zs_write). Because the two are equal, the field-order doubt about
// that packet (doc/hardware.md#viewport) cannot matter.
const (
	ZScale  float32 = 0.5
	ZOffset float32 = 0.5
)

// ClockwiseBit is the value CONFIGURATION_BITS bit 2 ("clockwise
// primitives", [AG] Table 38 id 96) must have so that vkcube's front faces
// are the hardware's forward-facing primitives.
//
// With our viewport (negative Y scale, below) the picture lands upright in
// the top-row-first framebuffer, so vkcube's front faces — counter-clockwise
// seen from outside — appear counter-clockwise on the screen, and their
// signed area in window coordinates (y down, see SignedArea) is negative.
// That is the case of Mesa drawing into a window-system buffer with GL's
// default glFrontFace(GL_CCW): the state tracker inverts the viewport's Y
// scale and keeps front_ccw (st_atom_viewport.c, st_atom_rasterizer.c),
// Gallium's front_ccw means counter-clockwise in window coordinates with y
// down (softpipe sp_setup.c: front when det < 0), and vc4 sets the
// clockwise bit exactly when front_ccw is set (vc4_state.c
// vc4_create_rasterizer_state). So the bit is 1. (The bare-metal cube of
// the post "vc4: cube demo – 'from scratch'" leaves it 0 because it feeds
// the hardware the opposite winding; doc/hardware.md#rasterisation.)
// Cull back faces by setting bit 0 (forward-facing enabled) and clearing
// bit 1 (reverse-facing disabled).
const ClockwiseBit = true

// SignedArea returns twice the signed area of the triangle p0 p1 p2 given
// in window coordinates (pixels, y down): (x1−x0)(y2−y0) − (x2−x0)(y1−y0).
// It is negative when the triangle turns counter-clockwise on the screen,
// which is how vkcube's front faces appear (see ClockwiseBit).
func SignedArea(p0, p1, p2 mgl32.Vec2) float32 {
	return (p1[0]-p0[0])*(p2[1]-p0[1]) - (p2[0]-p0[0])*(p1[1]-p0[1])
}

// Viewport is the full frame the cube is drawn into.
type Viewport struct {
	// Width and Height are the frame size in pixels.
	Width, Height int
}

// NewViewport checks a frame size and returns its viewport.
func NewViewport(width, height int) (Viewport, error) {
	if width < 1 || height < 1 || width > MaxViewportSize || height > MaxViewportSize {
		return Viewport{}, fmt.Errorf("scene: a %d×%d frame cannot be drawn: width and height must be 1..%d pixels (the VideoCore IV viewport limit)", width, height, MaxViewportSize)
	}
	return Viewport{Width: width, Height: height}, nil
}

// Aspect returns width/height, the projection's aspect ratio.
func (v Viewport) Aspect() float32 { return float32(v.Width) / float32(v.Height) }

// XScale16 is the X viewport scale in 1/16 pixel: +width/2 · 16. The
// shaders multiply x_ndc by it to get the screen X offset from the centre
// (Xs, signed 12.4); CLIPPER_XY_SCALING carries the same value.
func (v Viewport) XScale16() float32 { return float32(v.Width) * 8 }

// YScale16 is the Y viewport scale in 1/16 pixel: −height/2 · 16. It is
// negative because the framebuffer's row 0 is its top row (hardware y grows
// downwards, doc/hardware.md#shaded-vertex-formats) while clip space has +y
// up; the negative scale puts clip +y at the top, as the Broadcom driver
// does for window surfaces. This is where vccube differs from vkcube, which
// negates proj[1][1] instead (cube.c demo_init) — the projection here is
// plain OpenGL.
func (v Viewport) YScale16() float32 { return -float32(v.Height) * 8 }

// CentreX16 is the viewport centre X in 1/16 pixel (width/2 · 16), the
// first VIEWPORT_OFFSET field.
func (v Viewport) CentreX16() int16 { return int16(v.Width * 8) }

// CentreY16 is the viewport centre Y in 1/16 pixel (height/2 · 16), the
// second VIEWPORT_OFFSET field.
func (v Viewport) CentreY16() int16 { return int16(v.Height * 8) }

// Window maps a clip-space position to window coordinates: x and y in
// pixels with (0, 0) the top-left corner of the frame and y growing
// downwards, z the depth 0..1 the depth buffer stores. It is the mapping
// the hardware applies with the scales above:
// x = (Xs/16) + centre with Xs = x_ndc·XScale16, likewise y, and
// z = z_ndc·ZScale + ZOffset.
func (v Viewport) Window(clip mgl32.Vec4) mgl32.Vec3 {
	rw := 1 / clip[3]
	return mgl32.Vec3{
		float32(v.Width)/2 + clip[0]*rw*v.XScale16()/16,
		float32(v.Height)/2 + clip[1]*rw*v.YScale16()/16,
		clip[2]*rw*ZScale + ZOffset,
	}
}
