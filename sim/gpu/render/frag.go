package render

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/vccube/vccube/cl"
	"github.com/vccube/vccube/shaders/hazard"
	"github.com/vccube/vccube/shaders/qpu"
	"github.com/vccube/vccube/sim/gpu/internal/lanes"
	"github.com/vccube/vccube/sim/gpu/qpuexec"
	"github.com/vccube/vccube/sim/gpu/raster"
	"github.com/vccube/vccube/sim/gpu/tlb"
	"github.com/vccube/vccube/sim/gpu/tmu"
	"github.com/vccube/vccube/sim/mem"
	"github.com/vccube/vccube/uapi"
)

// tileBlocks is the number of 4×4 block columns (and rows) in a tile; a
// primitive's bounds lie in one tile (the worker's scissor).
const tileBlocks = tlb.Size / 4

// maxVaryings is the most varying components a shaded vertex can carry in
// the VPM window: its rows less Xs|Ys, Zs and 1/Wc.
const maxVaryings = qpuexec.VPMWindowRows - qpu.ShadedScreenWords

// maxSetup is the most varyings a fragment shader reads: a shaded
// vertex's and the PSE's own for a point (its two sprite coordinates).
const maxSetup = maxVaryings + 2

// fragment is the fragment stage of one worker: the primitive being
// shaded, its interpolation setup, and the qpuexec.Env its shader threads
// talk to.
type fragment struct {
	w     *Worker
	batch *qpuexec.Batch

	prim     raster.Prim
	verts    [3]raster.Vertex
	vary     [3][]float32
	psize    [3]float32
	clipVary [3][maxVaryings]float32
	setup    [maxSetup]raster.Varying
	nvary    int // the primitive's varyings: the PSE's own, then the shader record's
	hwVary   int // the PSE's own

	// The plane terms of the primitive's block columns and of the current
	// block row (raster.Prim.Col/Row, raster.Varying.Col/Row), worked out
	// once instead of per block when terms is set (not on the reference
	// path, which computes every block's inputs on its own).
	terms bool
	colWZ [tileBlocks]raster.ColTerms
	rowWZ raster.RowTerms
	// The varyings' terms, one varyTerms a varying, so that a read
	// finds its column's, its row's and its C from one index.
	varyT [maxSetup]varyTerms

	depth   tlb.DepthState
	reverse bool
	// liveLanes says the primitive's TLB writes take the elements that
	// MS_FLAGS lets through from fragBlock.live instead of reading
	// MS_FLAGS: not multisample, not the reference path, and a program
	// that never writes MS_FLAGS (keepsMS), whose MS_FLAGS change only
	// in the TLB_Z writes, which keep live too. keepsMS is worked out
	// once for the program msProg.
	liveLanes bool
	keepsMS   bool
	msProg    *qpuexec.Program
	// zKnown says a TLB_Z write of the primitive's blocks that their
	// early-Z test let through needs no test of its own (fragBlock's
	// zPassed): early-Z is on, liveLanes is set, and every TLB_Z write
	// of the program writes the interpolated Z (zIsZ, worked out once
	// for msProg).
	zKnown bool
	zIsZ   bool
	// zAtTest says shadeRow's blocks make their TLB_Z write's update
	// with their early-Z test, in one pass over the block's depths
	// (fragBlock's zDone): zKnown is set, and the program writes TLB_Z
	// once, unconditionally, and nothing else that reads or changes the
	// depths or their test before it (zOnce, worked out once for
	// msProg). The update is then the one the write would make, and
	// nothing between sees the difference: a block's pixels are its own
	// until it ends.
	zAtTest bool
	zOnce   bool
	// msUnseen says no block of the primitive needs its Start's
	// MS_FLAGS: liveLanes is set, and the program never reads MS_FLAGS
	// (msUnread, worked out once for msProg), so they are seen only by
	// the TLB writes, which take f.live instead.
	msUnseen bool
	msUnread bool
	// instrs is the instructions the primitive's blocks have run so far,
	// for the QPU cycle counters (countTMU adds them).
	instrs uint64
	// z is the current block's Z: its Start's, or the rb15 of the QPU
	// it runs on (qpuexec.Start.WZInRegs).
	z *[16]uint32
	// rowBlk is the pixels of the current block row's first column
	// (tlb.Block.Offset): each block's are a shift of them.
	rowBlk tlb.Block

	// shadeRow's primitive: the QPU of its lone blocks, whose W lands
	// in regW (its ra15; f.z is its rb15), whether a block has run on
	// it (again), and whether the blocks take the early-Z test (zEarly)
	// and need their pixel coordinates.
	lone           *qpuexec.QPU
	regW           *[16]uint32
	again          bool
	zEarly, coords bool

	// The blocks gathered for the batch (qpuexec.Batch), and the one
	// whose Env call is being served, or being set up: its fields are
	// f's (f.next is f.fragBlock.next).
	*fragBlock
	blocks [qpuexec.MaxBatch]fragBlock
	nblk   int
	envs   [qpuexec.MaxBatch]qpuexec.Env
	self   [1]qpuexec.Env // f: a lone block's Env, without fragBlock's step
	starts [qpuexec.MaxBatch]*qpuexec.Start
	res    [qpuexec.MaxBatch]qpuexec.Result
}

// varyTerms is a varying's plane terms for fragment.terms: its block
// columns' (raster.Varying.Col), the current block row's in element
// order (raster.Varying.RowLanes), and the bits of its C, which a
// varying read's VP kernel broadcasts (raster.BlockVPCLanes).
type varyTerms struct {
	col [tileBlocks][4]float32
	row [16]float32
	c   uint32
}

