package kernel

import (
	"fmt"
	"syscall"
	"time"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/mem"
)

// Bin control list validation (vc4_validate.c vc4_validate_bin_cl and the
// validate_* helpers; doc/kernel.md#bin-cl).
//
// The whitelist is the kernel's cmd_info[]: which packets, at what length,
// come from the one packet description, cl/spec (Packet.KernelBin and
// Packet.Len); the kernel's per-packet validator functions are attached to
// it here by opcode. Packets are read with cl's typed Unpack and patched
// through their spec field descriptions, so no layout is written twice.

// binValidator checks one packet of the user's bin CL and patches its copy
// in the exec BO. src and dst are the whole packet, opcode first; off is
// its offset in the user's list.
type binValidator func(j *job, dst, src []byte, off uint32) error

// binPacket is one entry of the kernel's cmd_info[].
type binPacket struct {
	desc     *spec.Packet
	validate binValidator
}

// binValidators are the kernel's validator functions, by opcode. Every
// other whitelisted packet is copied unchecked.
var binValidators = map[spec.Opcode]binValidator{
	spec.OpFlush:                 validateFlush,
	spec.OpStartTileBinning:      validateStartTileBinning,
	spec.OpIncrementSemaphore:    validateIncrementSemaphore,
	spec.OpGLIndexedPrimitive:    validateIndexedPrimList,
	spec.OpGLArrayPrimitive:      validateGLArrayPrimitive,
	spec.OpGLShaderState:         validateGLShaderState,
	spec.OpTileBinningModeConfig: validateTileBinningConfig,
	spec.OpGEMHandles:            validateGEMHandles,
}

// binTable is cmd_info[]: indexed by opcode; its size is one past the
// highest whitelisted opcode (GEM_HANDLES, 254), so opcode 255 is "out of
// bounds" rather than "invalid", as in the kernel.
var binTable = func() []binPacket {
	var t []binPacket
	for i := range spec.Packets {
		p := &spec.Packets[i]
		if !p.KernelBin {
			continue
		}
		for len(t) <= int(p.Op) {
			t = append(t, binPacket{})
		}
		t[p.Op] = binPacket{desc: p, validate: binValidators[p.Op]}
	}
	for op := range binValidators {
		if int(op) >= len(t) || t[op].desc == nil {
			panic(fmt.Sprintf("kernel: a bin-CL validator for %v, which cl/spec does not whitelist", op))
		}
	}
	return t
}()

// Fields the kernel patches, read from the one description.
var (
	fieldShaderStateAddress = mustField(spec.OpGLShaderState, "address")
	fieldIndexAddress       = mustField(spec.OpGLIndexedPrimitive, "index_address")
	fieldTileAllocAddress   = mustField(spec.OpTileBinningModeConfig, "tile_alloc_address")
	fieldTileAllocSize      = mustField(spec.OpTileBinningModeConfig, "tile_alloc_size")
	fieldTileStateAddress   = mustField(spec.OpTileBinningModeConfig, "tile_state_address")
	fieldAutoInit           = mustField(spec.OpTileBinningModeConfig, "auto_init_tile_state")
	fieldInitialBlockSize   = mustField(spec.OpTileBinningModeConfig, "initial_block_size")
	fieldBlockSize          = mustField(spec.OpTileBinningModeConfig, "block_size")
)

func mustField(op spec.Opcode, name string) *spec.Field {
	f := spec.Lookup(op).Field(name)
	if f == nil {
		panic(fmt.Sprintf("kernel: cl/spec has no field %s in %v", name, op))
	}
	return f
}

// putField writes v into a packet's field (payload bits), as the kernel's
// patch of that word does; an address field keeps its low bits implied.
func putField(pkt []byte, f *spec.Field, v uint64) {
	spec.PutBits(pkt[1:], f.Start, f.Width, v>>f.Shift)
}

