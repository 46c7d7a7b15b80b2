// Package submit assembles DRM_IOCTL_VC4_SUBMIT_CL: it owns one frame's
// bin CL, shader records, uniforms, BO handles and render surfaces, fills
// uapi.SubmitCL from them and issues the ioctl with the user pointers
// pinned for exactly the duration of the call.
//
// A Job is reused frame after frame: Reset, build, Submit. Its buffers keep
// their capacity and its runtime.Pinner is reused, so a frame's submit
// allocates nothing once the buffers have grown.
//
// The pointer fields of uapi.SubmitCL are Go pointers hidden in uint64s,
// which the garbage collector cannot see. Job never lets such a struct
// escape: it sets the pointers, pins what they point at, calls the ioctl,
// then unpins and zeroes them, all inside Submit.
package submit

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/vccube/vccube/cl/bincl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/gem"
	"github.com/vccube/vccube/uapi"
)

// Job is one submit under construction.
type Job struct {
	// Bin is the binning control list.
	Bin bincl.Builder
	// ShaderRecs holds one record per GL_SHADER_STATE of Bin, in order.
	ShaderRecs shaderrec.Stream
	// Uniforms holds the FS, VS and CS blocks of each record, in order.
	Uniforms uniforms.Stream
	// BOHandles are the GEM handles every index in the job refers to
	// (relocations, texture indices, GEM_HANDLES, surface hindex).
	BOHandles []uint32

	// Width and Height are the frame size in pixels.
	Width, Height uint16
	// MinXTile … MaxYTile bound the tiles to render, inclusive.
	MinXTile, MinYTile, MaxXTile, MaxYTile uint8
	// The six render surfaces; Reset makes them all absent.
	ColorRead, ColorWrite, ZSRead, ZSWrite, MSAAColorWrite, MSAAZSWrite uapi.SubmitRCLSurface
	// ClearColor is the packed clear colour, the same word twice; it and
	// the two below apply with uapi.SubmitUseClearColor.
	ClearColor [2]uint32
	// ClearZ is the clear depth in the low 24 bits (0xffffff = 1.0).
	ClearZ uint32
	// ClearS is the clear stencil value.
	ClearS uint8
	// Flags are uapi.Submit* flags.
	Flags uint32
	// PerfmonID, InSync and OutSync are passed through (0 = none).
	PerfmonID, InSync, OutSync uint32

	// Unchecked skips Submit's own checks (not the kernel's), so tests can
	// hand the kernel a broken job.
	Unchecked bool

	arg uapi.SubmitCL
	pin runtime.Pinner
}

// Reset starts a new frame: empties the streams and the handle list (keeping
// their buffers), makes every surface absent and clears the frame fields.
// The Bin builder's and Job's Unchecked settings are kept.
func (j *Job) Reset() {
	j.Bin.Reset()
	j.ShaderRecs.Reset()
	j.Uniforms.Reset()
	j.BOHandles = j.BOHandles[:0]
	j.Width, j.Height = 0, 0
	j.MinXTile, j.MinYTile, j.MaxXTile, j.MaxYTile = 0, 0, 0, 0
	j.ColorRead, j.ColorWrite, j.ZSRead, j.ZSWrite = Absent(), Absent(), Absent(), Absent()
	j.MSAAColorWrite, j.MSAAZSWrite = Absent(), Absent()
	j.ClearColor, j.ClearZ, j.ClearS = [2]uint32{}, 0, 0
	j.Flags = 0
	j.PerfmonID, j.InSync, j.OutSync = 0, 0, 0
}

// AddBO appends a GEM handle and returns its index, which relocations,
// texture indices and surfaces then use.
func (j *Job) AddBO(handle uint32) uint32 {
	j.BOHandles = append(j.BOHandles, handle)
	return uint32(len(j.BOHandles) - 1)
}

// SetFrame sets the frame size and renders every tile: tiles 0 to
// ceil(size/64) − 1 in each direction (32-pixel tiles with 4× MSAA; Mesa
// vc4_job.c). The kernel checks max ≤ bin tiles, which would let one tile
// too many through (vc4_render_cl.c vc4_get_rcl), so the bound is tiles − 1.
func (j *Job) SetFrame(width, height int, msaa bool) error {
	x, y, err := bincl.Tiles(width, height, msaa)
	if err != nil {
		return err
	}
	j.Width, j.Height = uint16(width), uint16(height)
	j.MinXTile, j.MinYTile, j.MaxXTile, j.MaxYTile = 0, 0, x-1, y-1
	return nil
}

// SetClear makes the render list start from a cleared tile buffer: colour
// (the packed 32-bit word, in render-target byte order, sent twice), 24-bit
// depth (0xffffff = 1.0) and stencil (Mesa vc4_draw.c vc4_clear).
func (j *Job) SetClear(color uint32, z uint32, s uint8) {
	j.ClearColor = [2]uint32{color, color}
	j.ClearZ, j.ClearS = z, s
	j.Flags |= uapi.SubmitUseClearColor
}

