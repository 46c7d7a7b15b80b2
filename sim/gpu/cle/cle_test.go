package cle

import (
	"errors"
	"testing"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/cl/spec"
	"github.com/vccube/vccube/sim/internal/simtest"
	"github.com/vccube/vccube/sim/mem"
)

// memory gives a test a pool with one readable region of size bytes.
func memory(t *testing.T, size int) (*mem.View, mem.Region, []byte) {
	t.Helper()
	return simtest.Memory(t, size, mem.Read|mem.Write, "test")
}

func ops(t *testing.T, th *Thread) ([]spec.Opcode, error) {
	t.Helper()
	var got []spec.Opcode
	for {
		p, err := th.Next()
		if err != nil {
			return got, err
		}
		got = append(got, p.Op)
	}
}

func TestRunsToEndAddressThroughBranchesAndSubLists(t *testing.T) {
	v, r, b := memory(t, 4096)
	base := r.Addr
	// Main list at 0: CONFIGURATION_BITS, BRANCH_TO_SUB_LIST(256), NOP,
	// BRANCH(512). At 512: FLUSH, end.
	// Sub-list at 256: LINE_WIDTH, BRANCH_TO_SUB_LIST(384), RETURN.
	// Sub-sub-list at 384: POINT_SIZE, RETURN.
	main := cl.ConfigurationBits{}.Append(nil)
	main = cl.BranchToSubList{Address: base + 256}.Append(main)
	main = cl.NOP{}.Append(main)
	main = cl.Branch{Address: base + 512}.Append(main)
	copy(b, main)
	sub := cl.LineWidth{Width: 1}.Append(nil)
	sub = cl.BranchToSubList{Address: base + 384}.Append(sub)
	sub = cl.ReturnFromSubList{}.Append(sub)
	copy(b[256:], sub)
	subsub := cl.PointSize{Size: 1}.Append(nil)
	subsub = cl.ReturnFromSubList{}.Append(subsub)
	copy(b[384:], subsub)
	tail := cl.Flush{}.Append(nil)
	copy(b[512:], tail)

	th := NewThread(v, "CT0", DefaultLimits)
	th.Start(base, base+512+uint32(len(tail)))
	got, err := ops(t, th)
	if !errors.Is(err, ErrEnd) {
		t.Fatalf("err = %v, want ErrEnd", err)
	}
	want := []spec.Opcode{spec.OpConfigurationBits, spec.OpLineWidth, spec.OpPointSize, spec.OpFlush}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestThirdNestedSubListHangs(t *testing.T) {
	v, r, b := memory(t, 4096)
	base := r.Addr
	// Each of three lists calls the next.
	copy(b, cl.BranchToSubList{Address: base + 64}.Append(nil))
	copy(b[64:], cl.BranchToSubList{Address: base + 128}.Append(nil))
	copy(b[128:], cl.BranchToSubList{Address: base + 192}.Append(nil))
	th := NewThread(v, "CT1", DefaultLimits)
	th.Start(base, base+4000)
	_, err := ops(t, th)
	var h *HangError
	if !errors.As(err, &h) || h.Addr != base+128 {
		t.Fatalf("err = %v, want a hang at the third BRANCH_TO_SUB_LIST (%#x)", err, base+128)
	}
}

func TestReturnWithEmptyStackIsIgnoredAndHaltStops(t *testing.T) {
	v, r, b := memory(t, 4096)
	l := cl.ReturnFromSubList{}.Append(nil)
	l = cl.Flush{}.Append(l)
	l = cl.Halt{}.Append(l)
	l = cl.Flush{}.Append(l)
	copy(b, l)
	th := NewThread(v, "CT0", DefaultLimits)
	th.Start(r.Addr, r.Addr+uint32(len(l)))
	got, err := ops(t, th)
	if !errors.Is(err, ErrHalted) || len(got) != 1 || got[0] != spec.OpFlush {
		t.Fatalf("got %v, %v; want [FLUSH], ErrHalted", got, err)
	}
}

func TestRunningOutOfTheJobFaults(t *testing.T) {
	v, r, b := memory(t, 4096)
	// A list whose end address is past its buffer: the zeros that follow
	// are HALT on real memory, but here the buffer ends first. Fill the
	// buffer with NOPs.
	for i := range b {
		b[i] = byte(spec.OpNOP)
	}
	th := NewThread(v, "CT0", DefaultLimits)
	th.Start(r.Addr, r.Addr+8192)
	_, err := ops(t, th)
	var h *HangError
	var f *mem.Fault
	if !errors.As(err, &h) || !errors.As(err, &f) || h.Addr != r.Addr+4096 {
		t.Fatalf("err = %v, want a fault at %#x", err, r.Addr+4096)
	}
	if n, _ := v.Faults(); n == 0 {
		t.Error("the view recorded no fault")
	}
}

func TestPacketCrossingBufferEndFaults(t *testing.T) {
	v, r, b := memory(t, 4096)
	for i := range b {
		b[i] = byte(spec.OpNOP)
	}
	// A 9-byte CLIP_WINDOW whose last bytes lie past the buffer.
	b[4090] = byte(spec.OpClipWindow)
	th := NewThread(v, "CT0", DefaultLimits)
	th.Start(r.Addr+4090, r.Addr+5000)
	_, err := ops(t, th)
	var f *mem.Fault
	if !errors.As(err, &f) || f.Addr != r.Addr+4090 || f.Size != 9 {
		t.Fatalf("err = %v, want a 9-byte fault at %#x", err, r.Addr+4090)
	}
}

func TestBranchLoopIsAHang(t *testing.T) {
	v, r, b := memory(t, 4096)
	copy(b, cl.Branch{Address: r.Addr}.Append(nil))
	th := NewThread(v, "CT0", Limits{Packets: 1 << 20, IdleFlow: 1000})
	th.Start(r.Addr, r.Addr+100)
	_, err := ops(t, th)
	var h *HangError
	if !errors.As(err, &h) {
		t.Fatalf("err = %v, want a hang", err)
	}
}

func TestWorkLoopIsBoundedByPacketLimit(t *testing.T) {
	v, r, b := memory(t, 4096)
	l := cl.LineWidth{Width: 1}.Append(nil)
	l = cl.Branch{Address: r.Addr}.Append(l)
	copy(b, l)
	th := NewThread(v, "CT0", Limits{Packets: 5000, IdleFlow: 1000})
	th.Start(r.Addr, r.Addr+100)
	got, err := ops(t, th)
	var h *HangError
	if !errors.As(err, &h) || len(got) != 2500 {
		t.Fatalf("%d packets, err = %v; want 2500 and a hang", len(got), err)
	}
}

func TestReservedPacketHangs(t *testing.T) {
	v, r, b := memory(t, 4096)
	b[0] = 9 // reserved in AG Table 38
	th := NewThread(v, "CT1", DefaultLimits)
	th.Start(r.Addr, r.Addr+10)
	if _, err := th.Next(); err == nil {
		t.Fatal("no error for packet 9")
	}
	b[0] = byte(spec.OpGEMHandles) // a kernel pseudo-packet, never hardware
	th.Start(r.Addr, r.Addr+10)
	if _, err := th.Next(); err == nil {
		t.Fatal("no error for GEM_HANDLES")
	}
}

func TestInlineDataAndSkip(t *testing.T) {
	v, r, b := memory(t, 4096)
	l := cl.CompressedPrimitive{}.Append(nil)
	l = append(l, 129, 1, 0, 2, 0, 3, 0, 128) // coding 3 then escape
	l = cl.Flush{}.Append(l)
	copy(b, l)
	th := NewThread(v, "CT1", DefaultLimits)
	th.Start(r.Addr, r.Addr+uint32(len(l)))
	p, err := th.Next()
	if err != nil || p.Op != spec.OpCompressedPrimitive {
		t.Fatalf("%v %v", p.Op, err)
	}
	in, err := th.Inline()
	if err != nil || in[0] != 129 || in[7] != 128 {
		t.Fatalf("inline %v %v", in[:8], err)
	}
	th.Skip(8)
	if p, err = th.Next(); err != nil || p.Op != spec.OpFlush {
		t.Fatalf("%v %v", p.Op, err)
	}
}

// Call runs a tile list to its RETURN; the call counts as one level, so
// the list may call one more sub-list but not two.
func TestCallAndDeferredSubLists(t *testing.T) {
	v, r, b := memory(t, 4096)
	base := r.Addr
	tile := cl.LineWidth{Width: 1}.Append(nil)
	tile = cl.BranchToSubList{Address: base + 256}.Append(tile)
	tile = cl.ReturnFromSubList{}.Append(tile)
	copy(b, tile)
	copy(b[256:], cl.ReturnFromSubList{}.Append(cl.PointSize{Size: 2}.Append(nil)))
	th := NewThread(v, "CT1", DefaultLimits)
	th.Call(base)
	got, err := ops(t, th)
	if !errors.Is(err, ErrReturned) || len(got) != 2 || got[1] != spec.OpPointSize {
		t.Fatalf("got %v, %v; want [LINE_WIDTH POINT_SIZE], ErrReturned", got, err)
	}
	copy(b[256:], cl.BranchToSubList{Address: base + 512}.Append(nil))
	th.Call(base)
	if _, err := ops(t, th); err == nil || errors.Is(err, ErrReturned) {
		t.Fatalf("err = %v, want a nesting hang", err)
	}
	// Deferred: the caller sees the BRANCH_TO_SUB_LIST and the list goes on.
	th.Start(base, base+uint32(len(tile)))
	th.DeferSubLists(true)
	got, err = ops(t, th)
	if !errors.Is(err, ErrEnd) || len(got) != 2 || got[1] != spec.OpBranchToSubList {
		t.Fatalf("deferred: got %v, %v", got, err)
	}
}
