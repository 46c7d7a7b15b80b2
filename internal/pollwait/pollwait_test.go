package pollwait

import (
	"os"
	"syscall"
	"testing"
	"time"
)

func TestReadable(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if ok, err := Readable(int(r.Fd()), 0); ok || err != nil {
		t.Fatalf("an empty pipe: readable %v, %v", ok, err)
	}
	if _, err := w.Write([]byte{1}); err != nil {
		t.Fatal(err)
	}
	if ok, err := Readable(int(r.Fd()), time.Second); !ok || err != nil {
		t.Fatalf("a pipe with a byte: readable %v, %v", ok, err)
	}
}

// Signals arriving during the wait do not end it: the byte written after
// a storm of signals is still seen. SIGURG is the runtime's own
// preemption signal, so sending it is harmless.
func TestReadableSurvivesSignals(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			syscall.Kill(os.Getpid(), syscall.SIGURG)
			time.Sleep(time.Millisecond)
		}
		w.Write([]byte{1})
	}()
	ok, err := Readable(int(r.Fd()), time.Minute)
	<-done
	if !ok || err != nil {
		t.Fatalf("readable %v, %v; want the byte written after the signals", ok, err)
	}
}
