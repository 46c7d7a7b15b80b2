package vertex

import (
	"testing"

	"github.com/vccube/vccube/cl"
)

type recorder [][3]int

func (r *recorder) Primitive(nv, a, b, c int) error {
	p := [3]int{a, b, c}
	for k := nv; k < 3; k++ {
		p[k] = -1
	}
	*r = append(*r, p)
	return nil
}

// Primitive assembly as OpenGL ES 2.0 §2.6.1 lists it.
func TestAssembly(t *testing.T) {
	cases := []struct {
		mode cl.PrimitiveMode
		n    int
		want [][3]int
	}{
		{cl.PrimitiveModePoints, 2, [][3]int{{0, -1, -1}, {1, -1, -1}}},
		{cl.PrimitiveModeLines, 5, [][3]int{{0, 1, -1}, {2, 3, -1}}},
		{cl.PrimitiveModeLineStrip, 3, [][3]int{{0, 1, -1}, {1, 2, -1}}},
		{cl.PrimitiveModeLineLoop, 3, [][3]int{{0, 1, -1}, {1, 2, -1}, {2, 0, -1}}},
		{cl.PrimitiveModeTriangles, 7, [][3]int{{0, 1, 2}, {3, 4, 5}}},
		{cl.PrimitiveModeTriangleStrip, 5, [][3]int{{0, 1, 2}, {2, 1, 3}, {2, 3, 4}}},
		{cl.PrimitiveModeTriangleFan, 5, [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 4}}},
	}
	for _, c := range cases {
		var r recorder
		Assemble(c.mode, c.n, &r)
		if len(r) != len(c.want) {
			t.Errorf("%v: %v, want %v", c.mode, r, c.want)
			continue
		}
		for i := range r {
			if r[i] != c.want[i] {
				t.Errorf("%v: %v, want %v", c.mode, r, c.want)
				break
			}
		}
	}
}
