package convert_test

import (
	"fmt"

	"github.com/vccube/vccube/texture"
	"github.com/vccube/vccube/texture/convert"
	"github.com/vccube/vccube/texture/defaulttex"
)

// The renderer's path: the default texture, in the scanout's byte order,
// one mip level, FLIPY (the "alternative 2" of the post "vc4: T-format
// Textures"), sampled like vkcube.
func ExampleUpload() {
	pic := defaulttex.Picture(texture.OrderBGRA)
	plan, err := texture.NewMipPlan(texture.RGBA8888, pic.Width, pic.Height, 1)
	if err != nil {
		panic(err)
	}
	bo := make([]byte, plan.Size()) // in vccube: the mapped buffer object
	mode := texture.FlipByGPU
	if err := convert.Upload(&plan, bo, []texture.Picture{pic}, mode.FlipsRows()); err != nil {
		panic(err)
	}
	p0, p1, err := plan.Params(0, mode, texture.VkcubeSampler)
	if err != nil {
		panic(err)
	}
	w0, _ := p0.Encode()
	w1, _ := p1.Encode()
	fmt.Println(plan.Level(0).Layout)
	fmt.Printf("%#08x %v\n%#08x %v\n", w0, p0, w1, p1)
	// Output:
	// T 256×256 cpp 4 (256×256, 262144 bytes)
	// 0x00000100 P0{base=0x00000000 type[3:0]=0 miplvls=0 flipy}
	// 0x10010095 P1{256x256 min=nearest mag=nearest wrap_s=clamp wrap_t=clamp}
}
