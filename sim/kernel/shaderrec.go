package kernel

import (
	"encoding/binary"
	"fmt"
	"syscall"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/uapi"
)

// Shader records, uniforms and texture relocation (vc4_validate.c
// vc4_validate_shader_recs, validate_gl_shader_rec, reloc_tex;
// doc/kernel.md#shader-records, doc/kernel.md#uniforms).

// The record's relocated words, from the one description of the record.
var (
	recCodeFields = [3]*spec.Field{
		spec.GLShaderRecord.Field("fs_code_address"),
		spec.GLShaderRecord.Field("vs_code_address"),
		spec.GLShaderRecord.Field("cs_code_address"),
	}
	recUniformsFields = [3]*spec.Field{
		spec.GLShaderRecord.Field("fs_uniforms_address"),
		spec.GLShaderRecord.Field("vs_uniforms_address"),
		spec.GLShaderRecord.Field("cs_uniforms_address"),
	}
	attrAddressField = spec.AttributeRecord.Field("address")
)

func putRecordField(rec []byte, f *spec.Field, v uint32) {
	spec.PutBits(rec, f.Start, f.Width, uint64(v)>>f.Shift)
}

// validateShaderRecs validates the record of each GL_SHADER_STATE, in
// bin-CL order.
func (j *job) validateShaderRecs() error {
	for i := uint32(0); i < j.stateCount; i++ {
		if err := j.validateGLShaderRec(&j.shaderState[i]); err != nil {
			return err
		}
	}
	return nil
}

// shaderNames name the three shaders of a record in messages.
var shaderNames = [3]string{"FS", "VS", "CS"}

// validateGLShaderRec checks and relocates one record: its 3 + n BO
// indices (FS, VS, CS shader BOs, then one BO per attribute array) come
// first in the user's stream, then the record, which is copied to the next
// 16-byte boundary of the exec BO. Each shader's uniform block is consumed
// from the uniform stream, FS then VS then CS.
func (j *job) validateGLShaderRec(state *shaderState) error {
	// gl_shader_rec_size: the count and the form come from the
	// GL_SHADER_STATE word, the sizes from the record's description.
	nrAttributes := spec.GLAttributeCount(state.packet.NumAttributeArrays)
	packetSize := spec.GLShaderRecordLen(nrAttributes, state.packet.Extended)
	nrRelocs := uapi.GLShaderRecRelocs(nrAttributes)
	relocsLen := 4 * nrRelocs

	if relocsLen > len(j.shaderRecU) {
		return errf(syscall.EINVAL, "overflowed shader recs reading %d handles from %d bytes left", nrRelocs, len(j.shaderRecU))
	}
	handles := j.shaderRecU[:relocsLen]
	j.shaderRecU = j.shaderRecU[relocsLen:]
	if packetSize > len(j.shaderRecU) {
		return errf(syscall.EINVAL, "overflowed shader recs copying %db packet from %d bytes left", packetSize, len(j.shaderRecU))
	}
	pktU := j.shaderRecU[:packetSize]
	j.shaderRecU = j.shaderRecU[packetSize:]
	pktV := j.execMem[j.shaderRecV : j.shaderRecV+uint32(packetSize)]
	copy(pktV, pktU)
	j.shaderRecV += alignShaderRec(uint32(packetSize))

	var bos [3 + spec.GLAttributeSlots]*BO
	for i := 0; i < 3; i++ {
		idx := binary.LittleEndian.Uint32(handles[4*i:])
		// Stricter than the kernel, which checks idx > bo_count (one past
		// the array passes) and then reads validated_shader of whatever BO
		// it finds, dereferencing NULL for a non-shader BO
		// (doc/kernel.md#shader-records).
		if uint64(idx) >= uint64(len(j.bos)) {
			return errf(syscall.EINVAL, "Shader handle %d too big", idx)
		}
		bos[i] = j.bos[idx]
		if bos[i].shader == nil {
			return errf(syscall.EINVAL, "%s BO (index %d) is not a shader BO", shaderNames[i], idx)
		}
	}
	for i := 3; i < nrRelocs; i++ {
		bo, err := j.useBO(binary.LittleEndian.Uint32(handles[4*i:]))
		if err != nil {
			return err
		}
		bos[i] = bo
	}

	var rec cl.GLShaderRecord
	if err := rec.Unpack(pktU); err != nil { // cannot happen: pktU is the record's length
		return errf(syscall.EINVAL, "%v", err)
	}
	if !rec.FSSingleThreaded != bos[0].shader.Threaded {
		return errf(syscall.EINVAL, "Thread mode of CL and FS do not match")
	}
	if bos[1].shader.Threaded || bos[2].shader.Threaded {
		return errf(syscall.EINVAL, "cs and vs cannot be threaded")
	}

	codeOffsets := [3]uint32{rec.FSCodeAddress, rec.VSCodeAddress, rec.CSCodeAddress}
	for i := 0; i < 3; i++ {
		putRecordField(pktV, recCodeFields[i], bos[i].Addr()+codeOffsets[i])
		if codeOffsets[i] != 0 {
			return errf(syscall.EINVAL, "Shaders must be at offset 0 of the BO (%s at %d)", shaderNames[i], codeOffsets[i])
		}
		sh := bos[i].shader
		// The kernel compares each block with the total uniforms_size,
		// not with what is left of the stream, and then reads past its
		// copy (doc/kernel.md#uniforms); the model checks what is left.
		if sh.UniformsSrcSize > j.uniformsTotal || sh.UniformsSrcSize > uint32(len(j.uniformsU)) {
			return errf(syscall.EINVAL, "Uniforms src buffer overflow (%s block of %d bytes, %d left)", shaderNames[i], sh.UniformsSrcSize, len(j.uniformsU))
		}
		texHandles := j.uniformsU[:4*len(sh.Samples)]
		uniformData := j.uniformsU[4*len(sh.Samples) : sh.UniformsSrcSize]
		uniformsV := j.execMem[j.uniformsV : j.uniformsV+sh.UniformsSize]
		copy(uniformsV, uniformData)
		for k := range sh.Samples {
			if err := j.relocTex(uniformData, uniformsV, &sh.Samples[k], binary.LittleEndian.Uint32(texHandles[4*k:])); err != nil {
				return err
			}
		}
		// The uniform slots that reset the uniform address after a branch
		// get the block's own address.
		for _, o := range sh.UniformAddrOffsets {
			binary.LittleEndian.PutUint32(uniformsV[4*o:], j.uniformsP)
		}
		putRecordField(pktV, recUniformsFields[i], j.uniformsP)
		j.uniformsU = j.uniformsU[sh.UniformsSrcSize:]
		j.uniformsV += sh.UniformsSize
		j.uniformsP += sh.UniformsSize
	}

	for i := 0; i < nrAttributes; i++ {
		vbo := bos[3+i]
		var attr cl.AttributeRecord
		_ = attr.Unpack(pktU[spec.GLAttributeOffset(i):]) // inside the record: i < nrAttributes
		offset := attr.Address
		attrSize := uint32(attr.SizeMinusOne) + 1
		stride := attributeStride(pktU, &attr, i, state.packet.Extended)
		if vbo.size < offset || vbo.size-offset < attrSize {
			return errf(syscall.EINVAL, "BO offset overflow (%d + %d > %d)", offset, attrSize, vbo.size)
		}
		if stride != 0 {
			maxIndex := (vbo.size - offset - attrSize) / stride
			if state.maxIndex > maxIndex {
				return errf(syscall.EINVAL, "primitives use index %d out of supplied %d", state.maxIndex, maxIndex)
			}
		}
		putRecordField(pktV[spec.GLAttributeOffset(i):], attrAddressField, vbo.Addr()+offset)
	}
	return nil
}

