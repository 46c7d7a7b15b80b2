package refrender

// The vkcube scene, restated from vkcube's own sources. Everything here is
// written down again on purpose instead of being read from math/scene: the
// reference renderer must not share code with the path it checks.
//
// Source: KhronosGroup/Vulkan-Tools, cube/cube.c (commit 697e22d5 read for
// this file), cube/cube.vert, cube/cube.frag.

// cubePositions are vkcube's 36 object-space vertex positions, 12 triangles,
// in vkcube's order: faces −X, −Z, −Y, +Y, +X, +Z, two triangles each
// (cube.c g_vertex_buffer_data). Every triangle is counter-clockwise seen
// from outside the cube in a right-handed, y-up space.
var cubePositions = [36][3]float64{
	{-1, -1, -1}, {-1, -1, 1}, {-1, 1, 1}, // −X
	{-1, 1, 1}, {-1, 1, -1}, {-1, -1, -1},
	{-1, -1, -1}, {1, 1, -1}, {1, -1, -1}, // −Z
	{-1, -1, -1}, {-1, 1, -1}, {1, 1, -1},
	{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, // −Y
	{-1, -1, -1}, {1, -1, 1}, {-1, -1, 1},
	{-1, 1, -1}, {-1, 1, 1}, {1, 1, 1}, // +Y
	{-1, 1, -1}, {1, 1, 1}, {1, 1, -1},
	{1, 1, -1}, {1, 1, 1}, {1, -1, 1}, // +X
	{1, -1, 1}, {1, -1, -1}, {1, 1, -1},
	{-1, 1, 1}, {-1, -1, 1}, {1, 1, 1}, // +Z
	{-1, -1, 1}, {1, -1, 1}, {1, 1, 1},
}

// cubeUVs are vkcube's texture coordinates for the same 36 vertices
// (cube.c g_uv_buffer_data), in Vulkan's convention: v = 0 is the first row
// of the image as the file stores it (the top row); cube.c loadTexture
// copies the PPM rows top-down into the texture.
var cubeUVs = [36][2]float64{
	{0, 1}, {1, 1}, {1, 0}, {1, 0}, {0, 0}, {0, 1}, // −X
	{1, 1}, {0, 0}, {0, 1}, {1, 1}, {1, 0}, {0, 0}, // −Z
	{1, 0}, {1, 1}, {0, 1}, {1, 0}, {0, 1}, {0, 0}, // −Y
	{1, 0}, {0, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1}, // +Y
	{1, 0}, {0, 0}, {0, 1}, {0, 1}, {1, 1}, {1, 0}, // +X
	{0, 0}, {0, 1}, {1, 0}, {0, 1}, {1, 1}, {1, 0}, // +Z
}

// Camera and pipeline constants (cube.c demo_init, demo_prepare_pipeline,
// demo_draw_build_cmd).
var (
	eye    = vec3{0, 3, 5}
	centre = vec3{0, 0, 0}
	up     = vec3{0, 1, 0}
)

const (
	fovYDegrees         = 45.0 // mat4x4_perspective(degreesToRadians(45.0f), ...)
	projAspect          = 1.0  // vkcube always passes aspect 1 and draws into a square viewport
	nearPlane           = 0.1
	farPlane            = 100.0
	spinDegreesPerFrame = 4.0 // demo->spin_angle = 4.0f, applied once per frame

	// clearGrey is vkcube's clear colour (0.2, 0.2, 0.2); the swapchain format
	// vkcube prefers is UNORM (pick_surface_format), so it is stored as
	// round(0.2·255) = 51.
	clearGrey = 0.2
)

// lightDir is cube.frag's constant light direction, in vkcube's clip space.
var lightDir = vec3{0.424, 0.566, 0.707}

// numFaces is the number of cube faces; vertex i belongs to face i/6.
const numFaces = 6
