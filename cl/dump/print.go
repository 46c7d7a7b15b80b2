package dump

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/prim"
	"github.com/vccube/vccube/cl/spec"
)

// FormatField formats one field of a payload or record: "name=value", or
// for a flag just its name when set and "" when clear.
func FormatField(f *spec.Field, b []byte) string {
	raw := f.Raw(b)
	switch f.Kind {
	case spec.Bool:
		if raw != 0 {
			return f.Name
		}
		return ""
	case spec.Int:
		s := 64 - f.Width
		return f.Name + "=" + strconv.FormatInt(int64(raw<<s)>>s, 10)
	case spec.Float:
		return f.Name + "=" + formatFloat(math.Float32frombits(uint32(raw)))
	case spec.Float187:
		return f.Name + "=" + formatFloat(math.Float32frombits(uint32(raw)<<16))
	case spec.Subpixel:
		return f.Name + "=" + cl.Subpixel(int16(uint16(raw))).String()
	case spec.Address:
		return fmt.Sprintf("%s=0x%08x", f.Name, uint32(raw<<f.Shift))
	case spec.Enumerated:
		if name, ok := f.Enum.NameOf(uint32(raw)); ok {
			return f.Name + "=" + name
		}
		return fmt.Sprintf("%s=%d(reserved)", f.Name, raw)
	}
	if f.Hex {
		return fmt.Sprintf("%s=%#x", f.Name, raw)
	}
	return f.Name + "=" + strconv.FormatUint(raw, 10)
}

func formatFloat(f float32) string { return strconv.FormatFloat(float64(f), 'g', -1, 32) }

// Fields formats every field of b with FormatField, space-separated,
// leaving out clear flags.
func Fields(fields []spec.Field, b []byte) string {
	var sb strings.Builder
	for i := range fields {
		s := FormatField(&fields[i], b)
		if s == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// Line formats a packet: its name, its fields and, when it does not belong
// in the list being read, a note saying so.
func Line(p *Packet, list spec.List) string {
	var sb strings.Builder
	sb.WriteString(p.Desc.Name)
	if f := Fields(p.Desc.Fields, p.Payload()); f != "" {
		sb.WriteByte(' ')
		sb.WriteString(f)
	}
	switch {
	case list == spec.BinList && p.Desc.Lists&spec.BinList != 0 && !p.Desc.KernelBin:
		sb.WriteString("  ! the kernel refuses this packet in a bin CL")
	case list == spec.BinList && p.Desc.Pseudo:
	case p.Desc.Lists&list == 0:
		fmt.Fprintf(&sb, "  ! not a %v-list packet (AG Table 38: %v)", list, p.Desc.Lists)
	}
	return sb.String()
}

func item(it *prim.Item, t prim.Type) string {
	switch it.Kind {
	case prim.Escape:
		return "escape"
	case prim.Branch:
		return fmt.Sprintf("branch %+d × 32 bytes", it.Branch)
	}
	idx := it.Prim.Index[:t.Vertices()]
	s := fmt.Sprintf("coding %d: %v", it.Coding, idx)
	if it.Aux != 0 {
		s += fmt.Sprintf(" aux=%d", it.Aux)
	}
	return s
}

// CL prints the list in b, one packet per line ("offset NAME fields"),
// compressed-list items indented below their packet. It returns Walk's
// error after printing everything before the problem, and the problem
// itself as a last line.
func CL(w io.Writer, b []byte, opt Options) error {
	list := opt.list()
	ew := &errWriter{w: w}
	err := Walk(b, opt, func(p *Packet) error {
		ew.printf("%04x %s\n", opt.Base+uint32(p.Offset), Line(p, list))
		off := p.Offset + len(p.Bytes)
		if p.Desc.Inline == spec.CompressedList {
			ew.printf("%04x   %v, %d-bit indices\n", opt.Base+uint32(off), p.Format.Type, p.Format.IndexBits)
		}
		for i := range p.Items {
			ew.printf("%04x   %s\n", opt.Base+uint32(off), item(&p.Items[i], p.Format.Type))
			off += p.Items[i].Len
		}
		if p.Desc.Inline == spec.VGCoordinates {
			ew.printf("%04x   %d coordinate words\n", opt.Base+uint32(off), len(p.Inline)/4)
		}
		if p.Stop != "" {
			ew.printf("     (%s)\n", p.Stop)
		}
		return ew.err
	})
	if err != nil && ew.err == nil {
		ew.printf("error: %v\n", err)
	}
	if ew.err != nil {
		return ew.err
	}
	return err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
