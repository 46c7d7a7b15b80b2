package kernel_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/vccube/vccube/uapi"
)

// SYNCOBJ_CREATE and DESTROY as drm_syncobj.c answers them, and a
// submit's in_sync and out_sync as vc4_submit_cl_ioctl uses them: what
// Mesa's vc4 driver does with every GL context and every flush.
func TestSyncobjs(t *testing.T) {
	fx := newFixture(t, 64, 64)
	f := fx.f
	mk := func(flags uint32) uint32 {
		t.Helper()
		a := uapi.SyncobjCreate{Flags: flags}
		if err := f.SyncobjCreate(&a); err != nil {
			t.Fatal(err)
		}
		return a.Handle
	}
	signalled, empty := mk(uapi.SyncobjCreateSignaled), mk(0)
	if signalled != 1 || empty != 2 {
		t.Fatalf("handles %d %d, want 1 2 (idr_alloc from 1)", signalled, empty)
	}
	if err := f.SyncobjCreate(&uapi.SyncobjCreate{Flags: 2}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("unknown create flag: %v, want EINVAL", err)
	}
	if fence, _ := f.SyncobjFence(signalled); fence == nil || !fence.Signaled() {
		t.Error("a SIGNALED syncobj has no signalled fence")
	} else {
		fence.Put()
	}

	// in_sync of a syncobj without a fence: drm_syncobj_find_fence's EINVAL.
	s := fx.valid()
	s.args.InSync = empty
	if err := fx.submit(s); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("in_sync without a fence: %v, want EINVAL", err)
	}
	// A good submit: out_sync takes the job's fence.
	s = fx.valid()
	s.args.InSync, s.args.OutSync = signalled, empty
	if err := fx.submit(s); err != nil {
		t.Fatal(err)
	}
	if fence, _ := f.SyncobjFence(empty); fence == nil || fence.Seqno() != s.args.Seqno {
		t.Errorf("out_sync holds %v, want the job's fence at seqno %d", fence, s.args.Seqno)
	} else {
		fence.Wait() // the job's retirement signals it
		fence.Put()
	}

	if err := f.SyncobjDestroy(&uapi.SyncobjDestroy{Handle: signalled, Pad: 1}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("destroy with pad: %v, want EINVAL", err)
	}
	if err := f.SyncobjDestroy(&uapi.SyncobjDestroy{Handle: signalled}); err != nil {
		t.Fatal(err)
	}
	if err := f.SyncobjDestroy(&uapi.SyncobjDestroy{Handle: signalled}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("second destroy: %v, want EINVAL", err)
	}
	if h := mk(0); h != signalled {
		t.Errorf("new handle %d, want the freed %d again", h, signalled)
	}
}
