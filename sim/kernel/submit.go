package kernel

import (
	"encoding/binary"
	"math"
	"syscall"

	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// SUBMIT_CL in the kernel's order (vc4_gem.c vc4_submit_cl_ioctl;
// doc/kernel.md#submit_cl).

// submitFlags are the flags SUBMIT_CL knows; any other bit is EINVAL.
const submitFlags = uapi.SubmitUseClearColor | uapi.SubmitFixedRCLOrder |
	uapi.SubmitRCLOrderIncreasingX | uapi.SubmitRCLOrderIncreasingY

// maxTemp bounds the kernel's temporary copies (kvmalloc of the BO handle
// array, of the bin CL, shader records and uniforms): a request larger
// than the CMA pool could never become a job, and the real kvmalloc would
// fail with ENOMEM long before a Pi's memory ran out.
func (d *Driver) maxTemp() uint64 { return uint64(d.pool.Size()) }

// SubmitCL is DRM_IOCTL_VC4_SUBMIT_CL: it validates the job, builds its
// render control list, queues it and writes its seqno to a.Seqno. Any
// failure releases everything and consumes no seqno.
func (f *File) SubmitCL(a *uapi.SubmitCL) error {
	d := f.d
	if d.cfg.NoV3D {
		return errf(syscall.ENODEV, "VC4_SUBMIT_CL with no VC4 V3D probed")
	}
	if a.Flags&^submitFlags != 0 {
		return errf(syscall.EINVAL, "Unknown flags: 0x%02x", a.Flags)
	}
	if a.Pad2 != 0 {
		return errf(syscall.EINVAL, "Invalid pad: 0x%08x", a.Pad2)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	j := d.getJob()
	j.args = a
	if err := j.build(f); err != nil {
		d.release(j)
		return err
	}
	j.args = nil
	d.queueSubmit(j)
	if j.outSync != nil {
		// The job's fence (vc4_queue_submit: a fence on vc4's context
		// at the job's seqno) replaces the syncobj's; the job keeps a
		// reference and signals it when it retires.
		j.fence = NewFence(d.fenceCtx, j.seqno, "vc4", "vc4-v3d")
		j.outSync.replace(j.fence.Get())
		j.outSync = nil
	}
	a.Seqno = j.seqno
	return nil
}

// build runs the validation steps of vc4_submit_cl_ioctl in order.
func (j *job) build(f *File) error {
	a := j.args
	if err := j.lookupBOs(f); err != nil {
		return err
	}
	if a.PerfmonID != 0 {
		p := f.perfmonFind(a.PerfmonID)
		if p == nil {
			return errf(syscall.ENOENT, "no perfmon %d", a.PerfmonID)
		}
		j.perfmon = p
	}
	// in_sync: drm_syncobj_find_fence answers ENOENT for an unknown
	// handle and EINVAL for a syncobj without a fence. A fence of vc4's
	// own context needs no wait (jobs run in submission order); any other
	// (a display's out-fence, a sync file from elsewhere) is waited for
	// here, in the ioctl, as vc4_submit_cl_ioctl does (dma_fence_wait),
	// with the driver's lock released so that the GPU and the display go
	// on meanwhile.
	if a.InSync != 0 {
		s := f.syncobj(a.InSync)
		if s == nil {
			return errf(syscall.ENOENT, "in_sync syncobj %d not found", a.InSync)
		}
		if s.fence == nil {
			return errf(syscall.EINVAL, "in_sync syncobj %d has no fence", a.InSync)
		}
		if fence := s.fence; !fence.onlyContext(j.d.fenceCtx) && !fence.Signaled() {
			fence.Get()
			j.d.mu.Unlock()
			fence.Wait()
			j.d.mu.Lock()
			fence.Put()
			if f.closed {
				return errf(syscall.EBADF, "the file was closed while SUBMIT_CL waited for its in_sync fence")
			}
		}
	}
	if a.BinCLSize != 0 {
		if err := j.getBCL(f.user); err != nil {
			return err
		}
	}
	if err := j.getRCL(); err != nil {
		return err
	}
	// The GPU may read every BO of the job; it writes only the render
	// surfaces (added by getRCL) and the binner's memory.
	for _, bo := range j.bos {
		j.view.Add(bo.region, mem.Read, "job BO")
	}
	// vc4_submit_cl_ioctl looks out_sync up after reserving the BOs: an
	// unknown syncobj is EINVAL. Its fence becomes the job's when the job
	// is queued (vc4_queue_submit: drm_syncobj_replace_fence).
	if a.OutSync != 0 {
		if j.outSync = f.syncobj(a.OutSync); j.outSync == nil {
			return errf(syscall.EINVAL, "out_sync syncobj %d not found", a.OutSync)
		}
	}
	return nil
}

// lookupBOs is vc4_cl_lookup_bos: the BO handles, then a use count on
// each (which refuses DONTNEED and purged BOs).
//
// An unknown handle is EINVAL here, which is what igt's
// vc4_lookup_fail@bad-color-write expects and what kernels answered while
// vc4 looked handles up itself; kernels that use drm_gem_objects_lookup
// (since Linux 5.x) answer ENOENT.
func (j *job) lookupBOs(f *File) error {
	a := j.args
	d := j.d
	if a.BOHandleCount == 0 {
		return errf(syscall.EINVAL, "Rendering requires BOs to validate")
	}
	n := uint64(a.BOHandleCount) * 4
	if n > d.maxTemp() {
		return errf(syscall.ENOMEM, "%d BO handles", a.BOHandleCount)
	}
	buf := j.tempBuf(int(n))
	if err := f.user.CopyFromUser(buf, a.BOHandles); err != nil {
		return errf(syscall.EFAULT, "Failed to copy in GEM handles")
	}
	for i := uint32(0); i < a.BOHandleCount; i++ {
		h := binary.LittleEndian.Uint32(buf[4*i:])
		bo := f.lookup(h)
		if bo == nil {
			for _, b := range j.bos {
				d.unref(b)
			}
			clear(j.bos)
			j.bos = j.bos[:0]
			return errf(syscall.EINVAL, "Failed to look up GEM BO %d: %d", i, h)
		}
		bo.refs++
		j.bos = append(j.bos, bo)
	}
	for i, bo := range j.bos {
		if err := d.incUsecnt(bo); err != nil {
			for _, b := range j.bos[:i] {
				d.decUsecnt(b)
			}
			for _, b := range j.bos {
				d.unref(b)
			}
			clear(j.bos)
			j.bos = j.bos[:0]
			return errf(syscall.EINVAL, "BO %d: %s", i, reason(err))
		}
	}
	return nil
}

// tempBuf returns the job's scratch buffer with n bytes, grown if needed.
func (j *job) tempBuf(n int) []byte {
	if cap(j.temp) < n {
		j.temp = make([]byte, n)
	}
	return j.temp[:n]
}

// getBCL is vc4_get_bcl: it copies the bin CL, shader records and
// uniforms in, allocates the exec BO that will hold their validated
// copies (bin CL at 0, shader records at roundup(bin_cl_size, 16),
// uniforms after them), and validates them.
func (j *job) getBCL(u UserMemory) error {
	a := j.args
	d := j.d
	// The kernel's u32 arithmetic and its overflow checks.
	shaderRecOffset := alignShaderRec(a.BinCLSize)
	uniformsOffset := shaderRecOffset + a.ShaderRecSize
	execSize := uniformsOffset + a.UniformsSize
	tempSize := execSize + 8*a.ShaderRecCount
	if shaderRecOffset < a.BinCLSize || uniformsOffset < shaderRecOffset || execSize < uniformsOffset ||
		a.ShaderRecCount >= math.MaxUint32/8 || tempSize < execSize {
		return errf(syscall.EINVAL, "overflow in exec arguments")
	}
	if uint64(tempSize) > d.maxTemp() {
		d.logf("Failed to allocate storage for copying in bin/render CLs.")
		return errf(syscall.ENOMEM, "Failed to allocate %d bytes of storage for copying in bin/render CLs", tempSize)
	}
	temp := j.tempBuf(int(execSize))
	j.binU = temp[:a.BinCLSize]
	j.shaderRecU = temp[shaderRecOffset:uniformsOffset]
	j.uniformsU = temp[uniformsOffset:execSize]
	if cap(j.shaderState) < int(a.ShaderRecCount) {
		j.shaderState = make([]shaderState, a.ShaderRecCount)
	}
	j.shaderState = j.shaderState[:a.ShaderRecCount]
	if u.CopyFromUser(j.binU, a.BinCL) != nil {
		return errf(syscall.EFAULT, "bin CL at %#x is not readable", a.BinCL)
	}
	if u.CopyFromUser(j.shaderRecU, a.ShaderRec) != nil {
		return errf(syscall.EFAULT, "shader records at %#x are not readable", a.ShaderRec)
	}
	if u.CopyFromUser(j.uniformsU, a.Uniforms) != nil {
		return errf(syscall.EFAULT, "uniforms at %#x are not readable", a.Uniforms)
	}

	bo, err := d.boCreate(uint64(execSize), true, boBCL)
	if err != nil {
		d.logf("Couldn't allocate BO for binning")
		return err
	}
	j.execBO = bo
	j.view.Add(bo.region, mem.Read, "exec BO (validated bin CL, shader records, uniforms)")
	j.execMem = d.pool.Bytes(bo.region)
	j.ct0ca = bo.Addr()
	j.shaderRecV = shaderRecOffset
	j.shaderRecP = bo.Addr() + shaderRecOffset
	j.uniformsV = uniformsOffset
	j.uniformsP = bo.Addr() + uniformsOffset
	j.uniformsTotal = a.UniformsSize

	if err := j.validateBinCL(); err != nil {
		return err
	}
	if err := j.validateShaderRecs(); err != nil {
		return err
	}
	if j.foundBinCfg {
		if err := d.binBOGet(); err != nil {
			return err
		}
		j.binBO = true
	}
	return nil
}

// useBO is vc4_use_bo: a bo_handles index used as anything but a shader.
func (j *job) useBO(hindex uint32) (*BO, error) {
	if uint64(hindex) >= uint64(len(j.bos)) {
		return nil, errf(syscall.EINVAL, "BO index %d greater than BO count %d", hindex, len(j.bos))
	}
	bo := j.bos[hindex]
	if bo.shader != nil {
		return nil, errf(syscall.EINVAL, "Trying to use shader BO as something other than a shader")
	}
	return bo, nil
}
