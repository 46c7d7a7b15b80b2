package simserve

// ProcessCPU is processCPU, for the tests to read the clock FrameStats
// reads.
var ProcessCPU = processCPU

// DialPointerSize is Dial as a client whose pointers are ptrSize bytes
// (4: a 32-bit program).
var DialPointerSize = dial
