package termview

import "strings"

// ColourMode says which colour escape sequences the view sends.
type ColourMode uint8

const (
	// ColourAuto picks Truecolour when the environment says the terminal
	// has it (DetectColour) and Colour256 otherwise.
	ColourAuto ColourMode = iota
	// Truecolour sends each cell's exact 24-bit colour: SGR 38;2;R;G;B
	// for the foreground and 48;2;R;G;B for the background (ITU-T T.416
	// direct colour, as xterm's ctlseqs "Character Attributes (SGR)"
	// lists it, with semicolons as most terminals accept).
	Truecolour
	// Colour256 sends the nearest colour of xterm's 256-colour palette:
	// SGR 38;5;N and 48;5;N (xterm ctlseqs, SGR). Only the 6×6×6 cube
	// (16–231) and the grey ramp (232–255) are used: their colours are
	// fixed, while 0–15 are whatever the user's theme makes them.
	Colour256
)

// String names the mode.
func (m ColourMode) String() string {
	switch m {
	case ColourAuto:
		return "auto"
	case Truecolour:
		return "24-bit colour"
	case Colour256:
		return "256 colours"
	}
	return "ColourMode(?)"
}

// DetectColour returns Truecolour when COLORTERM is "truecolor" or
// "24bit" — the convention terminals (VTE, Konsole, iTerm2, kitty,
// WezTerm, Windows Terminal, tmux with its Tc/RGB feature) use to announce
// direct colour, since terminfo has no standard capability for it — and
// Colour256 otherwise. getenv is os.Getenv outside tests.
//
// The fallback is 256 colours rather than 8 or 16 because nearly every
// terminal in use has them and because the basic colours depend on the
// user's theme, which would make the cube's colours meaningless. A
// terminal that has direct colour but does not say so (COLORTERM is not
// passed through ssh or sudo, for example) gets the 256-colour picture;
// set COLORTERM=truecolor to get the exact one.
func DetectColour(getenv func(string) string) ColourMode {
	switch strings.ToLower(getenv("COLORTERM")) {
	case "truecolor", "24bit":
		return Truecolour
	}
	return Colour256
}

// The xterm 256-colour palette beyond the 16 theme colours (xterm's
// 256colres.pl, which generates 256colres.h): indices 16–231 are a
// 6×6×6 cube, index 16 + 36r + 6g + b with channel levels
// 0, 95, 135, 175, 215, 255 (0, then 55 + 40·i); indices 232–255 are
// greys 8 + 10·i for i = 0..23.
var cubeLevels = [6]uint8{0, 95, 135, 175, 215, 255}

const (
	cubeBase  = 16
	greyBase  = 232
	greySteps = 24
)

// greyLevel returns the value of grey-ramp step i (index 232 + i).
func greyLevel(i int) int { return 8 + 10*i }

// nearestCubeLevel maps a channel value to the index (0–5) of the nearest
// cube level, ties going to the lower one. It is filled once by init.
var nearestCubeLevel [256]uint8

func init() {
	for v := 0; v < 256; v++ {
		best, bestD := 0, 1<<30
		for i, l := range cubeLevels {
			d := v - int(l)
			if d < 0 {
				d = -d
			}
			if d < bestD {
				best, bestD = i, d
			}
		}
		nearestCubeLevel[v] = uint8(best)
	}
}

// xterm256 returns the palette index (16–255) nearest to the colour
// 0xRRGGBB by squared RGB distance: the nearest cube colour and the
// nearest grey are both tried and the closer one is taken (the cube wins
// a tie).
func xterm256(rgb uint32) uint32 {
	r, g, b := int(rgb>>16&0xff), int(rgb>>8&0xff), int(rgb&0xff)
	ri, gi, bi := nearestCubeLevel[r], nearestCubeLevel[g], nearestCubeLevel[b]
	cube := cubeBase + 36*uint32(ri) + 6*uint32(gi) + uint32(bi)
	dCube := sq(r-int(cubeLevels[ri])) + sq(g-int(cubeLevels[gi])) + sq(b-int(cubeLevels[bi]))

	// The grey nearest to (r, g, b) in squared distance is the one nearest
	// to the mean (r+g+b)/3: step (sum−24)/30, or the step after it.
	k := (r + g + b - 24) / 30
	if k < 0 {
		k = 0
	}
	if k >= greySteps {
		k = greySteps - 1
	}
	gl := greyLevel(k)
	dGrey := sq(r-gl) + sq(g-gl) + sq(b-gl)
	if k+1 < greySteps {
		gl1 := greyLevel(k + 1)
		if d := sq(r-gl1) + sq(g-gl1) + sq(b-gl1); d < dGrey {
			k, dGrey = k+1, d
		}
	}
	if dGrey < dCube {
		return greyBase + uint32(k)
	}
	return cube
}

func sq(x int) int { return x * x }
