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
//
// A trace to a regular file (or a new one) is written as PATH.partial
// and renamed to PATH when it is complete, which is when the run ends,
// whichever way it ends; one that could not be written is removed, so
// that no file under PATH looks like a trace while it is not one, and a
// full disk gets its space back. (A process killed outright leaves the
// PATH.partial, named for what it is.) A device or pipe, such as
// /dev/stdout, is written as it is.
type traceFile struct {
	path    string // the name the person gave
	partial string // the file being written, when it is renamed to path at the end; "" otherwise
	rec     *drm.Recorder
	f       *os.File
	zw      *gzip.Writer
}

// partialSuffix marks a trace still being written.
const partialSuffix = ".partial"

// traceWriter is what the trace's bytes go through on their way to the
// file: the file itself; tests put a full disk in between.
var traceWriter = func(f *os.File) io.Writer { return f }

// openTrace creates the -trace file and writes its header; args are the
// command line, which the header names.
func openTrace(path string, args []string) (*traceFile, error) {
	t := &traceFile{path: path}
	name := path
	if fi, err := os.Stat(path); err != nil || fi.Mode().IsRegular() {
		if err == nil && fi.IsDir() {
			return nil, fmt.Errorf("-trace %s is a directory; give a file", path)
		}
		// A trace of an earlier run under the same name goes now, as
		// writing over it would have done: it is not this run's.
		if err == nil {
			if err := os.Remove(path); err != nil {
				return nil, fmt.Errorf("-trace: %w; choose a writable file", err)
			}
		}
		t.partial = path + partialSuffix
		name = t.partial
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // said of the name the person gave
		}
		return nil, fmt.Errorf("-trace: cannot write %s: %w; choose a writable file", path, err)
	}
	t.f = f
	w := traceWriter(f)
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		t.zw = gzip.NewWriter(w)
		w = t.zw
	}
	if t.rec, err = drm.NewRecorder(w, "vccube "+strings.Join(args, " ")); err != nil {
		t.discard()
		return nil, t.failed(err) // the header could not be written
	}
	return t, nil
}

// discard closes the file and removes what was written of it, when it is
// the run's own PATH.partial.
func (t *traceFile) discard() {
	t.f.Close()
	if t.partial != "" {
		os.Remove(t.partial)
	}
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
	what := "so the trace is incomplete"
	if t.partial != "" {
		what = "so no trace was kept"
	}
	return fmt.Errorf("-trace: writing %s failed (%v), %s; free some space or give -trace a file on another disk", t.path, err, what)
}

// Close finishes the file and, when it was written as PATH.partial,
// renames it to PATH; it reports the first error writing it, and then
// removes the PATH.partial.
func (t *traceFile) Close() error {
	if err := t.Err(); err != nil {
		t.discard()
		return err
	}
	var err error
	if t.zw != nil {
		err = t.zw.Close()
	}
	if err = errors.Join(err, t.f.Close()); err != nil {
		t.discard()
		return t.failed(err)
	}
	if t.partial != "" {
		if err := os.Rename(t.partial, t.path); err != nil {
			os.Remove(t.partial)
			return fmt.Errorf("-trace: %w; the trace was not kept", err)
		}
	}
	return nil
}
