package shaders

import (
	"fmt"
	"testing"

	q "github.com/vccube/vccube/shaders/qpu"
)

// The rules the kernel's shader validator applies when the shader BO is
// created, as doc/kernel.md#shader-validation describes Linux
// vc4_validate_shaders.c (vc4_validate_shader, check_instruction_writes,
// check_reg_write, check_tmu_write, check_instruction_reads), restated
// here for the features the cube's programs use (no branches, no uniform
// address resets, no direct TMU lookups, which this restatement rejects).
// The simulated kernel (sim/kernel) implements the validator in full; this
// test only proves that our programs are inside what it accepts and that
// the uniform streams we publish are the ones it will count.

type kernelCounts struct {
	uniforms   int     // uniforms_size / 4
	samples    [][]int // per texture sample, the uniform slots of its parameters
	threaded   bool
	upperRegs  bool
	endsAt     int // index of the second delay slot
	validBytes int
}

func kernelValidate(words []uint64) (kernelCounts, error) {
	var k kernelCounts
	end := -1
	for ip, w := range words {
		if q.Decode(w).Sig == q.SigProgramEnd {
			end = ip + 2
			break
		}
	}
	if end < 0 || end >= len(words) {
		return k, fmt.Errorf("shader failed to terminate before shader BO end")
	}
	var params [2][]int
	for ip := 0; ip <= end; ip++ {
		in := q.Decode(words[ip])
		fail := func(format string, args ...any) error {
			return fmt.Errorf("instruction %d (%v): %s", ip, in, fmt.Sprintf(format, args...))
		}
		switch in.Sig {
		case q.SigNone, q.SigThreadSwitch, q.SigProgramEnd, q.SigScoreboardWait, q.SigScoreboardUnlock,
			q.SigLastThreadSwitch, q.SigColourLoad, q.SigLoadTMU0, q.SigLoadTMU1, q.SigSmallImm, q.SigLoadImm:
		case q.SigBranch:
			return k, fail("branches are outside this restatement")
		default:
			return k, fail("Unsupported QPU signal")
		}
		if in.Sig == q.SigThreadSwitch || in.Sig == q.SigLastThreadSwitch {
			k.threaded = true
		}
		// Writes first (check_instruction_writes), then reads.
		if in.WaddrAdd.IsTMU() && in.WaddrMul.IsTMU() {
			return k, fail("ADD and MUL both set up textures")
		}
		readsUnif := in.Sig != q.SigLoadImm && (in.RaddrA == q.RUniform || (in.Sig != q.SigSmallImm && in.RaddrB == q.RUniform))
		for _, wa := range [2]q.WAddr{in.WaddrAdd, in.WaddrMul} {
			switch {
			case wa < 32 || (wa >= q.WAcc0 && wa <= q.WAcc3) || wa == q.WAcc5 || wa == q.WNop:
				if wa >= 16 && wa < 32 {
					k.upperRegs = true
				}
			case wa == q.WQuadXY || wa == q.WMSFlagsRev || (wa >= q.WTLBStencilSetup && wa <= q.WTLBColourAll):
			case wa == q.WVPM || wa == q.WVPMVCDSetup || wa.IsSFU():
			case wa.IsTMU():
				t := 0
				if wa >= q.WTMU1S {
					t = 1
				}
				if wa.IsTMUSubmit() && len(params[t]) == 0 {
					return k, fail("direct TMU lookups are outside this restatement")
				}
				if readsUnif {
					return k, fail("uniform read in the same instruction as texture setup")
				}
				params[t] = append(params[t], k.uniforms)
				k.uniforms++
				if len(params[t]) > 4 {
					return k, fail("too many TMU parameter writes")
				}
				if wa.IsTMUSubmit() {
					k.samples = append(k.samples, params[t])
					params[t] = nil
				}
			default:
				return k, fail("Unsupported waddr %d", wa)
			}
		}
		if in.Sig == q.SigLoadImm {
			continue
		}
		if readsUnif {
			k.uniforms++
		}
		if (in.RaddrA >= 16 && in.RaddrA < 32) || (in.Sig != q.SigSmallImm && in.RaddrB >= 16 && in.RaddrB < 32) {
			k.upperRegs = true
		}
	}
	if k.threaded && k.upperRegs {
		return k, fmt.Errorf("threaded shader uses the upper half of the registers")
	}
	k.endsAt = end
	k.validBytes = 8 * (end + 1)
	return k, nil
}

func TestKernelValidatorAccepts(t *testing.T) {
	for _, p := range Programs() {
		k, err := kernelValidate(p.Code)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if k.uniforms != len(p.Uniforms) {
			t.Errorf("%s: the validator counts %d uniforms, the interface lists %d", p.Name, k.uniforms, len(p.Uniforms))
		}
		if len(k.samples) != p.TextureSamples {
			t.Errorf("%s: %d texture samples, interface says %d", p.Name, len(k.samples), p.TextureSamples)
		}
		for s, slots := range k.samples {
			for n, slot := range slots {
				want := []UniformKind{UniformTexP0, UniformTexP1}
				if n >= len(want) || p.Uniforms[slot].Kind != want[n] || p.Uniforms[slot].Sample != s {
					t.Errorf("%s: sample %d parameter %d is uniform %d (%+v)", p.Name, s, n, slot, p.Uniforms[slot])
				}
			}
		}
		if k.threaded != p.Threaded {
			t.Errorf("%s: threaded %v, interface %v", p.Name, k.threaded, p.Threaded)
		}
		if k.endsAt != len(p.Code)-1 {
			t.Errorf("%s: program ends at %d of %d instructions", p.Name, k.endsAt, len(p.Code))
		}
		// Every non-texture slot is a plain value, and the texture slots
		// are exactly those the validator found.
		tex := 0
		for _, u := range p.Uniforms {
			if u.Kind != UniformValue {
				tex++
			}
		}
		if tex != 2*len(k.samples) {
			t.Errorf("%s: %d texture slots for %d samples", p.Name, tex, len(k.samples))
		}
	}
}

// The restatement refuses what the kernel refuses (so that its acceptance
// of our programs means something).
func TestKernelValidatorRefuses(t *testing.T) {
	bad := map[string][]q.Item{
		"uniform read with TMU write": {q.FAdd(q.TMU0T, q.R0, q.Unif)},
		"S before T (direct lookup)":  {q.Mov(q.TMU0S, q.R0)},
		"TMU_NOSWAP":                  {q.Mov(q.TMUNoSwap, q.R0)},
		"VPM DMA":                     {q.Mov(q.VRAddr, q.R0)},
		"coverage load":               {q.SigCoverageLoad},
	}
	for name, items := range bad {
		var a q.Asm
		a.I(items...)
		a.I(q.SigProgramEnd)
		a.I()
		a.I()
		if _, err := kernelValidate(a.MustAssemble()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	var a q.Asm
	a.I(q.SigProgramEnd)
	a.I()
	if _, err := kernelValidate(a.MustAssemble()); err == nil {
		t.Error("missing delay slot accepted")
	}
}
