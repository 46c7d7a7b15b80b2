package modelbug

import (
	"errors"
	"strings"
	"testing"
)

func panics() (err error) {
	defer Recover(&err)
	var m map[string]int
	m["x"] = 1 // a nil map write: a runtime panic, like a model bug
	return nil
}

func TestRecoverTurnsAPanicIntoAnError(t *testing.T) {
	err := panics()
	var bug *Error
	if !errors.As(err, &bug) {
		t.Fatalf("got %v, want a *Error", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "GPU model bug (please report)") || !strings.Contains(msg, "nil map") || !strings.Contains(msg, "modelbug.panics") {
		t.Errorf("the reason does not give the panic and where it happened:\n%s", msg)
	}
}

func TestRecoverLeavesAnErrorAlone(t *testing.T) {
	want := errors.New("an ordinary hang")
	err := func() (err error) {
		defer Recover(&err)
		return want
	}()
	if err != want {
		t.Errorf("got %v, want %v", err, want)
	}
}