// fragBlock is one thread's state: a 4×4 block's inputs and its
// conversation with the TMUs and the tile buffer. Its Env methods serve
// the batch's QPU that runs the block: they make it f's current block,
// then do what f's do.
type fragBlock struct {
	f     *fragment
	tmu   [2]*tmu.Unit
	start qpuexec.Start

	col    int // the block's column in colWZ and varyTerms.col
	next   int // next varying to read
	bx, by int
	par    int        // the block's parity (raster.BlockParity of by)
	idx    [16]uint16 // tile pixel of each element (the reference path's; the fast path fills it when it reads colours)
	blk    tlb.Block  // the same pixels as pairs, for the fast paths
	msMask uint16     // the coverage start.MSFlags was made from
	// live is the elements whose MS_FLAGS are not zero, kept when
	// f.liveLanes is set: the block's coverage at its start, less the
	// elements a TLB_Z write fails. liveQuads is quadCount(live), for
	// the TLB writes' counters.
	live      uint16
	liveQuads uint64
	// zPassed says the block's next TLB_Z write passes every element of
	// live without a test (f.zKnown): the early-Z test compared the same
	// Z with the same stored depths. The first TLB_Z write clears it.
	// zDone says that write's update is made already (f.zAtTest).
	zPassed, zDone bool

	// Multisample mode: the samples each element's pixel covers, the
	// TLB's own mask of them (cov less the samples a Z test failed: the
	// samples its writes reach, tlbWriteMS), the tile buffer element of
	// each sample (tlb.MSIndex), and the samples the thread's next
	// TLB_COLOUR_MS write and colour load reach.
	cov             [16]uint8
	samples         [16]uint8
	sidx            [tlb.Samples][16]uint16
	msWrite, msRead int
	stencil         tlb.Stencil

	// clip is the elements inside the clip window when BlockSamples
	// gave coverage beyond it (else 0xFFFF), and clipState whether the
	// thread's TLB writes keep to it: 0 not decided yet, 1 yes (the
	// shader left MS_FLAGS as they started), 2 no (keepToClip).
	clip      uint16
	clipState uint8
}

func (f *fragment) init(w *Worker, qpuNum int) {
	f.w = w
	f.batch = qpuexec.NewBatch(qpuNum, nil)
	ref := w.r.opts.Reference
	f.batch.SetReference(ref)
	for k := range f.blocks {
		b := &f.blocks[k]
		b.f = f
		b.tmu[0], b.tmu[1] = tmu.New(nil), tmu.New(nil)
		b.tmu[0].Reference, b.tmu[1].Reference = ref, ref
		if !ref {
			// The QPU calls the block's units itself and skips the
			// scoreboard (Scoreboard has nothing to do); the reference
			// path goes through the Env (TMUWrite, TMULoad, Scoreboard).
			b.start.TMU = b.tmu
			b.start.InOrder = true
		}
		f.envs[k], f.starts[k] = b, &b.start
	}
	f.fragBlock = &f.blocks[0]
	f.self[0] = f
}

func (f *fragment) setView(v *mem.View) {
	f.batch.SetMem(v)
	for k := range f.blocks {
		f.blocks[k].tmu[0].Reset(v)
		f.blocks[k].tmu[1].Reset(v)
	}
}

