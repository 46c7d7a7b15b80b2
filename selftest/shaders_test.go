package selftest

import (
	"testing"

	"github.com/vccube/vccube/shaders/hazard"
)

func TestShadersKeepTheRules(t *testing.T) {
	var all []*fragment
	for _, p := range Probes() {
		for _, d := range p.build().draws {
			all = append(all, d.fs)
		}
	}
	for _, f := range append(all, fsUniform, fsUniformRev, fsUniformZ, fsRawVarying, fsRawW, fsVaryingsAsBytes, fsCoordBytes, fsTexture, fsTextureThreaded, fsFMul, fsFAdd, fsVaryBothPorts, fsVaryOnePort, fsVarying0Of2) {
		for _, v := range hazard.CheckWords(f.code, hazard.Fragment) {
			t.Errorf("%s: %v", f.name, v)
		}
	}
	for _, v := range hazard.CheckWords(vsVPMBothPorts.code, hazard.Vertex) {
		t.Errorf("%s: %v", vsVPMBothPorts.name, v)
	}
	for n := 0; n < 8; n++ {
		for _, v := range hazard.CheckWords(passVS(n), hazard.Vertex) {
			t.Errorf("VS %d: %v", n, v)
		}
	}
	for _, v := range hazard.CheckWords(passCS(), hazard.Coordinate) {
		t.Errorf("CS: %v", v)
	}
}
