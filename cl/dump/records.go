package dump

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/shaderrec"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/cl/uniforms"
	"github.com/vccube/vccube/texture"
)

func printRecord(ew *errWriter, b []byte, g *shaderrec.GL, indent string) {
	fixed := spec.GLShaderRecord
	// One line per shader: the flags, then the fs_, vs_ and cs_ fields.
	groups := []string{"", "fs_", "vs_", "cs_"}
	for _, prefix := range groups {
		var parts []string
		for i := range fixed.Fields {
			f := &fixed.Fields[i]
			inGroup := strings.HasPrefix(f.Name, prefix)
			if prefix == "" {
				inGroup = f.Kind == spec.Bool
			} else if f.Kind == spec.Bool {
				inGroup = false
			}
			if !inGroup {
				continue
			}
			if s := FormatField(f, b); s != "" {
				parts = append(parts, s)
			}
		}
		label := strings.TrimSuffix(prefix, "_")
		if label == "" {
			label = "flags"
		}
		ew.printf("%s%s: %s\n", indent, label, strings.Join(parts, " "))
	}
	for i := 0; i < g.NumAttributes; i++ {
		off := fixed.Len + i*spec.AttributeRecord.Len
		ew.printf("%sattr%d: %s", indent, i, Fields(spec.AttributeRecord.Fields, b[off:off+spec.AttributeRecord.Len]))
		if g.Extended {
			ew.printf(" extended_stride=%#x", g.ExtendedStrides[i])
		}
		ew.printf("\n")
	}
}

// Record prints a fixed-size record described in cl/spec (an NV or VG
// shader record, an attribute record, a clipped vertex) on one line:
// "nv_shader_record: fields…".
func Record(w io.Writer, s *spec.Struct, b []byte) error {
	if len(b) < s.Len {
		return fmt.Errorf("dump: %s needs %d bytes, only %d left", s.Name, s.Len, len(b))
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", s.Name, Fields(s.Fields, b[:s.Len]))
	return err
}

// Records prints a submit's shader_rec stream (kernel form: BO indices then
// each record), one record per GL_SHADER_STATE of the bin CL, in order.
func Records(w io.Writer, recs []byte, states []cl.GLShaderState) error {
	ew := &errWriter{w: w}
	off := 0
	for i, s := range states {
		r, g, n, err := shaderrec.DecodeKernel(recs[off:], s)
		if err != nil {
			ew.printf("error: record %d at %#04x: %v\n", i, off, err)
			if ew.err != nil {
				return ew.err
			}
			return fmt.Errorf("dump: record %d at offset %#04x: %w", i, off, err)
		}
		ew.printf("record %d at %04x: %d attribute array(s)%s, BO indices fs=%d vs=%d cs=%d",
			i, off, g.NumAttributes, map[bool]string{true: ", extended", false: ""}[g.Extended], r.FS, r.VS, r.CS)
		for a := 0; a < g.NumAttributes; a++ {
			ew.printf(" attr%d=%d", a, r.Attributes[a])
		}
		ew.printf("\n")
		idx := shaderrec.RelocsLen(g.NumAttributes)
		printRecord(ew, recs[off+idx:off+n], &g, "  ")
		off += n
	}
	if off < len(recs) && ew.err == nil {
		ew.printf("%d bytes after the last record\n", len(recs)-off)
	}
	return ew.err
}

// Uniforms prints a submit's uniforms stream, block by block, with the
// shapes the shader validator computed (three per record: FS, VS, CS).
// Texture parameter words named by Shape.Params are decoded with package
// texture; other words are shown in hex and, when they look like one, as
// a float.
func Uniforms(w io.Writer, unis []byte, shapes []uniforms.Shape) error {
	ew := &errWriter{w: w}
	rest := unis
	for i, sh := range shapes {
		blk, r, err := uniforms.Next(rest, sh)
		if err != nil {
			ew.printf("error: block %d: %v\n", i, err)
			if ew.err != nil {
				return ew.err
			}
			return fmt.Errorf("dump: uniforms block %d: %w", i, err)
		}
		ew.printf("record %d %v at %04x:", i/3, uniforms.Stage(i%3), len(unis)-len(rest))
		if blk.NumTextures() > 0 {
			ew.printf(" textures")
			for t := 0; t < blk.NumTextures(); t++ {
				ew.printf(" bo[%d]", blk.Texture(t))
			}
			ew.printf(";")
		}
		ew.printf("\n")
		for u := 0; u < blk.NumUniforms(); u++ {
			v := blk.Uniform(u)
			ew.printf("  u%d=0x%08x%s\n", u, v, describeUniform(v, u, sh.Params))
		}
		rest = r
	}
	if len(rest) > 0 && ew.err == nil {
		ew.printf("%d bytes after the last block\n", len(rest))
	}
	return ew.err
}

// describeUniform decodes a texture parameter word, or shows a plausible
// float.
func describeUniform(v uint32, u int, params [][]int) string {
	for s, ps := range params {
		for k, idx := range ps {
			if idx != u {
				continue
			}
			switch k {
			case 0:
				return fmt.Sprintf(" sample %d %v", s, texture.DecodeP0(v))
			case 1:
				return fmt.Sprintf(" sample %d %v", s, texture.DecodeP1(v))
			default:
				// P2 and P3 share one layout; texture prints it as "P2{…}".
				return fmt.Sprintf(" sample %d P%d%s", s, k, strings.TrimPrefix(texture.DecodeP2(v).String(), "P2"))
			}
		}
	}
	f := math.Float32frombits(v)
	if a := math.Abs(float64(f)); v == 0 || (a >= 1e-6 && a < 1e9) {
		return " (" + formatFloat(f) + ")"
	}
	return ""
}

// Job prints a whole submit: the bin CL, then the shader records it uses,
// then the uniforms (as raw words when shapes is nil).
func Job(w io.Writer, bin, recs, unis []byte, shapes []uniforms.Shape) error {
	ew := &errWriter{w: w}
	ew.printf("bin CL, %d bytes:\n", len(bin))
	if ew.err != nil {
		return ew.err
	}
	var states []cl.GLShaderState
	if err := CL(w, bin, Options{List: spec.BinList}); err != nil {
		return err
	}
	_ = Walk(bin, Options{List: spec.BinList}, func(p *Packet) error {
		if p.Desc.Op == spec.OpGLShaderState {
			var s cl.GLShaderState
			_ = s.Unpack(p.Bytes)
			states = append(states, s)
		}
		return nil
	})
	ew.printf("shader records, %d bytes:\n", len(recs))
	if ew.err != nil {
		return ew.err
	}
	if err := Records(w, recs, states); err != nil {
		return err
	}
	ew.printf("uniforms, %d bytes:\n", len(unis))
	if shapes != nil {
		return Uniforms(w, unis, shapes)
	}
	for i := 0; i+4 <= len(unis); i += 4 {
		v := uint32(unis[i]) | uint32(unis[i+1])<<8 | uint32(unis[i+2])<<16 | uint32(unis[i+3])<<24
		ew.printf("  %04x 0x%08x%s\n", i, v, describeUniform(v, -1, nil))
	}
	return ew.err
}
