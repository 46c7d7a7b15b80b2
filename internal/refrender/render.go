// Package refrender is an independent reference rasteriser of vkcube's
// scene, used to make the golden images the simulated GPU is compared with
// (testdata/golden), and of flat triangles (Flat, flat.go), which vccube
// -selftest compares its geometry probes with.
//
// Independent means it shares no code with the path under test: it does not
// import mathgl, math/scene, texture/ or sim/. It restates vkcube's
// constants with their source (vkcube.go), does its own float64 geometry
// (linalg.go) and follows vkcube's Vulkan pipeline literally:
//
//   - projection with aspect 1 and proj[1][1] negated, drawn into a square
//     viewport of side min(width, height) centred in the frame (cube.c
//     demo_init, demo_draw_build_cmd), Vulkan's viewport transform with
//     framebuffer y pointing down and depth = NDC z;
//   - back faces culled, counter-clockwise front faces (Vulkan's rule:
//     positive area in framebuffer coordinates), depth test LESS_OR_EQUAL
//     against a depth buffer cleared to 1.0 (cube.c demo_prepare_pipeline);
//   - coverage sampled at pixel centres (x+0.5, y+0.5) with vertex positions
//     snapped to 1/256 pixel (8 sub-pixel bits, the usual Vulkan
//     subPixelPrecisionBits) and the top-left fill rule, exactly, in
//     integers;
//   - perspective-correct interpolation of the texture coordinates and of
//     the clip-space position cube.vert passes to cube.frag;
//   - cube.frag's lighting per 2×2 pixel quad: dFdx/dFdy of the interpolated
//     clip-space position as differences between the quad's pixels
//     (helper pixels outside the triangle included), light =
//     max(0, dot(L, normalize(cross(dFdx, dFdy))));
//   - NEAREST sampling with CLAMP_TO_EDGE of an R8G8B8A8_SRGB texture whose
//     row 0 is the image's top row, colour = linearToSrgb(light · texel)
//     stored as UNORM, clear colour 0.2 → 51.
//
// For landscape frames (width ≥ height) this is the same picture as
// vccube's full-frame viewport with aspect width/height; for portrait frames
// vkcube's square viewport makes the cube smaller than vccube's.
package refrender

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
)

// MaxSize is the largest width or height Render accepts. The VideoCore IV
// cannot render wider or taller than 2048 pixels (12.4 fixed-point screen
// coordinates), so golden images never need more.
const MaxSize = 4096

// subpixelBits is the sub-pixel precision vertex positions are snapped to.
const subpixelBits = 8

// Options says what to render.
type Options struct {
	// Width and Height are the frame size in pixels, 1..MaxSize.
	Width, Height int
	// Frame is the frame number k: the cube is turned about +y by 4k
	// degrees. Negative numbers turn it the other way.
	Frame int
	// Texture is the picture on every face; its first row (Bounds().Min.Y)
	// is the top row, as image decoders return it. Colours are read as
	// non-premultiplied 8-bit sRGB values; alpha is ignored.
	Texture image.Image

	// variant changes the renderer's precision or behaviour, for the
	// package's own tests only (see variant).
	variant variant
}

// variant lists deliberate departures from vkcube's arithmetic. Tests use
// them to measure how far apart two correct renderers of different
// precision are, and how far a buggy one is, to justify imgcmp.Default.
// The zero value is vkcube.
type variant struct {
	// subpixelBits, if not 0, replaces the 8 sub-pixel bits vertices are
	// snapped to (the VideoCore IV uses 4: 12.4 fixed point).
	subpixelBits int
	// affine8 computes the colour the way a QPU fragment shader can with
	// per-byte multiplies: srgb(l·lin(c)) ≈ k·c − 0.055·(1−k) with
	// k = l^(1/2.4), k and the bias rounded to 8 bits.
	affine8 bool
	// lightScale, if not 0, multiplies every light value (a wrong light).
	lightScale float64
	// lightAspect, if not 0, computes the light from a clip space whose x
	// is divided by this aspect ratio (vccube's clip space instead of
	// vkcube's).
	lightAspect float64
	// noSRGB multiplies the stored texel bytes by the light directly,
	// leaving out the sRGB decode and encode.
	noSRGB bool
}

// FaceStats describes what Render drew of one cube face.
type FaceStats struct {
	// Fragments is the number of pixels of the face that passed the depth
	// test and were written.
	Fragments int
	// MinLight and MaxLight are the smallest and largest light value
	// cube.frag's formula gave on those pixels; both are 0 if Fragments is 0.
	MinLight, MaxLight float64
}

