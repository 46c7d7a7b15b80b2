// Package scene is vkcube's scene for vccube: the camera, the cube's mesh,
// the per-frame model-view-projection matrix (mathgl, column-major) and the
// per-face light values vkcube's fragment shader computes.
//
// Sources: KhronosGroup/Vulkan-Tools cube/cube.c (demo_init,
// demo_update_data_buffer, the mesh tables), cube/cube.vert, cube/cube.frag
// and cube/linmath.h.
//
// A frame is a pure function of its number k: the cube is turned about +y
// by 4k degrees, so frame 0 is unturned and any frame can be drawn (or
// captured) again without replaying the ones before it.
//
// Differences from vkcube, all on purpose:
//   - vkcube always uses aspect 1 and draws into a centred square viewport
//     of side min(width, height) (cube.c demo_draw_build_cmd); vccube uses
//     the whole frame and aspect width/height. For landscape frames the
//     cube lands on exactly the same pixels; for portrait frames vccube's
//     cube is bigger (its height follows the frame height).
//   - vkcube negates proj[1][1] for Vulkan; vccube keeps OpenGL's
//     projection and flips y in the viewport instead (Viewport.YScale16).
//   - The light is still computed in vkcube's own clip space (see
//     Frame.Light), so the faces are exactly as bright as in vkcube.
package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// vkcube's camera and motion constants (cube.c demo_init).
var (
	// Eye is the camera position in world space.
	Eye = mgl32.Vec3{0, 3, 5}
	// Centre is the point the camera looks at.
	Centre = mgl32.Vec3{0, 0, 0}
	// Up is the camera's up direction.
	Up = mgl32.Vec3{0, 1, 0}
	// LightDir is cube.frag's constant light direction (≈ (3,4,5)/√50),
	// given in vkcube's clip space (see Frame.Light).
	LightDir = mgl32.Vec3{0.424, 0.566, 0.707}
)

const (
	// FovYDegrees is the vertical field of view.
	FovYDegrees = 45
	// Near and Far are the distances of the clip planes.
	Near, Far = 0.1, 100
	// SpinDegreesPerFrame is how far the cube turns each frame
	// (demo->spin_angle = 4.0f, applied once per frame).
	SpinDegreesPerFrame = 4
	// ClearGrey is vkcube's clear colour (0.2, 0.2, 0.2). vkcube renders
	// to a UNORM surface (cube.c pick_surface_format prefers one), so the
	// value is stored as is: 0.2·255 = 51 in 8 bits.
	ClearGrey = 0.2
	// ClearByte is ClearGrey in an 8-bit UNORM channel, round(0.2·255).
	ClearByte = 51
)

// Scene holds what stays fixed from frame to frame: the viewport and the
// view and projection matrices. It also remembers the faces' light and
// facing of the turns it has drawn, so a Scene is not safe for
// concurrent use.
type Scene struct {
	vp         Viewport
	view       mgl32.Mat4
	projection mgl32.Mat4
	viewProj   mgl32.Mat4
	// toVkcube turns our clip-space xyz into vkcube's (see Frame.Light).
	toVkcube mgl32.Vec3
	faces    faceMemo
}

// faceMemo remembers Frame.Light and Frame.FrontFacing by turn. They are
// a function of the turn alone (the scene fixes everything else), and the
// turns repeat: every 90 frames at vkcube's 4° per frame, and 0.2° steps
// with the arrow keys. Computing them is most of update's work (a cross
// product, a square root and a division per face), so update looks them
// up by the turn's exact bits and computes them only on a miss; what it
// stores is what it computed, so a frame is the same bit for bit either
// way. It has 2^faceMemoBits sets of two entries, 512 in all: the 90 turns
// of the default spin rarely put three in one set.
type faceMemo struct {
	sets [1 << faceMemoBits][2]faceMemoEntry
}

const faceMemoBits = 8

type faceMemoEntry struct {
	bits  uint32 // math.Float32bits of the turn in degrees
	full  bool   // the entry holds a turn
	front [NumFaces]bool
	light [NumFaces]float32
}

// set returns the set a turn belongs in (Fibonacci hashing of its bits, so
// that turns differing only in low mantissa bits spread out).
func (m *faceMemo) set(bits uint32) *[2]faceMemoEntry {
	return &m.sets[(bits*0x9E3779B9)>>(32-faceMemoBits)]
}

