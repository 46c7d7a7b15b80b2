package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/report"
)

// recorded reads the console log of a real run (see testdata/README.md).
func recorded(t *testing.T) *Log {
	t.Helper()
	f, err := os.Open("testdata/vkms-console.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ParseLog(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// criteria are the rig's defaults, with the host's reference frame of the
// recorded run.
func criteria(t *testing.T) Criteria {
	t.Helper()
	ref, err := imgcmp.ReadPNG("testdata/vkms-reference.png")
	if err != nil {
		t.Fatal(err)
	}
	return Criteria{MinFlips: 300, MaxMissed: 0, MinFrames: 300, MaxMissedQueued: 0, Tolerance: 0.001, Reference: ref}
}

// The recorded log holds the three runs with the kernel's figures.
func TestParseRecordedLog(t *testing.T) {
	l := recorded(t)
	if len(l.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(l.Runs))
	}
	p := l.Runs[0].Present
	// 640x480@60 DMT: 800 x 525 pixels at 25175 kHz = 16683217 ns.
	if p == nil || p.Driver != "vkms" || p.Mode != "640x480@60" || p.PeriodNs != 16683217 || p.Flips != 300 || p.Completed != 300 ||
		p.Missed != 0 || p.SeqFirst != 16 || p.SeqLast != 315 {
		t.Errorf("kmsprobe present: %+v", p)
	}
	v, s := l.Runs[1].Vccube, l.Runs[1].Supervise
	if v == nil || v.DisplayDriver != "vkms" || v.DisplayDevice != "/dev/dri/card0" || v.Width != 640 || v.Frames != 299 {
		t.Fatalf("vccube: %+v", v)
	}
	if f := v.Flips; f.Queued != 299 || f.Completed != 299 || f.FirstSequence != 375 || f.LastSequence != 7000 ||
		f.MissedVblanks != 6327 || f.MissedLate != 6327 || f.MissedQueued != 0 || f.FramePeriodMs != 16.683217 {
		t.Errorf("vccube flips: %+v", f)
	}
	if a := s.Attachment; a == nil || a.Path != "/capture.png" || len(a.Data) == 0 || !bytes.HasPrefix(a.Data, []byte("\x89PNG")) {
		t.Errorf("attachment %+v", a)
	}
	if s := l.Runs[2].Supervise; s.TermAfterNs != 1e9 || s.ExitCode != 143 || !s.SigtermSent || !s.CrtcRestored || l.Runs[2].Vccube == nil {
		t.Errorf("SIGTERM run %+v", s)
	}
}

func TestJudgeRecordedLogPasses(t *testing.T) {
	failures, summary := Judge(recorded(t), criteria(t))
	if len(failures) != 0 {
		t.Errorf("failures: %q", failures)
	}
	all := strings.Join(summary, "\n")
	for _, want := range []string{
		"kmsprobe present: Virtual-1 640x480@60 on CRTC 35 (vkms): mode set + 300 flips, 300 events, sequence 16..315, +1 per flip on 299 of 299 steps",
		"vccube: Virtual-1 640x480@60 on CRTC 35 (vkms): mode set + 299 flips, 299 events, sequence 375..7000; 6327 missed vblanks: 6327 with the frame not ready, 0 after the flip was queued",
		"vblank period 16.683217 ms (mode 16.683217 ms)",
		"vccube capture: 640x480 frame read back from the VKMS scanout buffer against the host's simulated display: 0 pixels differ",
		"vccube SIGTERM: signal 1s after the mode set; stopped after the mode set and 2 flips with status 143",
		"T_init uptime=6.16",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("summary lacks %q:\n%s", want, all)
		}
	}
}

// setReport replaces run i's vccube report in the log, as if the command
// had printed it.
func setReport(l *Log, i int, change func(*report.Report)) {
	v := *l.Runs[i].Vccube
	f := *v.Flips
	v.Flips = &f
	change(&v)
	l.Runs[i].Vccube = &v
}

