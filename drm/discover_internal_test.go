package drm

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// touch makes empty regular files in dir.
func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCardPathsNumericOrder(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "card10", "renderD128", "card2", "card0", "cardX", "by-path")
	got, err := cardPaths(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "card0"), filepath.Join(dir, "card2"), filepath.Join(dir, "card10")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got, err := cardPaths(filepath.Join(dir, "missing")); err != nil || got != nil {
		t.Errorf("missing dir: %v, %v", got, err)
	}
}

func TestScanReportsUnreadableNodes(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "card1", "card0")
	cards, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 || cards[0].Name() != "card0" || cards[1].Name() != "card1" {
		t.Fatalf("cards = %v", cards)
	}
	if s := cards[0].String(); !strings.HasPrefix(s, "card0: DRM_IOCTL_VERSION") || !strings.Contains(s, "ENOTTY") {
		t.Errorf("card0 = %q", s)
	}
}

// fakeCard is a Conn that only answers DRM_IOCTL_VERSION with a driver
// name, and records Close.
type fakeCard struct {
	name   string
	closed int
}

func (f *fakeCard) Ioctl(req uapi.Request, arg unsafe.Pointer) error {
	if req != uapi.IoctlVersion {
		return errNotImplemented
	}
	v := (*uapi.Version)(arg)
	copy(uapi.UserBytes(uint64(v.Name), int(v.NameLen)), f.name)
	v.NameLen = uintptr(len(f.name))
	return nil
}
func (f *fakeCard) Mmap(uint64, int, int) ([]byte, error) { return nil, errNotImplemented }
func (f *fakeCard) Munmap([]byte) error                   { return errNotImplemented }
func (f *fakeCard) Read([]byte) (int, error)              { return 0, errNotImplemented }
func (f *fakeCard) Fd() int                               { return -1 }
func (f *fakeCard) Close() error                          { f.closed++; return nil }

var errNotImplemented = errors.New("not implemented by the fake")

func TestOpenFirstClosesWhatItDoesNotReturn(t *testing.T) {
	dir := t.TempDir()
	touch(t, dir, "card0", "card1", "card2", "card3")
	fakes := map[string]*fakeCard{"card0": {name: "v3d"}, "card2": {name: "vc4"}, "card3": {name: "vc4"}}
	open := func(p string) (uapi.Conn, error) {
		if f, ok := fakes[filepath.Base(p)]; ok {
			return f, nil
		}
		return nil, errors.New("permission denied")
	}
	accept := func(c uapi.Conn, card Card) error {
		if card.Version.Name != "vc4" {
			return errors.New("not vc4")
		}
		return nil
	}
	c, card, err := openFirst(dir, "vc4 card", open, accept)
	if err != nil {
		t.Fatal(err)
	}
	if c != uapi.Conn(fakes["card2"]) || card.Name() != "card2" || card.Version.Name != "vc4" {
		t.Errorf("got %v %v", c, card)
	}
	if fakes["card0"].closed != 1 || fakes["card2"].closed != 0 || fakes["card3"].closed != 0 {
		t.Errorf("closes: card0 %d card2 %d card3 %d; want 1 0 0", fakes["card0"].closed, fakes["card2"].closed, fakes["card3"].closed)
	}

	// Nothing acceptable: every card is listed with its reason, all closed.
	_, _, err = openFirst(dir, "vc4 card with VideoCore IV 3D", open, func(uapi.Conn, Card) error { return errors.New("display only") })
	var nc *NoCardError
	if !errors.As(err, &nc) || len(nc.Cards) != 4 {
		t.Fatalf("err = %v", err)
	}
	want := "no vc4 card with VideoCore IV 3D in " + dir + "; found card0: v3d (passed over: display only); card1: permission denied; " +
		"card2: vc4 (passed over: display only); card3: vc4 (passed over: display only)"
	if err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err, want)
	}
	if fakes["card2"].closed != 1 || fakes["card3"].closed != 1 {
		t.Error("rejected cards must be closed")
	}
	_, _, err = openFirst(t.TempDir(), "vc4 card", open, accept)
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "no DRM card in") {
		t.Errorf("empty dir: %v", err)
	}
}