// New returns the scene for a width×height frame (the display mode's size).
func New(width, height int) (*Scene, error) {
	vp, err := NewViewport(width, height)
	if err != nil {
		return nil, err
	}
	s := &Scene{vp: vp}
	s.view = mgl32.LookAtV(Eye, Centre, Up)
	s.projection = mgl32.Perspective(mgl32.DegToRad(FovYDegrees), vp.Aspect(), Near, Far)
	s.viewProj = s.projection.Mul4(s.view)
	// vkcube's projection has x scaled by cot(fov/2) (aspect 1) where ours
	// has cot(fov/2)/aspect, and y negated; z and w are the same.
	s.toVkcube = mgl32.Vec3{vp.Aspect(), -1, 1}
	return s, nil
}

// Viewport returns the frame the scene is drawn into.
func (s *Scene) Viewport() Viewport { return s.vp }

// View returns the view matrix (mgl32.LookAtV(Eye, Centre, Up)).
func (s *Scene) View() mgl32.Mat4 { return s.view }

// Projection returns the OpenGL perspective projection: FovYDegrees
// vertically, aspect width/height, Near and Far; clip z runs from −w at the
// near plane to +w at the far plane.
func (s *Scene) Projection() mgl32.Mat4 { return s.projection }

// Frame is everything that changes from frame to frame.
type Frame struct {
	// Number is the frame number k given to Update (0 for UpdateAngle).
	Number int
	// AngleDegrees is the cube's turn about +y, in [0, 360) for Update.
	AngleDegrees float32
	// Model is the rotation about +y by AngleDegrees.
	Model mgl32.Mat4
	// MVP is Projection · View · Model, column-major (mgl32), ready to be
	// uploaded as is.
	MVP mgl32.Mat4
	// Clip holds MVP · (position, 1) for each of the 36 vertices, in the
	// order of Vertices().
	Clip [NumVertices]mgl32.Vec4
	// FrontFacing tells, per face, whether the face turns towards the camera
	// this frame, i.e. whether vkcube draws it (the others are culled).
	FrontFacing [NumFaces]bool
	// Light is, per face, the value cube.frag computes on every pixel of
	// that face:
	//
	//	light = max(0, dot(LightDir, normalize(cross(dFdx(p), dFdy(p)))))
	//
	// where p is vkcube's gl_Position.xyz, interpolated. A face is flat, so
	// p moves within one plane and the two derivatives are two directions
	// in it: their cross product is the plane's normal, the same on every
	// pixel. Its sign follows the triangle's orientation on the screen:
	// with p0, p1, p2 the corners' clip positions and a their signed area
	// in vkcube's framebuffer coordinates (y down),
	// cross(dFdx p, dFdy p) points along sign(a)·cross(p1−p0, p2−p0).
	//
	// p is vkcube's clip position, not ours: vkcube's projection has aspect
	// 1 and a negated y, so p = (x·aspect, −y, z) of our clip position.
	// Using ours would make the light depend on the display's aspect ratio
	// (at 800×600, frame 10, the +Z face would get 0.289 instead of
	// vkcube's 0.356). Back faces get the value the formula gives them too,
	// though nothing draws them.
	Light [NumFaces]float32
}

// AngleForFrame returns frame k's turn in degrees, 4k reduced to [0, 360)
// in integer arithmetic so that it is exact for every k.
func AngleForFrame(k int) float32 {
	const framesPerTurn = 360 / SpinDegreesPerFrame
	r := k % framesPerTurn
	if r < 0 {
		r += framesPerTurn
	}
	return float32(r * SpinDegreesPerFrame)
}

// Update fills f with frame k: the cube turned by AngleForFrame(k). It does
// not allocate.
//
// The turn is the way vkcube's cube turns. vkcube post-multiplies its model
// matrix by linmath's mat4x4_rotate_Y(4°) each frame; that matrix is the
// right-handed rotation about +y (it takes +z towards +x), i.e.
// counter-clockwise seen from above, so the face towards the camera moves
// to the right on the screen (Vulkan's y flip does not change x). That is
// also what mgl32.HomogRotate3DY builds. (The post "vc4: cube demo –
// 'from scratch'" (2023-07-04) describes vkcube's turn as clockwise seen
// from above; vkcube's arithmetic decides, see TestTurnsLikeVkcube.)
func (s *Scene) Update(f *Frame, k int) {
	s.update(f, AngleForFrame(k))
	f.Number = k
}