// shadePrim rasterises f.prim and runs the fragment shader on every 4×4
// block with covered pixels.
func (f *fragment) shadePrim(nv, nvary int) error {
	w := f.w
	st := &w.st
	if st.fs == nil {
		code, unif, single := st.shader.FS()
		p, err := w.r.cache.Load(w.view, code, qpuexec.Options{Stage: hazard.Fragment, Threaded: !single, Permissive: w.r.opts.Permissive})
		if err != nil {
			return fmt.Errorf("fragment shader at %#08x: %w", code, err)
		}
		st.fs, st.fsUniforms = p, unif
	}
	// The PSE's own varyings come first: a point's two sprite
	// coordinates, a line's coordinate (raster.Prim.PointCoords,
	// LineCoord); then the shader record's, which FLAT_SHADE_FLAGS
	// counts from 0 (Mesa vc4_program.c vc4_setup_compiled_fs_inputs
	// leaves the hardware's out of the flat-shade bits it sets).
	hw := 0
	switch nv {
	case 1:
		hw = 2
		f.setup[0], f.setup[1] = f.prim.PointCoords()
	case 2:
		hw = 1
		f.setup[0] = f.prim.LineCoord()
	}
	if nvary > maxVaryings {
		return fmt.Errorf("%d varyings: a shaded vertex holds at most %d", nvary, maxVaryings)
	}
	f.nvary, f.hwVary = hw+nvary, hw
	for j := 0; j < nvary; j++ {
		var vals [3]float32
		for k := range vals {
			vals[k] = f.vary[min(k, nv-1)][j]
		}
		flat := j < 32 && st.flat&(1<<j) != 0
		f.setup[hw+j] = f.prim.SetupVarying(vals, flat)
	}
	f.depth = tlb.DepthState{Func: st.config.DepthFunc, Update: st.config.ZUpdates}
	f.reverse = f.prim.Reverse
	if st.fs != f.msProg {
		f.msProg, f.keepsMS, f.zIsZ = st.fs, !writesMSFlags(st.fs), writesZAsIs(st.fs)
		f.msUnread = !readsMSFlags(st.fs)
		f.zOnce = writesZOnce(st.fs)
	}
	// In multisample mode the general code runs: per-sample coverage,
	// no early-Z (Mesa never enables it there, vc4_emit.c, for the
	// hardware's HW-2905; the shader's TLB_Z write makes the real test,
	// doc/hardware.md#tile-buffer-formats), the TLB per sample.
	ms := w.frame.MS
	earlyZ := !ms && f.earlyZ()
	f.liveLanes = !ms && !w.r.opts.Reference && f.keepsMS
	f.zKnown = earlyZ && f.liveLanes && f.zIsZ
	f.zAtTest = f.zKnown && f.zOnce
	f.msUnseen = f.liveLanes && f.msUnread
	side := w.frame.Side()
	tx0, ty0 := w.tile.X*side, w.tile.Y*side
	b := f.prim.Bounds()
	var rev uint32
	if f.reverse {
		rev = 1
	}
	shaded := false
	// The pixel coordinates, for the shaders that read them (the
	// reference path computes them always).
	coords := w.r.opts.Reference || st.fs.ReadsPixelCoords()
	bx0 := b.X0 &^ 3
	ncol := (b.X1 - bx0 + 3) / 4
	f.terms = !w.r.opts.Reference && ncol <= tileBlocks
	if f.terms {
		for k := 0; k < ncol; k++ {
			f.prim.Col(bx0+4*k, &f.colWZ[k])
			for j := 0; j < f.nvary; j++ {
				f.setup[j].Col(bx0+4*k, &f.varyT[j].col[k])
			}
		}
		for j := 0; j < f.nvary; j++ {
			f.varyT[j].c = math.Float32bits(f.setup[j].C)
		}
	}
	c := &w.counters
	// The TMU quads and the QPU cycles are counted once the primitive's
	// blocks have run, or failed (countTMU).
	defer f.countTMU()
	// W and Z go straight into the registers of the QPU that runs a
	// lone block (qpuexec.Start.WZInRegs), else into the Start.
	var regW, regZ *[16]uint32
	// The blocks gathered for one batch: several when the batch takes
	// the program in lockstep (qpuexec.Batch: not on the reference path,
	// and not for a program it would gain nothing on); one at a time
	// otherwise.
	batchOf := 1
	if !ms && f.batch.Takes(st.fs) {
		batchOf = batchBlocks
	}
	if batchOf == 1 && f.terms {
		q := f.batch.QPU()
		regW, regZ = q.RA(15), q.RB(15)
	}
	f.regW = regW
	// What every block of the primitive starts with, in every slot.
	for k := range f.blocks {
		s := &f.blocks[k].start
		s.WZInRegs = regW != nil
		s.MSUnseen = f.msUnseen
		s.RevFlag = rev
		s.Uniforms = st.fsUniforms
	}
	f.nblk = 0
	f.fragBlock = &f.blocks[0]
	// The common case, lone blocks with their terms on the fast path,
	// has a loop of its own (shadeRow).
	fast := regW != nil && !ms
	if fast {
		f.lone, f.again = f.batch.QPU(), false
		f.zEarly, f.coords = earlyZ, coords
		f.z = regZ
	}
	for by := b.Y0 &^ 3; by < b.Y1; by += 4 {
		// A batch keeps to a row: the varyings' row terms are the row's.
		if f.nblk > 0 {
			if err := f.runBatch(); err != nil {
				return err
			}
		}
		if fast {
			span := f.prim.RowSpan(bx0, by, ncol)
			if span.Lo >= span.Hi {
				continue
			}
			f.prim.Row(by, &f.rowWZ)
			for j := 0; j < f.nvary; j++ {
				f.setup[j].RowLanes(by, &f.varyT[j].row)
			}
			f.rowBlk.Offset(&laneBlock[raster.BlockParity(by)], uint16((by-ty0)*tlb.Size+bx0-tx0))
			ran, err := f.shadeRow(by, bx0, span)
			shaded = shaded || ran
			if err != nil {
				return err
			}
			continue
		}
		rowReady := false
		// The row's first block column's pixels (tlb.Block.Offset), from
		// which each block's are a shift (Shifted): once a row.
		rowBlk := false
		// The fast path visits only the row's blocks that can be covered
		// and knows the whole ones without testing their pixels
		// (raster.RowSpan: BlockMask's own tests, a row at a time); the
		// reference asks BlockMask of every block.
		span := raster.BlockSpan{Hi: ncol}
		if !w.r.opts.Reference && !ms {
			span = f.prim.RowSpan(bx0, by, ncol)
		}
		for k := span.Lo; k < span.Hi; k++ {
			bx := bx0 + 4*k
			mask := uint16(0xFFFF)
			if ms {
				if mask, f.clip = f.prim.BlockSamples(bx, by, &f.cov); mask == 0 {
					continue
				}
				if mask&^f.clip == 0 {
					f.clip = 0xFFFF // no covered pixel beyond the clip window
				}
			} else if k < span.FullLo || k >= span.FullHi {
				if w.r.opts.Reference {
					mask = f.prim.BlockMask(bx, by)
				} else {
					mask = f.prim.PartialMask(bx, by)
				}
				if mask == 0 {
					continue
				}
			}
			s := &f.start // the next slot's (f.fragBlock is blocks[f.nblk])
			sw, sz := &s.W, &s.Z
			if regW != nil {
				sw, sz = regW, regZ
			}
			f.z = sz
			if f.terms {
				if !rowReady {
					f.prim.Row(by, &f.rowWZ)
					for j := 0; j < f.nvary; j++ {
						f.setup[j].RowLanes(by, &f.varyT[j].row)
					}
					rowReady = true
				}
				f.col = k
				f.prim.BlockWZ(&f.colWZ[f.col], &f.rowWZ, sw, sz)
				if coords {
					raster.BlockCoords(bx, by, &s.X, &s.Y)
				}
			} else {
				f.prim.BlockInputs(bx, by, &s.W, &s.Z, &s.X, &s.Y)
			}
			par := raster.BlockParity(by)
			if ms {
				for i := range 16 {
					x, y := bx-tx0+int(raster.LaneX[par][i]), by-ty0+int(raster.LaneY[par][i])
					for smp := range tlb.Samples {
						f.sidx[smp][i] = uint16(tlb.MSIndex(x, y, smp))
					}
				}
			} else {
				if w.r.opts.Reference {
					// Element i's pixel, (s.X[i], s.Y[i]) = (bx, by) + its
					// place in the block, in the tile buffer.
					base := (by-ty0)*tlb.Size + bx - tx0
					li := &laneIdx[par]
					for i := range 16 {
						f.idx[i] = uint16(base + int(li[i]))
					}
				}
				if !rowBlk {
					f.rowBlk.Offset(&laneBlock[par], uint16((by-ty0)*tlb.Size+bx0-tx0))
					rowBlk = true
				}
				f.blk.Shifted(&f.rowBlk, uint16(4*k))
			}
			quads := quadCount(mask)
			c[uapi.PerfcntFEPValidQuads] += quads
			if earlyZ {
				// The elements left are within mask, so the quads
				// with none left are mask's less theirs.
				if w.r.opts.Reference {
					mask = f.earlyTest(mask)
				} else {
					// The block's pixels are distinct and its Z
					// values 24-bit (raster.BlockInputs), so the
					// block-wide test is Passes for each.
					mask = w.buf.DepthPasses(&f.blk, f.z, mask, f.depth.Func)
				}
				left := quadCount(mask)
				c[uapi.PerfcntFEPClippedQuads] += quads - left
				if mask == 0 {
					continue
				}
				quads = left
			}
			// Non-multisample mode: a covered pixel has all four mask
			// bits (our choice; [AG] Table 29 gives MS_MASK 4 bits
			// without saying what non-MS mode puts there).
			if ms {
				// Multisample mode: bit s for each covered sample s
				// ([AG] Table 29 MS_MASK, 4 bits).
				for i, c := range &f.cov {
					s.MSFlags[i] = uint32(c)
				}
				f.msMask = 0 // no longer the flags of any mask
				// Read only by the multisample TLB accesses
				// (tlbWriteMS, TLBLoad, keepToClip).
				f.msWrite, f.msRead = 0, 0
				f.clipState = 0
				f.samples = f.cov
			} else if mask != f.msMask && !f.msUnseen {
				// s.MSFlags is the flags of f.msMask (0 at first:
				// all zero); a primitive whose blocks never see
				// them (msUnseen) leaves both as they are.
				for q := range 4 {
					*(*[4]uint32)(s.MSFlags[4*q:]) = msFlagsOf[mask>>(4*q)&0xF]
				}
				f.msMask = mask
			}
			f.next = 0
			f.bx, f.by, f.par = bx, by, par
			f.stencil.Reset()
			f.live, f.liveQuads = mask, quads
			f.zPassed, f.zDone = f.zKnown, false
			f.tmu[0].Reset(nil)
			f.tmu[1].Reset(nil)
			shaded = true
			if batchOf == 1 {
				// One block at a time, straight to the QPU.
				res, err := f.batch.QPU().Run(st.fs, f, s)
				if err := f.ran(f.fragBlock, &res, err); err != nil {
					return err
				}
			} else if f.nblk++; f.nblk == batchOf {
				if err := f.runBatch(); err != nil {
					return err
				}
			} else {
				f.fragBlock = &f.blocks[f.nblk]
			}
		}
	}
	if f.nblk > 0 {
		if err := f.runBatch(); err != nil {
			return err
		}
	}
	if shaded {
		c[uapi.PerfcntFEPValidPrimsRender]++
	} else {
		c[uapi.PerfcntFEPValidPrimsNoRender]++
	}
	return nil
}