// Output is a rendered frame.
type Output struct {
	// Image is the frame, top row first, alpha 255 everywhere.
	Image *image.RGBA
	// Faces has one entry per face in vkcube's order: −X, −Z, −Y, +Y, +X, +Z.
	Faces [numFaces]FaceStats
}

// FaceNames are the names of the faces in the order of Output.Faces.
var FaceNames = [numFaces]string{"-X", "-Z", "-Y", "+Y", "+X", "+Z"}

// vertex is one cube vertex after vkcube's vertex shader and viewport
// transform.
type vertex struct {
	fx, fy float64 // framebuffer position in pixels, y down
	sx, sy int64   // the same, snapped to 1/2^subpixelBits pixel
	depth  float64 // framebuffer depth (= NDC z, vkcube's viewport depth range is [0,1])
	invW   float64 // 1/w_clip, for perspective-correct interpolation
	clip   vec3    // gl_Position.xyz, cube.vert's frag_pos
	u, v   float64 // texture coordinate, vkcube's convention
}

// transform computes vkcube's MVP for frame k: projection · view · model,
// with model = R(4°)^k = R(4k°) (cube.c demo_update_data_buffer multiplies
// the model matrix by a 4° rotation about y once per frame; rotations about
// one axis add up, so frame k is a pure function of k).
func transform(frame int) mat4 {
	proj := perspective(fovYDegrees*math.Pi/180, projAspect, nearPlane, farPlane)
	proj[1][1] = -proj[1][1] // cube.c: "Flip projection matrix from GL to Vulkan orientation."
	view := lookAt(eye, centre, up)
	// Reduce the angle in integers first so that large frame numbers keep
	// full precision.
	deg := math.Mod(float64(frame)*spinDegreesPerFrame, 360)
	model := rotateY(deg * math.Pi / 180)
	return proj.mul(view).mul(model)
}

// viewport returns vkcube's viewport for a width×height frame: a centred
// square of side min(width, height) (cube.c demo_draw_build_cmd).
func viewport(width, height int) (x0, y0, side float64) {
	w, h := float64(width), float64(height)
	if w < h {
		return 0, (h - w) / 2, w
	}
	return (w - h) / 2, 0, h
}

// shadeVertices runs vkcube's vertex stage for every cube vertex.
func shadeVertices(width, height, frame int, va variant) ([36]vertex, error) {
	var out [36]vertex
	mvp := transform(frame)
	x0, y0, side := viewport(width, height)
	for i, p := range cubePositions {
		c := mvp.apply(vec4{p[0], p[1], p[2], 1})
		// Vulkan's clip volume is −w ≤ x,y ≤ w, 0 ≤ z ≤ w. vkcube's cube is
		// always well inside it; this renderer does not clip, so it refuses
		// anything else instead of drawing it wrongly.
		if !(c[3] > 0) || math.Abs(c[0]) > c[3] || math.Abs(c[1]) > c[3] || c[2] < 0 || c[2] > c[3] {
			return out, fmt.Errorf("refrender: vertex %d of frame %d leaves the view volume (clip %v); this renderer does not clip", i, frame, c)
		}
		ndcX, ndcY, ndcZ := c[0]/c[3], c[1]/c[3], c[2]/c[3]
		fx := x0 + side/2 + ndcX*side/2
		fy := y0 + side/2 + ndcY*side/2
		// Snap to the sub-pixel grid, then express in 1/256 pixel.
		grid := float64(int64(1) << va.subpixelBits)
		if va.subpixelBits == 0 {
			grid = 1 << subpixelBits
		}
		unit := (1 << subpixelBits) / grid
		clip := vec3{c[0], c[1], c[2]}
		if va.lightAspect != 0 {
			clip[0] /= va.lightAspect
		}
		out[i] = vertex{
			fx: fx, fy: fy,
			sx:    int64(math.Round(fx*grid) * unit),
			sy:    int64(math.Round(fy*grid) * unit),
			depth: ndcZ,
			invW:  1 / c[3],
			clip:  clip,
			u:     cubeUVs[i][0], v: cubeUVs[i][1],
		}
	}
	return out, nil
}

// WindowPositions returns where vkcube puts the 36 cube vertices of frame k
// in a width×height framebuffer, in pixels with y pointing down (before
// sub-pixel snapping). Tests of the scene package use it as an independent
// check of their geometry.
func WindowPositions(width, height, frame int) ([36][2]float64, error) {
	var pos [36][2]float64
	if err := checkSize(width, height); err != nil {
		return pos, err
	}
	vs, err := shadeVertices(width, height, frame, variant{})
	if err != nil {
		return pos, err
	}
	for i, v := range vs {
		pos[i] = [2]float64{v.fx, v.fy}
	}
	return pos, nil
}

