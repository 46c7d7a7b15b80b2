package kernel

import (
	"testing"

	"github.com/vccube/vccube/gem"
)

// The simulated V3D identifies itself as the reference guide's
// configuration (AG Tables 79-80): technology version 2, 3 slices of 4
// QPUs with 2 TMUs each, 16 semaphores, a 12 KiB VPM, revision 1. Decoded
// with gem's description of the IDENT registers.
func TestV3DIdentFields(t *testing.T) {
	got := gem.DecodeIdent(V3DIdent0, V3DIdent1, V3DIdent2)
	want := gem.V3DInfo{Ident0: V3DIdent0, Ident1: V3DIdent1, Ident2: V3DIdent2,
		TechVersion: 2, Revision: 1, Slices: 3, QPUsPerSlice: 4, TMUsPerSlice: 2, Semaphores: 16, VPMSizeKiB: 12}
	if got != want {
		t.Errorf("IDENT decodes as %+v, want %+v", got, want)
	}
}
