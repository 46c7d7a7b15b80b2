package drm

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/vccube/vccube/uapi"
)

// DefaultDir is where Linux puts DRM device nodes.
const DefaultDir = "/dev/dri"

// Card is a DRM card node as Scan and OpenFirst found it.
type Card struct {
	Path    string        // e.g. /dev/dri/card0
	Version DriverVersion // the driver, when Err is nil
	Err     error         // why the node could not be opened or identified
	// Rejected says why OpenFirst passed the card over, if it did.
	Rejected error
}

// Name returns the node's name, e.g. "card0".
func (c Card) Name() string { return filepath.Base(c.Path) }

// String formats the card for a person: "card0: vc4", "card1: v3d
// (passed over: ...)" or "card2: <why it could not be read>".
func (c Card) String() string {
	switch {
	case c.Err != nil:
		return c.Name() + ": " + c.Err.Error()
	case c.Rejected != nil:
		return c.Name() + ": " + c.Version.Name + " (passed over: " + c.Rejected.Error() + ")"
	}
	return c.Name() + ": " + c.Version.Name
}

// cardPaths lists the cardN nodes of dir in numeric order (card2 before
// card10). Render nodes (renderD*) and other entries are left out.
func cardPaths(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	type node struct {
		n    int
		path string
	}
	var nodes []node
	for _, e := range entries {
		num, ok := strings.CutPrefix(e.Name(), "card")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			continue
		}
		nodes = append(nodes, node{n, filepath.Join(dir, e.Name())})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].n < nodes[j].n })
	paths := make([]string, len(nodes))
	for i, nd := range nodes {
		paths[i] = nd.path
	}
	return paths, nil
}

// Scan opens every card node of dir (DefaultDir on a real system) in
// numeric order, reads its driver's version and closes it again.
func Scan(dir string) ([]Card, error) {
	paths, err := cardPaths(dir)
	if err != nil {
		return nil, err
	}
	cards := make([]Card, len(paths))
	for i, p := range paths {
		cards[i] = Card{Path: p}
		f, err := Open(p)
		if err != nil {
			cards[i].Err = err
			continue
		}
		cards[i].Version, cards[i].Err = GetVersion(f)
		f.Close()
	}
	return cards, nil
}

// NoCardError says that no card of a directory was suitable, listing what
// was found and why each was passed over.
type NoCardError struct {
	Dir   string
	Want  string // what was looked for, e.g. "vc4 card with VideoCore IV 3D"
	Cards []Card
}

// Error lists every card found and why it was passed over.
func (e *NoCardError) Error() string {
	if len(e.Cards) == 0 {
		return fmt.Sprintf("no DRM card in %s, so no %s: the kernel's DRM driver is not loaded; "+
			"on a Raspberry Pi add dtoverlay=vc4-kms-v3d to config.txt and reboot", e.Dir, e.Want)
	}
	list := make([]string, len(e.Cards))
	for i, c := range e.Cards {
		list[i] = c.String()
	}
	return fmt.Sprintf("no %s in %s; found %s", e.Want, e.Dir, strings.Join(list, "; "))
}

// OpenFirst opens the card nodes of dir in numeric order and returns the
// first one for which accept returns nil, with its Card. Every other node
// it opened is closed. accept sees the opened Conn and the Card with its
// driver version; the error it returns is recorded as the Card's Rejected
// reason. When no card is accepted the error is a *NoCardError listing
// every card with the reason it was passed over; want describes what was
// looked for, for that message.
//
// The returned Conn is a *File.
func OpenFirst(dir, want string, accept func(c uapi.Conn, card Card) error) (uapi.Conn, Card, error) {
	return openFirst(dir, want, func(p string) (uapi.Conn, error) { return Open(p) }, accept)
}

// OpenFirstWith is OpenFirst with the function that opens a node given
// (drm.Open for OpenFirst): a program that lets its tests stand simulated
// devices in for the nodes passes it on.
func OpenFirstWith(dir, want string, open func(path string) (uapi.Conn, error), accept func(c uapi.Conn, card Card) error) (uapi.Conn, Card, error) {
	return openFirst(dir, want, open, accept)
}

// openFirst is OpenFirst with the opener as a parameter.
func openFirst(dir, want string, open func(string) (uapi.Conn, error), accept func(uapi.Conn, Card) error) (uapi.Conn, Card, error) {
	paths, err := cardPaths(dir)
	if err != nil {
		return nil, Card{}, err
	}
	var seen []Card
	for _, p := range paths {
		card := Card{Path: p}
		f, err := open(p)
		if err != nil {
			card.Err = err
			seen = append(seen, card)
			continue
		}
		card.Version, card.Err = GetVersion(f)
		if card.Err == nil {
			card.Rejected = accept(f, card)
			if card.Rejected == nil {
				return f, card, nil
			}
		}
		f.Close()
		seen = append(seen, card)
	}
	return nil, Card{}, &NoCardError{Dir: dir, Want: want, Cards: seen}
}
