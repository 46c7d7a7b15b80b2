package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/vccube/vccube/internal/refrender"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestViewProjection800x600 checks Projection·View against values worked
// out by hand, following the derivation of the post "vc4: cube demo –
// 'from scratch'" (2023-07-04; the 800×600 projection and view matrices;
// doc/hardware.md#public-write-ups):
//
//	a = cot(22.5°) = 1+√2 = 2.414214, a/aspect = 1.810660
//	e = 3/√34 = 0.514496, g = 5/√34 = 0.857493, |eye| = √34 = 5.830952
//	view rows: (1,0,0,0) (0,g,−e,0) (0,e,g,−√34) (0,0,0,1)
//	A = −(f+n)/(f−n) = −1.002002, B = −2fn/(f−n) = −0.200200
//	VP rows: (a/aspect,0,0,0) (0,a·g,−a·e,0) (0,A·e,A·g,−A·√34+B) (0,−e,−g,√34)
func TestViewProjection800x600(t *testing.T) {
	s, err := New(800, 600)
	if err != nil {
		t.Fatal(err)
	}
	want := [4][4]float64{
		{1.810660, 0, 0, 0},
		{0, 2.070171, -1.242090, 0},
		{0, -0.515526, -0.859210, 5.642425},
		{0, -0.514496, -0.857493, 5.830952},
	}
	vp := s.Projection().Mul4(s.View())
	var f Frame
	s.Update(&f, 0)
	for r := 0; r < 4; r++ {
		for c := 0; c < 4; c++ {
			if got := float64(vp.At(r, c)); !near(got, want[r][c], 2e-5) {
				t.Errorf("VP[%d][%d] = %.6f, want %.6f", r, c, got, want[r][c])
			}
			if got := float64(f.MVP.At(r, c)); !near(got, want[r][c], 2e-5) {
				t.Errorf("frame 0 MVP[%d][%d] = %.6f, want %.6f (model must be the identity)", r, c, got, want[r][c])
			}
		}
	}
	// Column-major storage: element (row 1, col 2) is at index 2*4+1.
	if f.MVP[9] != f.MVP.At(1, 2) || !near(float64(f.MVP[9]), -1.242090, 2e-5) {
		t.Errorf("MVP is not column-major: MVP[9] = %v", f.MVP[9])
	}
}

// TestModelRotation checks frame 1's model matrix against linmath's
// mat4x4_rotate_Y R for 4°, whose columns are (c,0,−s,0), (0,1,0,0),
// (s,0,c,0), (0,0,0,1) (cube/linmath.h; linmath stores M[column][row]).
func TestModelRotation(t *testing.T) {
	s, _ := New(640, 480)
	var f Frame
	s.Update(&f, 1)
	c, sn := math.Cos(4*math.Pi/180), math.Sin(4*math.Pi/180)
	want := [4][4]float64{ // [row][col]
		{c, 0, sn, 0},
		{0, 1, 0, 0},
		{-sn, 0, c, 0},
		{0, 0, 0, 1},
	}
	for r := 0; r < 4; r++ {
		for col := 0; col < 4; col++ {
			if got := float64(f.Model.At(r, col)); !near(got, want[r][col], 1e-6) {
				t.Errorf("Model[%d][%d] = %v, want %v", r, col, got, want[r][col])
			}
		}
	}
}

func TestAngleForFrame(t *testing.T) {
	for _, tc := range []struct {
		k    int
		want float32
	}{
		{0, 0}, {1, 4}, {10, 40}, {45, 180}, {89, 356}, {90, 0}, {91, 4},
		{-1, 356}, {-90, 0}, {1000000000, 40}, // 10⁹ = 90·11111111 + 10
	} {
		if got := AngleForFrame(tc.k); got != tc.want {
			t.Errorf("AngleForFrame(%d) = %v, want %v", tc.k, got, tc.want)
		}
	}
	// A frame is a pure function of k: frame 91 equals frame 1.
	s, _ := New(800, 600)
	var a, b Frame
	s.Update(&a, 1)
	s.Update(&b, 91)
	if a.MVP != b.MVP || a.Light != b.Light {
		t.Errorf("frame 91 differs from frame 1")
	}
}

