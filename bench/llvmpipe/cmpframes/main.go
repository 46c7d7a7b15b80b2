// Command cmpframes checks that the llvmpipe peer (bench/llvmpipe/peer.c)
// draws the picture vccube draws: it compares the peer's capture of frame
// K with vccube's capture of the same frame, and each of them with the
// independent reference renderer's frame K (internal/refrender), under
// internal/imgcmp's Default rule. bench/llvmpipe/compare -check runs it:
//
//	cmpframes -frame K -texture TEX.ppm -peer PEER.ppm -vccube VCCUBE.png [-diff DIR]
//
// Each line names the two frames, the metrics and PASS or FAIL; the exit
// status is 1 when any comparison fails. With -diff, each failing pair
// leaves a PNG of both frames and their difference in DIR.
package main

import (
	"flag"
	"fmt"
	"image"
	"os"
	"path/filepath"

	"github.com/vccube/vccube/internal/imgcmp"
	"github.com/vccube/vccube/internal/refrender"
	"github.com/vccube/vccube/internal/toolflags"
)

// usageHead is the start of -h, before the flags.
const usageHead = `cmpframes checks that the llvmpipe benchmark peer (bench/llvmpipe/peer.c)
draws the picture vccube draws: it compares the peer's capture of frame K
with vccube's, and each with the reference renderer's frame K, and prints a
PASS or FAIL line per pair; the exit status is 1 when any comparison fails.

Usage: cmpframes -frame K -texture TEX -peer PEER.ppm -vccube VCCUBE.png [-diff DIR]

Flags:
`

func main() {
	fs := flag.NewFlagSet("cmpframes", flag.ContinueOnError)
	frame := fs.Int("frame", 0, "the frame number `K` both captured")
	tex := fs.String("texture", "", "the texture `FILE` both drew (PNG or binary PPM)")
	peer := fs.String("peer", "", "the peer's capture (`FILE`.ppm)")
	vc := fs.String("vccube", "", "vccube's capture (`FILE`.png)")
	diff := fs.String("diff", "", "write a difference picture of each failing pair into `DIR`")
	toolflags.Parse(fs, usageHead, 0)
	if *tex == "" || *peer == "" || *vc == "" {
		fmt.Fprintln(os.Stderr, "cmpframes: -texture, -peer and -vccube are required (cmpframes -h lists the flags)")
		os.Exit(2)
	}
	failed, err := check(*frame, *tex, *peer, *vc, *diff)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmpframes:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}

// check compares the three frames pairwise and reports whether any pair
// fails the rule.
func check(frame int, texPath, peerPath, vcPath, diffDir string) (failed bool, err error) {
	tex, err := refrender.ReadTextureFile(texPath)
	if err != nil {
		return false, err
	}
	peer, err := refrender.ReadTextureFile(peerPath) // a PNG or P6 reader, like any other
	if err != nil {
		return false, err
	}
	vc, err := refrender.ReadTextureFile(vcPath)
	if err != nil {
		return false, err
	}
	b := vc.Bounds()
	ref, err := refrender.Render(refrender.Options{Width: b.Dx(), Height: b.Dy(), Frame: frame, Texture: tex})
	if err != nil {
		return false, err
	}
	rule := imgcmp.Default
	fmt.Printf("frame %d, %dx%d, rule: %v\n", frame, b.Dx(), b.Dy(), rule)
	for _, p := range []struct {
		name      string
		got, want image.Image
	}{
		{"llvmpipe-vs-vccube", peer, vc},
		{"llvmpipe-vs-reference", peer, ref.Image},
		{"vccube-vs-reference", vc, ref.Image},
	} {
		res, err := rule.Check(p.got, p.want)
		verdict := "PASS"
		if err != nil {
			verdict, failed = "FAIL", true
			if diffDir != "" {
				name := filepath.Join(diffDir, fmt.Sprintf("%s-%d.png", p.name, frame))
				if werr := imgcmp.WriteDiff(name, p.got, p.want, rule.Threshold); werr != nil {
					return failed, werr
				}
			}
		}
		fmt.Printf("  %-22s %s: %v\n", p.name, verdict, res)
	}
	return failed, nil
}
