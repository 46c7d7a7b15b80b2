package scene_test

import (
	"fmt"

	"github.com/vccube/vccube/math/scene"
)

// A renderer makes one Scene for the display mode and one Frame it
// refills every frame; Update does not allocate.
func Example() {
	s, err := scene.New(800, 600)
	if err != nil {
		panic(err)
	}
	var f scene.Frame
	s.Update(&f, 0)
	vp := s.Viewport()
	fmt.Printf("viewport scale %v, %v; centre %v, %v (1/16 px); z %v·z+%v\n",
		vp.XScale16(), vp.YScale16(), vp.CentreX16(), vp.CentreY16(), scene.ZScale, scene.ZOffset)
	for face := scene.Face(0); face < scene.NumFaces; face++ {
		if f.FrontFacing[face] {
			fmt.Printf("face %v: light %.4f\n", face, f.Light[face])
		}
	}
	// Output:
	// viewport scale 6400, -4800; centre 6400, 4800 (1/16 px); z 0.5·z+0.5
	// face +Y: light 0.9034
	// face +Z: light 0.5493
}
