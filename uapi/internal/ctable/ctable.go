// Package ctable reads the C uAPI layout tables in uapi/testdata (struct
// layouts, request numbers and constants printed by C programs compiled
// against the kernel headers) and checks Go declarations against them; the
// layout tests of package uapi use it.
package ctable

import (
	"bufio"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/vccube/vccube/uapi"
)

// Layout is what the C compiler says about the uAPI on one architecture:
// struct layouts, ioctl request numbers and constant values, as printed by
// uapi/testdata/abi/abi.c and the program behind uapi/testdata/uapi-layouts.
type Layout struct {
	Structs map[string]*CStruct // by C name, e.g. "drm_vc4_submit_cl"
	Ioctls  map[string]uint64   // e.g. "DRM_IOCTL_VC4_SUBMIT_CL" -> 0xc0b06440
	Consts  map[string]uint64   // e.g. "DRM_MODE_PAGE_FLIP_EVENT" -> 1
}

// CStruct is one C struct's layout.
type CStruct struct {
	Name        string
	Size, Align uintptr
	Fields      []CField
}

// CField is one member of a C struct: its byte offset and size. A bitfield
// member is given by the bytes it occupies.
type CField struct {
	Name      string
	Off, Size uintptr
}

// TableArch maps a GOARCH to the name of its C table: "amd64", "armhf"
// (GOARCH=arm, the Debian ABI of Raspberry Pi OS 32-bit) or "arm64".
func TableArch(goarch string) (string, error) {
	switch goarch {
	case "amd64", "arm64":
		return goarch, nil
	case "arm":
		return "armhf", nil
	}
	return "", fmt.Errorf("no C layout table for GOARCH=%s (have amd64, arm, arm64)", goarch)
}