func checkSize(width, height int) error {
	if width < 1 || height < 1 || width > MaxSize || height > MaxSize {
		return fmt.Errorf("refrender: frame size %d×%d is out of range; use 1..%d pixels each way", width, height, MaxSize)
	}
	return nil
}

// texture is the input picture as bytes, top row first.
type texture struct {
	w, h int
	rgb  []uint8 // 3 bytes per texel
}

func loadTexture(img image.Image) (texture, error) {
	if img == nil {
		return texture{}, errors.New("refrender: no texture given")
	}
	b := img.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 {
		return texture{}, fmt.Errorf("refrender: the texture is empty (%d×%d)", b.Dx(), b.Dy())
	}
	if b.Dx() > MaxSize || b.Dy() > MaxSize {
		return texture{}, fmt.Errorf("refrender: the texture is %d×%d; at most %d pixels each way", b.Dx(), b.Dy(), MaxSize)
	}
	t := texture{w: b.Dx(), h: b.Dy(), rgb: make([]uint8, 3*b.Dx()*b.Dy())}
	for y := 0; y < t.h; y++ {
		for x := 0; x < t.w; x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			i := 3 * (y*t.w + x)
			t.rgb[i], t.rgb[i+1], t.rgb[i+2] = c.R, c.G, c.B
		}
	}
	return t, nil
}

// texel is NEAREST sampling with CLAMP_TO_EDGE at (u, v): texel
// (floor(u·w), floor(v·h)), each index clamped to the image (Vulkan spec,
// "Texel Coordinate Systems" and "Wrapping Operation").
func (t *texture) texel(u, v float64) []uint8 {
	i := clampIndex(math.Floor(u*float64(t.w)), t.w)
	j := clampIndex(math.Floor(v*float64(t.h)), t.h)
	k := 3 * (j*t.w + i)
	return t.rgb[k : k+3]
}

func clampIndex(f float64, n int) int {
	if !(f > 0) {
		return 0
	}
	if f >= float64(n-1) {
		return n - 1
	}
	return int(f)
}

// Render draws frame o.Frame of vkcube's cube into a new o.Width×o.Height
// image.
func Render(o Options) (*Output, error) {
	if err := checkSize(o.Width, o.Height); err != nil {
		return nil, err
	}
	tex, err := loadTexture(o.Texture)
	if err != nil {
		return nil, err
	}
	verts, err := shadeVertices(o.Width, o.Height, o.Frame, o.variant)
	if err != nil {
		return nil, err
	}
	r := rasteriser{
		w: o.Width, h: o.Height,
		img:   image.NewRGBA(image.Rect(0, 0, o.Width, o.Height)),
		depth: make([]float64, o.Width*o.Height),
		tex:   &tex,
		out:   &Output{},
		va:    o.variant,
	}
	r.out.Image = r.img
	clear := unorm8(clearGrey)
	for i := 0; i < len(r.img.Pix); i += 4 {
		r.img.Pix[i], r.img.Pix[i+1], r.img.Pix[i+2], r.img.Pix[i+3] = clear, clear, clear, 255
	}
	for i := range r.depth {
		r.depth[i] = 1.0
	}
	for t := 0; t < 12; t++ {
		r.triangle(t/2, verts[3*t], verts[3*t+1], verts[3*t+2])
	}
	return r.out, nil
}

type rasteriser struct {
	w, h  int
	img   *image.RGBA
	depth []float64
	tex   *texture
	out   *Output
	va    variant
}

// edge is the edge function of the directed edge a→b at the sub-pixel point
// (px, py): positive on the side the triangle's interior lies when the
// triangle's area (below) is positive.
func edge(a, b *vertex, px, py int64) int64 {
	return (b.sx-a.sx)*(py-a.sy) - (b.sy-a.sy)*(px-a.sx)
}

// topLeft reports whether the directed edge a→b of a triangle with positive
// area (clockwise on screen, since y points down) is a top edge
// (horizontal, interior below it: it runs towards +x) or a left edge (it
// runs upwards, towards −y). Pixel centres exactly on such an edge are
// covered; on the other edges they are not, so two triangles sharing an
// edge never both cover a pixel and never both miss it.
func topLeft(a, b *vertex) bool {
	dx, dy := b.sx-a.sx, b.sy-a.sy
	return dy < 0 || (dy == 0 && dx > 0)
}

