package main

import (
	"context"
	"testing"
	"time"

	"github.com/vccube/vccube/cmd/vccube/internal/keys"
	"github.com/vccube/vccube/math/scene"
)

// Untouched, frame k is turned by exactly scene.AngleForFrame(k) — the
// spin is counted in 0.2° steps, 20 per frame — so captures of frame k are
// deterministic.
func TestDefaultSpinIsTheScenes(t *testing.T) {
	p := &program{cfg: &config{}, spin: defaultSpin}
	for k := 0; k < 400; k++ {
		if got, want := p.degrees(), scene.AngleForFrame(k); got != want {
			t.Fatalf("frame %d: %v°, want %v°", k, got, want)
		}
		p.advance()
	}
}

// vkcube's keys: right adds 0.2° per frame, left takes it away (past zero
// the cube turns the other way), space pauses until the next key, q quits.
func TestKeysChangeTheSpin(t *testing.T) {
	ch := make(chan keys.Key, 64)
	p := &program{cfg: &config{}, spin: defaultSpin, keyCh: ch}
	ctx := context.Background()
	ch <- keys.Right
	ch <- keys.Right
	if quit, _ := p.handleKeys(ctx); quit || p.spin != 22 {
		t.Fatalf("after two rights: spin %d steps, quit %v", p.spin, quit)
	}
	p.advance()
	if p.degrees() != 4.4 {
		t.Errorf("turned %v°, want 4.4°", p.degrees())
	}
	for i := 0; i < 24; i++ { // 22 → −2 steps: 0.4° per frame backwards
		ch <- keys.Left
	}
	p.handleKeys(ctx)
	p.advance()
	if p.spin != -2 || p.degrees() != 4 {
		t.Errorf("spin %d steps, turn %v°; want −2 steps, 4°", p.spin, p.degrees())
	}
	for i := 0; i < 3; i++ {
		p.advance()
	}
	if p.degrees() != 2.8 {
		t.Errorf("turn %v° after three backward frames, want 2.8°", p.degrees())
	}
	// Space pauses: handleKeys then waits for the next key.
	ch <- keys.Pause
	done := make(chan bool)
	go func() {
		quit, _ := p.handleKeys(ctx)
		done <- quit
	}()
	select {
	case <-done:
		t.Fatal("handleKeys returned while paused")
	case <-time.After(50 * time.Millisecond):
	}
	ch <- keys.Pause
	if quit := <-done; quit || p.paused {
		t.Errorf("after resuming: quit %v, paused %v", quit, p.paused)
	}
	ch <- keys.Quit
	if quit, _ := p.handleKeys(ctx); !quit {
		t.Error("q did not quit")
	}
	// A cancelled context (a signal) ends a pause too.
	ch <- keys.Pause
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if quit, _ := p.handleKeys(cctx); !quit {
		t.Error("a cancelled context did not end the pause")
	}
}