// shadeRow is shadePrim's loop over the blocks of row by in span for
// the common case: one block at a time on f.lone, with the primitive's
// column and row terms (f.terms; W and Z straight into the QPU's
// registers), not multisample, not the reference path. It does what
// shadePrim's general loop does for such a block, less what is fixed for
// the primitive or the row (worked out by shadePrim: the row terms,
// f.rowBlk, f.z), in a function of its own so that the compiler keeps
// the block's values in registers. It reports whether it shaded a block.
//
// After the primitive's first block the QPU runs the next as another
// thread of the same program, Env and Start (QPU.RunAgain): what Run
// decides for them holds for the primitive. And the TMUs are reset only
// when not idle (tmu.Unit.Idle: no request slot held, no result
// waiting): the blocks before left an idle unit as Reset would, but for
// its cursor into the receive FIFO and its cached memory span, on
// neither of which a lookup's result depends.
func (f *fragment) shadeRow(by, bx0 int, span raster.BlockSpan) (shaded bool, err error) {
	w := f.w
	c := &w.counters
	fb := f.fragBlock // blocks[0]: lone blocks take the first slot
	s := &fb.start
	par := raster.BlockParity(by)
	for k := span.Lo; k < span.Hi; k++ {
		bx := bx0 + 4*k
		mask := uint16(0xFFFF)
		if k < span.FullLo || k >= span.FullHi {
			if mask = f.prim.PartialMask(bx, by); mask == 0 {
				continue
			}
		}
		fb.col = k
		f.prim.BlockWZ(&f.colWZ[k], &f.rowWZ, f.regW, f.z)
		if f.coords {
			raster.BlockCoords(bx, by, &s.X, &s.Y)
		}
		fb.blk.Shifted(&f.rowBlk, uint16(4*k))
		quads := quadCount(mask)
		c[uapi.PerfcntFEPValidQuads] += quads
		if f.zEarly {
			if f.zAtTest {
				// The test and the TLB_Z write's update in one
				// pass: with no stencil test (the block's starts
				// reset, and the program sets none up),
				// ZWriteBlock is the block-wide test and the
				// update of the elements that pass.
				fb.stencil.Reset()
				mask, _ = w.buf.ZWriteBlock(&fb.blk, f.z, mask, f.depth, &fb.stencil, f.reverse)
			} else {
				// As shadePrim's loop: the block-wide test.
				mask = w.buf.DepthPasses(&fb.blk, f.z, mask, f.depth.Func)
			}
			left := quadCount(mask)
			c[uapi.PerfcntFEPClippedQuads] += quads - left
			if mask == 0 {
				continue
			}
			quads = left
		}
		if mask != fb.msMask && !f.msUnseen {
			for q := range 4 {
				*(*[4]uint32)(s.MSFlags[4*q:]) = msFlagsOf[mask>>(4*q)&0xF]
			}
			fb.msMask = mask
		}
		fb.next = 0
		fb.bx, fb.by, fb.par = bx, by, par
		fb.stencil.Reset()
		fb.live, fb.liveQuads = mask, quads
		fb.zPassed, fb.zDone = f.zKnown, f.zAtTest
		if !fb.tmu[0].Idle() {
			fb.tmu[0].Reset(nil)
		}
		if !fb.tmu[1].Idle() {
			fb.tmu[1].Reset(nil)
		}
		shaded = true
		var res qpuexec.Result
		if f.again {
			res, err = f.lone.RunAgain(s)
		} else {
			res, err = f.lone.Run(f.w.st.fs, f, s)
			f.again = true
		}
		if err := f.ran(fb, &res, err); err != nil {
			return shaded, err
		}
	}
	return shaded, nil
}

// batchBlocks is the number of blocks a batch gathers (at most
// qpuexec.MaxBatch).
const batchBlocks = qpuexec.MaxBatch

// runBatch runs the fragment shader on the f.nblk blocks gathered, as if
// one after another in their order, and makes blocks[0] the next slot.
func (f *fragment) runBatch() error {
	st := &f.w.st
	n := f.nblk
	f.nblk = 0
	envs := f.envs[:n]
	if n == 1 {
		envs = f.self[:]
		f.fragBlock = &f.blocks[0]
	}
	k, err := f.batch.Run(st.fs, envs, f.starts[:n], f.res[:n])
	f.fragBlock = &f.blocks[0]
	for j := 0; j < k; j++ {
		var e error
		if j == k-1 {
			e = err
		}
		if e := f.ran(&f.blocks[j], &f.res[j], e); e != nil {
			return e
		}
	}
	return nil
}

// ran counts block b's run, whose result was res and error err, and
// checks that it read its varyings.
func (f *fragment) ran(b *fragBlock, res *qpuexec.Result, err error) error {
	f.instrs += uint64(res.Instructions)
	if err != nil || b.next < f.nvary {
		return f.ranBadly(b, err)
	}
	return nil
}

