//go:build !amd64 || purego

package qpuexec

import "github.com/vccube/vccube/shaders/qpu"

// colourPackVec is colourPackGo.
func colourPackVec(p qpu.Pack, d, r *vec) { colourPackGo(p, d, r) }

// Without the amd64 assembly (other architectures, or the purego build
// tag) the kernels are kernels.go's Go loops.

var (
	kFAdd   kernel = kFAddGo
	kFSub   kernel = kFSubGo
	kFMul   kernel = kFMulGo
	kV8Muld kernel = kV8MuldGo
	kV8Adds kernel = kV8AddsGo
	kV8Subs kernel = kV8SubsGo
	kV8Min  kernel = kV8MinGo
	kV8Max  kernel = kV8MaxGo
	kAnd    kernel = kAndGo
	kOr     kernel = kOrGo
	kXor    kernel = kXorGo
	kAdd    kernel = kAddGo
	kSub    kernel = kSubGo
)
