// Package uniforms builds and parses the uniforms buffer of
// DRM_IOCTL_VC4_SUBMIT_CL: for each shader record, in bin-CL order, one
// block for the fragment shader, one for the vertex shader and one for the
// coordinate shader; each block is one u32 bo_handles index per texture
// sample (in the order the shader's TMU "S" writes happen) followed by the
// uniform words in the order the shader reads them (doc/kernel.md#uniforms;
// vc4_validate.c validate_gl_shader_rec, reloc_tex; the uniforms comment
// in include/uapi/drm/vc4_drm.h).
//
// The kernel copies only the uniform words to the GPU and adds the texture
// BO's address to each sample's P0 word, which therefore holds the
// texture's offset inside its BO (4 KiB aligned) plus its config bits.
package uniforms

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Float returns the uniform word of a float.
func Float(f float32) uint32 { return math.Float32bits(f) }

// Stage names the shader a block belongs to.
type Stage uint8

// The three blocks of a GL shader record, in stream order.
const (
	FS Stage = iota
	VS
	CS
)

var stageNames = [...]string{"FS", "VS", "CS"}

// String returns "FS", "VS" or "CS".
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// Stream is the uniforms buffer of a submit. Reset it each frame; its
// buffer is reused, so building allocates nothing once it has grown.
type Stream struct {
	buf    []byte
	blocks int
}

// Reset empties the stream, keeping its buffer.
func (s *Stream) Reset() { s.buf, s.blocks = s.buf[:0], 0 }

// AppendBlock appends one shader's block: the bo_handles index of each
// texture sample's BO, then the uniform words. Blocks must come FS, VS, CS
// for each record, records in bin-CL order.
func (s *Stream) AppendBlock(textures []uint32, uniforms []uint32) {
	// Grow once and store, rather than append word by word: this runs
	// for every draw of every frame.
	n := len(s.buf)
	need := 4 * (len(textures) + len(uniforms))
	s.buf = slices.Grow(s.buf, need)[:n+need]
	b := s.buf[n : n+need]
	putWords(b, textures)
	putWords(b[4*len(textures):], uniforms)
	s.blocks++
}

// hostLittleEndian is whether this machine stores words as the VideoCore
// IV reads them (every architecture vccube is built for does).
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// putWords writes words little-endian at the start of b: on a
// little-endian host their bytes are copied as they are in memory.
func putWords(b []byte, words []uint32) {
	if hostLittleEndian && len(words) > 0 {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), 4*len(words)))
		return
	}
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:4*i+4], w)
	}
}

// AppendRaw appends bytes as they are, for tests that hand the kernel a
// broken stream.
func (s *Stream) AppendRaw(b []byte) { s.buf = append(s.buf, b...) }

// Bytes returns the stream; it is valid until the next Reset or append.
func (s *Stream) Bytes() []byte { return s.buf }

// Blocks returns how many blocks were appended.
func (s *Stream) Blocks() int { return s.blocks }

// Shape is what the kernel's shader validator knows about a block before
// reading it: how many texture samples the shader makes and how many
// uniform words it reads (vc4_validate_shaders.c; doc/kernel.md#uniform-counting).
type Shape struct {
	// Samples is the number of texture samples (BO indices in front).
	Samples int
	// Uniforms is the number of uniform words.
	Uniforms int
	// Params optionally gives, per sample, the indices of the uniform
	// words holding its texture parameters P0, P1[, P2[, P3]] (the
	// validator's p_offset). The dumper decodes those words; nil means
	// unknown.
	Params [][]int
}

// Len returns the block's size in bytes.
func (sh Shape) Len() int { return 4 * (sh.Samples + sh.Uniforms) }

// Block is a view of one block of a uniforms buffer.
type Block struct {
	raw     []byte
	samples int
}

// NumTextures returns the number of texture BO indices.
func (b Block) NumTextures() int { return b.samples }

// NumUniforms returns the number of uniform words.
func (b Block) NumUniforms() int { return len(b.raw)/4 - b.samples }

// Texture returns the bo_handles index of texture sample i.
func (b Block) Texture(i int) uint32 { return binary.LittleEndian.Uint32(b.raw[4*i:]) }

// Uniform returns uniform word i.
func (b Block) Uniform(i int) uint32 { return binary.LittleEndian.Uint32(b.raw[4*(b.samples+i):]) }

// Bytes returns the block's bytes.
func (b Block) Bytes() []byte { return b.raw }

// Next splits the block of the given shape off the front of stream.
func Next(stream []byte, sh Shape) (Block, []byte, error) {
	if sh.Samples < 0 || sh.Uniforms < 0 {
		return Block{}, stream, fmt.Errorf("uniforms: negative shape %+v", sh)
	}
	// Compare word counts, so that a huge shape cannot overflow Len.
	if words := len(stream) / 4; sh.Samples > words || sh.Uniforms > words-sh.Samples {
		return Block{}, stream, fmt.Errorf("uniforms: a block of %d texture indices and %d uniforms needs 4·(%d + %d) bytes, only %d left",
			sh.Samples, sh.Uniforms, sh.Samples, sh.Uniforms, len(stream))
	}
	n := sh.Len()
	return Block{raw: stream[:n:n], samples: sh.Samples}, stream[n:], nil
}
