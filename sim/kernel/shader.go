package kernel

import (
	"encoding/binary"
	"syscall"

	"github.com/vccube/vccube/shaders/qpu"
)

// The shader validator: the rules of Linux vc4_validate_shaders.c
// (vc4_validate_shader and its helpers), doc/kernel.md#shader-validation. Since
// the VideoCore IV has no MMU, a shader could read or write any memory
// through the TMU, the uniform stream or VPM DMA; the kernel walks the code
// of every shader BO once, at CREATE_SHADER_BO, refuses what it cannot
// bound, and records where each texture lookup takes its parameters from
// the uniform stream so that SUBMIT_CL can check and relocate them
// (reloc_tex in vc4_validate.c, here reloc.go).
//
// Instruction fields are read with shaders/qpu's decoder. The kernel reads
// every field at its ALU position whatever the signal (QPU_GET_FIELD on the
// raw word), so a load immediate's low 32 bits are also seen as op_add,
// raddr_a and the muxes; rawALU reproduces that view.

// NoParam marks an absent texture parameter in TextureSample.POffset (the
// kernel's ~0).
const NoParam = ^uint32(0)

// TextureSample is one texture lookup of a shader (struct
// vc4_texture_sample_info in vc4_drv.h).
type TextureSample struct {
	// POffset holds, for the lookup's parameters P0..P3, the byte offset in
	// the shader's uniform values of the uniform that supplies it, or
	// NoParam. P0 and P1 are always present.
	POffset [4]uint32
	// Direct marks a direct (UBO-style) lookup: S written alone, as a
	// clamped uniform add. P0 is then the base offset and P1 the clamp.
	Direct bool
}

// Shader is what the kernel records about a validated shader BO (struct
// vc4_validated_shader_info in vc4_drv.h), which SUBMIT_CL reads to walk
// the uniform stream.
type Shader struct {
	// UniformsSize is the size in bytes of the uniform values the shader
	// consumes: one word per uniform read, one implicit word per TMU
	// parameter write, one per uniform-address reset.
	UniformsSize uint32
	// UniformsSrcSize is the size of the shader's block in the submit's
	// uniform stream: a texture BO index per sample, then the values.
	UniformsSrcSize uint32
	// Samples are the texture lookups in program order of their S writes.
	Samples []TextureSample
	// UniformAddrOffsets are the indices (in words) of the uniform slots
	// the kernel fills with the block's own bus address, for the
	// uniform-address resets after branches.
	UniformAddrOffsets []uint32
	// Threaded reports a thread switch signal: the FS runs two threads.
	Threaded bool
}

// liveRegCount covers the 32 registers of each file and r0-r3
// (LIVE_REG_COUNT in vc4_validate_shaders.c): index 0-31 file A, 32-63
// file B, 64-67 r0-r3.
const liveRegCount = 32 + 32 + 4

const noLive = ^uint32(0)

type shaderValidation struct {
	words []uint64
	ip    int
	maxIP int

	in  qpu.Inst // the instruction as qpu decodes it
	raw qpu.Inst // its fields at their ALU positions, as the kernel reads them

	tmuSetup      [2]TextureSample
	tmuWriteCount [2]int

	liveMinClampOffsets [liveRegCount]uint32
	liveMaxClampRegs    [liveRegCount]bool
	liveImmediates      [liveRegCount]uint32

	branchTargets []bool

	needsUniformAddressUpdate  bool
	needsUniformAddressForLoop bool
	allRegistersUsed           bool

	out Shader
}

// Signal field masks derived from qpu's own encoder, so that the position
// of the signal is not written down a second time.
var (
	sigFieldMask = (&qpu.Inst{Sig: qpu.SigBranch}).Encode()
	sigNoneBits  = (&qpu.Inst{Sig: qpu.SigNone}).Encode()
)

// rawALU decodes w as an ALU instruction whatever its signal: the view of
// the kernel's QPU_GET_FIELD. Only the signal itself is replaced.
func rawALU(w uint64) qpu.Inst {
	return qpu.Decode(w&^sigFieldMask | sigNoneBits)
}

