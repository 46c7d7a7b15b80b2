package record_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vccube/vccube/record"
)

// Recording 90 frames — one full turn of the cube at 4° a frame, so the
// animation loops without a jump. The file is checked before the first
// frame is rendered, and removed if the run fails.
func Example() {
	path := filepath.Join(os.TempDir(), "cube.gif")
	g, err := record.Create(path, record.Options{FPS: 60, Scale: 2})
	if err != nil {
		fmt.Println(err) // before any rendering
		return
	}
	defer g.Discard()
	const w, h = 64, 48
	px := make([]byte, 4*w*h)
	for k := 0; k < 90; k++ {
		for i := range px {
			px[i] = byte(k) // stands for the renderer's frame k
		}
		if err := g.AddXRGB(px, w, h, 4*w); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := g.Close(); err != nil {
		fmt.Println(err)
		return
	}
	gw, gh := g.Size()
	fmt.Printf("%d frames of %d×%d\n", g.Frames(), gw, gh)
	os.Remove(path)
	// Output: 90 frames of 32×24
}
