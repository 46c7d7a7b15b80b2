// Package cuberender is vccube's renderer, the client's side of a frame
// (the simulated GPU's tile renderer is sim/gpu/render): it owns every
// buffer object the cube needs on a vc4 device (real or simulated) and
// turns a frame — the cube's turn — into one DRM_IOCTL_VC4_SUBMIT_CL,
// built without allocating.
//
// What it owns, each created once in New and freed exactly once in Close
// (also when New fails half way):
//
//   - three shader BOs with the cube's FS, VS and CS (package shaders),
//     validated by the kernel at CREATE_SHADER_BO;
//   - one vertex BO with vkcube's 36 vertices (package math/scene) as the
//     shaders' two attribute arrays, positions then texture coordinates;
//   - one texture BO: the picture converted to the layout the TMU expects
//     (T or LT by size, texture.MipPlan), top row first with FLIPY set, or
//     rows flipped with FLIPY clear (texture.FlipMode);
//   - the colour buffers, linear RGBA8888 render targets whose bytes are
//     B, G, R, A — DRM_FORMAT_XRGB8888, so KMS scans them out as they are —
//     as many as the presenter's swap chain needs.
//
// There is no depth buffer in memory. The depth test runs against the tile
// buffer's Z (early Z included), which the render list clears to ClearZ
// before the first tile and which every tile store clears again for the
// next tile ("Once each tile has been written out the Tile Buffer
// (including early-z buffer) is automatically cleared", VideoCore IV 3D
// Architecture Reference Guide, section 5, Tile Buffer). Storing Z to memory
// (zs_write) is needed only to load it back in a later job, and no frame
// of the cube reads the last one's depth: Mesa likewise asks for zs_write
// only when the depth buffer must survive the job (vc4_job.c
// vc4_job_submit stores Z only for job->resolve, which
// vc4_invalidate_resource clears when the buffer's contents are
// discarded). Leaving it out saves the TLB a 4-byte-per-pixel store per
// frame and the CMA pool a buffer the size of a colour buffer.
//
// Per frame (Build, then Submit) the renderer turns the scene, computes each
// face's light, and records six per-face draws, each with its own GL shader
// record and uniform blocks (the light is an FS uniform;
// doc/kernel.md#a-cube-submit),
// skipping faces turned away from the camera. The kernel copies the bin CL,
// shader records and uniforms into its own exec BO during the ioctl
// (vc4_gem.c vc4_get_bcl), so these per-frame streams live in ordinary
// memory that is reused for the next frame as soon as Submit returns:
// nothing the GPU reads after the ioctl is rewritten by the CPU, and no
// double-buffered uniform BO is needed. What the GPU does read later — the
// colour buffers and the static BOs — is tracked by the seqno each submit
// returns (Wait, WaitBuffer).
//
// Sources: Linux drivers/gpu/drm/vc4 (vc4_gem.c, vc4_validate.c,
// vc4_render_cl.c) and Mesa src/gallium/drivers/vc4 (vc4_draw.c,
// vc4_emit.c); the facts, with their sources, in doc/kernel.md#a-cube-submit
// and doc/hardware.md#tile-buffer-formats.
package cuberender

import (
	"errors"
	"fmt"
	"time"

	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/submit"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
	"github.com/vccube/vccube/texture/defaulttex"
	"github.com/vccube/vccube/uapi"
)

// ScanoutFormat is the KMS pixel format of the colour buffers: XRGB8888,
// whose bytes in memory are B, G, R, X (drm_fourcc.h). The renderer stores
// RGBA8888 tiles (render-config format 1) and the fragment shader writes the
// texel's bytes unchanged (doc/hardware.md#tile-buffer-formats), so the
// texture is loaded in the same B, G, R, A order (ScanoutOrder).
const ScanoutFormat = uapi.FormatXRGB8888

// ScanoutOrder is the byte order of the colour buffers and therefore of
// the texture (texture.ChannelOrder): B, G, R, A.
const ScanoutOrder = texture.OrderBGRA

// DefaultBuffers is the number of colour buffers New makes when Options
// asks for none: two, for double buffering (one on screen, one drawn).
const DefaultBuffers = 2

// MaxBuffers bounds Options.Buffers: three for triple buffering. With at
// most one page flip pending (package present), one buffer is on screen,
// one waits for its vblank and one is drawn; a fourth would never be
// used.
const MaxBuffers = 3

