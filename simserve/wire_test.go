package simserve

import (
	"os"
	"testing"
)

// The preload's C header is generated from wire.go; a change to the
// protocol must regenerate it (go generate ./simserve).
func TestWireHeader(t *testing.T) {
	got, err := os.ReadFile("preload/wire.h")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != WireHeader() {
		t.Error("preload/wire.h is out of date: run go generate ./simserve")
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{Type: MsgIoctl, Arg: 0xc0106443, A: 1, B: 1 << 40, C: ^uint64(0)}
	b := make([]byte, HeaderSize)
	h.put(b)
	got, err := parseHeader(b)
	if err != nil || got != h {
		t.Errorf("got %+v, %v", got, err)
	}
	if _, err := parseHeader(b[:HeaderSize-1]); err == nil {
		t.Error("a short packet parsed")
	}
}