// validateBinCL is vc4_validate_bin_cl: it copies the user's bin CL into
// the exec BO packet by packet, patching as it goes.
func (j *job) validateBinCL() error {
	n := j.args.BinCLSize
	src, dst := j.binU, j.execMem
	var srcOff, dstOff uint32
	for srcOff < n {
		cmd := src[srcOff]
		if int(cmd) >= len(binTable) {
			return errf(syscall.EINVAL, "0x%08x: packet %d out of bounds", srcOff, cmd)
		}
		info := &binTable[cmd]
		if info.desc == nil {
			return errf(syscall.EINVAL, "0x%08x: packet %d invalid", srcOff, cmd)
		}
		l := uint32(info.desc.Len)
		if uint64(srcOff)+uint64(l) > uint64(n) {
			return errf(syscall.EINVAL, "0x%08x: packet %d (%s) length 0x%08x exceeds bounds (0x%08x)",
				srcOff, cmd, info.desc.Name, l, srcOff+n)
		}
		pkt := src[srcOff : srcOff+l]
		out := dst[dstOff : dstOff+l]
		// GEM_HANDLES is the kernel's own: it never reaches the GPU.
		pseudo := info.desc.Pseudo
		if !pseudo {
			copy(out, pkt)
		}
		if info.validate != nil {
			if err := info.validate(j, out, pkt, srcOff); err != nil {
				return errf(Errno(err), "0x%08x: packet %d (%s) failed to validate: %v", srcOff, cmd, info.desc.Name, reason(err))
			}
		}
		srcOff += l
		if !pseudo {
			dstOff += l
		}
		// When the CL hits HALT the hardware reads nothing more.
		if spec.Opcode(cmd) == spec.OpHalt {
			break
		}
	}
	j.ct0ea = j.ct0ca + dstOff
	if !j.foundStart {
		return errf(syscall.EINVAL, "Bin CL missing VC4_PACKET_START_TILE_BINNING")
	}
	// INCREMENT_SEMAPHORE starts the render thread; FLUSH caps every tile
	// list with a return and triggers the increment.
	if !j.foundIncSem || !j.foundFlush {
		return errf(syscall.EINVAL, "Bin CL missing VC4_PACKET_INCREMENT_SEMAPHORE + VC4_PACKET_FLUSH")
	}
	return nil
}

// validateFlush: FLUSH must be the last byte.
func validateFlush(j *job, _, _ []byte, off uint32) error {
	if off != j.args.BinCLSize-1 {
		return errf(syscall.EINVAL, "Bin CL must end with VC4_PACKET_FLUSH")
	}
	j.foundFlush = true
	return nil
}

// validateStartTileBinning: exactly one, after the binning config.
func validateStartTileBinning(j *job, _, _ []byte, _ uint32) error {
	if j.foundStart {
		return errf(syscall.EINVAL, "Duplicate VC4_PACKET_START_TILE_BINNING")
	}
	j.foundStart = true
	if !j.foundBinCfg {
		return errf(syscall.EINVAL, "missing VC4_PACKET_TILE_BINNING_MODE_CONFIG")
	}
	return nil
}

// validateIncrementSemaphore: it must be the second-to-last byte.
func validateIncrementSemaphore(j *job, _, _ []byte, off uint32) error {
	if off != j.args.BinCLSize-2 {
		return errf(syscall.EINVAL, "Bin CL must end with VC4_PACKET_INCREMENT_SEMAPHORE")
	}
	j.foundIncSem = true
	return nil
}