// DefaultWaitTimeout is how long Wait waits for a frame by default. A Pi 1
// renders a frame in milliseconds; a job still running after this long is
// a hung GPU, which the kernel resets after 100 ms of no progress
// (vc4_gem.c vc4_hangcheck_elapsed), so a longer wait would not help.
const DefaultWaitTimeout = 5 * time.Second

// Options say what to render.
type Options struct {
	// Width and Height are the frame size in pixels (the display mode's).
	// The viewport limits them to 4095 (scene.MaxViewportSize).
	Width, Height int
	// Texture is the picture on the cube's faces: top-down (row 0 is the
	// top), 4 bytes per pixel in ScanoutOrder, as imagefile.Load(path,
	// cuberender.ScanoutOrder) returns it; up to texture.MaxSize on a side.
	// The zero value selects the built-in texture (texture/defaulttex).
	Texture texture.Picture
	// Flip is how the top-down picture is made to sample upright:
	// texture.FlipByGPU (the default: FLIPY set) or texture.FlipByCPU
	// (rows flipped at upload, FLIPY clear). Both give the same image.
	Flip texture.FlipMode
	// Buffers is the number of colour buffers, 1 to MaxBuffers; 0 means
	// DefaultBuffers.
	Buffers int
	// Counters asks for the GPU's performance counters (Counters) when
	// the kernel offers them (GET_PARAM SUPPORTS_PERFMON); without kernel
	// support the renderer runs without them.
	Counters bool
	// WaitTimeout bounds Wait; 0 means DefaultWaitTimeout.
	WaitTimeout time.Duration
}

// Buffer describes one colour buffer, for the presenter (ADDFB2) and for
// capture.
type Buffer struct {
	// Handle is the BO's GEM handle on the renderer's device.
	Handle uint32
	// Width and Height are the frame size in pixels.
	Width, Height int
	// Pitch is the bytes from one row to the next: the width rounded up to
	// a whole 4-pixel micro-tile, times 4, the stride the kernel checks
	// the surface with (vc4_validate.c vc4_check_tex_size) and the TLB
	// stores with.
	Pitch int
	// Format is ScanoutFormat and Modifier DRM_FORMAT_MOD_LINEAR.
	Format   uint32
	Modifier uint64
	// Size is the buffer's size in bytes.
	Size int
}

// Renderer owns the cube's BOs on one device and builds and submits its
// frames. It is not safe for concurrent use.
type Renderer struct {
	c   uapi.Conn
	opt Options

	// The BOs, in the order New creates them (Close frees them in
	// reverse).
	fs, vs, cs *gem.BO
	vertices   *gem.BO
	tex        *gem.BO
	colour     []*gem.BO
	perfmon    *gem.Perfmon

	colourLayout texture.Layout
	texPlan      texture.MipPlan
	texP0, texP1 uint32 // the FS's texture parameters (P0 holds the offset in the texture BO)

	scene *scene.Scene
	frame scene.Frame

	// Per-frame state, reused so that Build allocates nothing.
	job       submit.Job
	prefix    bincl.Prefix
	rec       shaderrec.GL
	relocs    shaderrec.Relocs
	texIndex  [1]uint32
	vsUni     [shaders.NumVertexUniforms]uint32
	fsUni     [scene.NumFaces][shaders.NumFragmentUniforms]uint32
	lights    shaders.LightCache // the faces' FS light constants by light value
	built     int                // the buffer the job in r.job draws into, or -1
	faces     int                // faces drawn by the built job
	seqno     []uint64
	marked    []bool // the buffer holds unfinishedMark and its frame is not checked yet (lost.go)
	lastSeqno uint64
	stuck     uint64 // the first job a Wait gave up on (HangError), or 0
	wait      uapi.WaitSeqno
	closed    bool
}

// New creates the renderer's BOs on c, uploads the shaders, the cube's
// vertices and the texture, and prepares the per-frame state. On failure
// every BO made so far is closed again and the error says what failed;
// ENOMEM from the kernel carries the CMA hint of package gem.
func New(c uapi.Conn, opt Options) (*Renderer, error) {
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	sc, err := scene.New(opt.Width, opt.Height)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	r := &Renderer{c: c, opt: opt, scene: sc, built: -1}
	if err := r.create(); err != nil {
		if cerr := r.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return nil, err
	}
	return r, nil
}

