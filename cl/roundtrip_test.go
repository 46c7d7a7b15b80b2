package cl

import (
	"bytes"
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/vccube/vccube/cl/internal/gen"
	"github.com/vccube/vccube/cl/spec"
)

// usedMask returns, for a packet, a byte mask of the bits its fields own
// (the opcode byte included): Append(Unpack(b)) must equal b & mask.
func usedMask(p *spec.Packet) []byte {
	m := make([]byte, p.Len)
	m[0] = 0xff
	for i := range p.Fields {
		f := &p.Fields[i]
		spec.PutBits(m[1:], f.Start, f.Width, f.Mask())
	}
	return m
}

// roundTrip checks, for the fixed part of one packet in b (padded to its
// length), that Append(Unpack(b)) keeps exactly the field bits, that
// decoding again gives the same bytes, and that every typed field agrees
// with the table's generic reader (spec.Field.Raw), which tests the
// generator against the description it was made from.
func roundTrip(t *testing.T, b []byte) {
	t.Helper()
	p := spec.Lookup(spec.Opcode(b[0]))
	if p == nil {
		if _, err := Decode(b); err == nil {
			t.Fatalf("reserved id %d decoded", b[0])
		}
		return
	}
	in := make([]byte, p.Len)
	copy(in, b)
	typed, err := Decode(in)
	if err != nil {
		t.Fatalf("%s: Decode: %v", p.Name, err)
	}
	if typed.Opcode() != p.Op {
		t.Fatalf("%s: Opcode() = %d", p.Name, typed.Opcode())
	}
	// A value decoded from bytes always fits: Check must agree, except for
	// alignment rules the bytes may break.
	out := typed.Append(nil)
	mask := usedMask(p)
	for i := range in {
		if out[i] != in[i]&mask[i] {
			t.Fatalf("%s: Append(Unpack(% x)) = % x (mask % x)", p.Name, in, out, mask)
		}
	}
	again, err := Decode(out)
	if err != nil || !bytes.Equal(again.Append(nil), out) {
		t.Fatalf("%s: second round trip differs (%v)", p.Name, err)
	}
	v := reflect.ValueOf(typed).Elem()
	for i := range p.Fields {
		f := &p.Fields[i]
		fv := v.FieldByName(gen.GoName(f.Name))
		if !fv.IsValid() {
			t.Fatalf("%s: no Go field for %s", p.Name, f.Name)
		}
		raw := f.Raw(in[1:])
		var got uint64
		switch fv.Kind() {
		case reflect.Bool:
			if fv.Bool() {
				got = 1
			}
		case reflect.Float32:
			// Through a pointer: converting to float64 would quiet a
			// signalling NaN and change its bits.
			bits := math.Float32bits(*fv.Addr().Interface().(*float32))
			if f.Kind == spec.Float187 {
				bits >>= 16
			}
			got = uint64(bits)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			got = uint64(fv.Int()) & f.Mask()
		default:
			got = fv.Uint()
			if f.Kind == spec.Address {
				got >>= f.Shift
			}
		}
		if got != raw {
			t.Fatalf("%s.%s: typed value gives bits %#x, table reads %#x", p.Name, f.Name, got, raw)
		}
	}
}

func TestRoundTripEveryPacket(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := range spec.Packets {
		p := &spec.Packets[i]
		for n := 0; n < 200; n++ {
			b := make([]byte, p.Len)
			rng.Read(b)
			b[0] = byte(p.Op)
			roundTrip(t, b)
		}
		ones := bytes.Repeat([]byte{0xff}, p.Len)
		ones[0] = byte(p.Op)
		roundTrip(t, ones)
	}
}

func FuzzPacketRoundTrip(f *testing.F) {
	for _, c := range handCases {
		f.Add(c.want)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		roundTrip(t, b)
	})
}

// Records: Append(Unpack(b)) keeps the field bits.
func TestRoundTripRecords(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for n := 0; n < 200; n++ {
		b := make([]byte, 64)
		rng.Read(b)
		var gl GLShaderRecord
		var at AttributeRecord
		var nv NVShaderRecord
		var vg VGShaderRecord
		var cv ClippedVertex
		checks := []struct {
			s      *spec.Struct
			unpack func([]byte) error
			app    func() []byte
		}{
			{spec.GLShaderRecord, gl.Unpack, func() []byte { return gl.Append(nil) }},
			{spec.AttributeRecord, at.Unpack, func() []byte { return at.Append(nil) }},
			{spec.NVShaderRecord, nv.Unpack, func() []byte { return nv.Append(nil) }},
			{spec.VGShaderRecord, vg.Unpack, func() []byte { return vg.Append(nil) }},
			{spec.ClippedVertex, cv.Unpack, func() []byte { return cv.Append(nil) }},
		}
		for _, c := range checks {
			if err := c.unpack(b); err != nil {
				t.Fatal(err)
			}
			out := c.app()
			mask := make([]byte, c.s.Len)
			for i := range c.s.Fields {
				spec.PutBits(mask, c.s.Fields[i].Start, c.s.Fields[i].Width, c.s.Fields[i].Mask())
			}
			for i := range out {
				if out[i] != b[i]&mask[i] {
					t.Fatalf("%s: round trip byte %d = %#x, want %#x", c.s.Name, i, out[i], b[i]&mask[i])
				}
			}
		}
	}
}