// ranBadly is ran's answer for a block that failed or did not read all
// its varyings: ran is small enough to be inlined without it.
func (f *fragment) ranBadly(b *fragBlock, err error) error {
	if err != nil {
		return err
	}
	hw, nvary := f.hwVary, f.nvary-f.hwVary
	if st := &f.w.st; b.next < f.nvary && !st.fs.Opts.Permissive {
		// "All of the set up varyings must be read before the
		// shader completes" ([AG] §6 "Varyings Interpolation"):
		// the next thread would read the rest. A broken
		// restriction fails the job in strict mode, as the
		// interpreter's own run-time checks do.
		return fmt.Errorf("fragment shader at %#08x ended after reading %d of the %d varyings set up (%d of the PSE's own for the primitive, then the shader record's %d; [AG] §6: all must be read)", st.fs.Addr, b.next, f.nvary, hw, nvary)
	}
	return nil
}

// countTMU counts the TMU quads of the lookups the blocks' shaders
// received (tmu.Unit.Received): one lookup serves the thread's four
// quads. It counts them whether the QPU called the units itself
// (qpuexec.Start.TMU) or through TMULoad. It also counts the QPU cycles
// of the instructions the blocks ran (ran sums them: four cycles each).
func (f *fragment) countTMU() {
	var n uint64
	for k := range f.blocks {
		for _, u := range f.blocks[k].tmu {
			n += u.Received
			u.Received = 0
		}
	}
	c := &f.w.counters
	c[uapi.PerfcntTMUTotalTextQuadsProcessed] += 4 * n
	c[uapi.PerfcntQPUTotalClkCyclesFragmentShading] += 4 * f.instrs
	c[uapi.PerfcntQPUTotalClkCyclesExecValidInst] += 4 * f.instrs
	f.instrs = 0
}

// writesMSFlags reports whether any instruction of p names MS_FLAGS (or
// REV_FLAG, the same write address in file B) as a write address,
// whatever its opcode and condition (qpu.Inst.Writes).
func writesMSFlags(p *qpuexec.Program) bool {
	for i := range p.Insts {
		if p.Insts[i].Writes(qpu.WMSFlagsRev) {
			return true
		}
	}
	return false
}

// readsMSFlags reports whether any instruction of p names MS_FLAGS as a
// read address (file A's read address 42, whatever the muxes select:
// qpu.Inst.Reads).
func readsMSFlags(p *qpuexec.Program) bool {
	for i := range p.Insts {
		if p.Insts[i].Reads(qpu.FileA, qpu.RMSFlagsRev) {
			return true
		}
	}
	return false
}

// writesZAsIs reports whether every TLB_Z write of p writes the
// interpolated Z as the thread started with it, bit for bit: each
// instruction that names TLB_Z as a write address is an ALU instruction
// (no small immediate) whose add ALU alone writes it, with condition
// always and no pack, as the OR of file B's rb15 with itself (a move, as
// Mesa writes `mov tlb_z, rb15` whenever the depth test is on,
// doc/hardware.md#fragment-shaders), read without unpack (the unpacks
// act on file A or r4, doc/hardware.md#pack-and-unpack); and no
// instruction writes rb15, where the thread's Z starts
// (doc/hardware.md#varyings). Found once for each program the stage
// loads.
func writesZAsIs(p *qpuexec.Program) bool {
	for i := range p.Insts {
		in := &p.Insts[i]
		if in.WritesPhysical(qpu.FileB, 15) {
			return false
		}
		if in.Writes(qpu.WTLBZ) && (in.Kind() != qpu.KindALU || in.WaddrMul == qpu.WTLBZ ||
			in.OpAdd != qpu.AddOr || in.AddA != qpu.MuxB || in.AddB != qpu.MuxB || in.RaddrB != 15 ||
			in.CondAdd != qpu.CondAlways || in.Pack != qpu.PackNone) {
			return false
		}
	}
	return true
}

// writesZOnce reports whether p writes TLB_Z exactly once on its one
// path (no branch) under no condition, sets up no stencil test
// (TLB_STENCIL_SETUP) and loads no coverage from the Z/stencil buffer:
// its only access to the depths is that write, which every thread
// makes. With writesZAsIs, what render's shadeRow needs to make the
// write's update at the early-Z test (fragment.zAtTest).
func writesZOnce(p *qpuexec.Program) bool {
	n := 0
	for i := range p.Insts {
		in := &p.Insts[i]
		if in.IsBranch() || in.Writes(qpu.WTLBStencilSetup) || in.Sig == qpu.SigCoverageLoad {
			return false
		}
		if in.Writes(qpu.WTLBZ) {
			if in.Kind() != qpu.KindALU || in.WaddrAdd != qpu.WTLBZ || in.CondAdd != qpu.CondAlways {
				return false
			}
			n++
		}
	}
	return n == 1
}

// The Env of a block's QPU: each call makes the block f's current one,
// then does what f's Env methods do.

// Varying implements qpuexec.Env for block b.
func (b *fragBlock) Varying(vp, c *[16]uint32) error {
	b.f.fragBlock = b
	return b.f.Varying(vp, c)
}

// TMUWrite implements qpuexec.Env for block b.
func (b *fragBlock) TMUWrite(unit int, reg qpuexec.TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	b.f.fragBlock = b
	return b.f.TMUWrite(unit, reg, v, mask, param, direct)
}

// TMULoad implements qpuexec.Env for block b.
func (b *fragBlock) TMULoad(unit int, r4 *[16]uint32) error {
	b.f.fragBlock = b
	return b.f.TMULoad(unit, r4)
}

// TLBWrite implements qpuexec.Env for block b.
func (b *fragBlock) TLBWrite(reg qpuexec.TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	b.f.fragBlock = b
	return b.f.TLBWrite(reg, v, mask, ms)
}

// TLBLoad implements qpuexec.Env for block b.
func (b *fragBlock) TLBLoad(kind qpuexec.TLBLoad, r4 *[16]uint32) error {
	b.f.fragBlock = b
	return b.f.TLBLoad(kind, r4)
}

// Scoreboard implements qpuexec.Env for block b.
func (b *fragBlock) Scoreboard(unlock bool) error { return b.f.Scoreboard(unlock) }

// Semaphore implements qpuexec.Env for block b.
func (b *fragBlock) Semaphore(n int, acquire bool) error { return b.f.Semaphore(n, acquire) }