// attributeStride is attribute array i's stride as validate_gl_shader_rec
// computes it for its bounds check: the attribute record's stride byte,
// and for an extended record bits 31:8 of the array's extended stride word
// ORed in unmasked ("stride |= ext & ~0xff"), so a word with bits above the
// hardware's 26-bit stride only makes the check stricter. rec is the
// user's record, whose length GLShaderRecordLen gave.
func attributeStride(rec []byte, attr *cl.AttributeRecord, i int, extended bool) uint32 {
	stride := uint32(attr.Stride)
	if extended {
		stride |= binary.LittleEndian.Uint32(rec[spec.ExtendedGLShaderRecordBase+spec.ExtendedStrideLen*i:]) &^ 0xFF
	}
	return stride
}

// relocTex is reloc_tex: it checks one texture lookup's parameters
// against its BO and writes the BO's address into the validated P0.
// uniformData is the user's block values; uniformsV their copy in the
// exec BO.
func (j *job) relocTex(uniformData, uniformsV []byte, s *TextureSample, texIndex uint32) error {
	word := func(off uint32) uint32 {
		if off == NoParam {
			return 0
		}
		return binary.LittleEndian.Uint32(uniformData[off:])
	}
	p0, p1, p2, p3 := word(s.POffset[0]), word(s.POffset[1]), word(s.POffset[2]), word(s.POffset[3])
	tex, err := j.useBO(texIndex)
	if err != nil {
		return err
	}
	validatedP0 := uniformsV[s.POffset[0]:]

	if s.Direct {
		// A clamped UBO read: P0 is the byte offset, P1 the clamp.
		remaining := tex.size - p0
		if p0 > tex.size-4 {
			return errf(syscall.EINVAL, "UBO offset greater than UBO size")
		}
		if p1 > remaining-4 {
			return errf(syscall.EINVAL, "UBO clamp would allow reads outside of UBO")
		}
		binary.LittleEndian.PutUint32(validatedP0, tex.Addr()+p0)
		return nil
	}

	d0, d1 := texture.DecodeP0(p0), texture.DecodeP1(p1) // sizes of 0 decode as 2048
	offset := d0.Base
	var cubeStride uint32
	if d0.CubeMap {
		if q := texture.DecodeP2(p2); q.Kind == texture.ParamCubeStride {
			cubeStride = q.CubeStride
		}
		if q := texture.DecodeP2(p3); q.Kind == texture.ParamCubeStride {
			if cubeStride != 0 {
				return texFail(s, p0, p1, p2, p3, "Cube map stride set twice")
			}
			cubeStride = q.CubeStride
		}
		if cubeStride == 0 {
			return texFail(s, p0, p1, p2, p3, "Cube map stride not set")
		}
	}

	typ := texture.JoinType(d0, d1)
	if why := texSizeFits(typ, d1.Width, d1.Height, offset, cubeStride, int(d0.LastLevel), tex.size); why != "" {
		return texFail(s, p0, p1, p2, p3, "%s", why)
	}

	// Stricter than the kernel: it sizes the levels below the base as
	// max(width>>i, 1), but the TMU places them in power-of-two containers
	// (AG §4; texture.HardwareLevelSize), which for a texture whose sides
	// are not powers of two are larger: the hardware would read below what
	// the kernel checked, possibly below the BO. The hardware's chain must
	// fit too.
	if d0.LastLevel > 0 {
		plan, err := texture.NewMipPlan(typ, d1.Width, d1.Height, int(d0.LastLevel)+1)
		if err != nil {
			return texFail(s, p0, p1, p2, p3, "mip chain of %d levels: %v", d0.LastLevel+1, err)
		}
		below := plan.BaseOffset() - plan.Level(int(d0.LastLevel)).Offset
		if uint64(d0.Base) < uint64(below) {
			return texFail(s, p0, p1, p2, p3, "the TMU's power-of-two mip containers need %d bytes below the base at offset %d", below, d0.Base)
		}
	}

	binary.LittleEndian.PutUint32(validatedP0, tex.Addr()+p0)
	return nil
}