// validateIndexedPrimList: the declared maximum index raises the current
// shader state's; the index list must lie inside the GEM_HANDLES BO 0,
// whose address replaces the offset.
func validateIndexedPrimList(j *job, dst, src []byte, _ uint32) error {
	var p cl.GLIndexedPrimitive
	_ = p.Unpack(src)
	// Any type but 8-bit counts as 16-bit, reserved ones too (index_size
	// = type ? 2 : 1).
	indexSize := uint32(cl.IndexType16Bit.Bytes())
	if p.IndexType == cl.IndexType8Bit {
		indexSize = uint32(cl.IndexType8Bit.Bytes())
	}
	if j.stateCount == 0 {
		return errf(syscall.EINVAL, "shader state must precede primitives")
	}
	ss := &j.shaderState[j.stateCount-1]
	if p.MaxIndex > ss.maxIndex {
		ss.maxIndex = p.MaxIndex
	}
	ib, err := j.useBO(j.boIndex[0])
	if err != nil {
		return err
	}
	if p.IndexAddress > ib.size || (ib.size-p.IndexAddress)/indexSize < p.Length {
		return errf(syscall.EINVAL, "IB access overflow (%d + %d*%d > %d)", p.IndexAddress, p.Length, indexSize, ib.size)
	}
	putField(dst, fieldIndexAddress, uint64(ib.Addr()+p.IndexAddress))
	return nil
}

// validateGLArrayPrimitive: first + count - 1 raises the current shader
// state's maximum index.
func validateGLArrayPrimitive(j *job, _, src []byte, _ uint32) error {
	var p cl.GLArrayPrimitive
	_ = p.Unpack(src)
	if j.stateCount == 0 {
		return errf(syscall.EINVAL, "shader state must precede primitives")
	}
	ss := &j.shaderState[j.stateCount-1]
	if p.Length+p.First < p.Length {
		return errf(syscall.EINVAL, "primitive vertex count overflow")
	}
	// A zero-length draw makes this 0xFFFFFFFF, which then fails the
	// attribute bounds check, as on the Pi.
	maxIndex := p.Length + p.First - 1
	if maxIndex > ss.maxIndex {
		ss.maxIndex = maxIndex
	}
	return nil
}

// validateGLShaderState: only the record format comes from user space;
// the kernel writes the address of the next validated record.
func validateGLShaderState(j *job, dst, src []byte, _ uint32) error {
	var p cl.GLShaderState
	_ = p.Unpack(src)
	i := j.stateCount
	j.stateCount++
	if i >= uint32(len(j.shaderState)) {
		return errf(syscall.EINVAL, "More requests for shader states than declared")
	}
	if p.Address != 0 {
		return errf(syscall.EINVAL, "high bits set in GL shader rec reference")
	}
	j.shaderState[i] = shaderState{packet: p}
	putField(dst, fieldShaderStateAddress, uint64(j.shaderRecP))
	// gl_shader_rec_size: the record the packet declares.
	n := uint32(spec.GLShaderRecordLen(spec.GLAttributeCount(p.NumAttributeArrays), p.Extended))
	j.shaderRecP += alignShaderRec(n)
	return nil
}

// shaderRecAlign is the alignment of a shader record: GL_SHADER_STATE can
// only point at 16-byte boundaries, its address field having four implied
// zero bits (AG Table 38 id 64).
var shaderRecAlign = uint32(1) << fieldShaderStateAddress.Shift

// alignShaderRec rounds n up to where a shader record may start, as the
// kernel places the records in the exec BO (vc4_gem.c vc4_get_bcl,
// vc4_validate.c: roundup(..., 16)), in u32 arithmetic that wraps as the
// kernel's does.
func alignShaderRec(n uint32) uint32 { return (n + shaderRecAlign - 1) &^ (shaderRecAlign - 1) }

// initialBlockSize is the initial tile-allocation block the kernel sets
// for every job (vc4_validate.c validate_tile_binning_config); the render
// list finds tile (x, y)'s list at tile_alloc + its Bytes()·(y·tiles_x + x)
// (vc4_render_cl.c emit_tile).
const initialBlockSize = cl.BlockSize32

