package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/vccube/vccube/drm/drmtest"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// What a run that cannot read the hang states says depends on the device:
// a real kernel's (root only: run as root; slow frames: check dmesg), the
// simulated device in this process (its log is read instead), and the
// device vc4serve serves (every client's file is an ordinary user's, and
// the server's kernel log is not the client's to read).
func TestHangNotesSayWhatIsTrueForTheDevice(t *testing.T) {
	for _, c := range []struct {
		name              string
		kernelLog         func() []string
		served            bool
		note, slow, slow2 string
	}{
		{"card", nil, false,
			"not read: GET_HANG_STATE is for root only (run vccube as root",
			`(check dmesg for "Resetting GPU.")`, `(check dmesg for "Resetting GPU.")`},
		{"served", nil, true,
			"not read: vc4serve opens its clients' files as an ordinary user's",
			"(vc4serve's simulated kernel keeps its log to itself)", "(vc4serve's simulated kernel keeps its log to itself)"},
		{"sim", func() []string { return []string{"Resetting GPU. (seqno 4: injected)"} }, false,
			"not read: the simulated kernel answers GET_HANG_STATE to root only",
			"took 1.5 s, and the simulated kernel did not reset the GPU: the simulated GPU drew it slowly",
			`came out whole, but the simulated kernel reset the GPU while it was drawn (it logged "Resetting GPU. (seqno 4: injected)")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := drmtest.NewConn()
			conn.Fail(uapi.IoctlGetHangState, unix.EACCES)
			var out bytes.Buffer
			w := hangWatch{kernelLog: c.kernelLog, served: c.served}
			w.start(conn, &out)
			if !strings.HasPrefix(w.rep.HangStateNote, c.note) {
				t.Errorf("note %q, want it to start %q", w.rep.HangStateNote, c.note)
			}
			w.whole(2, 3, 1500*time.Millisecond) // seqno 3: not reset
			w.whole(3, 4, 1500*time.Millisecond) // seqno 4: reset, on the simulated device
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], c.slow) || !strings.Contains(lines[1], c.slow2) {
				t.Errorf("lines %q\nwant %q and %q", lines, c.slow, c.slow2)
			}
			var rep bytes.Buffer
			w.rep.Frames = 5
			if err := w.rep.Text(&rep, true); err != nil {
				t.Fatal(err)
			}
			if c.kernelLog != nil && (strings.Contains(rep.String(), "dmesg") || w.rep.SlowFrames != 0 || len(w.rep.Events) != 1) {
				t.Errorf("on the simulated device: slow frames %d, events %+v, report:\n%s", w.rep.SlowFrames, w.rep.Events, rep.String())
			}
			if c.served && (strings.Contains(rep.String(), "dmesg") || w.rep.SlowFrames != 2) {
				t.Errorf("on the served device: slow frames %d, report:\n%s", w.rep.SlowFrames, rep.String())
			}
			t.Logf("%s\n%s", out.String(), rep.String())
		})
	}
}