// ValidateShader checks the contents of a shader BO (its whole,
// page-rounded size; the tail past the uploaded code reads as zero) as
// vc4_validate_shader does, and returns what the kernel records, or an
// *Error with EINVAL and the kernel's reason.
//
// Where the kernel reads past the BO or lets unvalidated code run, this is
// stricter (each case is commented).
func ValidateShader(code []byte) (*Shader, error) {
	if len(code)%8 != 0 || len(code) == 0 {
		return nil, errf(syscall.EINVAL, "shader BO of %d bytes is not a whole number of instructions", len(code))
	}
	words := make([]uint64, len(code)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(code[8*i:])
	}
	return validateWords(words)
}

func validateWords(words []uint64) (*Shader, error) {
	s := &shaderValidation{
		words:         words,
		maxIP:         len(words),
		branchTargets: make([]bool, len(words)),
	}
	s.resetState()
	if err := s.validateBranches(); err != nil {
		return nil, err
	}

	foundEnd := false
	endIP := 0
	lastThreadSwitch := -3
	ip := 0
	for ; ip < s.maxIP; ip++ {
		s.ip = ip
		s.in = qpu.Decode(words[ip])
		s.raw = rawALU(words[ip])
		if err := s.handleBranchTarget(); err != nil {
			return nil, err
		}
		if ip == lastThreadSwitch+3 {
			// After a thread switch the other thread has run: r0-r3 no
			// longer hold what we tracked.
			for i := 64; i < liveRegCount; i++ {
				s.liveMinClampOffsets[i] = noLive
				s.liveMaxClampRegs[i] = false
				s.liveImmediates[i] = noLive
			}
		}

		switch sig := s.in.Sig; sig {
		case qpu.SigNone, qpu.SigScoreboardWait, qpu.SigScoreboardUnlock,
			qpu.SigColourLoad, qpu.SigLoadTMU0, qpu.SigLoadTMU1,
			qpu.SigProgramEnd, qpu.SigSmallImm,
			qpu.SigThreadSwitch, qpu.SigLastThreadSwitch:
			if err := s.checkInstructionWrites(); err != nil {
				return nil, err
			}
			if err := s.checkInstructionReads(); err != nil {
				return nil, err
			}
			if sig == qpu.SigProgramEnd {
				foundEnd = true
				endIP = ip
			}
			if sig == qpu.SigThreadSwitch || sig == qpu.SigLastThreadSwitch {
				s.out.Threaded = true
				if ip < lastThreadSwitch+3 {
					return nil, errf(syscall.EINVAL, "Thread switch too soon after last switch at ip %d", ip)
				}
				lastThreadSwitch = ip
			}
		case qpu.SigLoadImm:
			if err := s.checkInstructionWrites(); err != nil {
				return nil, err
			}
		case qpu.SigBranch:
			if err := s.checkBranch(); err != nil {
				return nil, err
			}
			if ip < lastThreadSwitch+3 {
				return nil, errf(syscall.EINVAL, "Branch in thread switch at ip %d", ip)
			}
		default:
			return nil, errf(syscall.EINVAL, "Unsupported QPU signal %d at instruction %d", sig, ip)
		}

		// Two delay slots after program end still execute; then the
		// thread is done.
		if foundEnd && ip == endIP+2 {
			break
		}
	}
	if ip == s.maxIP {
		return nil, errf(syscall.EINVAL, "shader failed to terminate before shader BO end at %d", 8*len(words))
	}

	// The other thread's clamp tracking would be invalid (it shares the
	// register files' upper halves).
	if s.out.Threaded && s.allRegistersUsed {
		return nil, errf(syscall.EINVAL, "Shader uses threading, but uses the upper half of the registers, too")
	}

	// A backward branch without a later reset still needs the block's
	// address in the stream for the reset it loops back to.
	if s.needsUniformAddressForLoop {
		s.requireUniformAddressUniform()
		s.out.UniformsSize += 4
	}
	s.out.UniformsSrcSize = s.out.UniformsSize + 4*uint32(len(s.out.Samples))
	out := s.out
	return &out, nil
}