// quadMask returns bit q set when quad q (elements 4q..4q+3) has an
// element set: the OR of each nibble, gathered into the low four bits. It
// runs several times a block (the FEP and TLB counters), so each byte's
// two quads come from a table (TestLaneMasks checks every mask).
func quadMask(m uint16) uint8 {
	return quadsOfByte[m&0xFF] | quadsOfByte[m>>8]<<2
}

// quadCount returns the number of quads (elements 4q..4q+3) with an
// element set in m: the bits of quadMask(m), two table reads.
func quadCount(m uint16) uint64 {
	if m == 0xFFFF { // a whole block, the most common by far
		return 4
	}
	return uint64(quadsInByte[m&0xFF] + quadsInByte[m>>8])
}

// quadsInByte[b] is the number of b's two nibbles that are not zero.
var quadsInByte = func() (t [256]uint8) {
	for b := range t {
		t[b] = uint8(bits.OnesCount8(quadsOfByte[b]))
	}
	return t
}()

// quadsOfByte[b] has bit 0 set when b's low nibble is not zero, bit 1
// when its high nibble is not.
var quadsOfByte = func() (t [256]uint8) {
	for b := range t {
		if b&0xF != 0 {
			t[b] |= 1
		}
		if b>>4 != 0 {
			t[b] |= 2
		}
	}
	return t
}()

// nonZeroLanes returns bit i set when v[i] is not zero (the elements whose
// MS_FLAGS still let a sample through).
func nonZeroLanes(v *[16]uint32) uint16 {
	nz := func(x uint32) uint16 { return uint16((x | -x) >> 31) }
	return nz(v[0]) | nz(v[1])<<1 | nz(v[2])<<2 | nz(v[3])<<3 |
		nz(v[4])<<4 | nz(v[5])<<5 | nz(v[6])<<6 | nz(v[7])<<7 |
		nz(v[8])<<8 | nz(v[9])<<9 | nz(v[10])<<10 | nz(v[11])<<11 |
		nz(v[12])<<12 | nz(v[13])<<13 | nz(v[14])<<14 | nz(v[15])<<15
}

// msFlagsOf[m] is the MS_FLAGS of the four elements of a quad whose
// coverage bits are m: 0xF for a covered element, 0 for the others.
var msFlagsOf = func() (t [16][4]uint32) {
	for m := range t {
		for i := range t[m] {
			t[m][i] = uint32(m>>i&1) * 0xF
		}
	}
	return t
}()

// laneIdx[p][i] is the offset in the tile buffer of element i's pixel from
// its block's top-left pixel, in a block of parity p (raster.LaneX/LaneY).
var laneIdx = func() (t [2][16]uint16) {
	for p := range t {
		for i := range t[p] {
			t[p][i] = uint16(int(raster.LaneY[p][i]&3)*tlb.Size + int(raster.LaneX[p][i]&3))
		}
	}
	return t
}()

// laneBlock[p] is laneIdx[p] as the tile buffer's pairs of horizontally
// adjacent pixels: a block's elements come in such pairs (raster.LaneX
// and LaneY: in each 2×2 quad element 0 is at (0, 0) and 1 at (1, 0), 2
// at (0, 1) and 3 at (1, 1)), and a block's pixel offset base, a multiple
// of 4, keeps them even.
var laneBlock = func() (t [2]tlb.Block) {
	for p := range t {
		var ok bool
		if t[p], ok = tlb.BlockOf(&laneIdx[p]); !ok {
			panic(fmt.Sprintf("render: raster's element layout %d does not put elements 2k and 2k+1 on horizontally adjacent pixels: %v", p, laneIdx[p]))
		}
	}
	return t
}()

// earlyZ reports whether early-Z rejects fragments: CONFIGURATION_BITS
// early Z enable, the rendering mode's early-Z not disabled, and a depth
// function in the direction the early-Z buffer is kept for (LT/LE, or
// GT/GE with the direction bit) ([AG] Table 38 ids 96 and 113;
// doc/hardware.md#tile-buffer-formats).
//
// The hardware keeps a reduced-resolution Z shadow and rejects whole
// quads when it is sure they fail; we test each pixel's interpolated Z
// against the Z buffer and drop only the pixels that would fail the Z test
// the shader's TLB_Z write performs (which is what makes early-Z
// invisible when the shader writes the interpolated Z, as Mesa requires
// for enabling it).
func (f *fragment) earlyZ() bool {
	w := f.w
	cfg := &w.st.config
	if !cfg.EarlyZ || w.frame.EarlyZDisable {
		return false
	}
	switch cfg.DepthFunc {
	case cl.DepthFuncLess, cl.DepthFuncLessEqual:
		return !w.frame.EarlyZGreater
	case cl.DepthFuncGreater, cl.DepthFuncGreaterEqual:
		return w.frame.EarlyZGreater
	}
	return false
}

// earlyTest returns the elements of mask whose Z passes the depth test
// against the Z buffer, one element at a time: the reference path's
// early-Z test (shadePrim's fast path tests the block at once).
func (f *fragment) earlyTest(mask uint16) uint16 {
	zs := &f.w.buf.ZS
	for i := range 16 {
		if mask&(1<<i) != 0 && !tlb.Passes(f.depth.Func, f.z[i], zs[f.idx[i]]>>8) {
			mask &^= 1 << i
		}
	}
	return mask
}

// Varying implements qpuexec.Env: the next varying's VP for the block's
// elements and its C. Reads past the shader record's number of varyings
// return undefined data ([AG] §6); we return zeros.
func (f *fragment) Varying(vp, c *[16]uint32) error {
	b := f.fragBlock // loaded once: the store to next does not reload it
	j := b.next
	b.next = j + 1
	if j >= f.nvary {
		*vp, *c = [16]uint32{}, [16]uint32{}
		return nil
	}
	if f.terms {
		t := &f.varyT[j]
		raster.BlockVPCLanes(&t.col[b.col], &t.row, b.par, vp, t.c, c)
		return nil
	}
	s := &f.setup[j]
	s.BlockVP(f.bx, f.by, vp)
	lanes.Fill(c, math.Float32bits(s.C))
	return nil
}

// TMUWrite implements qpuexec.Env.
func (f *fragment) TMUWrite(unit int, reg qpuexec.TMUReg, v *[16]uint32, mask uint16, param uint32, direct bool) error {
	return f.tmu[unit&1].Write(int(reg), v, 0xFFFF, param, direct)
}

