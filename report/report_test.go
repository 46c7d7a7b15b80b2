package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func sample() *Report {
	return &Report{Device: "sim", GPU: "VideoCore IV", Display: "Virtual-1 640x480@60 on CRTC 35",
		DisplayDevice: "/dev/dri/card0", DisplayDriver: "vkms", Width: 640, Height: 480, RefreshHz: 59.94, VSync: true,
		Frames: 3, CPUSeconds: 0.03, CPUMsPerFrame: 10, Flips: &Flips{ModeSet: true, Queued: 3, Completed: 3, MissedVblanks: 5, MissedLate: 4, MissedQueued: 1,
			FirstSequence: 10, LastSequence: 17, FramePeriodMs: 16.683217},
		Counters: []Counter{{Name: "FEP-valid-quads", Total: 12, PerFrame: 3}}}
}

// The JSON form has the documented names and reads back through Parse
// unchanged.
func TestJSONRoundTrip(t *testing.T) {
	rep := sample()
	var b bytes.Buffer
	if err := rep.JSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "}\n") || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("not one line: %q", b.String())
	}
	var names map[string]any
	if err := json.Unmarshal(b.Bytes(), &names); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"device", "display_driver", "fps", "frame_time_ms", "cpu_seconds", "cpu_ms_per_frame", "flips", "gpu_counters", "vsync"} {
		if _, ok := names[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b.String())
		}
	}
	flips := names["flips"].(map[string]any)
	for _, k := range []string{"mode_set", "missed_late", "missed_queued", "first_sequence", "frame_period_ms", "interval_error_max_ms"} {
		if _, ok := flips[k]; !ok {
			t.Errorf("flips lack %q", k)
		}
	}
	back, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Flips == nil || *back.Flips != *rep.Flips || back.DisplayDriver != "vkms" || len(back.Counters) != 1 || back.CPUMsPerFrame != 10 {
		t.Errorf("read back %+v", back)
	}
}

// Parse refuses what the schema does not describe, so a reader never
// misses a field by a spelling.
func TestParseStrict(t *testing.T) {
	for _, bad := range []string{
		`{"device":"sim","flips":{"missed":3}}`,
		`{"device":"sim","extra":1}`,
		`{"device":"sim"} {"device":"sim"}`,
		`not json`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) succeeded", bad)
		}
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"640x480 on sim (VideoCore IV); Virtual-1 640x480@60 on CRTC 35 of /dev/dri/card0 (vkms)\n",
		"page flips: 3 queued, 3 completed, 5 missed vblanks (4 with the frame not ready, 1 after the flip was queued); ",
		"(mode refresh 59.940 Hz)\n",
		"CPU time: 10.000 ms per frame (the whole process, all threads; 0.030 s over the 3 frames)\n",
		"FEP-valid-quads",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// The terminal view's line names the three counts, which add up: every
// frame given to the view was drawn or dropped.
func TestTerminalLine(t *testing.T) {
	var b bytes.Buffer
	term := &Terminal{Frames: 593, Drawn: 386, Dropped: 207, BytesPerFrame: 1200}
	if err := term.Line(&b); err != nil {
		t.Fatal(err)
	}
	if want := "terminal view: 593 frames, 386 drawn, 207 dropped (a newer frame came before the terminal took them); 1200 bytes per frame drawn\n"; b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}
