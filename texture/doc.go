// Package texture is vccube's one description of how the VideoCore IV
// stores and samples textures: the texture types, the micro-tile (utile),
// T-format, LT-format and raster layouts, mip level placement, the row
// order the GPU assumes, and texture config parameters P0–P3.
//
// It is a description, with no conversion code: the simulated GPU reads it
// as the hardware's facts, so it must not hold the client's encoders. The
// converters that turn pictures into these layouts (and back) are in
// package texture/convert, which the model may not import; the kernel's
// own size checks (vc4_validate.c vc4_check_tex_size, reloc_tex) are the
// simulated kernel's code in sim/kernel.
//
// Callers:
//   - the simulated TMU (sim/gpu) decodes P0–P3 (DecodeP0, DecodeP1,
//     DecodeP2, JoinType), finds each mip level with NewMipPlan (built on
//     HardwareLevelSize), finds texels with Layout.Offset and applies FLIPY
//     with FlipYRow; the simulated TLB and display find pixels with
//     Layout.Offset;
//   - the control-list dumper (cl) prints uniforms with P0.String and
//     friends;
//   - the renderer lays its texture out with NewMipPlan, converts its
//     picture with texture/convert (Upload) into a buffer it owns, without
//     allocating, and puts the words of MipPlan.Params in the uniform
//     stream.
//
// # Coordinates and row order
//
// [AG] §11: "All images are assumed to have a bottom-left origin, that is,
// the first data in memory will be the bottom-left pixel." Layout
// coordinates follow memory: row 0 is the first row in memory. Pictures
// read from files are top-down (row 0 is the top), so one of two things
// must happen (as the post "vc4: T-format Textures", 2023-06-27, works
// out; doc/hardware.md#public-write-ups), both offered by FlipMode:
//
//  1. FlipRows: flip the rows while converting and leave FLIPY off;
//  2. FlipYBit: convert the top-down picture as it is and set FLIPY in P0
//     (vccube's default, as the bare-metal cube of the post "vc4: cube
//     demo – 'from scratch'" does).
//
// Both sample to the same picture; TestFlipAlternativesSampleAlike proves it
// through Offset and FlipYRow.
//
// # Sources
//
// [AG] is Broadcom's VideoCore IV 3D Architecture Reference Guide
// (VideoCoreIV-AG100-R, 2013): §4 (texture data storage, Tables 15–19) and
// §11 (texture memory formats). The kernel rules come from Linux
// drivers/gpu/drm/vc4/vc4_validate.c and vc4_packet.h; Mesa's from
// src/gallium/drivers/vc4/vc4_tiling.c and vc4_resource.c. The facts, with
// their sources, are in doc/hardware.md#tmu, doc/hardware.md#texture-formats,
// doc/kernel.md#texture-relocation and doc/kernel.md#surfaces. No code was
// copied from any of them.
//
// # Not covered
//
// The sub-byte types BW1, A4 and A1 have utile shapes (UtileSize) but no
// byte layout or converters: the order of pixels within a byte is not
// documented and the kernel refuses these types. ETC1 data is laid out as
// 8-byte blocks on its block grid (Type.Storage); this package does not
// compress or decompress ETC1. Cube maps are described by P0's cube-map bit
// and P2's stride, but MipPlan lays out a single face.
package texture
