package keys

import (
	"bytes"
	"os"
	"os/signal"
	"reflect"
	"syscall"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Key
	}{
		{"q", []Key{Quit}},
		{"Q", []Key{Quit}},
		{" ", []Key{Pause}},
		{"\x1b", []Key{Quit}},                // Escape alone
		{"\x1b[C", []Key{Right}},             // CSI cursor forward
		{"\x1b[D", []Key{Left}},              // CSI cursor back
		{"\x1bOC\x1bOD", []Key{Right, Left}}, // SS3 (application cursor keys)
		{"\x1b[1;5C", []Key{Right}},          // with modifiers (Ctrl-Right)
		{"\x1b[A\x1b[B", nil},                // up and down do nothing
		{"x\x1b[Dq", []Key{Left, Quit}},
		{"\x1b\x1b[C", []Key{Quit, Right}},
		{"\x1b[", nil}, // cut short: ignored
		{"\x03", []Key{Interrupt}},
	} {
		got := Decode(nil, []byte(c.in))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}

func TestDecodeAllocatesNothing(t *testing.T) {
	buf := make([]Key, 0, 8)
	in := []byte("\x1b[C \x1b[Dq")
	if a := testing.AllocsPerRun(100, func() { buf = Decode(buf[:0], in) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// A pipe is not a terminal: Raw refuses it and leaves it alone.
func TestRawNeedsATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(int(r.Fd())) {
		t.Fatal("a pipe is a terminal?")
	}
	if _, err := Raw(int(r.Fd())); err != ErrNotTerminal {
		t.Errorf("Raw(pipe) = %v", err)
	}
	var term *Terminal
	if err := term.Restore(); err != nil {
		t.Error(err)
	}
}

// Read turns what a terminal sends into keys and closes the channel when
// the input ends.
func TestRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan Key, 8)
	go Read(r, ch)
	w.Write([]byte("\x1b[C"))
	w.Write([]byte(" q"))
	w.Close()
	var got []Key
	for k := range ch {
		got = append(got, k)
	}
	r.Close()
	if want := []Key{Right, Pause, Quit}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Keys that pile up while the frame loop is busy (an arrow held down,
// here a hundred at once) are read in several reads, which may cut an
// escape sequence in two: its ESC is not the Escape key, and the rest is
// not lost.
func TestReadSequencesCutByTheBuffer(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var in []byte
	var want []Key
	for i := 0; i < 100; i++ {
		in = append(in, "\x1b[D"...)
		want = append(want, Left)
	}
	in = append(in, "\x1b[1;5C q\x1b"...) // and a cut-off sequence's neighbours, then Escape last
	want = append(want, Right, Pause, Quit, Quit)
	if _, err := w.Write(in); err != nil { // all waiting before the first read
		t.Fatal(err)
	}
	w.Close()
	ch := make(chan Key, len(want)+1)
	Read(r, ch)
	r.Close()
	var got []Key
	for k := range ch {
		got = append(got, k)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d keys %v\nwant %d keys %v", len(got), got, len(want), want)
	}
}

// Ctrl-C, which raw mode no longer turns into SIGINT, makes Read raise
// SIGINT itself; it is not sent as a key.
func TestReadRaisesSIGINTForCtrlC(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	defer signal.Stop(sigs)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ch := make(chan Key, 8)
	go Read(r, ch)
	w.Write([]byte("\x03q"))
	w.Close()
	// The signal is raised before the next key is sent: once q is
	// here, SIGINT was sent (its delivery to the channel is the
	// runtime's, so wait for it without a deadline of our own).
	if k := <-ch; k != Quit {
		t.Errorf("key %v, want quit (Ctrl-C is not a key)", k)
	}
	<-sigs
	if _, ok := <-ch; ok {
		t.Error("more keys than q")
	}
}

// The CRLF writer ends lines with CR LF while the terminal is raw, and
// passes bytes through once it is restored.
func TestCRLF(t *testing.T) {
	var out bytes.Buffer
	raw := &Terminal{}
	w := raw.CRLF(&out)
	if n, err := w.Write([]byte("a\nb\n")); n != 4 || err != nil {
		t.Errorf("Write: %d, %v", n, err)
	}
	raw.done.Store(true)
	w.Write([]byte("c\n"))
	if got := out.String(); got != "a\r\nb\r\nc\n" {
		t.Errorf("%q", got)
	}
	var none *Terminal
	if none.CRLF(&out) != &out {
		t.Error("no terminal: CRLF must return the writer itself")
	}
}
