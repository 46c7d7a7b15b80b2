package refrender

import "math"

// A small float64 linear-algebra kit. Matrices are row-major (m[row][col])
// and multiply column vectors on the right, as in the textbook definitions
// of gluLookAt and gluPerspective this file follows; nothing here follows
// mathgl's (column-major) or linmath's layout, so a layout mistake in either
// cannot be repeated here.

type vec3 [3]float64

type vec4 [4]float64

type mat4 [4][4]float64

func (a vec3) sub(b vec3) vec3 { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func (a vec3) dot(b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func (a vec3) cross(b vec3) vec3 {
	return vec3{
		a[1]*b[2] - a[2]*b[1],
		a[2]*b[0] - a[0]*b[2],
		a[0]*b[1] - a[1]*b[0],
	}
}

func (a vec3) length() float64 { return math.Sqrt(a.dot(a)) }

func (a vec3) scale(k float64) vec3 { return vec3{a[0] * k, a[1] * k, a[2] * k} }

func identity() mat4 {
	return mat4{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
}

// mul returns a·b.
func (a mat4) mul(b mat4) mat4 {
	var r mat4
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[i][k] * b[k][j]
			}
			r[i][j] = s
		}
	}
	return r
}

// apply returns m·v.
func (m mat4) apply(v vec4) vec4 {
	var r vec4
	for i := 0; i < 4; i++ {
		r[i] = m[i][0]*v[0] + m[i][1]*v[1] + m[i][2]*v[2] + m[i][3]*v[3]
	}
	return r
}

// lookAt is gluLookAt: the camera at eye looks towards centre with up
// roughly up; eye space is right-handed with the camera looking down −z.
func lookAt(eye, centre, up vec3) mat4 {
	f := centre.sub(eye)
	f = f.scale(1 / f.length())
	s := f.cross(up)
	s = s.scale(1 / s.length())
	u := s.cross(f)
	rot := mat4{
		{s[0], s[1], s[2], 0},
		{u[0], u[1], u[2], 0},
		{-f[0], -f[1], -f[2], 0},
		{0, 0, 0, 1},
	}
	tr := identity()
	tr[0][3], tr[1][3], tr[2][3] = -eye[0], -eye[1], -eye[2]
	return rot.mul(tr)
}

// perspective is gluPerspective: vertical field of view fovY (radians),
// OpenGL clip space (z from −w at the near plane to +w at the far plane).
func perspective(fovY, aspect, near, far float64) mat4 {
	f := 1 / math.Tan(fovY/2)
	return mat4{
		{f / aspect, 0, 0, 0},
		{0, f, 0, 0},
		{0, 0, (far + near) / (near - far), 2 * far * near / (near - far)},
		{0, 0, -1, 0},
	}
}

// rotateY is the right-handed rotation by angle (radians) about +y: it
// turns +z towards +x, i.e. counter-clockwise seen from above (from +y).
func rotateY(angle float64) mat4 {
	s, c := math.Sincos(angle)
	return mat4{
		{c, 0, s, 0},
		{0, 1, 0, 0},
		{-s, 0, c, 0},
		{0, 0, 0, 1},
	}
}
