package spec

import (
	"regexp"
	"sort"
	"testing"
)

// kernelSizes is copied by hand from Linux drivers/gpu/drm/vc4/vc4_packet.h
// (the VC4_PACKET_*_SIZE defines, torvalds/linux 2cc2c3cb).
var kernelSizes = map[Opcode]int{
	0: 1, 1: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 16: 5, 17: 5,
	24: 1, 25: 1, 26: 5, 27: 5, 28: 7, 29: 7, 32: 14, 33: 10,
	48: 1, 49: 1, 56: 2, 64: 5, 65: 5, 66: 5,
	96: 4, 97: 5, 98: 5, 99: 5, 100: 3, 101: 5, 102: 9, 103: 5, 104: 9, 105: 9, 106: 9,
	112: 16, 113: 11, 114: 14, 115: 3, 254: 9,
}

func TestLengthsMatchKernelHeader(t *testing.T) {
	for op, want := range kernelSizes {
		p := Lookup(op)
		if p == nil {
			t.Errorf("opcode %d is in vc4_packet.h but not in the table", op)
			continue
		}
		if op == OpClippedCompressedPrimitive {
			// vc4_packet.h says 1 (the kernel never parses it); AG Table 38
			// id 49 gives a 32-bit address/flags word before the list.
			if p.Len != 5 {
				t.Errorf("CLIPPED_COMPRESSED_PRIMITIVE Len = %d, want 5 (AG)", p.Len)
			}
			continue
		}
		if p.Len != want {
			t.Errorf("%s Len = %d, vc4_packet.h says %d", p.Name, p.Len, want)
		}
	}
}

// Packets only the AG documents, with lengths from the bit offsets of AG
// Table 38 (highest bit + 1, rounded up to bytes, plus the id).
func TestLengthsOfAGOnlyPackets(t *testing.T) {
	want := map[Opcode]int{
		18: 1,  // return from sub-list: no data
		41: 10, // 32 bits at 40 → 72 bits = 9 bytes
		42: 2,  // type and continuation in one byte, then the inline list
		67: 9,  // 32 bits at 32 → 8 bytes
	}
	for op, n := range want {
		if p := Lookup(op); p == nil || p.Len != n {
			t.Errorf("opcode %d: got %+v, want Len %d", op, p, n)
		}
	}
}