// resetState forgets what is known about registers and open TMU setups
// (reset_validation_state), at the start and at every basic-block entry.
func (s *shaderValidation) resetState() {
	for t := range s.tmuSetup {
		for i := range s.tmuSetup[t].POffset {
			s.tmuSetup[t].POffset[i] = NoParam
		}
	}
	for i := 0; i < liveRegCount; i++ {
		s.liveMinClampOffsets[i] = noLive
		s.liveMaxClampRegs[i] = false
		s.liveImmediates[i] = noLive
	}
}

// waddrToLiveReg maps a write address to a live-register index, or -1
// (waddr_to_live_reg_index).
func waddrToLiveReg(waddr qpu.WAddr, isB bool) int {
	switch {
	case waddr < 32:
		if isB {
			return 32 + int(waddr)
		}
		return int(waddr)
	case waddr <= qpu.WAcc3:
		return 64 + int(waddr-qpu.WAcc0)
	}
	return -1
}

// addALiveReg is the live-register index of the add ALU's first operand,
// or -1 (raddr_add_a_to_live_reg_index).
//
// Stricter than the kernel: the kernel returns raddr_a itself for mux A and
// 32 + raddr_b for mux B even when the read address is an I/O location
// (32-63), which aliases file B's or r0-r3's tracking and, for raddr_b of
// 36 and above, indexes past its LIVE_REG_COUNT arrays. An I/O read is not
// a tracked register, so it maps to -1 here.
func (s *shaderValidation) addALiveReg() int {
	r := &s.raw
	switch {
	case r.AddA == qpu.MuxA:
		if r.RaddrA < 32 {
			return int(r.RaddrA)
		}
		return -1
	case r.AddA == qpu.MuxB && s.in.Sig != qpu.SigSmallImm:
		if r.RaddrB < 32 {
			return 32 + int(r.RaddrB)
		}
		return -1
	case r.AddA <= qpu.MuxR3:
		return 64 + int(r.AddA)
	}
	return -1
}

func liveRegIsUpperHalf(lri int) bool {
	return (lri >= 16 && lri < 32) || (lri >= 32+16 && lri < 32+32)
}

// addBReadsUniform reports whether the add ALU's second operand is a
// uniform read.
func (s *shaderValidation) addBReadsUniform(allowSmallImm bool) bool {
	r := &s.raw
	if r.AddB == qpu.MuxA && r.RaddrA == qpu.RUniform {
		return true
	}
	return r.AddB == qpu.MuxB && r.RaddrB == qpu.RUniform && (allowSmallImm || s.in.Sig != qpu.SigSmallImm)
}

// readsUniform reports whether the instruction pops a uniform through a
// read address (check_instruction_reads' test).
func (s *shaderValidation) readsUniform() bool {
	return s.raw.RaddrA == qpu.RUniform || (s.raw.RaddrB == qpu.RUniform && s.in.Sig != qpu.SigSmallImm)
}

func (s *shaderValidation) recordTextureSample(tmu int) {
	s.out.Samples = append(s.out.Samples, s.tmuSetup[tmu])
	for i := range s.tmuSetup[tmu].POffset {
		s.tmuSetup[tmu].POffset[i] = NoParam
	}
	// Stricter than the kernel: record_texture_sample resets only the
	// parameter offsets, so once a TMU did a direct lookup every later
	// lookup on it is recorded as direct too, and reloc_tex then skips the
	// texture size check for a normal lookup (a P1 of width = height = 0,
	// meaning 2048×2048, passes as a tiny clamp). Each lookup is judged
	// on its own here.
	s.tmuSetup[tmu].Direct = false
}

