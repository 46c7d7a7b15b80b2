package spec

// Records the control lists point at. Offsets are bits from the record's
// first byte (byte offset × 8).

// GLShaderRecord is the fixed 36-byte part of the GL shader state record
// (AG Table 45). AttributeRecord entries follow it: NumAttributeArrays of
// them (36 + 8n bytes), or all eight slots plus one extended-stride word per
// array for the extended form (100 + 4n bytes; vc4_validate.c
// gl_shader_rec_size). Mesa's 2018 v3d_packet_v21.xml gets two fields wrong
// (FS uniform count as 16 bits at byte 2, VS uniforms address at byte 16);
// this follows AG Table 45 and vc4_validate.c validate_gl_shader_rec
// (code addresses at 4/16/28, uniforms at code + 4); see
// doc/hardware.md#shader-records.
var GLShaderRecord = &Struct{
	Name: "gl_shader_record",
	Len:  36,
	Fields: []Field{
		flag("fs_single_threaded", 0, "FSSingleThreaded says the fragment shader is single-threaded; the kernel checks it against the FS it validated."),
		flag("point_size_included", 1, "PointSizeIncluded says shaded vertices carry a point size."),
		flag("enable_clipping", 2, "EnableClipping enables clipping (Mesa always sets it)."),
		uintField("fs_num_uniforms", 16, 8, "FSNumUniforms is not used by the hardware."),
		uintField("fs_num_varyings", 24, 8, "FSNumVaryings is the number of 32-bit varying components the FS reads."),
		addr("fs_code_address", 32, 8, "FSCodeAddress is the FS code. In the user's stream it must be 0 (the shader sits at offset 0 of its BO); the kernel writes the address."),
		addr("fs_uniforms_address", 64, 4, "FSUniformsAddress is the FS uniforms; the kernel writes it."),
		uintField("vs_num_uniforms", 96, 16, "VSNumUniforms is not used by the hardware."),
		hex(uintField("vs_attribute_select", 112, 8, "VSAttributeSelect has bit n set when attribute array n is loaded for the VS.")),
		uintField("vs_attributes_size", 120, 8, "VSAttributesSize is the VS's total attribute bytes per vertex in the VPM."),
		addr("vs_code_address", 128, 8, "VSCodeAddress is the VS code (0 in the user's stream)."),
		addr("vs_uniforms_address", 160, 4, "VSUniformsAddress is the VS uniforms; the kernel writes it."),
		uintField("cs_num_uniforms", 192, 16, "CSNumUniforms is not used by the hardware."),
		hex(uintField("cs_attribute_select", 208, 8, "CSAttributeSelect has bit n set when attribute array n is loaded for the CS.")),
		uintField("cs_attributes_size", 216, 8, "CSAttributesSize is the CS's total attribute bytes per vertex in the VPM."),
		addr("cs_code_address", 224, 8, "CSCodeAddress is the coordinate shader code (0 in the user's stream)."),
		addr("cs_uniforms_address", 256, 4, "CSUniformsAddress is the CS uniforms; the kernel writes it."),
	},
	Doc:    "GLShaderRecord is the fixed part of a GL shader state record (bytes 0–35); attribute records follow it.",
	Source: "AG Table 45; vc4_validate.c validate_gl_shader_rec; vc4_packet.h VC4_SHADER_FLAG_*",
}

// AttributeRecord is one attribute array of a GL shader record, at byte
// 36 + 8n (AG Table 45; Mesa XML "Attribute Record").
var AttributeRecord = &Struct{
	Name: "attribute_record",
	Len:  8,
	Fields: []Field{
		addr("address", 0, 1, "Address is the array's base. In the user's stream it is a byte offset into the array's BO; the kernel writes the address."),
		uintField("size_minus_one", 32, 8, "SizeMinusOne is the number of bytes per vertex minus one."),
		uintField("stride", 40, 8, "Stride is the distance between vertices in bytes (extended records add bits 31:8 from the extended stride word)."),
		uintField("vs_vpm_offset", 48, 8, "VSVPMOffset is where the VS finds the attribute in its VPM data, in bytes."),
		uintField("cs_vpm_offset", 56, 8, "CSVPMOffset is where the CS finds the attribute in its VPM data, in bytes."),
	},
	Doc:    "AttributeRecord describes one vertex attribute array of a GL shader record.",
	Source: "AG Table 45; vc4_validate.c validate_gl_shader_rec",
}