func checkOptions(opt *Options) error {
	if opt.Width <= 0 || opt.Height <= 0 || opt.Width > scene.MaxViewportSize || opt.Height > scene.MaxViewportSize {
		return fmt.Errorf("render: frame size %d×%d: width and height must be 1 to %d (the viewport centre is 12.4 fixed point)",
			opt.Width, opt.Height, scene.MaxViewportSize)
	}
	if opt.Buffers == 0 {
		opt.Buffers = DefaultBuffers
	}
	if opt.Buffers < 1 || opt.Buffers > MaxBuffers {
		return fmt.Errorf("render: %d colour buffers: want 1 to %d", opt.Buffers, MaxBuffers)
	}
	if opt.WaitTimeout == 0 {
		opt.WaitTimeout = DefaultWaitTimeout
	}
	if opt.Flip != texture.FlipByGPU && opt.Flip != texture.FlipByCPU {
		return fmt.Errorf("render: unknown flip mode %d", opt.Flip)
	}
	if opt.Texture.Pix == nil {
		opt.Texture = defaulttex.Picture(ScanoutOrder)
	}
	if err := opt.Texture.Check(); err != nil {
		return fmt.Errorf("render: texture: %w", err)
	}
	if opt.Texture.Cpp != 4 {
		return fmt.Errorf("render: texture has %d bytes per pixel; want 4 (B, G, R, A)", opt.Texture.Cpp)
	}
	return nil
}

// create makes every BO; New closes what it made if it fails.
func (r *Renderer) create() error {
	var err error
	for _, s := range []struct {
		p  *shaders.Program
		bo **gem.BO
	}{{shaders.FS, &r.fs}, {shaders.VS, &r.vs}, {shaders.CS, &r.cs}} {
		if *s.bo, err = gem.NewShaderBO(r.c, s.p.Bytes()); err != nil {
			return fmt.Errorf("render: uploading the %s: %w", s.p.Name, err)
		}
	}
	if err := r.createVertices(); err != nil {
		return err
	}
	if err := r.createTexture(); err != nil {
		return err
	}
	if err := r.createTargets(); err != nil {
		return err
	}
	if r.opt.Counters {
		if err := r.createPerfmon(); err != nil {
			return err
		}
	}
	r.prepare()
	r.seqno = make([]uint64, len(r.colour))
	r.marked = make([]bool, len(r.colour))
	return nil
}

// newBO allocates a BO and maps it for the CPU.
func (r *Renderer) newBO(what string, size int) (*gem.BO, []byte, error) {
	bo, err := gem.NewBO(r.c, uint32(size))
	if err != nil {
		return nil, nil, fmt.Errorf("render: allocating the %s (%d bytes): %w", what, size, err)
	}
	mem, err := bo.Map()
	if err != nil {
		return bo, nil, fmt.Errorf("render: mapping the %s: %w", what, err)
	}
	if len(mem) < size {
		return bo, nil, fmt.Errorf("render: the %s mapping has %d bytes, want %d", what, len(mem), size)
	}
	return bo, mem, nil
}

func (r *Renderer) createTexture() error {
	pic := r.opt.Texture
	// One level: vkcube samples with NEAREST minification, which never
	// reads another level (texture.VkcubeSampler).
	plan, err := texture.NewMipPlan(texture.RGBA8888, pic.Width, pic.Height, 1)
	if err != nil {
		return fmt.Errorf("render: texture: %w", err)
	}
	r.texPlan = plan
	var mem []byte
	if r.tex, mem, err = r.newBO("texture", plan.Size()); err != nil {
		return err
	}
	pics := [1]texture.Picture{pic}
	if err := convert.Upload(&plan, mem, pics[:], r.opt.Flip.FlipsRows()); err != nil {
		return fmt.Errorf("render: texture upload: %w", err)
	}
	// The texture starts at offset 0 of its own BO, which is page
	// aligned, so P0's base is 4 KiB aligned as reloc_tex requires
	// (the kernel cannot check it: doc/kernel.md#texture-relocation).
	p0, p1, err := plan.Params(0, r.opt.Flip, texture.VkcubeSampler)
	if err != nil {
		return fmt.Errorf("render: texture parameters: %w", err)
	}
	if r.texP0, err = p0.Encode(); err != nil {
		return fmt.Errorf("render: texture P0: %w", err)
	}
	if r.texP1, err = p1.Encode(); err != nil {
		return fmt.Errorf("render: texture P1: %w", err)
	}
	return nil
}