// check reports what would make the kernel refuse the job, in user-space
// terms, before the ioctl (doc/kernel.md#submit_cl, doc/kernel.md#bin-cl,
// doc/kernel.md#checks).
func (j *Job) check(bin []byte) error {
	if len(j.BOHandles) == 0 {
		return errors.New("submit: no BO handles: the kernel needs at least one (vc4_cl_lookup_bos)")
	}
	if len(bin) > 0 && j.ShaderRecs.Count() != j.Bin.ShaderStates() {
		return fmt.Errorf("submit: %d shader records for %d shader-state packets: the kernel takes one record per packet, in order",
			j.ShaderRecs.Count(), j.Bin.ShaderStates())
	}
	absent := func(s *uapi.SubmitRCLSurface) bool { return s.HIndex == uapi.SurfaceAbsent }
	if absent(&j.ColorWrite) && absent(&j.ZSWrite) && absent(&j.MSAAColorWrite) && absent(&j.MSAAZSWrite) {
		return errors.New("submit: no colour or Z/S write surface: the render list would have nothing to store (\"RCL requires color or Z/S write\")")
	}
	if j.Width == 0 || j.Height == 0 {
		return errors.New("submit: frame size not set (SetFrame)")
	}
	if j.MinXTile > j.MaxXTile || j.MinYTile > j.MaxYTile {
		return fmt.Errorf("submit: tile bounds %d,%d–%d,%d are empty", j.MinXTile, j.MinYTile, j.MaxXTile, j.MaxYTile)
	}
	return nil
}

// fill copies everything but the pointers into j.arg.
func (j *Job) fill(bin []byte) {
	a := &j.arg
	*a = uapi.SubmitCL{
		BinCLSize:      uint32(len(bin)),
		ShaderRecSize:  uint32(len(j.ShaderRecs.Bytes())),
		ShaderRecCount: uint32(j.ShaderRecs.Count()),
		UniformsSize:   uint32(len(j.Uniforms.Bytes())),
		BOHandleCount:  uint32(len(j.BOHandles)),
		Width:          j.Width,
		Height:         j.Height,
		MinXTile:       j.MinXTile,
		MinYTile:       j.MinYTile,
		MaxXTile:       j.MaxXTile,
		MaxYTile:       j.MaxYTile,
		ColorRead:      j.ColorRead,
		ColorWrite:     j.ColorWrite,
		ZSRead:         j.ZSRead,
		ZSWrite:        j.ZSWrite,
		MSAAColorWrite: j.MSAAColorWrite,
		MSAAZSWrite:    j.MSAAZSWrite,
		ClearColor:     j.ClearColor,
		ClearZ:         j.ClearZ,
		ClearS:         j.ClearS,
		Flags:          j.Flags,
		PerfmonID:      j.PerfmonID,
		InSync:         j.InSync,
		OutSync:        j.OutSync,
	}
}

// pointer pins the first byte of b and returns its address for the
// kernel, or 0 for an empty buffer.
func (j *Job) pointer(b unsafe.Pointer, n int) uint64 {
	if n == 0 {
		return 0
	}
	j.pin.Pin(b)
	return uint64(uintptr(b))
}

// Submit issues DRM_IOCTL_VC4_SUBMIT_CL on c and returns the job's seqno
// (for gem WAIT_SEQNO). The user pointers are valid, and pinned, only
// during the call.
func (j *Job) Submit(c uapi.Conn) (uint64, error) {
	bin, err := j.Bin.Bytes()
	if err != nil {
		return 0, err
	}
	if !j.Unchecked {
		if err := j.check(bin); err != nil {
			return 0, err
		}
	}
	j.fill(bin)
	recs, unis := j.ShaderRecs.Bytes(), j.Uniforms.Bytes()
	a := &j.arg
	a.BinCL = j.pointer(unsafe.Pointer(unsafe.SliceData(bin)), len(bin))
	a.ShaderRec = j.pointer(unsafe.Pointer(unsafe.SliceData(recs)), len(recs))
	a.Uniforms = j.pointer(unsafe.Pointer(unsafe.SliceData(unis)), len(unis))
	a.BOHandles = j.pointer(unsafe.Pointer(unsafe.SliceData(j.BOHandles)), len(j.BOHandles))
	err = gem.Submit(c, a)
	j.pin.Unpin()
	a.BinCL, a.ShaderRec, a.Uniforms, a.BOHandles = 0, 0, 0, 0
	if err != nil {
		return 0, err
	}
	return a.Seqno, nil
}

// Args returns a copy of the last submit struct with its pointer fields
// zeroed (they are only valid during Submit), for logging and tests.
func (j *Job) Args() uapi.SubmitCL { return j.arg }