// NVShaderRecord is the 16-byte NV (no vertex shading) shader state record
// (AG Table 46). The Linux kernel refuses NV_SHADER_STATE; this is for the
// simulated GPU and bare-metal use.
var NVShaderRecord = &Struct{
	Name: "nv_shader_record",
	Len:  16,
	Fields: []Field{
		flag("fs_single_threaded", 0, "FSSingleThreaded says the fragment shader is single-threaded."),
		flag("point_size_included", 1, "PointSizeIncluded says shaded vertices carry a point size."),
		flag("enable_clipping", 2, "EnableClipping enables clipping."),
		flag("clip_header_included", 3, "ClipHeaderIncluded says each shaded vertex starts with Xc, Yc, Zc, Wc (vc4_packet.h VC4_SHADER_FLAG_SHADED_CLIP_COORDS)."),
		uintField("stride", 8, 8, "Stride is the shaded vertex stride in bytes."),
		uintField("fs_num_uniforms", 16, 8, "FSNumUniforms is not used by the hardware."),
		uintField("fs_num_varyings", 24, 8, "FSNumVaryings is the number of varying components the FS reads."),
		addr("fs_code_address", 32, 8, "FSCodeAddress is the FS code."),
		addr("fs_uniforms_address", 64, 4, "FSUniformsAddress is the FS uniforms."),
		addr("vertex_data_address", 96, 1, "VertexDataAddress is the shaded vertex data (16-byte aligned when the clip header is included)."),
	},
	Doc:    "NVShaderRecord is the NV shader state record: a fragment shader and pre-shaded vertices.",
	Source: "AG Table 46, Figure 12; doc/kernel.md#nv-records",
}

// VGShaderRecord is the 12-byte VG shader state record (AG Table 47).
var VGShaderRecord = &Struct{
	Name: "vg_shader_record",
	Len:  12,
	Fields: []Field{
		flag("fs_single_threaded", 0, "FSSingleThreaded says the fragment shader is single-threaded."),
		uintField("fs_num_uniforms", 16, 8, "FSNumUniforms is not used by the hardware."),
		uintField("fs_num_varyings", 24, 8, "FSNumVaryings is the number of varying components the FS reads."),
		addr("fs_code_address", 32, 8, "FSCodeAddress is the FS code."),
		addr("fs_uniforms_address", 64, 4, "FSUniformsAddress is the FS uniforms."),
	},
	Doc:    "VGShaderRecord is the VG shader state record: a fragment shader only.",
	Source: "AG Table 47",
}

// ClippedVertex is one 32-byte entry of the clipped-primitive record that
// CLIPPED_COMPRESSED_PRIMITIVE points at, one per clipped vertex (AG Table
// 44).
var ClippedVertex = &Struct{
	Name: "clipped_vertex",
	Len:  32,
	Fields: []Field{
		{Name: "screen_x", Start: 0, Width: 16, Kind: Subpixel, Doc: "ScreenX is the screen x (Xs) relative to the viewport centre, in 1/16 pixel."},
		{Name: "screen_y", Start: 16, Width: 16, Kind: Subpixel, Doc: "ScreenY is the screen y (Ys) relative to the viewport centre, in 1/16 pixel."},
		floatField("screen_z", 32, "ScreenZ is the window-space depth (Zs)."),
		floatField("inv_wc", 64, "InvWc is 1/Wc."),
		floatField("varying_coef_0", 96, "VaryingCoef0 is the varying interpolation coefficient of vertex 0."),
		floatField("varying_coef_1", 128, "VaryingCoef1 is the varying interpolation coefficient of vertex 1."),
		floatField("varying_coef_2", 160, "VaryingCoef2 is the varying interpolation coefficient of vertex 2 (ignored for lines and RHTs)."),
	},
	Doc:    "ClippedVertex is one vertex of a clipped-primitive record.",
	Source: "AG Table 44",
}

// Structs lists every record, in the order the generator emits them.
var Structs = []*Struct{GLShaderRecord, AttributeRecord, NVShaderRecord, VGShaderRecord, ClippedVertex}

// GL shader record sizes (AG Table 45; vc4_validate.c gl_shader_rec_size).
const (
	// GLAttributeSlots is the number of attribute arrays a record can have.
	GLAttributeSlots = 8
	// ExtendedGLShaderRecordBase is where an extended record's stride
	// words start: after the fixed part and all eight attribute slots.
	ExtendedGLShaderRecordBase = 100
	// ExtendedStrideLen is the size of one extended stride word.
	ExtendedStrideLen = 4
	// ExtendedStrideBits is the width of an attribute stride in an
	// extended record: "Extended shader record with 26-bit attribute
	// memory stride" (AG Table 38 id 64, bit 3).
	ExtendedStrideBits = 26
)

// GLAttributeCount returns the number of attribute arrays of the GL shader
// record a GL_SHADER_STATE packet points at, from the packet's 3-bit
// num_attribute_arrays field: 1..7 as given, 0 meaning 8 (AG Table 38 id
// 64; vc4_validate.c gl_shader_rec_size). The kernel takes the count from
// the field for extended records too.
func GLAttributeCount(numAttributeArrays uint8) int {
	if n := int(numAttributeArrays) & (GLAttributeSlots - 1); n != 0 {
		return n
	}
	return GLAttributeSlots
}

// GLAttributeOffset returns the byte offset of attribute record n (0..7)
// in a GL shader record: after the fixed part, one AttributeRecord each
// (AG Table 45: bytes 36 + 8n).
func GLAttributeOffset(n int) int { return GLShaderRecord.Len + AttributeRecord.Len*n }

// GLShaderRecordLen returns the size in bytes of a GL shader record with n
// attribute arrays (1..8): 36 + 8n, or 100 + 4n for the extended form.
func GLShaderRecordLen(n int, extended bool) int {
	if extended {
		return ExtendedGLShaderRecordBase + ExtendedStrideLen*n
	}
	return GLAttributeOffset(n)
}
