package shaders_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/vccube/vccube/internal/shadermodel"
	"github.com/vccube/vccube/shaders"
)

// The FS light against vkcube's exact formula, over every texel value and
// a dense range of light values (finer near 0, where the curve bends).
func TestLightError(t *testing.T) {
	var lights []float32
	for i := 0; i <= 1000; i++ {
		lights = append(lights, float32(i)/1000)
	}
	for i := 1; i < 1000; i++ {
		lights = append(lights, float32(i)/100000)
	}
	worst, sum, n := 0.0, 0.0, 0
	var worstAt string
	for _, L := range lights {
		f := shaders.LightFor(L)
		for c := 0; c < 256; c++ {
			e := math.Abs(float64(shadermodel.LitByte(f, uint8(c))) - shadermodel.ExactLit(uint8(c), float64(L)))
			sum += e
			n++
			if e > worst {
				worst = e
				worstAt = fmt.Sprintf("light %.5f, texel %d", L, c)
			}
		}
	}
	t.Logf("light error: max %.3f levels (%s), mean %.3f over %d texel×light pairs", worst, worstAt, sum/float64(n), n)
	if worst > 1.75 || sum/float64(n) > 0.4 {
		t.Errorf("light error max %.3f (%s) mean %.3f; want ≤ 1.75 and ≤ 0.4", worst, worstAt, sum/float64(n))
	}
	// The ends: full light reproduces the texel, no light gives black.
	full, dark := shaders.LightFor(1), shaders.LightFor(0)
	for c := 0; c < 256; c++ {
		if got := shadermodel.LitByte(full, uint8(c)); got != uint8(c) {
			t.Errorf("light 1, texel %d: %d", c, got)
		}
		if got := shadermodel.LitByte(dark, uint8(c)); got != 0 {
			t.Errorf("light 0, texel %d: %d", c, got)
		}
	}
	// Out-of-range light clamps.
	if shaders.LightFor(-0.5) != dark || shaders.LightFor(7) != full || shaders.LightFor(float32(math.NaN())) != dark {
		t.Error("light is not clamped to [0, 1] (NaN to 0)")
	}
}