// checkTMUWrite is check_tmu_write: a write to a TMU parameter register.
func (s *shaderValidation) checkTMUWrite(isMul bool) error {
	r := &s.raw
	waddr := r.WaddrAdd
	if isMul {
		waddr = r.WaddrMul
	}
	tmu := 0
	if waddr > qpu.WTMU0B {
		tmu = 1
	}
	submit := waddr.IsTMUSubmit()
	isDirect := submit && s.tmuWriteCount[tmu] == 0

	if isDirect {
		if s.in.Sig == qpu.SigSmallImm {
			return errf(syscall.EINVAL, "direct TMU read used small immediate (ip %d)", s.ip)
		}
		// The lookup must add a uniform base to a clamped offset.
		if isMul || r.OpAdd != qpu.AddAdd {
			return errf(syscall.EINVAL, "direct TMU load wasn't an add (ip %d)", s.ip)
		}
		clampReg := s.addALiveReg()
		if clampReg < 0 || s.liveMinClampOffsets[clampReg] == noLive {
			return errf(syscall.EINVAL, "direct TMU load wasn't clamped (ip %d)", s.ip)
		}
		s.tmuSetup[tmu].POffset[1] = s.liveMinClampOffsets[clampReg]
		if !s.addBReadsUniform(true) {
			return errf(syscall.EINVAL, "direct TMU load didn't add to a uniform (ip %d)", s.ip)
		}
		s.tmuSetup[tmu].Direct = true
	} else if s.readsUniform() {
		return errf(syscall.EINVAL, "uniform read in the same instruction as texture setup (ip %d)", s.ip)
	}

	if s.tmuWriteCount[tmu] >= 4 {
		return errf(syscall.EINVAL, "TMU%d got too many parameters before dispatch (ip %d)", tmu, s.ip)
	}
	s.tmuSetup[tmu].POffset[s.tmuWriteCount[tmu]] = s.out.UniformsSize
	s.tmuWriteCount[tmu]++
	// A direct lookup's base is a uniform read, counted with the reads;
	// every other parameter write takes the next uniform implicitly.
	if !isDirect {
		if s.needsUniformAddressUpdate {
			return errf(syscall.EINVAL, "Texturing with undefined uniform address (ip %d)", s.ip)
		}
		s.out.UniformsSize += 4
	}
	if submit {
		s.recordTextureSample(tmu)
		s.tmuWriteCount[tmu] = 0
	}
	return nil
}

func (s *shaderValidation) requireUniformAddressUniform() {
	s.out.UniformAddrOffsets = append(s.out.UniformAddrOffsets, s.out.UniformsSize/4)
}

// validateUniformAddressWrite is validate_uniform_address_write: the only
// accepted write to UNIFORMS_ADDRESS is the reset "add unif_addr, imm,
// unif" where imm is the offset of the uniform after the one read, so that
// the kernel can plant the block's base address in that uniform.
func (s *shaderValidation) validateUniformAddressWrite(isMul bool) error {
	r := &s.raw
	addLRI := s.addALiveReg()
	expected := s.out.UniformsSize + 4

	switch s.in.Sig {
	case qpu.SigNone, qpu.SigScoreboardUnlock, qpu.SigColourLoad, qpu.SigLoadTMU0, qpu.SigLoadTMU1:
	default:
		return errf(syscall.EINVAL, "uniforms address change must be normal math (ip %d)", s.ip)
	}
	if isMul || r.OpAdd != qpu.AddAdd {
		return errf(syscall.EINVAL, "Uniform address reset must be an ADD (ip %d)", s.ip)
	}
	if r.CondAdd != qpu.CondAlways {
		return errf(syscall.EINVAL, "Uniform address reset must be unconditional (ip %d)", s.ip)
	}
	if r.Pack != qpu.PackNone && !r.PM {
		return errf(syscall.EINVAL, "No packing allowed on uniforms reset (ip %d)", s.ip)
	}
	if addLRI < 0 {
		return errf(syscall.EINVAL, "First argument of uniform address write must be an immediate value (ip %d)", s.ip)
	}
	if s.liveImmediates[addLRI] != expected {
		return errf(syscall.EINVAL, "Resetting uniforms with offset %db instead of %db (ip %d)",
			int32(s.liveImmediates[addLRI]), expected, s.ip)
	}
	if !s.addBReadsUniform(true) {
		return errf(syscall.EINVAL, "Second argument of uniform address write must be a uniform (ip %d)", s.ip)
	}
	s.needsUniformAddressUpdate = false
	s.needsUniformAddressForLoop = false
	s.requireUniformAddressUniform()
	return nil
}