// texSizeFits is the size half of reloc_tex: whether a texture of type
// typ and P1's size width×height (0 already read as 2048), with level 0 at
// byte offset base of a BO of boSize bytes, cube faces cubeStride apart and
// lastLevel levels below level 0, fits in the BO. It returns "" when it
// does, or why not, in the kernel's words.
func texSizeFits(typ texture.Type, width, height int, base, cubeStride uint32, lastLevel int, boSize uint32) string {
	cpp, width, height, ok := texGrid(typ, width, height)
	if !ok {
		return fmt.Sprintf("Texture format %d unsupported", typ)
	}
	var tiling uint8 = tilingT
	switch {
	case typ == texture.RGBA32R:
		tiling = tilingLinear
	case sizeIsLT(width, height, cpp):
		tiling = tilingLT
	}

	// Stricter than the kernel, which adds the six cube faces in 32 bits
	// and can wrap past 4 GiB into a small, passing offset.
	start := uint64(base) + 5*uint64(cubeStride)
	if start > 0xFFFFFFFF || !checkTexSize(boSize, uint32(start), tiling, width, height, cpp) {
		return fmt.Sprintf("Overflow in %dx%d texture at %d (+ cube faces) in a %d-byte BO", width, height, start, boSize)
	}

	// The mip levels lie below the base; they must fit in the BO too.
	offset := base
	for i := 1; i <= lastLevel; i++ {
		lw, lh := levelSize(width, height, i)
		// Once the levels get small enough they drop from T to LT.
		if tiling == tilingT && sizeIsLT(lw, lh, cpp) {
			tiling = tilingLT
		}
		aw, ah, _ := alignedSize(tiling, lw, lh, cpp)
		size := uint32(aw) * uint32(cpp) * uint32(ah)
		if offset < size {
			return fmt.Sprintf("Level %d (%dx%d -> %dx%d) size %db overflowed buffer bounds (offset %d)",
				i, lw, lh, aw, ah, size, offset)
		}
		offset -= size
	}
	return ""
}

// texFail is reloc_tex's failure, which also logs the four parameters.
func texFail(s *TextureSample, p0, p1, p2, p3 uint32, format string, args ...any) error {
	e := errf(syscall.EINVAL, format, args...)
	e.Msg += fmt.Sprintf(" (%v at %s, %v at %s, p2 %#08x, p3 %#08x)",
		texture.DecodeP0(p0), offStr(s.POffset[0]), texture.DecodeP1(p1), offStr(s.POffset[1]), p2, p3)
	return e
}

func offStr(o uint32) string {
	if o == NoParam {
		return "-"
	}
	return fmt.Sprint(o)
}
