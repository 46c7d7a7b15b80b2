package gem

import (
	"errors"
	"fmt"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// V3DInfo describes a VideoCore IV 3D engine from its identification
// registers.
type V3DInfo struct {
	Ident0, Ident1, Ident2 uint32 // the raw registers (ParamV3DIdent0..2)

	// Fields of IDENT0 and IDENT1 (vc4_regs.h: V3D_IDENT0, V3D_IDENT1_*).
	TechVersion  uint32 // IDENT0 bits 31:24: 2 for VideoCore IV
	Revision     uint32 // IDENT1 bits 3:0
	Slices       uint32 // IDENT1 bits 7:4 (NSLC)
	QPUsPerSlice uint32 // IDENT1 bits 11:8 (QUPS)
	TMUsPerSlice uint32 // IDENT1 bits 15:12 (TUPS)
	Semaphores   uint32 // IDENT1 bits 23:16 (NSEM)
	VPMSizeKiB   uint32 // IDENT1 bits 31:28, in KiB
}

// DecodeIdent fills a V3DInfo from the raw IDENT registers.
func DecodeIdent(ident0, ident1, ident2 uint32) V3DInfo {
	return V3DInfo{
		Ident0: ident0, Ident1: ident1, Ident2: ident2,
		TechVersion:  ident0 >> 24,
		Revision:     ident1 & 0xf,
		Slices:       ident1 >> 4 & 0xf,
		QPUsPerSlice: ident1 >> 8 & 0xf,
		TMUsPerSlice: ident1 >> 12 & 0xf,
		Semaphores:   ident1 >> 16 & 0xff,
		VPMSizeKiB:   ident1 >> 28,
	}
}

// String describes the engine, e.g. "VideoCore IV 3D (V3D 2.1): 3 slices
// of 4 QPUs (12 QPUs), 2 TMUs per slice, 12 KiB VPM, 16 semaphores".
func (v V3DInfo) String() string {
	return fmt.Sprintf("VideoCore IV 3D (V3D %d.%d): %d slices of %d QPUs (%d QPUs), %d TMUs per slice, %d KiB VPM, %d semaphores",
		v.TechVersion, v.Revision, v.Slices, v.QPUsPerSlice, v.Slices*v.QPUsPerSlice, v.TMUsPerSlice, v.VPMSizeKiB, v.Semaphores)
}

// ErrNoVideoCoreIV is matched (errors.Is) by every probe failure.
var ErrNoVideoCoreIV = errors.New("no VideoCore IV 3D engine")

// ProbeError says why a device is not a VideoCore IV, in words.
type ProbeError struct {
	Driver string // the device's driver name, when known
	Reason string // a sentence for a person
	Err    error  // the failed call, if any
}

// Error returns the reason, a sentence for a person.
func (e *ProbeError) Error() string { return e.Reason }

// Unwrap lets errors.Is match ErrNoVideoCoreIV and the underlying errno.
func (e *ProbeError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrNoVideoCoreIV}
	}
	return []error{ErrNoVideoCoreIV, e.Err}
}

// ProbeV3D tells whether c is a vc4 device with a VideoCore IV 3D engine
// (Raspberry Pi 0-3), following doc/kernel.md#probing-the-device: the driver must be
// "vc4" and GET_PARAM(V3D_IDENT0) must succeed with V3DExpectedIdent0. A
// display-only vc4 (Pi 4/5) answers EINVAL to every vc4 ioctl (vc4_drv.c:
// vc5_drm_driver has no ioctls); a vc4 whose V3D is not bound answers
// ENODEV. The error is a *ProbeError saying which, in words.
func ProbeV3D(c uapi.Conn) (V3DInfo, error) {
	v, err := drm.GetVersion(c)
	if err != nil {
		return V3DInfo{}, &ProbeError{Reason: "cannot identify the device: " + err.Error(), Err: err}
	}
	return probeDriver(c, v.Name)
}

// probeDriver is ProbeV3D after the driver name is known.
func probeDriver(c uapi.Conn, driver string) (V3DInfo, error) {
	switch driver {
	case "vc4":
	case "v3d":
		return V3DInfo{}, &ProbeError{Driver: driver, Reason: `the driver is "v3d": the 3D engine of a Raspberry Pi 4 or 5 ` +
			`(VideoCore VI/VII), which vccube does not drive; vccube needs the VideoCore IV of a Pi 0-3`}
	default:
		return V3DInfo{}, &ProbeError{Driver: driver, Reason: fmt.Sprintf("the driver is %q, not vc4", driver)}
	}
	id0, err := Param(c, uapi.ParamV3DIdent0)
	switch {
	case errors.Is(err, unix.EINVAL):
		return V3DInfo{}, &ProbeError{Driver: driver, Err: err, Reason: "display-only vc4: it refuses the VC4 3D ioctls with EINVAL, " +
			"as on a Raspberry Pi 4 or 5, whose 3D engine (VideoCore VI/VII) is the separate v3d driver; vccube needs the VideoCore IV of a Pi 0-3"}
	case errors.Is(err, unix.ENODEV):
		return V3DInfo{}, &ProbeError{Driver: driver, Err: err, Reason: "vc4 without a V3D: the kernel bound no VideoCore IV 3D engine " +
			"(ENODEV); on a Pi 0-3 enable it with dtoverlay=vc4-kms-v3d in config.txt (a Pi 4 on an older kernel looks the same)"}
	case err != nil:
		return V3DInfo{}, &ProbeError{Driver: driver, Err: err, Reason: "cannot read the V3D identification: " + err.Error()}
	}
	if id0 != uapi.V3DExpectedIdent0 {
		return V3DInfo{}, &ProbeError{Driver: driver, Reason: fmt.Sprintf(
			"V3D IDENT0 is 0x%08x, not 0x%08x ('V3D', technology version 2): not a VideoCore IV", id0, uint32(uapi.V3DExpectedIdent0))}
	}
	// IDENT1 and IDENT2 are descriptive only; a failure leaves them 0.
	id1, _ := Param(c, uapi.ParamV3DIdent1)
	id2, _ := Param(c, uapi.ParamV3DIdent2)
	return DecodeIdent(uint32(id0), uint32(id1), uint32(id2)), nil
}

// OpenVC4 opens the first card node of dir (drm.DefaultDir on a real
// system) that is a vc4 with a VideoCore IV 3D engine, and closes every
// other node it opened. When there is none, the error lists each card
// found and why it was passed over, e.g. "no vc4 card with VideoCore IV
// 3D in /dev/dri; found card0: vc4 (passed over: display-only vc4: ...);
// card1: v3d (passed over: ...)".
func OpenVC4(dir string) (uapi.Conn, drm.Card, V3DInfo, error) {
	return OpenVC4With(dir, func(path string) (uapi.Conn, error) { return drm.Open(path) })
}

// OpenVC4With is OpenVC4 with the function that opens a card node
// (drm.OpenFirstWith).
func OpenVC4With(dir string, open func(path string) (uapi.Conn, error)) (uapi.Conn, drm.Card, V3DInfo, error) {
	var info V3DInfo
	c, card, err := drm.OpenFirstWith(dir, "vc4 card with VideoCore IV 3D", open, func(c uapi.Conn, card drm.Card) error {
		var err error
		info, err = probeDriver(c, card.Version.Name)
		return err
	})
	if err != nil {
		return nil, drm.Card{}, V3DInfo{}, err
	}
	return c, card, info, nil
}
