package simserve

// ProcessCPU is processCPU, for the tests to read the clock FrameStats
// reads.
var ProcessCPU = processCPU
