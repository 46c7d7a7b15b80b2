package main

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
)

// traceFile is -trace's file: a drm.Recorder writing to it, through gzip
// when the name ends in .gz. The recorder keeps its first write error;
// the frame loop stops on it (Err) and the run fails with it, as it does
// when -capture or -record cannot be written, rather than leaving a
// trace that ends early (or an empty file on a full disk) after a run
// that exits 0.
type traceFile struct {
	path string
	rec  *drm.Recorder
	f    *os.File
	zw   *gzip.Writer
}

// openTrace creates the -trace file and writes its header; args are the
// command line, which the header names.
func openTrace(path string, args []string) (*traceFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-trace: %w; choose a writable file", err)
	}
	t := &traceFile{path: path, f: f}
	var w io.Writer = f
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		t.zw = gzip.NewWriter(f)
		w = t.zw
	}
	if t.rec, err = drm.NewRecorder(w, "vccube "+strings.Join(args, " ")); err != nil {
		f.Close()
		return nil, t.failed(err) // the header could not be written
	}
	return t, nil
}

// conn returns c traced, or c itself without -trace.
func (t *traceFile) conn(c uapi.Conn) uapi.Conn {
	if t == nil {
		return c
	}
	return t.rec.Trace(c)
}

// Err returns the first error writing the trace, said for the person
// running vccube, or nil.
func (t *traceFile) Err() error {
	if t == nil {
		return nil
	}
	return t.failed(t.rec.Err())
}

// failed turns an error writing the trace into the run's error.
func (t *traceFile) failed(err error) error {
	if err == nil {
		return nil
	}
	if inner := errors.Unwrap(err); inner != nil {
		err = inner // drm's "writing the trace: " is said below
	}
	return fmt.Errorf("-trace: writing %s failed (%v), so the trace is incomplete; free some space or give -trace a file on another disk", t.path, err)
}

// Close finishes the file; it reports the first error writing it.
func (t *traceFile) Close() error {
	if err := t.Err(); err != nil {
		t.f.Close()
		return err
	}
	var err error
	if t.zw != nil {
		err = t.zw.Close()
	}
	return t.failed(errors.Join(err, t.f.Close()))
}
