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
// when the name ends in .gz.
type traceFile struct {
	rec *drm.Recorder
	f   *os.File
	zw  *gzip.Writer
}

// openTrace creates the -trace file and writes its header; args are the
// command line, which the header names.
func openTrace(path string, args []string) (*traceFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-trace: %w; choose a writable file", err)
	}
	t := &traceFile{f: f}
	var w io.Writer = f
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		t.zw = gzip.NewWriter(f)
		w = t.zw
	}
	if t.rec, err = drm.NewRecorder(w, "vccube "+strings.Join(args, " ")); err != nil {
		f.Close()
		return nil, fmt.Errorf("-trace: %w", err)
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

// Close finishes the file; it reports the first error writing it.
func (t *traceFile) Close() error {
	err := t.rec.Err()
	if t.zw != nil {
		err = errors.Join(err, t.zw.Close())
	}
	return errors.Join(err, t.f.Close())
}
