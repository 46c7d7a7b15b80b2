// Package cl holds the typed VideoCore IV control-list packets and
// shader-state records: one Go struct per packet of the table in cl/spec,
// with Append (encode into a caller's buffer without allocating), Unpack
// (decode) and Check (range and alignment), generated from that table.
//
// The subpackages build on it: cl/prim codes the compressed primitive lists
// the binner writes, cl/shaderrec and cl/uniforms build the shader-record
// and uniform streams of a submit, cl/bincl builds the binning control list,
// cl/submit assembles DRM_IOCTL_VC4_SUBMIT_CL, and cl/dump decodes and
// prints all of them.
package cl

//go:generate go run ./internal/gen/clgen -o packets_gen.go

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/vccube/vccube/cl/spec"
)

// Packet is a typed control-list packet.
type Packet interface {
	// Opcode is the packet's id byte.
	Opcode() spec.Opcode
	// Append appends the encoded packet to b.
	Append(b []byte) []byte
	// Check reports a field that does not fit its bits.
	Check() error
}

// Subpixel is a signed 12.4 fixed-point screen coordinate: it counts
// sixteenths of a pixel (VIEWPORT_OFFSET, shaded Xs/Ys; Mesa XML type
// s12.4; doc/hardware.md#viewport, doc/hardware.md#shaded-vertex-formats).
type Subpixel int16

// SubpixelOf returns the Subpixel nearest to px pixels, saturated to the
// int16 range (−2048 .. +2047.9375 px).
func SubpixelOf(px float64) Subpixel {
	v := px * 16
	switch {
	case v >= 32767:
		return 32767
	case v <= -32768:
		return -32768
	case v >= 0:
		return Subpixel(v + 0.5)
	}
	return Subpixel(v - 0.5)
}

// Pixels returns s in pixels.
func (s Subpixel) Pixels() float64 { return float64(s) / 16 }

// String formats s in pixels ("400px", "-0.0625px").
func (s Subpixel) String() string {
	return strconv.FormatFloat(s.Pixels(), 'g', -1, 64) + "px"
}

// zeros backs the Append methods: appending a slice of an array allocates
// nothing when the destination has room.
var zeros [64]byte

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// FieldError reports a field value that cannot be encoded.
type FieldError struct {
	// Packet is the packet or record name.
	Packet string
	// Field is the field's name.
	Field string
	// Value is the offending value.
	Value uint64
	// Problem says what is wrong with it.
	Problem string
}

// Error formats the problem: "cl: CLIP_WINDOW width = 0x… does not fit …".
func (e *FieldError) Error() string {
	return fmt.Sprintf("cl: %s %s = %#x %s", e.Packet, e.Field, e.Value, e.Problem)
}

func tooWide(packet, field string, v uint64, width uint) error {
	return &FieldError{packet, field, v, fmt.Sprintf("does not fit its %d bits", width)}
}

func misaligned(packet, field string, v uint32, align uint64) error {
	return &FieldError{packet, field, uint64(v), fmt.Sprintf("is not %d-byte aligned", align)}
}

// errEmpty is returned by Decode for an empty buffer.
var errEmpty = errors.New("cl: no bytes to decode")

// UnpackError reports bytes that are not the packet or record asked for.
type UnpackError struct {
	// What is the packet or record name.
	What string
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem with the packet or record name.
func (e *UnpackError) Error() string { return "cl: " + e.What + ": " + e.Msg }

func checkPacket(b []byte, op spec.Opcode, n int) error {
	if len(b) == 0 {
		return &UnpackError{op.String(), "no bytes"}
	}
	if spec.Opcode(b[0]) != op {
		return &UnpackError{op.String(), fmt.Sprintf("found opcode %d (%s) instead of %d", b[0], spec.Opcode(b[0]), op)}
	}
	if len(b) < n {
		return short(op.String(), n, len(b))
	}
	return nil
}

func short(what string, need, have int) error {
	return &UnpackError{what, fmt.Sprintf("needs %d bytes, only %d left", need, have)}
}

func unknownOpcode(op byte) error {
	return &UnpackError{fmt.Sprintf("packet %d", op), "no such packet (reserved id in AG Table 38)"}
}
