package scene

import "github.com/go-gl/mathgl/mgl32"

// Face identifies a cube face. Faces are numbered in the order vkcube lists
// them (cube.c g_vertex_buffer_data): −X, −Z, −Y, +Y, +X, +Z.
type Face uint8

// The six faces, each named by the axis its outward normal points along.
const (
	FaceNegX Face = iota
	FaceNegZ
	FaceNegY
	FacePosY
	FacePosX
	FacePosZ
)

// NumFaces is the number of cube faces.
const NumFaces = 6

// VerticesPerFace is the number of vertices of a face: two independent
// triangles, as vkcube draws them (no index buffer, no strips).
const VerticesPerFace = 6

// NumVertices is the number of vertices of the cube: 12 triangles.
const NumVertices = NumFaces * VerticesPerFace

var faceNames = [NumFaces]string{"-X", "-Z", "-Y", "+Y", "+X", "+Z"}

// String returns the face's axis name, e.g. "+Z".
func (f Face) String() string {
	if int(f) < NumFaces {
		return faceNames[f]
	}
	return "Face(?)"
}

// FirstVertex returns the index of the face's first vertex in Vertices();
// the face owns VerticesPerFace consecutive vertices from there.
func (f Face) FirstVertex() int { return int(f) * VerticesPerFace }

// Vertex is one cube vertex.
type Vertex struct {
	// Position is the object-space position; the cube spans −1..+1 on each
	// axis, centred on the origin.
	Position mgl32.Vec3
	// S and T are the texture coordinates in OpenGL's convention, the one
	// the VideoCore IV TMU uses: (0, 0) is the bottom-left corner of the
	// picture, (1, 1) the top-right.
	//
	// vkcube's coordinates (u, v) are Vulkan's: v = 0 is the picture's top
	// row, because cube.c loadTexture copies the PPM top row first into
	// the image. Our texture upload also stores the top row first (the
	// file's order) and sets FLIPY in texture config parameter 0 so the
	// TMU counts t from the other end of memory (AG Table 15 FLIPY; the
	// "alternative 2" of the post "vc4: T-format Textures", 2023-06-27,
	// doc/hardware.md#public-write-ups; the other alternative — flip the
	// image and leave FLIPY off — gives the same t). Either way t = 0 is the
	// picture's bottom row, so S = u and T = 1 − v shows every face the
	// way vkcube shows it.
	S, T float32
}

// vkcubeMesh is vkcube's geometry as cube.c declares it: position
// (g_vertex_buffer_data) and (u, v) (g_uv_buffer_data) per vertex, in
// cube.c's order. Each triangle is counter-clockwise seen from outside the
// cube.
var vkcubeMesh = [NumVertices]struct{ x, y, z, u, v float32 }{
	// −X
	{-1, -1, -1, 0, 1}, {-1, -1, 1, 1, 1}, {-1, 1, 1, 1, 0},
	{-1, 1, 1, 1, 0}, {-1, 1, -1, 0, 0}, {-1, -1, -1, 0, 1},
	// −Z
	{-1, -1, -1, 1, 1}, {1, 1, -1, 0, 0}, {1, -1, -1, 0, 1},
	{-1, -1, -1, 1, 1}, {-1, 1, -1, 1, 0}, {1, 1, -1, 0, 0},
	// −Y
	{-1, -1, -1, 1, 0}, {1, -1, -1, 1, 1}, {1, -1, 1, 0, 1},
	{-1, -1, -1, 1, 0}, {1, -1, 1, 0, 1}, {-1, -1, 1, 0, 0},
	// +Y
	{-1, 1, -1, 1, 0}, {-1, 1, 1, 0, 0}, {1, 1, 1, 0, 1},
	{-1, 1, -1, 1, 0}, {1, 1, 1, 0, 1}, {1, 1, -1, 1, 1},
	// +X
	{1, 1, -1, 1, 0}, {1, 1, 1, 0, 0}, {1, -1, 1, 0, 1},
	{1, -1, 1, 0, 1}, {1, -1, -1, 1, 1}, {1, 1, -1, 1, 0},
	// +Z
	{-1, 1, 1, 0, 0}, {-1, -1, 1, 0, 1}, {1, 1, 1, 1, 0},
	{-1, -1, 1, 0, 1}, {1, -1, 1, 1, 1}, {1, 1, 1, 1, 0},
}

var mesh = func() (m [NumVertices]Vertex) {
	for i, v := range vkcubeMesh {
		m[i] = Vertex{Position: mgl32.Vec3{v.x, v.y, v.z}, S: v.u, T: 1 - v.v}
	}
	return m
}()

// The 36 vertices use only the cube's 8 corners; Update transforms each
// corner once. Corner c has x = +1 if bit 0 of c is set, else −1; y follows
// bit 1 and z bit 2.
const numCorners = 8

var (
	cornerOf = func() (idx [NumVertices]uint8) {
		for i, v := range vkcubeMesh {
			var c uint8
			if v.x > 0 {
				c |= 1
			}
			if v.y > 0 {
				c |= 2
			}
			if v.z > 0 {
				c |= 4
			}
			idx[i] = c
		}
		return idx
	}()
	corners = func() (p [numCorners]mgl32.Vec4) {
		for c := range p {
			p[c] = mgl32.Vec4{-1, -1, -1, 1}
			for axis := 0; axis < 3; axis++ {
				if c&(1<<axis) != 0 {
					p[c][axis] = 1
				}
			}
		}
		return p
	}()
)

// Vertices returns the cube's 36 vertices in vkcube's order: face f owns
// vertices f.FirstVertex() .. f.FirstVertex()+5, two triangles
// counter-clockwise seen from outside. The array is a copy.
func Vertices() [NumVertices]Vertex { return mesh }
