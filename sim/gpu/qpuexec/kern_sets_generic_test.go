//go:build !amd64 || purego

package qpuexec

// simdSets returns no assembly kernel sets: this build runs the Go loops.
func simdSets() []*kernelSet { return nil }

// colourPackVecs returns colourPackVec, the Go loop in this build.
func colourPackVecs() []namedColourPack { return []namedColourPack{{"Go", colourPackVec}} }

// colourToFloatVecs returns colourToFloatVec as the colour kernel of a
// set of its own.
func colourToFloatVecs() []*kernelSet {
	return []*kernelSet{{name: "colourToFloatVec", colour: colourToFloatVec}}
}

// colourForms is colourPacks' one form in this build, colourPacksGo.
var colourForms = []colourForm{{"Go", func() {}, func() {}}}