// TMULoad implements qpuexec.Env. The quads are counted from the
// unit's Received once the primitive's blocks have run (countTMU).
func (f *fragment) TMULoad(unit int, r4 *[16]uint32) error {
	return f.tmu[unit&1].Receive(r4)
}

// TLBWrite implements qpuexec.Env: stencil setup (element 0's word), the
// Z and stencil tests, and masked colour writes ([AG] §5).
func (f *fragment) TLBWrite(reg qpuexec.TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	if f.liveLanes {
		// The elements MS_FLAGS lets through are fb.live, kept below;
		// a block's elements shade distinct pixels in pairs
		// (laneBlock). The block is loaded once: through f's
		// embedded pointer each field's access loaded it again after
		// every store.
		fb := f.fragBlock
		c := &f.w.counters
		switch reg {
		case qpuexec.TLBZ:
			in := mask & fb.live
			if fb.zPassed && !fb.stencil.Enabled(f.reverse) {
				// The early-Z test passed every element of live
				// with this Z (writesZAsIs) against the depths
				// stored now (the block's pixels are its own
				// until it ends), with the same function: the
				// test would pass all of in and fail none. A
				// second write would test against the first's
				// update.
				fb.zPassed = false
				if !fb.zDone {
					f.w.buf.ZPassedBlock(&fb.blk, v, in, f.depth.Update)
				}
				n := fb.liveQuads
				if in != fb.live {
					n = quadCount(in)
				}
				c[uapi.PerfcntTLBQuadsPassingZAndStencil] += n
				return nil
			}
			fb.zPassed = false
			pass, sfail := f.w.buf.ZWriteBlock(&fb.blk, v, in, f.depth, &fb.stencil, f.reverse)
			if fail := in &^ pass; fail != 0 {
				fb.live &^= fail
				fb.liveQuads = quadCount(fb.live)
				for ; fail != 0; fail &= fail - 1 {
					ms[bits.TrailingZeros16(fail)] = 0
				}
			}
			// pass is within in, so the quads with an element in in
			// and none passing are those of in less those of pass.
			nin, npass := quadCount(in), quadCount(pass)
			c[uapi.PerfcntTLBQuadsPassingZAndStencil] += npass
			c[uapi.PerfcntTLBQuadsNotPassingZAndStencil] += nin - npass
			if sfail != 0 {
				c[uapi.PerfcntTLBQuadsNotPassingStencil] += uint64(bits.OnesCount8(quadMask(sfail) &^ quadMask(pass)))
			}
			return nil
		case qpuexec.TLBColourAll, qpuexec.TLBColourMS:
			m := mask & fb.live
			f.w.buf.WriteColorBlock(&fb.blk, v, m)
			n := fb.liveQuads
			if m != fb.live {
				n = quadCount(m)
			}
			c[uapi.PerfcntTLBQuadsWrittenToColorBuf] += n
			c[uapi.PerfcntTLBQuadsNonZeroCoverage] += n
			c[uapi.PerfcntTLBQuadsZeroCoverage] += 4 - n
			return nil
		}
	}
	if f.w.frame.MS {
		return f.tlbWriteMS(reg, v, mask, ms)
	}
	b := &f.w.buf
	c := &f.w.counters
	switch reg {
	case qpuexec.TLBStencilSetup:
		f.stencil.Setup(v[0])
	case qpuexec.TLBZ:
		var in, pass, sfail uint16
		if f.w.r.opts.Reference {
			in = mask & nonZeroLanes(ms)
			pass, sfail = b.ZWrite(&f.idx, v, in, f.depth, &f.stencil, f.reverse)
		} else {
			// A block's elements shade distinct pixels in pairs (laneBlock).
			in = mask & tlb.NonZeroLanes(ms)
			pass, sfail = b.ZWriteBlock(&f.blk, v, in, f.depth, &f.stencil, f.reverse)
		}
		for fail := in &^ pass; fail != 0; fail &= fail - 1 {
			ms[bits.TrailingZeros16(fail)] = 0
		}
		qin, qpass := quadMask(in), quadMask(pass)
		c[uapi.PerfcntTLBQuadsPassingZAndStencil] += uint64(bits.OnesCount8(qpass))
		c[uapi.PerfcntTLBQuadsNotPassingZAndStencil] += uint64(bits.OnesCount8(qin &^ qpass))
		c[uapi.PerfcntTLBQuadsNotPassingStencil] += uint64(bits.OnesCount8(quadMask(sfail) &^ qpass))
	case qpuexec.TLBColourAll, qpuexec.TLBColourMS:
		var m uint16
		if f.w.r.opts.Reference {
			m = mask & nonZeroLanes(ms)
			b.WriteColor(&f.idx, v, m)
		} else {
			m = mask & tlb.NonZeroLanes(ms)
			b.WriteColorBlock(&f.blk, v, m)
		}
		q := quadMask(m)
		c[uapi.PerfcntTLBQuadsWrittenToColorBuf] += uint64(bits.OnesCount8(q))
		c[uapi.PerfcntTLBQuadsNonZeroCoverage] += uint64(bits.OnesCount8(q))
		c[uapi.PerfcntTLBQuadsZeroCoverage] += uint64(4 - bits.OnesCount8(q))
	default:
		return &tlb.Unsupported{What: fmt.Sprintf("TLB register %v", reg)}
	}
	return nil
}

// TLBLoad implements qpuexec.Env: the colour read of the thread's pixels.
func (f *fragment) TLBLoad(kind qpuexec.TLBLoad, r4 *[16]uint32) error {
	if kind != qpuexec.TLBLoadColour {
		return &tlb.Unsupported{What: fmt.Sprintf("TLB %v load", kind)}
	}
	if f.w.frame.MS {
		// "The tile color is read one multisample at a time, in a fixed
		// order" ([AG] §5 "Color Read and Write"): samples 0 to 3 (our
		// order; Mesa reads them as samples 0..3, vc4_program.c
		// ntq_emit_color_read).
		f.w.buf.ReadColor(&f.sidx[f.msRead&3], r4)
		f.msRead++
		return nil
	}
	if !f.w.r.opts.Reference {
		// The fast path keeps the block's pixels as pairs only.
		for k, p := range &f.blk.Pair {
			f.idx[2*k], f.idx[2*k+1] = p, p+1
		}
	}
	f.w.buf.ReadColor(&f.idx, r4)
	return nil
}

