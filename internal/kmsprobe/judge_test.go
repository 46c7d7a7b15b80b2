package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/vccube/vccube/drm"
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

var defaults = Criteria{MinFlips: 300, MaxMissed: 3, Tolerance: 0.001, Sigterm: true}

func TestParseRecordedLog(t *testing.T) {
	l := recorded(t)
	if len(l.Runs) != 2 || l.Runs[0].Present == nil || l.Runs[1].Present == nil || l.Runs[1].Supervise == nil {
		t.Fatalf("runs %+v, want two with both reports", l.Runs)
	}
	p := l.Runs[0].Present
	// 1024x768@60 DMT: 1344 x 806 pixels at 65000 kHz = 16665600 ns.
	if p.Driver != "vkms" || p.Mode != "1024x768@60" || p.PeriodNs != 16665600 || p.Flips != 300 || p.Completed != 300 {
		t.Errorf("normal run %+v", p)
	}
	if p.Missed != 1 || p.SeqLast-p.SeqFirst != 300 || len(p.MissedAt) != 1 || p.MissedAt[0] != 33 {
		t.Errorf("sequence %d..%d, missed %d at %v", p.SeqFirst, p.SeqLast, p.Missed, p.MissedAt)
	}
	if s := l.Runs[1].Supervise; s.ExitCode != 143 || !s.SigtermSent || !s.CrtcRestored {
		t.Errorf("SIGTERM run %+v", s)
	}
}

func TestJudgeRecordedLogPasses(t *testing.T) {
	failures, summary := Judge(recorded(t), defaults)
	if len(failures) != 0 {
		t.Errorf("failures: %q", failures)
	}
	all := strings.Join(summary, "\n")
	for _, want := range []string{
		"mode set + 300 flips, 300 events, sequence 25..325, +1 per flip on 298 of 299 steps (1 missed vblanks, at flips [33])",
		"mean 16.721337ms min 16.665ms max 33.331ms (mode period 16.6656ms)",
		"SIGTERM run: stopped after 61 flips with status 143",
		"T_init uptime=1.65",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("summary lacks %q:\n%s", want, all)
		}
	}
	// Strict: no missed vblank allowed.
	strict := defaults
	strict.MaxMissed = 0
	failures, _ = Judge(recorded(t), strict)
	if len(failures) != 1 || !strings.Contains(failures[0], "1 vblanks missed") {
		t.Errorf("strict: %q", failures)
	}
}

func TestJudgeFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(l *Log)
		want   string
	}{
		{"a flip without its event", func(l *Log) { l.Runs[0].Present.Completed-- },
			"300 flips queued but 299 completed"},
		{"too few flips", func(l *Log) { l.Runs[0].Present.Flips, l.Runs[0].Present.Completed = 200, 200 },
			"200 flips completed, want at least 300"},
		{"many missed vblanks", func(l *Log) {
			l.Runs[0].Present.Missed, l.Runs[0].Present.SeqStepsNotOne, l.Runs[0].Present.SeqLast = 5, 5, 329
		},
			"5 vblanks missed"},
		{"sequence not matching", func(l *Log) { l.Runs[0].Present.SeqLast += 2 },
			"sequence 25..327 does not match"},
		{"timestamps off the period", func(l *Log) { l.Runs[0].Present.TimestampMismatches = 1 },
			"1 flip intervals differ"},
		{"wrong refresh", func(l *Log) { l.Runs[0].Present.VblankPeriodNs = 20000000 },
			"measured vblank period 20ms"},
		{"mean not the period", func(l *Log) { l.Runs[0].Present.IntervalMeanNs = 16665600 },
			"mean flip interval 16.6656ms, want 16.721337ms"},
		{"frame read back wrong", func(l *Log) { l.Runs[0].Present.PatternErrors = 1 },
			"1 read back wrong"},
		{"other buffer scanned out", func(l *Log) { l.Runs[0].Present.ScanoutErrors = 2 },
			"2 not the buffer scanned out"},
		{"not restored", func(l *Log) { l.Runs[0].Present.Restored = false },
			"normal run: the CRTC was not restored"},
		{"supervisor saw a change", func(l *Log) { l.Runs[0].Supervise.CrtcRestored, l.Runs[0].Supervise.Diff = false, "crtc 35: ..." },
			"found the CRTCs changed after the command: crtc 35"},
		{"command failed", func(l *Log) { l.Runs[0].Supervise.ExitCode = 1 },
			"normal run: the command ended with status 1"},
		{"SIGTERM killed it", func(l *Log) { l.Runs[1].Supervise.ExitCode, l.Runs[1].Supervise.Killed = -1, "terminated" },
			"status -1 (killed by terminated), want 143"},
		{"SIGTERM before the mode set", func(l *Log) { l.Runs[1].Supervise.ModesetSeen = false },
			"the signal was not sent mid-run"},
		{"SIGTERM run not restored", func(l *Log) { l.Runs[1].Supervise.CrtcRestored = false },
			"SIGTERM run: the CRTC was not restored"},
		{"a run missing", func(l *Log) { l.Runs = l.Runs[:1] },
			"expected 2 runs"},
		{"no report from the command", func(l *Log) { l.Runs[1].Present = nil },
			"SIGTERM run: the command printed no report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := recorded(t)
			tc.change(l)
			failures, _ := Judge(l, defaults)
			if len(failures) == 0 || !strings.Contains(strings.Join(failures, "\n"), tc.want) {
				t.Errorf("failures %q, want one with %q", failures, tc.want)
			}
		})
	}
}