// TestTurnsLikeVkcube follows the top-right-front corner (1,1,1) of the
// +Z face from frame 0 to frame 1 at 800×600. The positions were worked out
// with vkcube's own arithmetic (linmath column-major products, model =
// model·R(4°), proj[1][1] negated, Vulkan viewport y down, here with aspect
// 4/3 which lands on the same pixels as vkcube's square viewport): the
// corner moves right and up, i.e. the front face turns to the right —
// counter-clockwise seen from above.
func TestTurnsLikeVkcube(t *testing.T) {
	s, _ := New(800, 600)
	corner := -1
	for i, v := range Vertices() {
		if v.Position == (mgl32.Vec3{1, 1, 1}) {
			corner = i
			break
		}
	}
	want := [][2]float64{{562.4288, 244.2874}, {570.9897, 239.0998}}
	var f Frame
	for k, w := range want {
		s.Update(&f, k)
		got := s.Viewport().Window(f.Clip[corner])
		if !near(float64(got[0]), w[0], 0.01) || !near(float64(got[1]), w[1], 0.01) {
			t.Errorf("frame %d: corner (1,1,1) at (%.4f, %.4f), want (%.4f, %.4f)", k, got[0], got[1], w[0], w[1])
		}
	}
}

// TestGeometryMatchesReference compares every vertex's window position with
// the independent reference renderer, which draws vkcube's way (aspect 1,
// square viewport, Vulkan y flip) in float64.
func TestGeometryMatchesReference(t *testing.T) {
	for _, size := range [][2]int{{800, 600}, {1280, 720}, {600, 600}, {1920, 1080}} {
		s, _ := New(size[0], size[1])
		var f Frame
		for _, k := range []int{0, 1, 10, 20, 30, 45, 77} {
			ref, err := refrender.WindowPositions(size[0], size[1], k)
			if err != nil {
				t.Fatal(err)
			}
			s.Update(&f, k)
			for i := range f.Clip {
				got := s.Viewport().Window(f.Clip[i])
				if !near(float64(got[0]), ref[i][0], 0.01) || !near(float64(got[1]), ref[i][1], 0.01) {
					t.Errorf("%dx%d frame %d vertex %d at (%.3f, %.3f), reference (%.3f, %.3f)",
						size[0], size[1], k, i, got[0], got[1], ref[i][0], ref[i][1])
				}
				if got[2] <= 0 || got[2] >= 1 {
					t.Errorf("%dx%d frame %d vertex %d depth %v outside (0, 1)", size[0], size[1], k, i, got[2])
				}
			}
		}
	}
}

// TestLightFrame0 checks the two visible faces of frame 0 against closed
// forms. In vkcube's clip space the linear part of the transform is
// diag(a, −a, A)·(view rotation), with a, A, e, g as in
// TestViewProjection800x600. The top face's tangents +x and −z become
// T1 = (a,0,0), T2 = (0, −a·e, −A·g); cross = (0, a·A·g, −a²·e). On the
// screen +x is right and −z is up, an orientation with negative area, so
// light = −dot(L, cross)/|cross| = −(0.566·A·g − 0.707·a·e)/√(A²g²+a²e²)
// = 0.903438. The front face's tangents +x and +y give cross =
// (0, −a·A·e, −a²·g), again right/up on the screen, so light =
// −(−0.566·A·e − 0.707·a·g)/√(A²e²+a²g²) = 0.549276.
func TestLightFrame0(t *testing.T) {
	s, _ := New(800, 600)
	var f Frame
	s.Update(&f, 0)
	want := map[Face]float64{FacePosY: 0.903438, FacePosZ: 0.549276}
	for face := Face(0); face < NumFaces; face++ {
		w, visible := want[face]
		if f.FrontFacing[face] != visible {
			t.Errorf("frame 0: face %v front-facing = %v, want %v", face, f.FrontFacing[face], visible)
		}
		if visible && !near(float64(f.Light[face]), w, 2e-5) {
			t.Errorf("frame 0: face %v light %.6f, want %.6f", face, f.Light[face], w)
		}
	}
}