// checkRegWrite is check_reg_write for the add (isMul false) or the mul
// ALU's write address.
func (s *shaderValidation) checkRegWrite(isMul bool) error {
	r := &s.raw
	waddr := r.WaddrAdd
	if isMul {
		waddr = r.WaddrMul
	}
	isB := isMul != r.WS
	if lri := waddrToLiveReg(waddr, isB); lri >= 0 {
		cond := r.CondAdd
		if isMul {
			cond = r.CondMul
		}
		if s.in.Sig == qpu.SigLoadImm && r.Pack == qpu.PackNone && cond == qpu.CondAlways {
			s.liveImmediates[lri] = s.in.Imm
		} else {
			s.liveImmediates[lri] = noLive
		}
		if liveRegIsUpperHalf(lri) {
			s.allRegistersUsed = true
		}
	}

	if waddr.IsTMU() {
		return s.checkTMUWrite(isMul)
	}
	switch waddr {
	case qpu.WUniformsAddress:
		if isB {
			return errf(syscall.EINVAL, "relative uniforms address change unsupported (ip %d)", s.ip)
		}
		return s.validateUniformAddressWrite(isMul)
	case qpu.WTLBColourMS, qpu.WTLBColourAll, qpu.WTLBZ:
		// These reach only the tile buffer, not memory.
		return nil
	case qpu.WHostInt, qpu.WTMUNoSwap, qpu.WTLBAlphaMask, qpu.WMutexRelease:
		return errf(syscall.EINVAL, "Unsupported waddr %d (ip %d)", waddr, s.ip)
	case qpu.WVPMAddr:
		return errf(syscall.EINVAL, "General VPM DMA unsupported (ip %d)", s.ip)
	}
	// VPM, VPM setup (DMA is only triggered through VPM_ADDR), stencil
	// setup, the SFUs, r0-r3, r5, the register files and the rest.
	return nil
}

// trackLiveClamps is track_live_clamps: it follows "max x, 0" and then
// "min that, uniform", the clamp a direct TMU lookup needs.
func (s *shaderValidation) trackLiveClamps() {
	r := &s.raw
	lriAddA := s.addALiveReg()
	addAIsMin0 := lriAddA >= 0 && s.liveMaxClampRegs[lriAddA]

	lriAdd := waddrToLiveReg(r.WaddrAdd, r.WS)
	lriMul := waddrToLiveReg(r.WaddrMul, !r.WS)
	if lriMul >= 0 {
		s.liveMaxClampRegs[lriMul] = false
		s.liveMinClampOffsets[lriMul] = noLive
	}
	if lriAdd < 0 {
		return
	}
	s.liveMaxClampRegs[lriAdd] = false
	s.liveMinClampOffsets[lriAdd] = noLive

	if r.CondAdd != qpu.CondAlways {
		return
	}
	switch r.OpAdd {
	case qpu.AddMax:
		// max(x, 0) with the small immediate 0 in either operand.
		if s.in.Sig != qpu.SigSmallImm || r.RaddrB != 0 || (r.AddA != qpu.MuxB && r.AddB != qpu.MuxB) {
			return
		}
		s.liveMaxClampRegs[lriAdd] = true
	case qpu.AddMin:
		if !addAIsMin0 || !s.addBReadsUniform(false) {
			return
		}
		s.liveMinClampOffsets[lriAdd] = s.out.UniformsSize
	}
}

// checkInstructionWrites is check_instruction_writes.
func (s *shaderValidation) checkInstructionWrites() error {
	if s.raw.WaddrAdd.IsTMU() && s.raw.WaddrMul.IsTMU() {
		return errf(syscall.EINVAL, "ADD and MUL both set up textures (ip %d)", s.ip)
	}
	err := s.checkRegWrite(false)
	if err == nil {
		err = s.checkRegWrite(true)
	}
	s.trackLiveClamps()
	return err
}

// checkInstructionReads is check_instruction_reads: one uniform per
// instruction that reads UNIFORM_READ, however many ports name it.
func (s *shaderValidation) checkInstructionReads() error {
	r := &s.raw
	if s.readsUniform() {
		s.out.UniformsSize += 4
		if s.needsUniformAddressUpdate {
			return errf(syscall.EINVAL, "Uniform read with undefined uniform address (ip %d)", s.ip)
		}
	}
	if (r.RaddrA >= 16 && r.RaddrA < 32) || (r.RaddrB >= 16 && r.RaddrB < 32 && s.in.Sig != qpu.SigSmallImm) {
		s.allRegistersUsed = true
	}
	return nil
}