// validateTileBinningConfig takes a 512 KiB slot of the binner BO for the
// job and points the binner at it: the tile state array
// (spec.TileStateBytes a tile) at the start, tile allocation memory from the next page to the end of
// the slot. Of the user's flags only 4x multisampling survives; the
// kernel sets auto-initialisation, 32-byte initial and 128-byte further
// blocks.
func validateTileBinningConfig(j *job, dst, src []byte, _ uint32) error {
	d := j.d
	var p cl.TileBinningModeConfig
	_ = p.Unpack(src)
	if j.foundBinCfg {
		return errf(syscall.EINVAL, "Duplicate VC4_PACKET_TILE_BINNING_MODE_CONFIG")
	}
	j.foundBinCfg = true
	j.binTilesX, j.binTilesY = p.WidthInTiles, p.HeightInTiles
	tileCount := uint32(j.binTilesX) * uint32(j.binTilesY)
	if j.binTilesX == 0 || j.binTilesY == 0 {
		return errf(syscall.EINVAL, "Tile binning config of %dx%d too small", j.binTilesX, j.binTilesY)
	}
	if p.DoubleBuffer || p.Color64 {
		return errf(syscall.EINVAL, "unsupported binning config flags (double buffer %v, 64-bit colour %v)", p.DoubleBuffer, p.Color64)
	}
	// Since Linux 6.12.107 the kernel refuses a tile state array that
	// leaves no tile allocation memory in the slot (vc4_validate.c
	// validate_tile_binning_config; doc/kernel.md#binning-configuration:
	// 104x104 passes, 105x104 fails).
	tileStateSize := spec.TileStateBytes * tileCount
	stateRounded := (tileStateSize + mem.PageSize - 1) &^ (mem.PageSize - 1)
	if stateRounded >= binSlotSize {
		return errf(syscall.EINVAL, "Tile binning config of %dx%d too large", j.binTilesX, j.binTilesY)
	}
	// Stricter than the kernel, which dereferences a NULL vc4->bin_bo when
	// no file has created a BO with CREATE_BO (say a job on dumb buffers
	// only).
	if d.binBO == nil {
		return errf(syscall.EINVAL, "no binner BO: no file has created a BO with CREATE_BO")
	}
	slot, err := d.getBinSlot()
	if err != nil {
		return err
	}
	j.binSlots |= 1 << slot
	binAddr := d.binBO.Addr() + uint32(slot)*binSlotSize
	j.view.Add(mem.Region{Addr: binAddr, Size: binSlotSize}, mem.Write, "binner slot (tile state, tile allocation)")
	j.tileAllocAddr = binAddr + stateRounded

	putField(dst, fieldAutoInit, 1)
	putField(dst, fieldInitialBlockSize, uint64(initialBlockSize))
	putField(dst, fieldBlockSize, uint64(cl.BlockSize128))
	putField(dst, fieldTileAllocAddress, uint64(j.tileAllocAddr))
	putField(dst, fieldTileAllocSize, uint64(binAddr+binSlotSize-j.tileAllocAddr))
	putField(dst, fieldTileStateAddress, uint64(binAddr))
	return nil
}

// getBinSlot is vc4_v3d_get_bin_slot: a free slot of the binner BO, or,
// when all 32 are taken, a wait for the oldest job in flight to retire
// (which frees its slot) and another try. With no job in flight it is
// ENOMEM. It may give up d.mu while it waits.
func (d *Driver) getBinSlot() (int, error) {
	for {
		for slot := 0; slot < binSlotCount; slot++ {
			if d.binAllocUsed&(1<<slot) == 0 {
				d.binAllocUsed |= 1 << slot
				return slot, nil
			}
		}
		if len(d.queue) == 0 {
			return 0, errf(syscall.ENOMEM, "Failed to allocate binner memory: no free slot and no job to wait for")
		}
		if err := d.waitFor(d.queue[0].seqno, time.Duration(0), true); err != nil {
			return 0, err
		}
		if d.binBO == nil {
			return 0, errf(syscall.ENOMEM, "binner BO released while waiting for a slot")
		}
	}
}

// validateGEMHandles: the two BO indices the next packets use.
func validateGEMHandles(j *job, _, src []byte, _ uint32) error {
	var p cl.GEMHandles
	_ = p.Unpack(src)
	j.boIndex = [2]uint32{p.BOIndex0, p.BOIndex1}
	return nil
}