// TestLightMatchesReference compares the per-face light with what the
// reference renderer's per-quad finite differences give on every drawn
// pixel, for a whole turn of the cube, and the front-facing flags with the
// faces it drew. The light must not depend on the frame's aspect ratio.
//
// Faces of fewer than 100 pixels are left out of the light comparison: a
// face that is almost edge-on has a horizon line right next to it on the
// screen, so the helper pixels of its quads extrapolate the clip position
// across the plane's vanishing line and dFdx/dFdy lose their meaning. The
// reference renderer shows that noise (as vkcube on a real GPU would) on
// such slivers, e.g. 20 pixels of the −X face at frame 3 at 160×120.
func TestLightMatchesReference(t *testing.T) {
	tex, err := refrender.ReadTextureFile("../../texture/testdata/default-texture.png")
	if err != nil {
		t.Skipf("default texture not available: %v", err)
	}
	wide, _ := New(1280, 720)
	for _, size := range [][2]int{{160, 120}, {192, 108}} {
		s, _ := New(size[0], size[1])
		var f, fw Frame
		for k := 0; k < 90; k++ {
			out, err := refrender.Render(refrender.Options{Width: size[0], Height: size[1], Frame: k, Texture: tex})
			if err != nil {
				t.Fatal(err)
			}
			s.Update(&f, k)
			wide.Update(&fw, k)
			for face := 0; face < NumFaces; face++ {
				st := out.Faces[face]
				if drawn := st.Fragments > 0; drawn && !f.FrontFacing[face] {
					t.Errorf("%v frame %d: reference drew face %v, scene says it faces away", size, k, Face(face))
				}
				if st.Fragments >= 100 {
					if l := float64(f.Light[face]); !near(l, st.MinLight, 1e-4) || !near(l, st.MaxLight, 1e-4) {
						t.Errorf("%v frame %d face %v: light %.6f, reference %.6f..%.6f (%d px)", size, k, Face(face), l, st.MinLight, st.MaxLight, st.Fragments)
					}
				}
				if !near(float64(f.Light[face]), float64(fw.Light[face]), 1e-5) || f.FrontFacing[face] != fw.FrontFacing[face] {
					t.Errorf("frame %d face %v: light %v at %v but %v at 1280x720", k, Face(face), f.Light[face], size, fw.Light[face])
				}
			}
		}
	}
}

// TestFrontFaceWinding checks the claim behind ClockwiseBit: the +Z face's
// first triangle, corners top-left (−1,1,1), bottom-left (−1,−1,1) and
// top-right (1,1,1) as the camera sees them, runs counter-clockwise on the
// screen, so its window-space area is negative.
// TestBottomNeverSeen: the camera is above the cube, so the bottom face
// faces away in every frame and its mirrored picture never shows.
func TestBottomNeverSeen(t *testing.T) {
	s, _ := New(800, 600)
	var f Frame
	for k := 0; k < 90; k++ {
		s.Update(&f, k)
		if f.FrontFacing[FaceNegY] || !f.FrontFacing[FacePosY] {
			t.Errorf("frame %d: front-facing %v; want +Y always and -Y never", k, f.FrontFacing)
		}
	}
}

func TestFrontFaceWinding(t *testing.T) {
	s, _ := New(800, 600)
	var f Frame
	s.Update(&f, 0)
	i := FacePosZ.FirstVertex()
	v := Vertices()
	if v[i].Position != (mgl32.Vec3{-1, 1, 1}) || v[i+1].Position != (mgl32.Vec3{-1, -1, 1}) || v[i+2].Position != (mgl32.Vec3{1, 1, 1}) {
		t.Fatalf("+Z face's first triangle is not vkcube's")
	}
	vp := s.Viewport()
	tl, bl, tr := vp.Window(f.Clip[i]), vp.Window(f.Clip[i+1]), vp.Window(f.Clip[i+2])
	if !(tl[0] < tr[0] && tl[1] < bl[1]) {
		t.Fatalf("picture not upright: top-left %v bottom-left %v top-right %v", tl, bl, tr)
	}
	if a := SignedArea(tl.Vec2(), bl.Vec2(), tr.Vec2()); !(a < 0) {
		t.Errorf("SignedArea = %v, want < 0 for a counter-clockwise front face", a)
	}
	if !ClockwiseBit {
		t.Errorf("ClockwiseBit must be set for counter-clockwise front faces on a y-down screen (Mesa vc4_create_rasterizer_state)")
	}
}

func TestViewport(t *testing.T) {
	vp, err := NewViewport(800, 600)
	if err != nil {
		t.Fatal(err)
	}
	if vp.XScale16() != 6400 || vp.YScale16() != -4800 || vp.CentreX16() != 6400 || vp.CentreY16() != 4800 {
		t.Errorf("800x600 scales %v %v centre %v %v, want 6400 -4800 6400 4800", vp.XScale16(), vp.YScale16(), vp.CentreX16(), vp.CentreY16())
	}
	odd, _ := NewViewport(801, 601)
	if odd.CentreX16() != 6408 || odd.CentreY16() != 4808 || odd.XScale16() != 6408 {
		t.Errorf("801x601 centre %v %v, want 6408 4808 (400.5 and 300.5 pixels)", odd.CentreX16(), odd.CentreY16())
	}
	big, _ := NewViewport(MaxViewportSize, MaxViewportSize)
	if big.CentreX16() != 32760 {
		t.Errorf("largest viewport centre %v, want 32760", big.CentreX16())
	}
	for _, tc := range []struct {
		clip mgl32.Vec4
		want mgl32.Vec3
	}{
		{mgl32.Vec4{0, 0, 0, 1}, mgl32.Vec3{400, 300, 0.5}},
		{mgl32.Vec4{2, 2, 2, 2}, mgl32.Vec3{800, 0, 1}},    // clip +y is the top row
		{mgl32.Vec4{-3, -3, -3, 3}, mgl32.Vec3{0, 600, 0}}, // near plane → depth 0
		{mgl32.Vec4{0.5, -0.5, 0, 1}, mgl32.Vec3{600, 450, 0.5}},
	} {
		if got := vp.Window(tc.clip); got.Sub(tc.want).Len() > 1e-4 {
			t.Errorf("Window(%v) = %v, want %v", tc.clip, got, tc.want)
		}
	}
	for _, size := range [][2]int{{0, 600}, {800, 0}, {-1, 5}, {MaxViewportSize + 1, 600}} {
		_, err := New(size[0], size[1])
		if err == nil || !strings.Contains(err.Error(), "must be 1..4095") {
			t.Errorf("New(%d, %d) error = %v, want a size error", size[0], size[1], err)
		}
	}
}

