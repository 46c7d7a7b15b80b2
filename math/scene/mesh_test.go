package scene

import (
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// outward is each face's outward normal, written from the face names.
var outward = [NumFaces]mgl32.Vec3{
	FaceNegX: {-1, 0, 0}, FaceNegZ: {0, 0, -1}, FaceNegY: {0, -1, 0},
	FacePosY: {0, 1, 0}, FacePosX: {1, 0, 0}, FacePosZ: {0, 0, 1},
}

func TestFaceNames(t *testing.T) {
	want := []string{"-X", "-Z", "-Y", "+Y", "+X", "+Z"}
	for i, w := range want {
		if got := Face(i).String(); got != w {
			t.Errorf("Face(%d) = %q, want %q", i, got, w)
		}
	}
	if Face(6).String() != "Face(?)" {
		t.Errorf("Face(6) = %q", Face(6).String())
	}
}

// TestMeshSpotValues checks entries copied by hand from cube.c
// (g_vertex_buffer_data, g_uv_buffer_data) and the T = 1 − v conversion.
func TestMeshSpotValues(t *testing.T) {
	v := Vertices()
	for _, tc := range []struct {
		i    int
		pos  mgl32.Vec3
		u, w float32 // vkcube's (u, v)
	}{
		{0, mgl32.Vec3{-1, -1, -1}, 0, 1}, // first line of the −X side
		{7, mgl32.Vec3{1, 1, -1}, 0, 0},   // −Z side, second vertex
		{20, mgl32.Vec3{1, 1, 1}, 0, 1},   // +Y side, third vertex
		{28, mgl32.Vec3{1, -1, -1}, 1, 1}, // +X side, fifth vertex
		{30, mgl32.Vec3{-1, 1, 1}, 0, 0},  // +Z side, first vertex
		{35, mgl32.Vec3{1, 1, 1}, 1, 0},   // the last vertex
	} {
		if v[tc.i].Position != tc.pos || v[tc.i].S != tc.u || v[tc.i].T != 1-tc.w {
			t.Errorf("vertex %d = %+v, want position %v, S %v, T %v", tc.i, v[tc.i], tc.pos, tc.u, 1-tc.w)
		}
	}
}

// TestMeshFaces checks that every face's six vertices lie on its plane and
// that both triangles are counter-clockwise seen from outside.
func TestMeshFaces(t *testing.T) {
	v := Vertices()
	for f := Face(0); f < NumFaces; f++ {
		n := outward[f]
		for j := 0; j < VerticesPerFace; j++ {
			if d := v[f.FirstVertex()+j].Position.Dot(n); d != 1 {
				t.Errorf("face %v vertex %d is off the face plane (dot %v)", f, j, d)
			}
		}
		for tri := 0; tri < 2; tri++ {
			i := f.FirstVertex() + 3*tri
			p0, p1, p2 := v[i].Position, v[i+1].Position, v[i+2].Position
			if c := p1.Sub(p0).Cross(p2.Sub(p0)); c.Dot(n) <= 0 {
				t.Errorf("face %v triangle %d is not counter-clockwise seen from outside", f, tri)
			}
		}
	}
}

// TestTexturePlacement checks that the picture is upright and unmirrored on
// the four side faces: seen from outside with +y up, S grows to the right
// and T (GL convention: 1 at the picture's top) grows upwards, both over
// the whole face. On the top face vkcube's mapping is turned by a quarter
// turn, but not mirrored. vkcube's bottom face (−Y) does carry a mirrored
// picture (its (u, v) are the transpose of a turn), but the camera is above
// the cube and never sees it (TestBottomNeverSeen); we keep vkcube's data.
func TestTexturePlacement(t *testing.T) {
	// right is the direction that is "right" when the face is seen from
	// outside with +y up (for ±Y, with −z resp. +z up).
	right := [NumFaces]mgl32.Vec3{
		FaceNegX: {0, 0, 1}, FaceNegZ: {-1, 0, 0}, FaceNegY: {1, 0, 0},
		FacePosY: {1, 0, 0}, FacePosX: {0, 0, -1}, FacePosZ: {1, 0, 0},
	}
	v := Vertices()
	for f := Face(0); f < NumFaces; f++ {
		r := right[f]
		upDir := outward[f].Cross(r) // so that right × up = outward
		for j := 0; j < VerticesPerFace; j++ {
			vx := v[f.FirstVertex()+j]
			x := (vx.Position.Dot(r) + 1) / 2 // 0 at the left edge, 1 at the right
			y := (vx.Position.Dot(upDir) + 1) / 2
			switch f {
			case FaceNegX, FaceNegZ, FacePosX, FacePosZ:
				if vx.S != x || vx.T != y {
					t.Errorf("face %v vertex %d: (S,T) = (%v,%v), want (%v,%v) for an upright picture", f, j, vx.S, vx.T, x, y)
				}
			}
		}
		// Orientation: the map from (x, y) on the face to (S, T) must keep
		// its handedness. Use the first triangle's three corners.
		i := f.FirstVertex()
		var dx, dy, ds, dt [2]float32
		for k := 0; k < 2; k++ {
			a, b := v[i], v[i+k+1]
			dx[k] = b.Position.Sub(a.Position).Dot(r)
			dy[k] = b.Position.Sub(a.Position).Dot(upDir)
			ds[k] = b.S - a.S
			dt[k] = b.T - a.T
		}
		geo := dx[0]*dy[1] - dx[1]*dy[0]
		tex := ds[0]*dt[1] - ds[1]*dt[0]
		if mirrored := geo*tex <= 0; mirrored != (f == FaceNegY) {
			t.Errorf("face %v: mirrored = %v, want %v (area signs %v, %v)", f, mirrored, f == FaceNegY, geo, tex)
		}
	}
}