func TestParseLogRejectsBadReports(t *testing.T) {
	for _, bad := range []string{
		ReportPrefix + "{not json",
		ReportPrefix + `{"kind":"other"}`,
		ReportPrefix + `{"kind":"present","flips":"many"}`,
		ReportPrefix + `{"kind":"supervise","unknown_field":1}`,
	} {
		if _, err := ParseLog(strings.NewReader("T_init uptime=1\n" + bad + "\n")); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	// A kernel message in front of a report on the same line is fine.
	b, _ := json.Marshal(SuperviseReport{Kind: "supervise", ExitCode: 0, CrtcRestored: true})
	l, err := ParseLog(strings.NewReader("[    1.0] random: crng init done" + ReportPrefix + string(b) + "\n"))
	if err != nil || len(l.Runs) != 1 || l.Runs[0].Supervise == nil || l.Runs[0].Present != nil {
		t.Errorf("%v, runs %+v", err, l.Runs)
	}
}

func TestPeriodNs(t *testing.T) {
	// Hand-computed from the timings: htotal*vtotal*1e6/clock_kHz.
	for _, tc := range []struct {
		clock, ht, vt uint32
		want          int64
	}{
		{65000, 1344, 806, 16665600},   // DMT 1024x768@60
		{148500, 2200, 1125, 16666666}, // CEA 1080p60 (16666666.67 truncated)
		{25175, 800, 525, 16683217},    // DMT 640x480@60 (59.94 Hz)
	} {
		var m drm.ModeInfo
		m.Clock, m.Htotal, m.Vtotal = tc.clock, uint16(tc.ht), uint16(tc.vt)
		if got := periodNs(m); got != tc.want {
			t.Errorf("%d kHz %dx%d: %d ns, want %d", tc.clock, tc.ht, tc.vt, got, tc.want)
		}
	}
}

func TestParseLogPairsReports(t *testing.T) {
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return ReportPrefix + string(b) + "\n"
	}
	log := line(PresentReport{Kind: "present", Flips: 1}) + line(SuperviseReport{Kind: "supervise", ExitCode: 0}) +
		line(SuperviseReport{Kind: "supervise", ExitCode: -1, Killed: "killed"}) + // its command printed nothing
		line(PresentReport{Kind: "present", Flips: 3}) // the log ends before its supervisor's report
	l, err := ParseLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Runs) != 3 ||
		l.Runs[0].Present == nil || l.Runs[0].Present.Flips != 1 || l.Runs[0].Supervise == nil ||
		l.Runs[1].Present != nil || l.Runs[1].Supervise == nil || l.Runs[1].Supervise.Killed != "killed" ||
		l.Runs[2].Present == nil || l.Runs[2].Present.Flips != 3 || l.Runs[2].Supervise != nil {
		t.Errorf("runs %+v", l.Runs)
	}
}
