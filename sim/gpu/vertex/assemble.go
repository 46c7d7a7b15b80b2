package vertex

import "github.com/vccube/vccube/cl"

// Sink receives assembled primitives: nv vertices (1 point, 2 line, 3
// triangle) at positions a, b, c of the draw's vertex list.
type Sink interface {
	Primitive(nv int, a, b, c int) error
}

// Assemble calls fn.Primitive with the positions (into the draw's index list) of
// each primitive's vertices, expanding strips, fans and loops as OpenGL ES
// 2.0 does (§2.6.1): odd triangles of a strip swap their first two vertices to
// keep the winding; a fan pivots on vertex 0; a loop closes back to vertex
// 0. Trailing vertices that make no whole primitive are dropped.
func Assemble(mode cl.PrimitiveMode, n int, fn Sink) error {
	switch mode {
	case cl.PrimitiveModePoints:
		for i := 0; i < n; i++ {
			if err := fn.Primitive(1, i, 0, 0); err != nil {
				return err
			}
		}
	case cl.PrimitiveModeLines:
		for i := 0; i+1 < n; i += 2 {
			if err := fn.Primitive(2, i, i+1, 0); err != nil {
				return err
			}
		}
	case cl.PrimitiveModeLineStrip, cl.PrimitiveModeLineLoop:
		for i := 0; i+1 < n; i++ {
			if err := fn.Primitive(2, i, i+1, 0); err != nil {
				return err
			}
		}
		if mode == cl.PrimitiveModeLineLoop && n > 2 {
			return fn.Primitive(2, n-1, 0, 0)
		}
	case cl.PrimitiveModeTriangles:
		for i := 0; i+2 < n; i += 3 {
			if err := fn.Primitive(3, i, i+1, i+2); err != nil {
				return err
			}
		}
	case cl.PrimitiveModeTriangleStrip:
		for i := 0; i+2 < n; i++ {
			a, c := i, i+1
			if i&1 != 0 {
				a, c = c, a
			}
			if err := fn.Primitive(3, a, c, i+2); err != nil {
				return err
			}
		}
	case cl.PrimitiveModeTriangleFan:
		for i := 1; i+1 < n; i++ {
			if err := fn.Primitive(3, 0, i, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}
