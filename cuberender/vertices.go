package cuberender

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vccube/vccube/math/scene"
	"github.com/vccube/vccube/shaders"
)

// The vertex BO holds the shaders' attribute arrays one after the other,
// each tightly packed (stride = the attribute's bytes): shaders.Attributes[0]
// (position x, y, z) for all 36 vertices, then shaders.Attributes[1]
// (texture coordinate s, t). Both are float32, little-endian like every
// word the VideoCore IV reads. The arrays never change: the cube turns
// through the MVP uniform, not by rewriting vertices.

// attributeOffsets returns the byte offset of each attribute array in the
// vertex BO, and the BO's size.
func attributeOffsets() (off [len(shaders.Attributes)]int, size int) {
	for i, a := range shaders.Attributes {
		off[i] = size
		size += a.Bytes * scene.NumVertices
	}
	return off, size
}

// vertexComponents returns attribute a's float components of vertex v, in
// the order the shaders read them.
func vertexComponents(a int, v *scene.Vertex) ([]float32, error) {
	switch shaders.Attributes[a].Name {
	case "position":
		return v.Position[:], nil
	case "texcoord":
		return []float32{v.S, v.T}, nil
	}
	return nil, fmt.Errorf("render: the shaders read an attribute %q this renderer does not know", shaders.Attributes[a].Name)
}

// fillVertices writes the attribute arrays into mem.
func fillVertices(mem []byte) error {
	off, size := attributeOffsets()
	if len(mem) < size {
		return fmt.Errorf("render: vertex buffer has %d bytes, want %d", len(mem), size)
	}
	verts := scene.Vertices()
	for a, attr := range shaders.Attributes {
		for i := range verts {
			comps, err := vertexComponents(a, &verts[i])
			if err != nil {
				return err
			}
			if len(comps)*4 != attr.Bytes || len(comps) != attr.Components {
				return fmt.Errorf("render: attribute %q has %d components (%d bytes), the renderer has %d",
					attr.Name, attr.Components, attr.Bytes, len(comps))
			}
			p := off[a] + i*attr.Bytes
			for j, f := range comps {
				binary.LittleEndian.PutUint32(mem[p+4*j:], math.Float32bits(f))
			}
		}
	}
	return nil
}

func (r *Renderer) createVertices() error {
	_, size := attributeOffsets()
	bo, mem, err := r.newBO("vertex buffer", size)
	r.vertices = bo
	if err != nil {
		return err
	}
	return fillVertices(mem)
}