func (r *Renderer) createTargets() error {
	var err error
	if r.colourLayout, err = texture.NewLayout(texture.Linear, 4, r.opt.Width, r.opt.Height); err != nil {
		return fmt.Errorf("render: colour buffer: %w", err)
	}
	r.colour = make([]*gem.BO, 0, r.opt.Buffers)
	for i := 0; i < r.opt.Buffers; i++ {
		bo, err := gem.NewBO(r.c, uint32(r.colourLayout.Size()))
		if err != nil {
			return fmt.Errorf("render: allocating colour buffer %d of %d (%d bytes): %w", i+1, r.opt.Buffers, r.colourLayout.Size(), err)
		}
		r.colour = append(r.colour, bo)
	}
	return nil
}

// Close waits (briefly) for the last submitted frame and frees every BO and
// the perfmon, each exactly once. Later calls do nothing.
func (r *Renderer) Close() error {
	if r == nil || r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	if r.lastSeqno != 0 && r.stuck == 0 {
		// Freeing a handle while the GPU still uses its BO is safe (the
		// job holds a reference), but waiting keeps the last frame whole
		// for whoever shows it next.
		w := uapi.WaitSeqno{Seqno: r.lastSeqno, TimeoutNs: gem.Timeout(r.opt.WaitTimeout)}
		_ = gem.WaitForSeqno(r.c, &w)
	}
	if err := r.perfmon.Close(); err != nil {
		errs = append(errs, err)
	}
	var bos []*gem.BO
	for i := len(r.colour) - 1; i >= 0; i-- {
		bos = append(bos, r.colour[i])
	}
	bos = append(bos, r.tex, r.vertices, r.cs, r.vs, r.fs)
	for _, bo := range bos {
		if err := bo.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Buffers returns the number of colour buffers.
func (r *Renderer) Buffers() int { return len(r.colour) }

// Buffer describes colour buffer i.
func (r *Renderer) Buffer(i int) Buffer {
	return Buffer{
		Handle:   r.colour[i].Handle(),
		Width:    r.opt.Width,
		Height:   r.opt.Height,
		Pitch:    r.colourLayout.Stride(),
		Format:   ScanoutFormat,
		Modifier: uapi.FormatModLinear,
		Size:     r.colourLayout.Size(),
	}
}

// Pixels maps colour buffer i (once; later calls return the same mapping)
// and returns its bytes, for capture and for presenters that copy frames
// to another device. Wait for the buffer's frame before reading.
func (r *Renderer) Pixels(i int) ([]byte, error) {
	if i < 0 || i >= len(r.colour) {
		return nil, fmt.Errorf("render: no colour buffer %d (have %d)", i, len(r.colour))
	}
	mem, err := r.colour[i].Map()
	if err != nil {
		return nil, fmt.Errorf("render: mapping colour buffer %d: %w", i, err)
	}
	return mem, nil
}

// Size returns the frame size.
func (r *Renderer) Size() (width, height int) { return r.opt.Width, r.opt.Height }

// Flip returns the texture's flip mode.
func (r *Renderer) Flip() texture.FlipMode { return r.opt.Flip }

// TextureParams returns the FS's texture config parameters P0 and P1 as the
// uniform stream holds them (P0 with the offset in the texture BO, before
// the kernel's relocation).
func (r *Renderer) TextureParams() (p0, p1 uint32) { return r.texP0, r.texP1 }

// clearWord is vkcube's clear colour (0.2 grey, scene.ClearByte in each
// colour channel, alpha 1) as the packed word the TLB stores: the bytes in
// ScanoutOrder, read as a little-endian word (the submit's clear_color
// holds two copies of it, as Mesa vc4_draw.c vc4_clear writes them;
// doc/hardware.md#tile-buffer-formats).
func clearWord() uint32 {
	var b [4]byte
	ScanoutOrder.Put(b[:], scene.ClearByte, scene.ClearByte, scene.ClearByte, 0xff)
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// ClearZ is the depth every tile starts from: 1.0, the far plane, as the
// 24-bit value the submit's clear_z takes (doc/kernel.md#a-cube-submit).
const ClearZ = 0xffffff