func TestJudgeFailures(t *testing.T) {
	vcc := func(change func(*report.Flips)) func(*Log) {
		return func(l *Log) { setReport(l, 1, func(r *report.Report) { change(r.Flips) }) }
	}
	for _, tc := range []struct {
		name   string
		change func(l *Log)
		want   string
	}{
		// kmsprobe present's run.
		{"present: not on VKMS", func(l *Log) { l.Runs[0].Present.Driver = "simpledrm" },
			`kmsprobe present: the frames were not shown on VKMS (driver "simpledrm")`},
		{"present: a flip without its event", func(l *Log) { l.Runs[0].Present.Completed-- },
			"300 flips queued but 299 completed"},
		{"present: too few flips", func(l *Log) { l.Runs[0].Present.Flips, l.Runs[0].Present.Completed = 200, 200 },
			"200 flips completed, want at least 300"},
		{"present: a missed vblank", func(l *Log) {
			l.Runs[0].Present.Missed, l.Runs[0].Present.SeqStepsNotOne, l.Runs[0].Present.SeqLast = 1, 1, 316
		}, "1 vblanks missed"},
		{"present: sequence not matching", func(l *Log) { l.Runs[0].Present.SeqLast += 2 },
			"sequence 16..317 does not match"},
		{"present: timestamps off the period", func(l *Log) { l.Runs[0].Present.TimestampMismatches = 1 },
			"1 flip intervals differ"},
		{"present: wrong refresh", func(l *Log) { l.Runs[0].Present.VblankPeriodNs = 20000000 },
			"measured vblank period 20ms"},
		{"present: frame read back wrong", func(l *Log) { l.Runs[0].Present.PatternErrors = 1 },
			"1 read back wrong"},
		{"present: not restored", func(l *Log) { l.Runs[0].Present.Restored = false },
			"kmsprobe present: the CRTC was not restored"},
		{"present: supervisor saw a change", func(l *Log) { l.Runs[0].Supervise.CrtcRestored, l.Runs[0].Supervise.Diff = false, "crtc 35: ..." },
			"kmsprobe present: the supervisor found the CRTCs changed after the command: crtc 35"},

		// vccube's run.
		{"vccube: failed", func(l *Log) { l.Runs[1].Supervise.ExitCode = 1 },
			"vccube: the command ended with status 1, want 0"},
		{"vccube: no report", func(l *Log) { l.Runs[1].Vccube, l.Runs[1].Supervise.Stdout = nil, "panic: ..." },
			`vccube: the command printed no report (stdout: "panic: ...")`},
		{"vccube: not on VKMS", func(l *Log) { setReport(l, 1, func(r *report.Report) { r.DisplayDriver = "vc4" }) },
			`not shown on VKMS with page flips (display "Virtual-1 640x480@60 on CRTC 35" of "/dev/dri/card0", driver "vc4"`},
		{"vccube: a flip without its event", vcc(func(f *report.Flips) { f.Completed-- }),
			"vccube: 299 flips queued but 298 completed"},
		{"vccube: too few frames", vcc(func(f *report.Flips) { f.Queued, f.Completed = 99, 99 }),
			"vccube: 100 frames shown (the mode set and 99 flips), want at least 300"},
		{"vccube: sequence not matching", vcc(func(f *report.Flips) { f.LastSequence++ }),
			"sequence 375..7001 does not match 299 flips and 6327 missed vblanks"},
		{"vccube: a timestamp off", vcc(func(f *report.Flips) { f.IntervalErrorMaxMs = 0.02 }),
			"a flip interval is 0.020000 ms away from its sequence step"},
		{"vccube: wrong refresh", vcc(func(f *report.Flips) { f.VblankPeriodMs = 16.0 }),
			"measured vblank period 16.000000 ms, the mode's is 16.683217 ms"},
		{"vccube: mean not the vblanks", vcc(func(f *report.Flips) { f.MeanIntervalMs = 300 }),
			"mean flip interval 300.000000 ms, want 370.89"},
		{"vccube: a vblank missed after queueing", vcc(func(f *report.Flips) {
			f.MissedLate, f.MissedQueued, f.MissedQueuedMarginMaxMs = 6326, 1, 5.5
		}), "1 vblanks passed after a flip was queued (the earliest 5.500 ms after the queueing), at most 0 allowed"},
		{"vccube: misses not told apart", vcc(func(f *report.Flips) { f.MissedLate = 0 }),
			"6327 missed vblanks, but 0 late frames and 0 after queueing"},
		{"vccube: no capture attached", func(l *Log) { l.Runs[1].Supervise.Attachment = nil },
			"vccube capture: the supervisor attached no capture"},
		{"vccube: capture unreadable", func(l *Log) {
			l.Runs[1].Supervise.Attachment = &Attachment{Path: "/capture.png", Error: "no such file"}
		},
			"the guest's capture could not be read: no such file"},
		{"vccube: capture differs", func(l *Log) {
			img, err := png.Decode(bytes.NewReader(l.Runs[1].Supervise.Attachment.Data))
			if err != nil {
				panic(err)
			}
			m := image.NewNRGBA(img.Bounds())
			for y := 0; y < img.Bounds().Dy(); y++ {
				for x := 0; x < img.Bounds().Dx(); x++ {
					m.Set(x, y, img.At(x, y))
				}
			}
			m.SetNRGBA(3, 4, color.NRGBA{255, 0, 0, 255})
			var b bytes.Buffer
			png.Encode(&b, m)
			l.Runs[1].Supervise.Attachment.Data = b.Bytes()
		}, "the frame read back from VKMS differs from the host's simulated-display capture"},

		// vccube's SIGTERM run.
		{"SIGTERM killed it", func(l *Log) { l.Runs[2].Supervise.ExitCode, l.Runs[2].Supervise.Killed = -1, "terminated" },
			"vccube SIGTERM: the command ended with status -1 (killed by terminated), want 143"},
		{"SIGTERM not handled", func(l *Log) { l.Runs[2].Supervise.ExitCode = 0 },
			"vccube SIGTERM: the command ended with status 0, want 143"},
		{"SIGTERM before the mode set", func(l *Log) { l.Runs[2].Supervise.ModesetSeen = false },
			"the signal was not sent mid-run"},
		{"SIGTERM run not restored", func(l *Log) { l.Runs[2].Supervise.CrtcRestored = false },
			"vccube SIGTERM: the supervisor found the CRTCs changed"},
		{"SIGTERM run without a report", func(l *Log) { l.Runs[2].Vccube = nil },
			"vccube SIGTERM: the command printed no report"},

		// The runs.
		{"a run missing", func(l *Log) { l.Runs = l.Runs[:2] },
			"vccube SIGTERM: expected one run, found 0"},
		{"a run twice", func(l *Log) { l.Runs = append(l.Runs, l.Runs[0]) },
			"kmsprobe present: expected one run, found 2"},
		{"another command", func(l *Log) {
			s := *l.Runs[0].Supervise
			s.Command = "/bin/true"
			l.Runs = append(l.Runs, Run{Supervise: &s})
		}, `a run of an unexpected command: "/bin/true"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := recorded(t)
			tc.change(l)
			failures, _ := Judge(l, criteria(t))
			if len(failures) == 0 || !strings.Contains(strings.Join(failures, "\n"), tc.want) {
				t.Errorf("failures %q, want one with %q", failures, tc.want)
			}
		})
	}
}

// -save-capture writes the guest's frame for a person to look at.
func TestJudgeSavesCapture(t *testing.T) {
	c := criteria(t)
	c.SaveCapture = t.TempDir() + "/guest.png"
	if failures, _ := Judge(recorded(t), c); len(failures) != 0 {
		t.Fatal(failures)
	}
	got, err := imgcmp.ReadPNG(c.SaveCapture)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := imgcmp.Compare(got, c.Reference, 0); err != nil || res.Over != 0 {
		t.Errorf("saved capture differs: %v %v", res, err)
	}
}

func TestParseLogRejectsBadReports(t *testing.T) {
	for _, bad := range []string{
		ReportPrefix + "{not json",
		ReportPrefix + `{"kind":"other"}`,
		ReportPrefix + `{"kind":"present","flips":3}`,
		ReportPrefix + `{"kind":"supervise","unknown_field":1}`,
		ReportPrefix + `{"kind":"supervise","report":{"kind":"present","flips":"many"}}`,
		ReportPrefix + `{"kind":"supervise","report":{"device":"sim","flips":{"missed":3}}}`,
	} {
		if _, err := ParseLog(strings.NewReader("T_init uptime=1\n" + bad + "\n")); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	// A kernel message in front of a report on the same line is fine.
	b, _ := json.Marshal(SuperviseReport{Kind: "supervise", ExitCode: 0, CrtcRestored: true})
	l, err := ParseLog(strings.NewReader("[    1.0] random: crng init done" + ReportPrefix + string(b) + "\n"))
	if err != nil || len(l.Runs) != 1 || l.Runs[0].Supervise == nil || l.Runs[0].Present != nil || l.Runs[0].Vccube != nil {
		t.Errorf("%v, runs %+v", err, l.Runs)
	}
}

// The supervisor keeps a command's stdout as JSON when it is one JSON
// object, as text otherwise, and says when it cut it.
func TestSplitOutput(t *testing.T) {
	for _, c := range []struct {
		out        string
		max        int
		json, text string
	}{
		{"{\"a\": 1,\n \"b\": [2]}\n", 100, `{"a":1,"b":[2]}`, ""},
		{"Rendered 3 frames\n", 100, "", "Rendered 3 frames"},
		{`{"a":1} {"b":2}`, 100, "", `{"a":1} {"b":2}`},
		{`{"a":1,"b":2}`, 8, "", `{"a":1," [5 more bytes]`}, // 8 of 13 bytes kept
		{"", 100, "", ""},
	} {
		b := &limitedBuffer{max: c.max}
		b.Write([]byte(c.out))
		j, text := splitOutput(b)
		if string(j) != c.json || text != c.text {
			t.Errorf("%q: json %s, text %q; want %s, %q", c.out, j, text, c.json, c.text)
		}
	}
}

func TestReadAttachment(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/f", []byte("\x89PNG data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if a := readAttachment(dir + "/f"); a.Error != "" || string(a.Data) != "\x89PNG data" || a.Path != dir+"/f" {
		t.Errorf("%+v", a)
	}
	if a := readAttachment(dir + "/missing"); a.Error == "" || a.Data != nil {
		t.Errorf("%+v", a)
	}
}