// MustLoadLayout reads the two C tables of the running GOARCH (LayoutFiles,
// LoadLayout) and fails the test if it cannot; testdata is the path of
// uapi/testdata from the test's package directory. The layout tests of uapi
// run on amd64 and, through .ci/cross-test, on GOARCH=arm GOARM=6
// and GOARCH=arm64 under qemu-user.
func MustLoadLayout(t testing.TB, testdata string) *Layout {
	t.Helper()
	files, err := LayoutFiles(testdata)
	if err != nil {
		t.Fatal(err)
	}
	l, err := LoadLayout(files...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// LayoutFiles returns the two table files for the running GOARCH, given
// the path of uapi/testdata from the test's package directory.
func LayoutFiles(testdata string) ([]string, error) {
	arch, err := TableArch(runtime.GOARCH)
	if err != nil {
		return nil, err
	}
	return []string{
		testdata + "/uapi-layouts/" + arch + ".txt",
		testdata + "/abi/" + arch + ".txt",
	}, nil
}

var (
	structLine   = regexp.MustCompile(`^(\w+)\s+size=(\d+) align=(\d+)$`)
	fieldLine    = regexp.MustCompile(`^  (\w+)\s+off=(\d+)\s+size=(\d+)$`)
	bitfieldLine = regexp.MustCompile(`^  (\w+)\s+\(bitfield .*bytes (\d+)\.\.(\d+)\)$`)
	valueLine    = regexp.MustCompile(`^(\w+)\s+0x([0-9a-fA-F]+)$`)
)

// LoadLayout reads and merges table files. A struct, ioctl or constant
// listed in more than one file must be the same in each.
func LoadLayout(files ...string) (*Layout, error) {
	l := &Layout{Structs: map[string]*CStruct{}, Ioctls: map[string]uint64{}, Consts: map[string]uint64{}}
	for _, name := range files {
		if err := l.read(name); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *Layout) read(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	local := map[string]*CStruct{}
	var cur *CStruct
	section := "structs"
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t")
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", name, n, why, line) }
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "sizeof("):
		case line == "-- ioctls --":
			section, cur = "ioctls", nil
		case line == "-- constants --":
			section, cur = "constants", nil
		case section != "structs":
			m := valueLine.FindStringSubmatch(line)
			if m == nil {
				return bad("want NAME 0xHEX")
			}
			v, err := strconv.ParseUint(m[2], 16, 64)
			if err != nil {
				return bad(err.Error())
			}
			dst := l.Consts
			if section == "ioctls" {
				dst = l.Ioctls
			}
			if old, ok := dst[m[1]]; ok && old != v {
				return bad(fmt.Sprintf("%s is 0x%x in an earlier table", m[1], old))
			}
			dst[m[1]] = v
		default:
			if m := structLine.FindStringSubmatch(line); m != nil {
				cur = &CStruct{Name: m[1], Size: atou(m[2]), Align: atou(m[3])}
				local[cur.Name] = cur
				continue
			}
			m := fieldLine.FindStringSubmatch(line)
			if m == nil {
				if m = bitfieldLine.FindStringSubmatch(line); m != nil {
					first, last := atou(m[2]), atou(m[3])
					m[2], m[3] = strconv.Itoa(int(first)), strconv.Itoa(int(last-first+1))
				}
			}
			if m == nil || cur == nil {
				return bad("want a struct line or a field line")
			}
			cur.Fields = append(cur.Fields, CField{Name: m[1], Off: atou(m[2]), Size: atou(m[3])})
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for nm, s := range local {
		if old, ok := l.Structs[nm]; ok {
			if err := sameStruct(old, s); err != nil {
				return fmt.Errorf("%s: %s disagrees with an earlier table: %v", name, nm, err)
			}
			if len(s.Fields) <= len(old.Fields) {
				continue
			}
		}
		l.Structs[nm] = s
	}
	return nil
}

// sameStruct checks that two descriptions of one struct agree on size,
// alignment and every field both list.
func sameStruct(a, b *CStruct) error {
	if a.Size != b.Size || a.Align != b.Align {
		return fmt.Errorf("size/align %d/%d vs %d/%d", a.Size, a.Align, b.Size, b.Align)
	}
	for _, fa := range a.Fields {
		for _, fb := range b.Fields {
			if fa.Name == fb.Name && fa != fb {
				return fmt.Errorf("field %s: off %d size %d vs off %d size %d", fa.Name, fa.Off, fa.Size, fb.Off, fb.Size)
			}
		}
	}
	return nil
}

func atou(s string) uintptr {
	v, _ := strconv.ParseUint(s, 10, 32) // the regexps admit digits only
	return uintptr(v)
}

// fieldKey is how a C member name and a Go field name are matched: case
// and underscores are dropped, so bin_cl matches BinCL and crtc_id CrtcID.
func fieldKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

// CheckStruct checks the Go struct type goType against the C struct cname:
// the same size, and every C member at the same offset with the same size
// as the Go field of the same name (see fieldKey). Every named Go field
// must have a C member; blank (_) fields stand for C's implicit padding
// and are checked only through the offsets around them.
func CheckStruct(t testing.TB, l *Layout, cname string, goType reflect.Type) {
	t.Helper()
	c, ok := l.Structs[cname]
	if !ok {
		t.Errorf("%s: not in the C layout table", cname)
		return
	}
	if goType.Kind() != reflect.Struct {
		t.Errorf("%s: Go type %v is not a struct", cname, goType)
		return
	}
	if goType.Size() != c.Size {
		t.Errorf("%s: Go %v is %d bytes, C %d", cname, goType, goType.Size(), c.Size)
	}
	goFields := map[string]reflect.StructField{}
	for i := 0; i < goType.NumField(); i++ {
		f := goType.Field(i)
		if f.Name == "_" {
			continue
		}
		goFields[fieldKey(f.Name)] = f
	}
	for _, cf := range c.Fields {
		gf, ok := goFields[fieldKey(cf.Name)]
		if !ok {
			t.Errorf("%s.%s: no Go field in %v", cname, cf.Name, goType)
			continue
		}
		delete(goFields, fieldKey(cf.Name))
		if gf.Offset != cf.Off || gf.Type.Size() != cf.Size {
			t.Errorf("%s.%s: Go %v.%s at offset %d size %d, C at offset %d size %d",
				cname, cf.Name, goType, gf.Name, gf.Offset, gf.Type.Size(), cf.Off, cf.Size)
		}
	}
	for _, gf := range goFields {
		t.Errorf("%s: Go field %v.%s has no C member", cname, goType, gf.Name)
	}
}

// CheckStructs runs CheckStruct as a subtest for every C struct name of
// structs, whose values are zero values of the Go types that mirror them.
func CheckStructs(t *testing.T, l *Layout, structs map[string]any) {
	t.Helper()
	for cname, v := range structs {
		t.Run(cname, func(t *testing.T) { CheckStruct(t, l, cname, reflect.TypeOf(v)) })
	}
}

// CheckRequests checks each Go request number of reqs against the C
// table's DRM_IOCTL_* value of the same name, and that name, the package's
// IoctlName, spells it as C does.
func CheckRequests(t testing.TB, l *Layout, reqs map[string]uapi.Request, name func(uapi.Request) string) {
	t.Helper()
	for cname, req := range reqs {
		want, ok := l.Ioctls[cname]
		if !ok {
			t.Errorf("%s: not in the C table", cname)
			continue
		}
		if uint64(req) != want {
			t.Errorf("%s: Go 0x%08x, C 0x%08x", cname, uint32(req), want)
		}
		if got := name(req); got != cname {
			t.Errorf("IoctlName(0x%08x) = %q, want %q", uint32(req), got, cname)
		}
	}
}

// CheckConsts checks each Go constant value of consts against the C
// table's constant of the same name.
func CheckConsts(t testing.TB, l *Layout, consts map[string]uint64) {
	t.Helper()
	for cname, v := range consts {
		want, ok := l.Consts[cname]
		if !ok {
			t.Errorf("%s: not in the C table", cname)
			continue
		}
		if v != want {
			t.Errorf("%s: Go %#x, C %#x", cname, v, want)
		}
	}
}
