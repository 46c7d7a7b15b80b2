package replay_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/cuberender"
	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/drm/replay"
	"github.com/vccube/vccube/sim"
	"github.com/vccube/vccube/sim/gpu"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// newSim opens a file on a fresh simulated device (board b) with a small
// CMA pool, so that several fit a 32-bit test process.
func newSim(t *testing.T, b sim.Board) uapi.Conn {
	t.Helper()
	g := gpu.New(gpu.Options{Workers: 2})
	t.Cleanup(g.Close)
	opts := sim.Options{Board: b, CMASize: 48 << 20}
	if b == sim.BoardPi3 || b == sim.BoardPi3NoV3D {
		opts.GPU = g
	}
	d, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// record renders frames of the cube through a traced Conn on c, as vccube
// -vsync=false does, and returns the trace.
func record(t *testing.T, c uapi.Conn, frames int) []byte {
	t.Helper()
	var buf bytes.Buffer
	rec, err := drm.NewRecorder(&buf, "replay test")
	if err != nil {
		t.Fatal(err)
	}
	tc := rec.Trace(c)
	r, err := cuberender.New(tc, cuberender.Options{Width: 256, Height: 96, Counters: true})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < frames; k++ {
		seq, err := r.Render(k%2, float32(4*k))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Wait(seq); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Counters(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func run(t *testing.T, trace []byte, c uapi.Conn, max int) *replay.Result {
	t.Helper()
	tr, err := drm.NewTraceReader(bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Run(tr, c, replay.Options{MaxDivergences: max})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A run recorded on the simulated device replays on another simulated
// device with no divergence: every call answered alike, every frame the
// same.
func TestReplaySame(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 3)
	res := run(t, trace, newSim(t, sim.BoardPi3), 10)
	for _, d := range res.Divergences {
		t.Errorf("divergence: %v", d)
	}
	if res.Frames != 3 {
		t.Errorf("%d frames compared, want 3", res.Frames)
	}
	if res.Replayed < 20 {
		t.Errorf("only %d calls replayed of %d records (skipped %v)", res.Replayed, res.Records, res.Skipped)
	}
	if res.Submits != 3 || res.SubmitsSkipped != 0 || res.FramesRecorded != 3 || len(res.Unchecked) != 0 {
		t.Errorf("%d submits (%d skipped), %d frames recorded, unchecked %q; want 3, 0, 3 and nothing unchecked",
			res.Submits, res.SubmitsSkipped, res.FramesRecorded, res.Unchecked)
	}
}

// without returns the trace with the first record named call deleted;
// renumber numbers the records that follow down by one, as an edit that
// covers its tracks would.
func without(t *testing.T, trace []byte, call string, renumber bool) []byte {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(trace, []byte("\n")), []byte("\n"))
	out := [][]byte{lines[0]}
	deleted := false
	for _, l := range lines[1:] {
		var rec drm.TraceRecord
		if err := json.Unmarshal(l, &rec); err != nil {
			t.Fatal(err)
		}
		switch {
		case !deleted && rec.Name == call:
			deleted = true
			continue
		case deleted && renumber:
			rec.Seq--
			b, err := json.Marshal(&rec)
			if err != nil {
				t.Fatal(err)
			}
			l = b
		}
		out = append(out, l)
	}
	if !deleted {
		t.Fatalf("the trace has no %s", call)
	}
	return append(bytes.Join(out, []byte("\n")), '\n')
}

// A record deleted from a trace leaves a gap in the records' numbers: the
// replay stops with an error naming it rather than compare fewer calls and
// frames and call that agreement.
func TestReplayRefusesMissingRecords(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 3)
	for _, call := range []string{"DRM_IOCTL_VC4_CREATE_BO", "DRM_IOCTL_VC4_WAIT_SEQNO"} {
		tr, err := drm.NewTraceReader(bytes.NewReader(without(t, trace, call, false)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Run(tr, newSim(t, sim.BoardPi3), replay.Options{MaxDivergences: 10})
		if err == nil || !strings.Contains(err.Error(), "is missing (record") || !strings.Contains(err.Error(), "cut or edited") {
			t.Errorf("%s deleted: error %v, want a record missing", call, err)
			continue
		}
		t.Logf("%s deleted: %v (after %d records)", call, err, res.Records)
	}
	// The first records cut off.
	lines := bytes.SplitN(trace, []byte("\n"), 4)
	cut := append(append(lines[0], '\n'), lines[3]...)
	tr, err := drm.NewTraceReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(tr, newSim(t, sim.BoardPi3), replay.Options{}); err == nil || !strings.Contains(err.Error(), "records 1 to 2 are missing") {
		t.Errorf("the first two records cut: error %v", err)
	}
}

// A trace the replay cannot check whole — no records, a submit it must
// skip, a job whose frame it never compares — is no verdict on the
// device, and Result.Unchecked says why, even when its records are
// numbered without a gap.
func TestReplaySaysWhatItDidNotCheck(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 3)
	header := trace[:bytes.IndexByte(trace, '\n')+1]
	for _, tc := range []struct {
		name  string
		trace []byte
		want  []string
	}{
		{"only the header", header, []string{"the trace holds no records after its header"}},
		{"a CREATE_BO deleted", without(t, trace, "DRM_IOCTL_VC4_CREATE_BO", true),
			[]string{"3 of 3 submits not replayed", "no frame compared of the 3 recorded"}},
		{"a WAIT_SEQNO deleted", without(t, trace, "DRM_IOCTL_VC4_WAIT_SEQNO", true),
			[]string{"1 of the 3 jobs replayed had no frame compared"}},
	} {
		res := run(t, tc.trace, newSim(t, sim.BoardPi3), 10)
		t.Logf("%s: %d frames compared, unchecked %q, divergences %v", tc.name, res.Frames, res.Unchecked, res.Divergences)
		if len(res.Unchecked) != len(tc.want) {
			t.Errorf("%s: unchecked %q, want %d reasons", tc.name, res.Unchecked, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(res.Unchecked[i], w) {
				t.Errorf("%s: reason %q, want %q", tc.name, res.Unchecked[i], w)
			}
		}
	}
}

// perturbed is a device with one deliberate difference: after the second
// job it renders, one byte of the job's colour buffer is changed, as a
// GPU that disagreed with the model on one pixel would leave it.
type perturbed struct {
	uapi.Conn
	jobs   int
	colour uint32 // the colour buffer of the last submit
	offset int
}

func (p *perturbed) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	err := p.Conn.Ioctl(req, arg)
	if err != nil {
		return err
	}
	switch req {
	case uapi.IoctlSubmitCL:
		a := (*uapi.SubmitCL)(arg)
		p.colour = uapi.UserSlice[uint32](a.BOHandles, int(a.BOHandleCount))[a.ColorWrite.HIndex]
	case uapi.IoctlWaitSeqno:
		p.jobs++
		if p.jobs == 2 {
			m := uapi.MmapBO{Handle: p.colour}
			if err := p.Conn.Ioctl(uapi.IoctlMmapBO, unsafe.Pointer(&m)); err != nil {
				return err
			}
			b, err := p.Conn.Mmap(m.Offset, p.offset+1, unix.PROT_READ|unix.PROT_WRITE)
			if err != nil {
				return err
			}
			b[p.offset] ^= 0x40
			return p.Conn.Munmap(b)
		}
	}
	return nil
}

// Replayed on a device that renders one byte differently, the trace
// diverges at the wait that finished that frame, and the report says
// which part of the frame differs.
func TestReplayFindsAFrameThatDiffers(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 3)
	const offset = 70 << 10 // in the second 64 KiB chunk
	dev := &perturbed{Conn: newSim(t, sim.BoardPi3), offset: offset}
	res := run(t, trace, dev, 10)
	if len(res.Divergences) != 1 {
		t.Fatalf("%d divergences, want 1: %v", len(res.Divergences), res.Divergences)
	}
	d := res.Divergences[0]
	t.Logf("found: %v", d)
	if d.Call != "DRM_IOCTL_VC4_WAIT_SEQNO" || d.What != "frame checksum" {
		t.Errorf("divergence %v, want a frame checksum at a WAIT_SEQNO", d)
	}
	if !strings.Contains(d.Detail, "1 of 2 chunks of 64 KiB differ, bytes 0x10000 to 0x") {
		t.Errorf("detail %q does not name the second chunk", d.Detail)
	}
	// The divergence is at the second job's wait.
	tr, _ := drm.NewTraceReader(bytes.NewReader(trace))
	waits := 0
	for {
		rec, err := tr.Next()
		if err != nil {
			t.Fatal("the divergence's record is not a wait of the trace")
		}
		if rec.Name == "DRM_IOCTL_VC4_WAIT_SEQNO" && len(rec.Frames) > 0 {
			waits++
		}
		if rec.Seq == d.Seq {
			break
		}
	}
	if waits != 2 {
		t.Errorf("divergence at the wait of frame %d, want 2", waits)
	}
}

// On a Pi whose V3D is disabled the first vc4 call that needs it answers
// ENODEV where the trace says 0.
func TestReplayOnAnotherBoard(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 1)
	res := run(t, trace, newSim(t, sim.BoardPi3NoV3D), 1)
	if len(res.Divergences) != 1 || res.Divergences[0].What != "errno" || !strings.Contains(res.Divergences[0].Replayed, "ENODEV") {
		t.Fatalf("divergences %v, want the first an errno ENODEV", res.Divergences)
	}
	if !res.Stopped {
		t.Error("the replay did not stop at the first divergence")
	}
	t.Logf("found: %v", res.Divergences[0])
}

// An edited answer in the trace — GET_PARAM's value, as a Pi with another
// V3D revision would give — is found as a field that differs.
func TestReplayFindsAFieldThatDiffers(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 1)
	lines := bytes.Split(bytes.TrimSuffix(trace, []byte("\n")), []byte("\n"))
	edited := false
	for i, l := range lines {
		var rec drm.TraceRecord
		if i == 0 || json.Unmarshal(l, &rec) != nil || rec.Name != "DRM_IOCTL_VC4_GET_PARAM" || edited {
			continue
		}
		rec.Out[8] ^= 1 // value, the u64 after param and pad
		b, err := json.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		lines[i], edited = b, true
	}
	if !edited {
		t.Fatal("the trace has no GET_PARAM")
	}
	res := run(t, append(bytes.Join(lines, []byte("\n")), '\n'), newSim(t, sim.BoardPi3), 10)
	if len(res.Divergences) != 1 || res.Divergences[0].What != "field Value" {
		t.Fatalf("divergences %v, want one: field Value", res.Divergences)
	}
	t.Logf("found: %v", res.Divergences[0])
}

// The trace carries what the replay needs: the submit's streams and
// handles, the mapped BOs' contents once (then their checksums only), the
// shader code, and a checksum of each frame.
func TestTraceCarriesWhatReplayNeeds(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 3)
	tr, err := drm.NewTraceReader(bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	var submits, shaders, frames, withData, withoutData int
	for {
		rec, err := tr.Next()
		if err != nil {
			break
		}
		switch rec.Name {
		case "DRM_IOCTL_VC4_SUBMIT_CL":
			submits++
			if len(rec.BinCL) == 0 || len(rec.ShaderRec) == 0 || len(rec.Uniforms) == 0 || len(rec.BOHandles) == 0 {
				t.Errorf("submit %d lacks its streams", submits)
			}
			for _, bo := range rec.BOs {
				if bo.Data != nil {
					withData++
				} else {
					withoutData++
				}
			}
		case "DRM_IOCTL_VC4_CREATE_SHADER_BO":
			if len(rec.Code) == 0 || len(rec.Code)%8 != 0 {
				t.Errorf("shader BO with %d bytes of code", len(rec.Code))
			}
			shaders++
		}
		frames += len(rec.Frames)
	}
	// The vertex and texture BOs: sent with the first submit, by checksum
	// with the other two. The colour buffers are write-only: never sent.
	if submits != 3 || shaders != 3 || frames != 3 || withData != 2 || withoutData != 4 {
		t.Errorf("%d submits, %d shader BOs, %d frames, %d BOs sent whole and %d by checksum; want 3, 3, 3, 2, 4",
			submits, shaders, frames, withData, withoutData)
	}
}

// A trace recorded on a 32-bit Pi (4-byte pointers) replays on any
// machine: DRM_IOCTL_VERSION, the one call whose layout depends on the
// pointer size, is read with the recording's layout.
func TestReplayVersionFrom32Bit(t *testing.T) {
	le := func(words ...uint32) drm.Hex {
		var b []byte
		for _, w := range words {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return b
	}
	// struct drm_version on 32-bit ARM: three ints, then name_len, name,
	// date_len, date, desc_len, desc (36 bytes).
	first := drm.TraceRecord{Seq: 1, Op: "ioctl", Name: "DRM_IOCTL_VERSION", Req: 0xc0246400,
		In: le(0, 0, 0, 0, 0, 0, 0, 0, 0), Out: le(0, 0, 0, 3, 0, 8, 0, 21, 0)}
	second := drm.TraceRecord{Seq: 2, Op: "ioctl", Name: "DRM_IOCTL_VERSION", Req: 0xc0246400,
		In: le(0, 0, 0, 3, 0x1000, 8, 0x2000, 21, 0x3000), Out: le(0, 0, 0, 3, 0x1000, 8, 0x2000, 21, 0x3000),
		Version: &drm.TraceVersionData{Name: "vc4", Date: "20140616", Desc: "Broadcom VC4 graphics"}}
	var buf bytes.Buffer
	hdr, _ := json.Marshal(drm.TraceHeader{Format: drm.TraceFormat, Version: drm.TraceVersion, GOARCH: "arm", PointerBytes: 4})
	buf.Write(append(hdr, '\n'))
	for _, r := range []drm.TraceRecord{first, second} {
		b, _ := json.Marshal(&r)
		buf.Write(append(b, '\n'))
	}
	res := run(t, buf.Bytes(), newSim(t, sim.BoardPi3), 10)
	if res.Replayed != 2 || len(res.Divergences) != 0 {
		t.Errorf("replayed %d (skipped %v), divergences %v", res.Replayed, res.Skipped, res.Divergences)
	}
	// The same record with another name is found.
	second.Version.Name = "v3d"
	buf.Reset()
	buf.Write(append(hdr, '\n'))
	for _, r := range []drm.TraceRecord{first, second} {
		b, _ := json.Marshal(&r)
		buf.Write(append(b, '\n'))
	}
	res = run(t, buf.Bytes(), newSim(t, sim.BoardPi3), 10)
	if len(res.Divergences) != 1 || res.Divergences[0].What != "field name" {
		t.Errorf("divergences %v, want the name", res.Divergences)
	}
}

// A trace whose recorded BO contents no longer match their checksum is
// damaged: the replay stops with an error rather than blame the device.
func TestReplayRefusesDamagedContents(t *testing.T) {
	trace := record(t, newSim(t, sim.BoardPi3), 1)
	lines := bytes.Split(bytes.TrimSuffix(trace, []byte("\n")), []byte("\n"))
	for i, l := range lines[1:] {
		var rec drm.TraceRecord
		if json.Unmarshal(l, &rec) != nil || len(rec.BOs) == 0 {
			continue
		}
		rec.BOs[0].Data[0] ^= 1
		lines[i+1], _ = json.Marshal(&rec)
		break
	}
	tr, err := drm.NewTraceReader(bytes.NewReader(append(bytes.Join(lines, []byte("\n")), '\n')))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(tr, newSim(t, sim.BoardPi3), replay.Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("replay of a damaged trace: %v", err)
	}
}
