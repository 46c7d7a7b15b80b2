package selftest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vccube/vccube/uapi"
)

// bundleEntry is what the bundle holds of a probe that differs.
type bundleEntry struct {
	probe        *Probe
	a, b         run
	aName, bName string
	ref          *image32
	dump         string
	details      string
}

// bundleReadme opens the bundle.
const bundleReadme = `vccube -selftest found probes on which the GPU (or the device under test)
and the simulated VideoCore IV in vccube do not agree. Each probe is a small
job that settles one fact the model took from reasoning rather than from a
measurement; this bundle holds, for every probe that differs:

  <probe>/job.txt            the submitted job (bin CL, shader records,
                             uniforms, shaders), as vccube -dump prints one
  <probe>/differences.txt    which pixels and counters differ, and how
  <probe>/device.png         the device under test's output (colour; and
  <probe>/model.png          Z as <probe>/device-z.png …), the model's, and
  <probe>/reference.png      the reference rasteriser's where it applies
  <probe>/diff.png           white where the colour outputs differ
  <probe>/*.words            the outputs exactly: one little-endian 32-bit
                             word per pixel, row 0 first
  <probe>/device.trace.jsonl the ioctl traces of both runs (vccube -trace
  <probe>/model.trace.jsonl  format; vccube -replay reads them)

system.txt says which kernel, board and vccube made it; table.txt is the
table vccube printed, with what the model believes for every probe.
`

// writeBundle writes the bundle as a gzip-compressed tar file at path,
// atomically (a partly written bundle is removed).
func writeBundle(path, sys, table string, entries []bundleEntry) (err error) {
	if path == "" {
		return errors.New("no bundle path given")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vccube-selftest-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	zw := gzip.NewWriter(tmp)
	tw := tar.NewWriter(zw)
	now := time.Now().Truncate(time.Second)
	dir := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".tar")
	add := func(name string, data []byte) error {
		h := &tar.Header{Name: dir + "/" + name, Mode: 0o644, Size: int64(len(data)), ModTime: now, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	files := []struct {
		name string
		data []byte
	}{{"README.txt", []byte(bundleReadme)}, {"system.txt", []byte(sys)}, {"table.txt", []byte(table)}}
	for _, f := range files {
		if err := add(f.name, f.data); err != nil {
			return err
		}
	}
	for _, e := range entries {
		if err := addEntry(add, &e); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func addEntry(add func(string, []byte) error, e *bundleEntry) error {
	p := e.probe.Name + "/"
	head := fmt.Sprintf("probe %s\nsettles: %s\nthe model believes: %s\nanswered by: %s\ndevice under test: %s\nmodel: %s\n\n",
		e.probe.Name, e.probe.Fact, e.probe.Belief, e.probe.Answer, e.aName, e.bName)
	if err := add(p+"differences.txt", []byte(head+e.details+"\n")); err != nil {
		return err
	}
	if err := add(p+"job.txt", []byte(e.dump)); err != nil {
		return err
	}
	for _, side := range []struct {
		name string
		r    *run
	}{{"device", &e.a}, {"model", &e.b}} {
		if err := add(p+side.name+".trace.jsonl", side.r.trace); err != nil {
			return err
		}
		if side.r.err != nil {
			if err := add(p+side.name+".error.txt", []byte(side.r.err.Error()+"\n")); err != nil {
				return err
			}
		}
		o := side.r.out
		if o == nil || side.r.err != nil {
			continue
		}
		imgs := []struct {
			suffix string
			img    *image32
		}{{"", &o.colour}, {"-z", o.z}}
		for _, im := range imgs {
			if im.img == nil {
				continue
			}
			if err := addImage(add, p+side.name+im.suffix, im.img); err != nil {
				return err
			}
		}
		var cs strings.Builder
		for _, c := range o.counters {
			fmt.Fprintf(&cs, "%-45s %d\n", uapi.PerfcntName(c.event), c.value)
		}
		if err := add(p+side.name+".counters.txt", []byte(cs.String())); err != nil {
			return err
		}
	}
	if e.ref != nil {
		if err := addImage(add, p+"reference", e.ref); err != nil {
			return err
		}
	}
	if e.a.out != nil && e.b.out != nil && e.a.err == nil && e.b.err == nil {
		if err := add(p+"diff.png", encodePNG(diffImage(&e.a.out.colour, &e.b.out.colour))); err != nil {
			return err
		}
	}
	return nil
}

// addImage adds an output as a PNG to look at and as raw words.
func addImage(add func(string, []byte) error, name string, im *image32) error {
	var raw bytes.Buffer
	for _, w := range im.pix {
		_ = binary.Write(&raw, binary.LittleEndian, w)
	}
	if err := add(name+".words", raw.Bytes()); err != nil {
		return err
	}
	return add(name+".png", encodePNG(viewable(im)))
}

func encodePNG(img image.Image) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// viewable turns an output into an opaque RGB picture: colour words by
// their bytes 0, 1, 2 as red, green, blue; BGR565 expanded; Z as grey
// (its top 8 bits); floats as grey over their range.
func viewable(im *image32) image.Image {
	out := image.NewNRGBA(image.Rect(0, 0, im.w, im.h))
	lo, hi := math.Inf(1), math.Inf(-1)
	if im.kind == kindFloat {
		for _, w := range im.pix {
			f := float64(math.Float32frombits(w))
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				lo, hi = math.Min(lo, f), math.Max(hi, f)
			}
		}
	}
	for i, w := range im.pix {
		var c color.NRGBA
		switch im.kind {
		case kindRGBA8888:
			c = color.NRGBA{uint8(w), uint8(w >> 8), uint8(w >> 16), 255}
		case kindBGR565:
			c = color.NRGBA{uint8(w >> 11 & 31 * 255 / 31), uint8(w >> 5 & 63 * 255 / 63), uint8(w & 31 * 255 / 31), 255}
		case kindZS:
			g := uint8(w >> 24)
			c = color.NRGBA{g, g, g, 255}
		case kindFloat:
			g := uint8(0)
			if hi > lo {
				g = uint8(255 * (float64(math.Float32frombits(w)) - lo) / (hi - lo))
			}
			c = color.NRGBA{g, g, g, 255}
		}
		out.SetNRGBA(i%im.w, i/im.w, c)
	}
	return out
}

// diffImage is white where two outputs differ and dark grey elsewhere.
func diffImage(a, b *image32) image.Image {
	out := image.NewGray(image.Rect(0, 0, a.w, a.h))
	for i := range a.pix {
		v := uint8(32)
		if i < len(b.pix) && a.pix[i] != b.pix[i] {
			v = 255
		}
		out.Pix[i] = v
	}
	return out
}