// checkBranch is check_branch.
func (s *shaderValidation) checkBranch() error {
	if int32(s.in.Imm) < 0 {
		s.needsUniformAddressForLoop = true
	}
	if s.in.WaddrAdd != qpu.WNop || s.in.WaddrMul != qpu.WNop {
		return errf(syscall.EINVAL, "branch instruction at %d wrote a register", s.ip)
	}
	return nil
}

// validateBranches is vc4_validate_branches: the first pass, which finds
// the program end (max_ip becomes PROG_END + 3) and checks every branch.
func (s *shaderValidation) validateBranches() error {
	maxBranchTarget := 0
	lastBranch := -2
	var targets [][2]int // (branch ip, target) for the strict check below
	for ip := 0; ip < s.maxIP; ip++ {
		in := qpu.Decode(s.words[ip])
		if in.Sig == qpu.SigProgramEnd {
			// Stricter than the kernel: it sets max_ip = ip + 3 even when
			// that is past the BO and then reads beyond it
			// (doc/kernel.md#program-end).
			if ip+3 > len(s.words) {
				return errf(syscall.EINVAL, "program end at instruction %d has no room for its two delay slots in a %d-instruction BO", ip, len(s.words))
			}
			s.maxIP = ip + 3
			continue
		}
		if in.Sig != qpu.SigBranch {
			continue
		}
		if ip-lastBranch < 4 {
			return errf(syscall.EINVAL, "Branch at %d during delay slots", ip)
		}
		lastBranch = ip
		if in.Reg {
			return errf(syscall.EINVAL, "branching from register relative not supported (ip %d)", ip)
		}
		if !in.Rel {
			return errf(syscall.EINVAL, "relative branching required (ip %d)", ip)
		}
		imm := int32(in.Imm)
		if imm&7 != 0 {
			return errf(syscall.EINVAL, "branch target not aligned (ip %d)", ip)
		}
		afterDelay := ip + 4
		target := int64(afterDelay) + int64(imm>>3)
		if target < 0 || target >= int64(s.maxIP) {
			return errf(syscall.EINVAL, "Branch at %d outside of shader (ip %d/%d)", ip, target, s.maxIP)
		}
		s.branchTargets[target] = true
		targets = append(targets, [2]int{ip, int(target)})
		if afterDelay >= s.maxIP {
			return errf(syscall.EINVAL, "Branch at %d continues past shader end (%d/%d)", ip, afterDelay, s.maxIP)
		}
		s.branchTargets[afterDelay] = true
		maxBranchTarget = max(maxBranchTarget, afterDelay)
	}
	if maxBranchTarget > s.maxIP-3 {
		return errf(syscall.EINVAL, "Branch landed after QPU_SIG_PROG_END")
	}
	// Stricter than the kernel: it checks a branch target only against the
	// end known when it meets the branch, and never against the delay
	// slots. A forward branch taken before the program end is found, or one
	// into the end's delay slots, runs code the main pass never validated.
	// A target must be an instruction the main pass checks and from which
	// execution reaches the program end through checked code.
	for _, bt := range targets {
		if bt[1] > s.maxIP-3 {
			return errf(syscall.EINVAL, "Branch at %d lands at %d, after the program end at %d", bt[0], bt[1], s.maxIP-3)
		}
	}
	return nil
}

// handleBranchTarget is vc4_handle_branch_target: a basic block starts at
// the current instruction.
func (s *shaderValidation) handleBranchTarget() error {
	if !s.branchTargets[s.ip] {
		return nil
	}
	if s.tmuWriteCount[0] != 0 || s.tmuWriteCount[1] != 0 {
		return errf(syscall.EINVAL, "Branch target landed during TMU setup (ip %d)", s.ip)
	}
	s.resetState()
	// Entered from several places: the uniform address must be reset
	// before the next uniform is read.
	s.needsUniformAddressUpdate = true
	return nil
}