func (r *rasteriser) triangle(face int, v0, v1, v2 vertex) {
	// Twice the signed area in framebuffer coordinates (y down). Vulkan's
	// area is a = −½·Σ(x_i·y_{i+1} − x_{i+1}·y_i) = −area2/2, and with
	// VK_FRONT_FACE_COUNTER_CLOCKWISE a triangle is front-facing when a > 0
	// (Vulkan spec, "Basic Polygon Rasterization"); vkcube culls back faces.
	area2 := (v1.sx-v0.sx)*(v2.sy-v0.sy) - (v2.sx-v0.sx)*(v1.sy-v0.sy)
	if area2 >= 0 {
		return // back-facing or degenerate: no fragments
	}
	// Reorder to positive area so the edge functions are positive inside.
	v1, v2 = v2, v1
	area2 = -area2
	vs := [3]*vertex{&v0, &v1, &v2}

	minX := math.Min(v0.fx, math.Min(v1.fx, v2.fx))
	maxX := math.Max(v0.fx, math.Max(v1.fx, v2.fx))
	minY := math.Min(v0.fy, math.Min(v1.fy, v2.fy))
	maxY := math.Max(v0.fy, math.Max(v1.fy, v2.fy))
	x0 := max(int(math.Floor(minX))-1, 0) &^ 1
	y0 := max(int(math.Floor(minY))-1, 0) &^ 1
	x1 := min(int(math.Ceil(maxX))+1, r.w-1)
	y1 := min(int(math.Ceil(maxY))+1, r.h-1)

	tl := [3]bool{topLeft(&v1, &v2), topLeft(&v2, &v0), topLeft(&v0, &v1)}
	inv := 1 / float64(area2)
	half := int64(1) << (subpixelBits - 1)

	// One 2×2 quad at a time, as a GPU runs fragment shaders, so that the
	// derivatives see all four pixels even where the triangle covers fewer.
	for qy := y0; qy <= y1; qy += 2 {
		for qx := x0; qx <= x1; qx += 2 {
			var covered [2][2]bool
			var lambda [2][2][3]float64
			anyCovered := false
			for j := 0; j < 2; j++ {
				for i := 0; i < 2; i++ {
					px := int64(2*(qx+i)+1) * half
					py := int64(2*(qy+j)+1) * half
					e := [3]int64{edge(&v1, &v2, px, py), edge(&v2, &v0, px, py), edge(&v0, &v1, px, py)}
					in := true
					for k := 0; k < 3; k++ {
						if e[k] < 0 || (e[k] == 0 && !tl[k]) {
							in = false
						}
						lambda[j][i][k] = float64(e[k]) * inv
					}
					if in && qx+i < r.w && qy+j < r.h {
						covered[j][i] = true
						anyCovered = true
					}
				}
			}
			if !anyCovered {
				continue
			}
			// Perspective-correct varyings at all four pixel centres.
			var pos [2][2]vec3
			var uv [2][2][2]float64
			for j := 0; j < 2; j++ {
				for i := 0; i < 2; i++ {
					var q [3]float64
					var sum float64
					for k := 0; k < 3; k++ {
						q[k] = lambda[j][i][k] * vs[k].invW
						sum += q[k]
					}
					for k := 0; k < 3; k++ {
						wk := q[k] / sum
						pos[j][i] = vec3{
							pos[j][i][0] + wk*vs[k].clip[0],
							pos[j][i][1] + wk*vs[k].clip[1],
							pos[j][i][2] + wk*vs[k].clip[2],
						}
						uv[j][i][0] += wk * vs[k].u
						uv[j][i][1] += wk * vs[k].v
					}
				}
			}
			for j := 0; j < 2; j++ {
				for i := 0; i < 2; i++ {
					if !covered[j][i] {
						continue
					}
					x, y := qx+i, qy+j
					// Depth is affine in screen space: no perspective division.
					z := lambda[j][i][0]*v0.depth + lambda[j][i][1]*v1.depth + lambda[j][i][2]*v2.depth
					idx := y*r.w + x
					if !(z <= r.depth[idx]) { // LESS_OR_EQUAL
						continue
					}
					r.depth[idx] = z
					// Fine derivatives: the difference along this pixel's row
					// of the quad for x, along its column for y (+y is down).
					dX := pos[j][1].sub(pos[j][0])
					dY := pos[1][i].sub(pos[0][i])
					light := 0.0
					if n := dX.cross(dY); n.length() > 0 {
						light = math.Max(0, lightDir.dot(n.scale(1/n.length())))
					}
					if r.va.lightScale != 0 {
						light *= r.va.lightScale
					}
					t := r.tex.texel(uv[j][i][0], uv[j][i][1])
					p := r.img.Pix[r.img.PixOffset(x, y):]
					for c := 0; c < 3; c++ {
						p[c] = r.va.shade(t[c], light)
					}
					p[3] = 255
					fs := &r.out.Faces[face]
					if fs.Fragments == 0 || light < fs.MinLight {
						fs.MinLight = light
					}
					if fs.Fragments == 0 || light > fs.MaxLight {
						fs.MaxLight = light
					}
					fs.Fragments++
				}
			}
		}
	}
}