func TestUpdateAngle(t *testing.T) {
	s, _ := New(800, 600)
	var a, b Frame
	s.Update(&a, 10)
	s.UpdateAngle(&b, 40+360*3)
	if b.AngleDegrees != 40 || a.Light != b.Light || a.FrontFacing != b.FrontFacing {
		t.Errorf("UpdateAngle(1120°) = %v°, lights %v; want 40° and frame 10's %v", b.AngleDegrees, b.Light, a.Light)
	}
	for r := 0; r < 16; r++ {
		if !near(float64(a.MVP[r]), float64(b.MVP[r]), 1e-5) {
			t.Fatalf("UpdateAngle MVP differs from frame 10's at %d", r)
		}
	}
	s.UpdateAngle(&b, -4)
	if b.AngleDegrees != 356 {
		t.Errorf("UpdateAngle(-4) angle = %v, want 356", b.AngleDegrees)
	}
}

func TestUpdateDoesNotAllocate(t *testing.T) {
	s, _ := New(1920, 1080)
	var f Frame
	k := 0
	if n := testing.AllocsPerRun(200, func() { s.Update(&f, k); k++ }); n != 0 {
		t.Errorf("Update allocates %v times per frame, want 0", n)
	}
}

// BenchmarkUpdate turns the scene frame after frame, as the render loop
// does; the turns repeat every 90 frames, so after the first turn the
// faces come from the Scene's memo.
func BenchmarkUpdate(b *testing.B) {
	s, _ := New(1920, 1080)
	var f Frame
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Update(&f, i)
	}
}

// cornerClips gives, bit for bit, what mgl32's Mul4x1 gives for each
// corner, over a full turn in vkcube's 0.2° steps and a few frame sizes.
func TestCornerClipsExact(t *testing.T) {
	for _, size := range [][2]int{{800, 600}, {1920, 1080}, {640, 480}, {333, 777}} {
		s, _ := New(size[0], size[1])
		var f Frame
		for step := 0; step < 1800; step++ {
			s.UpdateAngle(&f, float32(step)/5)
			var got [numCorners]mgl32.Vec4
			cornerClips(&f.MVP, &got)
			for c := range corners {
				if want := f.MVP.Mul4x1(corners[c]); got[c] != want {
					t.Fatalf("%v, %v°: corner %d: %v, Mul4x1 gives %v", size, f.AngleDegrees, c, got[c], want)
				}
			}
		}
	}
}

// The faces update remembers are the ones it computes: a second turn
// (memo hits) and a turn through every 0.2° step (more turns than the memo
// holds: misses and evictions) give the lights and facings a fresh Scene
// computes, bit for bit.
func TestFaceMemoExact(t *testing.T) {
	for _, size := range [][2]int{{800, 600}, {1920, 1080}} {
		s, _ := New(size[0], size[1])
		var f Frame
		check := func(degrees float32) {
			t.Helper()
			s.UpdateAngle(&f, degrees)
			var want Frame
			fresh, _ := New(size[0], size[1])
			fresh.UpdateAngle(&want, degrees)
			if f.Light != want.Light || f.FrontFacing != want.FrontFacing || f.MVP != want.MVP || f.Clip != want.Clip {
				t.Fatalf("%v, %v°: remembered faces %v %v, computed %v %v", size, degrees, f.Light, f.FrontFacing, want.Light, want.FrontFacing)
			}
		}
		for round := 0; round < 2; round++ {
			for k := 0; k < 90; k++ {
				check(AngleForFrame(k))
			}
		}
		for round := 0; round < 2; round++ {
			for step := 0; step < 1800; step++ {
				check(float32(step) / 5)
			}
		}
	}
}