// UpdateAngle fills f for an arbitrary turn (degrees about +y), for callers
// that change the spin speed as vkcube's arrow keys do. It does not
// allocate.
func (s *Scene) UpdateAngle(f *Frame, degrees float32) {
	d := float32(math.Mod(float64(degrees), 360))
	if d < 0 {
		d += 360
	}
	s.update(f, d)
	f.Number = 0
}

func (s *Scene) update(f *Frame, degrees float32) {
	f.AngleDegrees = degrees
	f.Model = mgl32.HomogRotate3DY(mgl32.DegToRad(degrees))
	f.MVP = s.viewProj.Mul4(f.Model)
	var clip [numCorners]mgl32.Vec4
	cornerClips(&f.MVP, &clip)
	for i, c := range cornerOf {
		f.Clip[i] = clip[c]
	}
	bits := math.Float32bits(degrees)
	set := s.faces.set(bits)
	for i := range set {
		if e := &set[i]; e.full && e.bits == bits {
			f.Light, f.FrontFacing = e.light, e.front
			return
		}
	}
	for face := 0; face < NumFaces; face++ {
		f.Light[face], f.FrontFacing[face] = s.faceLight(f, face*VerticesPerFace)
	}
	// The newest turn goes first, the one it displaces second.
	set[1] = set[0]
	set[0] = faceMemoEntry{bits: bits, full: true, front: f.FrontFacing, light: f.Light}
}

// cornerClips sets clip[c] to mvp·corners[c] for the cube's 8 corners,
// bit for bit what mvp.Mul4x1(corners[c]) gives, with a quarter of its
// arithmetic. Mul4x1 computes each row as ((m0·x + m4·y) + m8·z) + m12·w;
// a corner's x, y, z are ±1 and w is 1, so every product is exact (±m)
// and the row is ((±m0 ± m4) ± m8) + m12, the same additions in the same
// order. The corners share their first sums: four (±m0 ± m4) serve all
// eight.
func cornerClips(mvp *mgl32.Mat4, clip *[numCorners]mgl32.Vec4) {
	for r := 0; r < 4; r++ {
		x, y, z, w := mvp[r], mvp[4+r], mvp[8+r], mvp[12+r]
		var xy [4]float32 // index: bit 0 the sign of x, bit 1 of y (as for corners)
		xy[0], xy[1], xy[2], xy[3] = -x+-y, x+-y, -x+y, x+y
		for c := 0; c < numCorners; c++ {
			zz := -z
			if c&4 != 0 {
				zz = z
			}
			clip[c][r] = (xy[c&3] + zz) + w
		}
	}
}

// faceLight evaluates cube.frag's light for the face whose first triangle
// starts at vertex i (see Frame.Light), and whether the face is front-facing.
func (s *Scene) faceLight(f *Frame, i int) (light float32, front bool) {
	c0, c1, c2 := &f.Clip[i], &f.Clip[i+1], &f.Clip[i+2]
	// The triangle's signed area in window coordinates without dividing by
	// w: for corners at window positions (cx + sx·x/w, cy + sy·y/w),
	// SignedArea = sx·sy·det[x y w]/(w0·w1·w2). Every corner of the cube is
	// in front of the camera (w > 0) and sx·sy < 0 (YScale16 is negative),
	// so the area has the sign of −det. vkcube's framebuffer coordinates
	// differ from ours only by positive scales and an offset, so the sign
	// is vkcube's too.
	det := c0[0]*(c1[1]*c2[3]-c1[3]*c2[1]) -
		c0[1]*(c1[0]*c2[3]-c1[3]*c2[0]) +
		c0[3]*(c1[0]*c2[1]-c1[1]*c2[0])
	// vkcube's clip positions: (x·aspect, −y, z) of ours.
	k := s.toVkcube
	p0 := mgl32.Vec3{c0[0] * k[0], c0[1] * k[1], c0[2] * k[2]}
	e1 := mgl32.Vec3{c1[0]*k[0] - p0[0], c1[1]*k[1] - p0[1], c1[2]*k[2] - p0[2]}
	e2 := mgl32.Vec3{c2[0]*k[0] - p0[0], c2[1]*k[1] - p0[1], c2[2]*k[2] - p0[2]}
	n := e1.Cross(e2)
	switch {
	case det > 0: // area < 0: counter-clockwise on the screen, vkcube's front face
		front = true
		n = n.Mul(-1)
	case det < 0:
	default:
		return 0, false // edge-on: covers no pixel
	}
	l := n.Len()
	if l == 0 {
		return 0, front
	}
	d := LightDir.Dot(n) / l
	if d < 0 {
		d = 0
	}
	return d, front
}
