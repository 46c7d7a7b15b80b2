package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// runSupervise is "kmsprobe supervise [flags] -- COMMAND...": it checks,
// independently of the command, that the command leaves every CRTC as it
// found it, after a normal end or after SIGTERM. It also carries the
// command's report to the judge: the command's stdout goes into the
// supervisor's report line (as JSON when it is one JSON object), with the
// file -attach names, so the judge finds everything of one run in one
// line.
//
// It opens the card first and keeps it open, so that the command's exit is
// not the device's last close: on the last close the kernel lets the
// framebuffer console restore its own picture (drm_file.c: drm_lastclose
// -> drm_client_dev_restore), which would hide a command that restored
// nothing. It drops DRM master (it got it by opening first), so that the
// command becomes master when it opens the card (drm_auth.c:
// drm_master_open). With -term-after it watches the CRTCs and sends
// SIGTERM that long after the command changed one, so the signal lands
// while the command is flipping.
func runSupervise(args []string) int {
	fs := flag.NewFlagSet("supervise", flag.ExitOnError)
	subcommand(fs, `runs COMMAND while holding the card, checks the CRTCs are as before once it ends, and prints one "@@kmsprobe " report line.`)
	device := fs.String("device", "/dev/dri/card0", "the display's DRM card")
	termAfter := fs.Duration("term-after", 0, "send SIGTERM this long after the command changed a CRTC (0: never)")
	timeout := fs.Duration("timeout", 2*time.Minute, "kill the command after this long")
	attach := fs.String("attach", "", "after the command, put this file into the report (base64), such as a captured frame")
	fs.Parse(args)
	rep := SuperviseReport{Kind: "supervise", Command: strings.Join(fs.Args(), " "), ExitCode: -1, TermAfterNs: int64(*termAfter)}
	err := supervise(&rep, *device, fs.Args(), *termAfter, *timeout)
	if err != nil {
		rep.Error = err.Error()
	}
	if *attach != "" {
		rep.Attachment = readAttachment(*attach)
	}
	emit(&rep)
	if err != nil {
		return 1
	}
	return 0
}

func supervise(rep *SuperviseReport, device string, argv []string, termAfter, timeout time.Duration) error {
	if len(argv) == 0 {
		return errors.New("no command to supervise (kmsprobe supervise [flags] -- COMMAND ARGS...)")
	}
	f, err := drm.Open(device)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := drm.GetResources(f)
	if err != nil {
		return err
	}
	before, err := crtcStates(f, res.CRTCs)
	if err != nil {
		return err
	}
	if err := drm.DropMaster(f); err != nil {
		fmt.Fprintf(os.Stderr, "kmsprobe supervise: dropping DRM master: %v (the command may not get it)\n", err)
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	out := &limitedBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { rep.Report, rep.Stdout = splitOutput(out) }()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(timeout)
	var term <-chan time.Time
	var watch <-chan time.Time
	if termAfter > 0 {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		watch = tick.C
	}
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-watch:
			now, err := crtcStates(f, res.CRTCs)
			if err == nil && diffStates(before, now) != "" {
				rep.ModesetSeen = true
				watch = nil
				term = time.After(termAfter)
			}
		case <-term:
			term = nil
			if err := cmd.Process.Signal(syscall.SIGTERM); err == nil {
				rep.SigtermSent = true
			}
		case <-deadline:
			cmd.Process.Kill()
			waitErr = <-done
			rep.WallNs = int64(time.Since(start))
			return fmt.Errorf("the command ran longer than %v and was killed", timeout)
		}
	}
	rep.WallNs = int64(time.Since(start))
	rep.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		rep.Killed = ws.Signal().String()
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return waitErr
	}
	after, err := crtcStates(f, res.CRTCs)
	if err != nil {
		return err
	}
	rep.Diff = diffStates(before, after)
	rep.CrtcRestored = rep.Diff == ""
	return nil
}

// crtcStates reads every CRTC.
func crtcStates(c uapi.Conn, ids []uint32) ([]drm.Crtc, error) {
	out := make([]drm.Crtc, len(ids))
	for i, id := range ids {
		st, err := drm.GetCrtc(c, id)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// diffStates describes how the CRTCs changed ("" when they did not): the
// framebuffer, whether they are on, the mode and the position.
func diffStates(before, after []drm.Crtc) string {
	var d []string
	show := func(c drm.Crtc) string {
		if !c.ModeValid {
			return fmt.Sprintf("off (fb %d)", c.FbID)
		}
		return fmt.Sprintf("fb %d %s at %d,%d", c.FbID, c.Mode, c.X, c.Y)
	}
	for i := range before {
		b, a := before[i], after[i]
		if b.FbID != a.FbID || b.ModeValid != a.ModeValid || b.Mode != a.Mode || b.X != a.X || b.Y != a.Y {
			d = append(d, fmt.Sprintf("crtc %d: %s -> %s", b.ID, show(b), show(a)))
		}
	}
	return strings.Join(d, "; ")
}

// maxOutput bounds the command's stdout kept for the report, and
// maxAttachment the attached file: both travel over the serial console
// in one line.
const (
	maxOutput     = 1 << 20
	maxAttachment = 1 << 20
)

// limitedBuffer keeps the first max bytes written to it and counts the
// rest.
type limitedBuffer struct {
	bytes.Buffer
	max     int
	dropped int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	keep := min(len(p), b.max-b.Len())
	b.Buffer.Write(p[:keep])
	b.dropped += len(p) - keep
	return len(p), nil
}

// splitOutput returns the command's stdout as JSON when it is exactly one
// JSON object (compacted, so that it fits the report's line), else as
// text.
func splitOutput(out *limitedBuffer) (json.RawMessage, string) {
	b := bytes.TrimSpace(out.Bytes())
	if out.dropped == 0 && len(b) > 0 && b[0] == '{' && json.Valid(b) {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return c.Bytes(), ""
		}
	}
	text := string(b)
	if out.dropped > 0 {
		text += fmt.Sprintf(" [%d more bytes]", out.dropped)
	}
	return nil, text
}

// readAttachment reads the file for the report.
func readAttachment(path string) *Attachment {
	a := &Attachment{Path: path}
	f, err := os.Open(path)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAttachment+1))
	switch {
	case err != nil:
		a.Error = err.Error()
	case len(data) > maxAttachment:
		a.Error = fmt.Sprintf("larger than %d bytes", maxAttachment)
	default:
		a.Data = data
	}
	return a
}