// The kernel's bin-CL whitelist, vc4_validate.c cmd_info[] (doc/kernel.md#bin-cl).
func TestKernelWhitelist(t *testing.T) {
	want := []Opcode{0, 1, 4, 5, 6, 7, 32, 33, 56, 64, 96, 97, 98, 99, 100, 101, 102, 103, 105, 106, 112, 254}
	var got []Opcode
	for i := range Packets {
		if Packets[i].KernelBin {
			got = append(got, Packets[i].Op)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if len(got) != len(want) {
		t.Fatalf("whitelist = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("whitelist = %v, want %v", got, want)
		}
	}
}

// Packets the kernel writes into the render CL (vc4_render_cl.c
// vc4_create_rcl_bo, emit_tile; doc/kernel.md#the-emitted-list) must be
// render-list packets.
func TestKernelRenderPacketsAreRenderList(t *testing.T) {
	for _, op := range []Opcode{8, 17, 24, 25, 26, 27, 28, 29, 113, 114, 115} {
		if p := Lookup(op); p == nil || p.Lists&RenderList == 0 {
			t.Errorf("opcode %d not marked as a render-list packet", op)
		}
	}
	for _, op := range []Opcode{4, 5, 6, 105, 106, 112} { // AG (B)
		if p := Lookup(op); p.Lists != BinList {
			t.Errorf("%s lists = %v, want bin only", p.Name, p.Lists)
		}
	}
}

var snake = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

func checkFields(t *testing.T, what string, payloadBits uint, fields []Field) {
	t.Helper()
	names := map[string]bool{}
	var used [1024]bool
	prevStart := -1
	for i := range fields {
		f := &fields[i]
		if !snake.MatchString(f.Name) {
			t.Errorf("%s: field name %q is not snake case", what, f.Name)
		}
		if names[f.Name] {
			t.Errorf("%s: field %q twice", what, f.Name)
		}
		names[f.Name] = true
		if int(f.Start) <= prevStart {
			t.Errorf("%s: field %q out of Start order", what, f.Name)
		}
		prevStart = int(f.Start)
		if f.Width == 0 || f.Start+f.Width > payloadBits {
			t.Errorf("%s: field %q (bits %d+%d) outside %d payload bits", what, f.Name, f.Start, f.Width, payloadBits)
			continue
		}
		for b := f.Start; b < f.Start+f.Width; b++ {
			if used[b] {
				t.Errorf("%s: field %q overlaps bit %d", what, f.Name, b)
			}
			used[b] = true
		}
		if f.Doc == "" {
			t.Errorf("%s: field %q has no Doc", what, f.Name)
		}
		switch f.Kind {
		case Enumerated:
			if f.Enum == nil {
				t.Errorf("%s: enum field %q without Enum", what, f.Name)
				break
			}
			for _, v := range f.Enum.Values {
				if uint64(v.Value) > f.Mask() {
					t.Errorf("%s: %s value %d does not fit %q's %d bits", what, f.Enum.GoName, v.Value, f.Name, f.Width)
				}
			}
		case Address:
			if f.Width+f.Shift != 32 {
				t.Errorf("%s: address %q: width %d + shift %d != 32", what, f.Name, f.Width, f.Shift)
			}
		case Bool:
			if f.Width != 1 {
				t.Errorf("%s: bool %q is %d bits", what, f.Name, f.Width)
			}
		}
	}
}

func TestPacketTableIsConsistent(t *testing.T) {
	names := map[string]bool{}
	for i := range Packets {
		p := &Packets[i]
		if i > 0 && Packets[i-1].Op >= p.Op {
			t.Errorf("%s out of opcode order", p.Name)
		}
		if names[p.Name] {
			t.Errorf("name %s twice", p.Name)
		}
		names[p.Name] = true
		if p.Len < 1 || p.Doc == "" || p.Source == "" {
			t.Errorf("%s: Len %d, Doc %q, Source %q", p.Name, p.Len, p.Doc, p.Source)
		}
		if Lookup(p.Op) != p {
			t.Errorf("Lookup(%d) is not %s", p.Op, p.Name)
		}
		checkFields(t, p.Name, uint(p.Len-1)*8, p.Fields)
	}
	for _, s := range Structs {
		checkFields(t, s.Name, uint(s.Len)*8, s.Fields)
	}
}

// Reserved ids of AG Table 38 have no description.
func TestReservedIDs(t *testing.T) {
	for _, op := range []Opcode{2, 3, 9, 15, 19, 23, 30, 31, 34, 40, 43, 47, 50, 55, 57, 63, 68, 95, 107, 111, 116, 253, 255} {
		if Lookup(op) != nil {
			t.Errorf("reserved id %d has a description", op)
		}
	}
	if got := Opcode(2).String(); got != "packet 2" {
		t.Errorf("Opcode(2).String() = %q", got)
	}
	if got := OpTileBinningModeConfig.String(); got != "TILE_BINNING_MODE_CONFIG" {
		t.Errorf("String() = %q", got)
	}
}

// Byte offsets of the GL shader record, AG Table 45 (and vc4_validate.c:
// code at 4/16/28, uniforms at code + 4).
func TestGLShaderRecordOffsets(t *testing.T) {
	want := map[string][2]uint{ // name → {byte offset, size in bytes}
		"fs_num_uniforms": {2, 1}, "fs_num_varyings": {3, 1},
		"fs_code_address": {4, 4}, "fs_uniforms_address": {8, 4},
		"vs_num_uniforms": {12, 2}, "vs_attribute_select": {14, 1}, "vs_attributes_size": {15, 1},
		"vs_code_address": {16, 4}, "vs_uniforms_address": {20, 4},
		"cs_num_uniforms": {24, 2}, "cs_attribute_select": {26, 1}, "cs_attributes_size": {27, 1},
		"cs_code_address": {28, 4}, "cs_uniforms_address": {32, 4},
	}
	for name, w := range want {
		f := GLShaderRecord.Field(name)
		if f == nil || f.Start != w[0]*8 || f.Width != w[1]*8 {
			t.Errorf("%s: got %+v, want byte %d size %d", name, f, w[0], w[1])
		}
	}
	a := map[string]uint{"address": 0, "size_minus_one": 4, "stride": 5, "vs_vpm_offset": 6, "cs_vpm_offset": 7}
	for name, off := range a {
		if f := AttributeRecord.Field(name); f == nil || f.Start != off*8 {
			t.Errorf("attribute %s: got %+v, want byte %d", name, f, off)
		}
	}
	if GLShaderRecordLen(1, false) != 44 || GLShaderRecordLen(8, false) != 100 ||
		GLShaderRecordLen(1, true) != 104 || GLShaderRecordLen(8, true) != 132 {
		t.Error("GLShaderRecordLen disagrees with vc4_validate.c gl_shader_rec_size")
	}
	if ExtendedGLShaderRecordBase != GLShaderRecord.Len+GLAttributeSlots*AttributeRecord.Len {
		t.Error("extended strides must start after all eight attribute slots")
	}
}

func TestGetPutBits(t *testing.T) {
	b := make([]byte, 4)
	PutBits(b, 4, 12, 0xabc) // bits 15:4
	if b[0] != 0xc0 || b[1] != 0xab || b[2] != 0 {
		t.Fatalf("PutBits: % x", b)
	}
	if got := GetBits(b, 4, 12); got != 0xabc {
		t.Fatalf("GetBits = %#x", got)
	}
	PutBits(b, 3, 29, 0x1fffffff) // leaves bits 2:0
	b[0] |= 0x5
	if b[0] != 0xfd || b[3] != 0xff {
		t.Fatalf("PutBits: % x", b)
	}
	PutBits(b, 3, 29, 0) // clears only its own bits
	if b[0] != 0x05 || b[1] != 0 || b[3] != 0 {
		t.Fatalf("PutBits clear: % x", b)
	}
	c := []byte{0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}
	if got := GetBits(c, 0, 64); got != 0x8877665544332211 {
		t.Fatalf("GetBits 64 = %#x", got)
	}
	if got := GetBits(c, 64-24, 24); got != 0x887766 {
		t.Fatalf("GetBits top 24 = %#x", got)
	}
	f := Field{Start: 60, Width: 8}
	if f.Raw(c) != 0 { // runs past the end: 0, no panic
		t.Fatal("Raw past the end")
	}
}

// The GL_SHADER_STATE count: 1..7 as given, 0 meaning 8 (AG Table 38 id
// 64; vc4_validate.c gl_shader_rec_size), and the record sizes that follow.
func TestGLAttributeCount(t *testing.T) {
	for field, want := range map[uint8]int{0: 8, 1: 1, 5: 5, 7: 7} {
		if got := GLAttributeCount(field); got != want {
			t.Errorf("GLAttributeCount(%d) = %d, want %d", field, got, want)
		}
	}
	if GLShaderRecordLen(GLAttributeCount(0), false) != 100 || GLShaderRecordLen(GLAttributeCount(1), true) != 104 {
		t.Error("record sizes: 36 + 8·8 and 100 + 4·1")
	}
}
