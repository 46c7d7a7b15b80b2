package tmu

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/vccube/vccube/texture"
)

// TestWriteAtOnceMatchesWrite runs random request sequences in
// WriteAtOnce's terms (at most three of T, R and B before each S, fewer
// than eight results waiting at each S, from an idle unit) on two units,
// one through Write and Receive, the other through WriteAtOnce and
// ReceiveAtOnce: texture lookups
// that take the last sampler's nearest clamp or bilinear plan straight
// from the write (lastPlan) and others that do not,
// direct lookups, lookups that fault and configurations the model does
// not support. After every call the two give the same result and error
// and hold the same state; after an error both start again from Reset, as
// the next thread would.
func TestWriteAtOnceMatchesWrite(t *testing.T) {
	f := newFixture(t, 64<<10)
	pic, err := texture.NewPicture(16, 16, 4)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewSource(27))
	rnd.Read(pic.Pix)
	pics := []texture.Picture{pic}
	linear := nearest
	linear.Min, linear.Mag = texture.MinLinear, texture.MagLinear
	var cfg [2][2]uint32
	cfg[0][0], cfg[0][1] = f.upload(t, texture.RGBA8888, pics, false, nearest)
	cfg[1][0], cfg[1][1] = f.upload(t, texture.RGBA8888, pics, true, linear)

	gen, one := New(f.view), New(f.view)
	same := func(step string) {
		t.Helper()
		if gen.cur != one.cur || gen.npending != one.npending || gen.usedSlots != one.usedSlots ||
			gen.rhead != one.rhead || gen.rlen != one.rlen || gen.Lookups != one.Lookups || gen.Received != one.Received ||
			gen.pending[0] != one.pending[0] || gen.recv != one.recv {
			t.Fatalf("%s: the units differ:\nWrite       %+v %d %d %d %d %d %d\nWriteAtOnce %+v %d %d %d %d %d %d", step,
				gen.cur, gen.npending, gen.usedSlots, gen.rhead, gen.rlen, gen.Lookups, gen.Received,
				one.cur, one.npending, one.usedSlots, one.rhead, one.rlen, one.Lookups, one.Received)
		}
	}
	coords := func() (v [16]uint32) {
		for i := range v {
			v[i] = floats(splat(rnd.Float32()*1.4 - 0.2))[0]
			if rnd.Intn(100) == 0 {
				// Beyond where the bilinear kernel stops (bilinearOutOfRange).
				v[i] = floats(splat([]float32{3e9, -3e9, float32(math.Inf(1)), float32(math.NaN())}[rnd.Intn(4)]))[0]
			}
		}
		return v
	}
	var nfail, nclamp, nbil, nread int
	waiting, nparams := 0, 0
	var c [2]uint32 // the request's P0 and P1
	for step := range 4000 {
		name := fmt.Sprint("step ", step)
		if waiting > 0 && rnd.Intn(3) == 0 {
			var a, b [16]uint32
			errG := gen.Receive(&a)
			one.ReceiveAtOnce(&b)
			if errG != nil || a != b {
				t.Fatalf("%s: Receive %x, %v; ReceiveAtOnce %x", name, a, errG, b)
			}
			same(name + " receive")
			waiting--
			nread++
			continue
		}
		reg := S
		if nparams < 3 && rnd.Intn(2) == 0 {
			reg = []int{T, T, T, T, T, T, R, B}[rnd.Intn(8)]
		}
		if reg == S && waiting == ReceiveSlots {
			continue // the terms: receive first
		}
		if nparams == 0 {
			c = cfg[0]
			if rnd.Intn(5) == 0 {
				c = cfg[1]
			}
		}
		param := c[min(nparams, 1)]
		if (nparams >= 2 || reg == R) && rnd.Intn(10) == 0 {
			param = rnd.Uint32() // most likely refused
		} else if nparams >= 2 {
			param = 0
		}
		direct := reg == S && nparams == 0
		vals := coords()
		if direct {
			for i := range vals {
				vals[i] = f.r.Addr + uint32(rnd.Intn(64<<10))
				if rnd.Intn(3000) == 0 {
					vals[i] = f.r.Addr - 4 // outside the job
				}
			}
		}
		var last plan
		if reg == S {
			last = one.lastPlan(&request{written: one.cur.written | 1<<S, nparams: one.cur.nparams + 1,
				params: [4]uint32{one.cur.params[0], param}})
		}
		v1, v2 := vals, vals
		errG := gen.Write(reg, &v1, 0xFFFF, param, direct)
		errO := one.WriteAtOnce(reg, &v2, param, direct)
		if fmt.Sprint(errG) != fmt.Sprint(errO) {
			t.Fatalf("%s: Write %v, WriteAtOnce %v", name, errG, errO)
		}
		same(name)
		if errG != nil {
			nfail++
			gen.Reset(nil)
			one.Reset(nil)
			waiting, nparams = 0, 0
			continue
		}
		if reg == S {
			waiting++
			nparams = 0
			switch last {
			case planNearestClampT32:
				nclamp++
			case planBilinear:
				nbil++
			}
		} else {
			nparams++
		}
	}
	if nfail == 0 || nclamp == 0 || nbil == 0 || nread < 500 {
		t.Errorf("%d failures, %d lookups on the nearest clamp plan and %d on the bilinear one straight from the write, %d results read: the sequence missed a path", nfail, nclamp, nbil, nread)
	}
}
