package drm

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// TraceReader reads a trace a Recorder wrote (see TraceFormat), plain or
// gzip-compressed (a trace written to a file named *.gz).
type TraceReader struct {
	// Header is the trace's first line.
	Header TraceHeader
	dec    *json.Decoder
	line   int
}

// NewTraceReader reads and checks the header of the trace r holds.
func NewTraceReader(r io.Reader) (*TraceReader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var src io.Reader = br
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("drm: trace: %w", err)
		}
		src = zr
	}
	t := &TraceReader{dec: json.NewDecoder(src)}
	if err := t.dec.Decode(&t.Header); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("drm: trace: the file is empty")
		}
		return nil, fmt.Errorf("drm: trace: the first line is not a vccube trace header (%v); was the file written by vccube -trace?", err)
	}
	t.line = 1
	if t.Header.Format != TraceFormat {
		return nil, fmt.Errorf("drm: trace: format %q, want %q: not a vccube -trace file", t.Header.Format, TraceFormat)
	}
	if t.Header.Version != TraceVersion {
		return nil, fmt.Errorf("drm: trace: version %d; this vccube reads version %d only (record the run again with this vccube)", t.Header.Version, TraceVersion)
	}
	return t, nil
}

// Next returns the next record, or io.EOF after the last.
func (t *TraceReader) Next() (*TraceRecord, error) {
	var rec TraceRecord
	if err := t.dec.Decode(&rec); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("drm: trace: record %d: %w (a trace cut short, or edited by hand?)", t.line, err)
	}
	t.line++
	return &rec, nil
}
