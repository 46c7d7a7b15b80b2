package qpuexec

import "unsafe"

// Chains of integer kernels. A run of opKernel micro-operations of the
// byte and bitwise kernels (v8muld, v8adds, v8subs, v8min, v8max, and,
// or, xor, add, sub), with nothing between them (no I/O, flags,
// conditions, latch copies or failure points) and no jump landing
// inside, becomes one opKernel whose kernel is the set's chain: it
// walks a list of steps, each an operation and its d, a, b, in one call
// (kernelSet.chain, assembly in the AVX2 set). The steps run in the
// order of the micro-operations they replace, each reading what the one
// before wrote, so the registers end as the kernels one by one leave
// them. A set without a chain (SSE2, Go) keeps the kernels one by one.

// chainStep is one kernel of a chain: the operation (chainOp*; 0 ends
// the list) and its destination and operands. The assembly reads it at
// these offsets: op 0, d 8, a 16, b 24.
type chainStep struct {
	op      uintptr
	d, a, b *vec
}

const (
	chainEnd = iota
	chainV8Muld
	chainV8Adds
	chainV8Subs
	chainV8Min
	chainV8Max
	chainAnd
	chainOr
	chainXor
	chainAdd
	chainSub
)

// funcPC is a kernel's code identity: two func values of the same
// top-level function share it.
func funcPC(k kernel) uintptr {
	if k == nil {
		return 0
	}
	return **(**uintptr)(unsafe.Pointer(&k))
}

// chainOp returns the chain operation of kernel k of set s, or
// chainEnd if k is none of s's chained kernels.
func (s *kernelSet) chainOp(k kernel) uintptr {
	pc := funcPC(k)
	if pc == 0 {
		return chainEnd
	}
	for i, c := range [...]kernel{s.v8muld, s.v8adds, s.v8subs, s.v8min, s.v8max, s.and, s.or, s.xor, s.add, s.sub} {
		if funcPC(c) == pc {
			return uintptr(chainV8Muld + i)
		}
	}
	return chainEnd
}

// chainable reports whether u can be a step of a chain of set s.
func (s *kernelSet) chainable(u *uop) bool {
	return u.op == opKernel && u.w == nil && u.fix == 0 && u.n == 0 && s.chainOp(u.k) != chainEnd
}

// chains returns ops with each run of two or more chainable kernels of
// set s as one opKernel of s.chain, its steps in b.steps; jumps'
// indices are moved with them. b.steps is not appended to after ops
// point into it.
func (b *boundProg) chains(q *QPU, s *kernelSet, ops []uop) []uop {
	if s.chain == nil {
		return ops
	}
	landing := landings(ops)
	// Count the steps first: the chains' d point into b.steps.
	steps := 0
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && s.chainable(&ops[j]) && (j == i || !landing[j]) {
			j++
		}
		if j-i >= 2 {
			steps += j - i + 1
			i = j
		} else {
			i++
		}
	}
	if steps == 0 {
		return ops
	}
	if cap(b.steps) < steps {
		b.steps = make([]chainStep, 0, steps)
	}
	b.steps = b.steps[:0]
	at := make([]int32, len(ops)+1)
	out := ops[:0]
	for i := 0; i < len(ops); {
		at[i] = int32(len(out))
		j := i
		for j < len(ops) && s.chainable(&ops[j]) && (j == i || !landing[j]) {
			j++
		}
		if j-i < 2 {
			out = append(out, ops[i])
			i++
			continue
		}
		first := len(b.steps)
		u := ops[i]
		for k := i; k < j; k++ {
			at[k] = at[i]
			v := &ops[k]
			b.steps = append(b.steps, chainStep{op: s.chainOp(v.k), d: v.d, a: v.a, b: v.b})
		}
		b.steps = append(b.steps, chainStep{})
		u.k, u.d, u.a, u.b = s.chain, (*vec)(unsafe.Pointer(&b.steps[first])), nil, nil
		// (u.pc is the first kernel's: nothing in a chain can fail.
		// A chain is at least three steps, 96 bytes, so the 64 bytes
		// its *vec covers lie in b.steps, as checkptr asks: see
		// colourSlack.)
		out = append(out, u)
		i = j
	}
	return relink(out, at)
}