// samplesIn returns the elements in mask whose samples include sample s.
func samplesIn(smp *[16]uint8, s int, mask uint16) uint16 {
	var m uint16
	for i := range smp {
		m |= uint16(smp[i]>>s&1) << i
	}
	return m & mask
}

// keepToClip is mask without the elements outside the clip window
// (f.clip) unless the shader wrote MS_FLAGS before its first Z or colour
// write. BlockSamples gives the pixels of a 2×2 quad cut by the clip
// window their coverage, and the TLB drops the pixels outside the window
// only while MS_FLAGS are the rasteriser's: a shader's MS_FLAGS write
// replaces the TLB's pixel mask, clip included, by MS_FLAGS ≠ 0
// (tlbWriteMS). DERIVED from the Pi 3 record: real Pi 3 boards fail
// piglit's ext_framebuffer_multisample clip-and-scissor-blit msaa tests
// (2 and 4 samples), whose blits u_blitter draws one sample at a time,
// each shader writing MS_FLAGS ANDed with 1 << sample (Mesa
// vc4_qpu_emit.c, QOP_MS_MASK), under clip windows with edges on odd
// rows; they pass the upsample twins, the same blits drawn once without a
// MS_FLAGS write (doc/hardware.md#multisampling, Clip window).
// UNCERTAIN: the model cannot see the write itself and takes MS_FLAGS
// that differ from their start on any element as written.
func (f *fragment) keepToClip(mask uint16, ms *[16]uint32) uint16 {
	if f.clipState == 0 {
		f.clipState = 1
		for i := range 16 {
			if mask&(1<<i) != 0 && ms[i] != uint32(f.cov[i]) {
				f.clipState = 2
				break
			}
		}
	}
	if f.clipState == 1 {
		return mask & f.clip
	}
	return mask
}

// tlbWriteMS is TLBWrite in 4× multisample mode ([AG] §5 "Color Read and
// Write", "Z and Stencil"). The samples of a pixel it reaches are the
// TLB's own (f.samples: those the rasteriser covered, less those a Z test
// failed), in the pixels whose MS_FLAGS are not 0: MS_FLAGS switch whole
// pixels on and off, as in non-multisample mode, and a shader's write to
// them cannot pick samples. DERIVED from the Pi 3 record
// (doc/hardware.md#multisampling, MS_FLAGS writes): real Pi 3 boards fail
// piglit's ext_framebuffer_multisample sample-alpha-to-coverage color
// and unaligned-blit color msaa tests (2 and 4 samples), whose draws AND
// MS_FLAGS with an alpha-to-coverage mask or with 1 << sample (Mesa
// vc4_nir_lower_blend.c, vc4_qpu_emit.c QOP_MS_MASK): they pass if the
// TLB writes only the samples left in MS_FLAGS, and fail, as on a Pi 3,
// if the masks pick no samples. A TLB_Z write tests and
// updates each such sample's Z and stencil against the element's one Z
// value (the shader writes one Z a pixel; the guide keeps Z and stencil
// per sample and says the test updates MS_FLAGS, so a sample that fails
// leaves the TLB's mask and MS_FLAGS: DERIVED); TLB_COLOUR_ALL writes
// the colour to all of them; the n-th TLB_COLOUR_MS write of the thread
// goes to sample n ("written back ... one multisample at a time, in the
// same order").
func (f *fragment) tlbWriteMS(reg qpuexec.TLBReg, v *[16]uint32, mask uint16, ms *[16]uint32) error {
	if reg != qpuexec.TLBStencilSetup {
		if mask&^f.clip != 0 {
			mask = f.keepToClip(mask, ms)
		}
		mask &= nonZeroLanes(ms)
	}
	b := &f.w.buf
	c := &f.w.counters
	switch reg {
	case qpuexec.TLBStencilSetup:
		f.stencil.Setup(v[0])
	case qpuexec.TLBZ:
		var in, pass, sfail uint16
		for s := range tlb.Samples {
			ins := samplesIn(&f.samples, s, mask)
			ps, sf := b.ZWrite(&f.sidx[s], v, ins, f.depth, &f.stencil, f.reverse)
			for fail := ins &^ ps; fail != 0; fail &= fail - 1 {
				i := bits.TrailingZeros16(fail)
				f.samples[i] &^= 1 << s
				ms[i] &^= 1 << s
			}
			in, pass, sfail = in|ins, pass|ps, sfail|sf
		}
		qin, qpass := quadMask(in), quadMask(pass)
		c[uapi.PerfcntTLBQuadsPassingZAndStencil] += uint64(bits.OnesCount8(qpass))
		c[uapi.PerfcntTLBQuadsNotPassingZAndStencil] += uint64(bits.OnesCount8(qin &^ qpass))
		c[uapi.PerfcntTLBQuadsNotPassingStencil] += uint64(bits.OnesCount8(quadMask(sfail) &^ qpass))
	case qpuexec.TLBColourAll, qpuexec.TLBColourMS:
		first, last := 0, tlb.Samples-1
		if reg == qpuexec.TLBColourMS {
			first = f.msWrite & 3
			last = first
			f.msWrite++
		}
		var m uint16
		for s := first; s <= last; s++ {
			sm := samplesIn(&f.samples, s, mask)
			b.WriteColor(&f.sidx[s], v, sm)
			m |= sm
		}
		q := quadMask(m)
		c[uapi.PerfcntTLBQuadsWrittenToColorBuf] += uint64(bits.OnesCount8(q))
		c[uapi.PerfcntTLBQuadsNonZeroCoverage] += uint64(bits.OnesCount8(q))
		c[uapi.PerfcntTLBQuadsZeroCoverage] += uint64(4 - bits.OnesCount8(q))
	default:
		return &tlb.Unsupported{What: fmt.Sprintf("TLB register %v", reg)}
	}
	return nil
}

// Scoreboard implements qpuexec.Env. A worker shades a tile's fragments
// one thread at a time in primitive order, which is the order the
// scoreboard enforces, so waits and unlocks have nothing to do.
func (f *fragment) Scoreboard(unlock bool) error { return nil }

// Semaphore implements qpuexec.Env. Fragment threads run one at a time
// per worker and workers do not share semaphores, so an acquire that finds
// the count at zero can never be satisfied.
func (f *fragment) Semaphore(n int, acquire bool) error {
	return &tlb.Unsupported{What: fmt.Sprintf("semaphore %d in a fragment shader (no other thread could release it)", n)}
}
