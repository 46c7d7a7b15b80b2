package drm

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// ModeInfo is a display mode as the KMS functions return and take it: the
// uAPI struct itself (so the bytes a connector lists go back to SETCRTC
// unchanged) with the helpers a person expects, Name and String.
type ModeInfo struct {
	uapi.ModeModeInfo
}

// Name returns the mode's name as the kernel gives it, e.g. "1920x1080".
func (m ModeInfo) Name() string {
	n := 0
	for n < len(m.ModeModeInfo.Name) && m.ModeModeInfo.Name[n] != 0 {
		n++
	}
	return string(m.ModeModeInfo.Name[:n])
}

// Preferred reports whether the display prefers this mode (its native
// resolution).
func (m ModeInfo) Preferred() bool { return m.Type&uapi.ModeTypePreferred != 0 }

// Interlaced reports whether the mode is interlaced.
func (m ModeInfo) Interlaced() bool { return m.Flags&uapi.ModeFlagInterlace != 0 }

// RefreshMilliHz is the refresh rate in mHz computed from the timings as
// drm_modes.c (drm_mode_vrefresh) does before rounding: clock over
// htotal*vtotal, doubled when interlaced, halved for double scan, divided
// by vscan. 0 when the timings are empty.
func (m ModeInfo) RefreshMilliHz() uint64 {
	num, den := m.refreshFraction()
	if den == 0 {
		return 0
	}
	return (num*1_000_000 + den/2) / den
}

// VrefreshHz is the refresh rate in whole Hz exactly as the kernel rounds
// it into the vrefresh field (drm_modes.c drm_mode_vrefresh:
// DIV_ROUND_CLOSEST of clock·1000 over the frame's pixels, with the same
// interlace, double-scan and vscan factors). 0 when the timings are empty.
func (m ModeInfo) VrefreshHz() uint32 {
	num, den := m.refreshFraction()
	if den == 0 {
		return 0
	}
	return uint32((num*1000 + den/2) / den)
}

// refreshFraction is the refresh rate in kHz-clock units as num/den.
func (m ModeInfo) refreshFraction() (num, den uint64) {
	num = uint64(m.Clock)
	den = uint64(m.Htotal) * uint64(m.Vtotal)
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		num *= 2
	}
	if m.Flags&uapi.ModeFlagDblScan != 0 {
		den *= 2
	}
	if m.Vscan > 1 {
		den *= uint64(m.Vscan)
	}
	return num, den
}

// FramePeriod is the mode's frame (for interlaced modes, field) duration
// from its timings, as the kernel computes the vblank period
// (drm_vblank.c drm_calc_timestamping_constants: framedur_ns =
// htotal·vtotal·1000000 / clock in kHz, integer division, halved for an
// interlaced mode). VKMS's vblank timer runs at exactly this period
// (vkms_crtc.c vkms_enable_vblank). 0 for a mode without a clock.
func (m ModeInfo) FramePeriod() time.Duration {
	if m.Clock == 0 {
		return 0
	}
	ns := uint64(m.Htotal) * uint64(m.Vtotal) * 1_000_000 / uint64(m.Clock)
	if m.Flags&uapi.ModeFlagInterlace != 0 {
		ns /= 2
	}
	return time.Duration(ns)
}

// String formats the mode as "1920x1080@60" ("1920x1080i@60" when
// interlaced), with the kernel's rounded refresh rate.
func (m ModeInfo) String() string {
	hz := uint64(m.Vrefresh)
	if hz == 0 {
		hz = uint64(m.VrefreshHz())
	}
	i := ""
	if m.Interlaced() {
		i = "i"
	}
	return fmt.Sprintf("%dx%d%s@%d", m.Hdisplay, m.Vdisplay, i, hz)
}

// Resources lists a device's KMS objects by id.
type Resources struct {
	FBs        []uint32 // framebuffers of this file
	CRTCs      []uint32 // in index order: bit i of a possible_crtcs mask is CRTCs[i]
	Connectors []uint32
	Encoders   []uint32
	MinWidth   uint32
	MaxWidth   uint32
	MinHeight  uint32
	MaxHeight  uint32
}

// maxCountRetries bounds how often GetResources and GetConnector start
// over when the counts grow between passes (a hotplug in between).
const maxCountRetries = 8

// errCountsUnstable reports counts that kept growing.
var errCountsUnstable = errors.New("the object counts kept changing between passes (hotplug storm?); try again")

// GetResources lists the device's framebuffers, CRTCs, connectors and
// encoders. It follows the kernel's count-then-fill protocol
// (drm_mode_config.c: drm_mode_getresources fills at most Count* ids and
// always writes back the real counts) and starts over while a count grew
// between the passes, as drm_mode.h asks of user space.
func GetResources(c uapi.Conn) (*Resources, error) {
	var arg uapi.ModeCardRes
	if err := c.Ioctl(uapi.IoctlModeGetResources, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetResources, err, "")
	}
	for try := 0; try < maxCountRetries; try++ {
		if max(arg.CountFbs, arg.CountCrtcs, arg.CountConnectors, arg.CountEncoders) > maxReplyCount {
			return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetResources), Req: uapi.IoctlModeGetResources, Err: errBadReply,
				Detail: fmt.Sprintf("counts %d fbs, %d crtcs, %d connectors, %d encoders",
					arg.CountFbs, arg.CountCrtcs, arg.CountConnectors, arg.CountEncoders)}
		}
		r := &Resources{
			FBs:        make([]uint32, arg.CountFbs),
			CRTCs:      make([]uint32, arg.CountCrtcs),
			Connectors: make([]uint32, arg.CountConnectors),
			Encoders:   make([]uint32, arg.CountEncoders),
		}
		var pin runtime.Pinner
		arg.FbIDPtr = pinned(&pin, r.FBs)
		arg.CrtcIDPtr = pinned(&pin, r.CRTCs)
		arg.ConnectorIDPtr = pinned(&pin, r.Connectors)
		arg.EncoderIDPtr = pinned(&pin, r.Encoders)
		err := c.Ioctl(uapi.IoctlModeGetResources, unsafe.Pointer(&arg))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(uapi.IoctlModeGetResources, err, "second pass")
		}
		if int(arg.CountFbs) > len(r.FBs) || int(arg.CountCrtcs) > len(r.CRTCs) ||
			int(arg.CountConnectors) > len(r.Connectors) || int(arg.CountEncoders) > len(r.Encoders) {
			continue // something appeared in between: the arrays are incomplete
		}
		r.FBs = r.FBs[:arg.CountFbs]
		r.CRTCs = r.CRTCs[:arg.CountCrtcs]
		r.Connectors = r.Connectors[:arg.CountConnectors]
		r.Encoders = r.Encoders[:arg.CountEncoders]
		r.MinWidth, r.MaxWidth = arg.MinWidth, arg.MaxWidth
		r.MinHeight, r.MaxHeight = arg.MinHeight, arg.MaxHeight
		return r, nil
	}
	return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetResources), Req: uapi.IoctlModeGetResources, Err: errCountsUnstable}
}

// Connector is a display output: its kind, whether a display is attached,
// and the modes that display supports.
type Connector struct {
	ID        uint32
	Type      uapi.ConnectorType
	TypeID    uint32               // the N of "HDMI-A-N"
	Status    uapi.ConnectorStatus // connected, disconnected, unknown
	EncoderID uint32               // the encoder driving it now, or 0
	Encoders  []uint32             // the encoders that can drive it
	Modes     []ModeInfo           // the display's modes, usually the preferred one first
	MmWidth   uint32               // physical size of the display in mm
	MmHeight  uint32
	Subpixel  uint32 // enum subpixel_order of include/drm/drm_connector.h
}

// Name returns the kernel's name of the connector, e.g. "HDMI-A-1".
func (c *Connector) Name() string {
	return c.Type.String() + "-" + strconv.FormatUint(uint64(c.TypeID), 10)
}

// String formats the connector as "HDMI-A-1 (connected, 17 modes)".
func (c *Connector) String() string {
	return fmt.Sprintf("%s (%s, %d modes)", c.Name(), c.Status, len(c.Modes))
}

// PreferredMode returns the mode the display prefers, else its first mode;
// ok is false when the connector lists no mode.
func (c *Connector) PreferredMode() (m ModeInfo, ok bool) {
	for _, m := range c.Modes {
		if m.Preferred() {
			return m, true
		}
	}
	if len(c.Modes) > 0 {
		return c.Modes[0], true
	}
	return ModeInfo{}, false
}

// GetConnector describes connector id, first asking the kernel to probe
// it again (CountModes 0 does that for the DRM master, as libdrm's
// drmModeGetConnector does): slow, but the modes are fresh.
func GetConnector(c uapi.Conn, id uint32) (*Connector, error) { return getConnector(c, id, true) }

// GetConnectorCurrent describes connector id from what the kernel already
// knows, without a probe (as libdrm's drmModeGetConnectorCurrent).
func GetConnectorCurrent(c uapi.Conn, id uint32) (*Connector, error) {
	return getConnector(c, id, false)
}

// getConnector runs the count-then-fill protocol of GETCONNECTOR: the
// kernel (drm_connector.c: drm_mode_getconnector) fills the encoder and
// mode arrays only when their counts are large enough and always writes
// back the real counts, so the passes repeat while a count grew. Property
// lists are not fetched (vccube uses no connector property).
func getConnector(c uapi.Conn, id uint32, probe bool) (*Connector, error) {
	detail := func() string { return fmt.Sprintf("connector %d", id) }
	// A one-mode scratch array keeps CountModes non-zero on the passes that
	// must not probe (libdrm does the same with a mode on its stack).
	scratch := make([]ModeInfo, 1)
	arg := uapi.ModeGetConnector{ConnectorID: id}
	var pin runtime.Pinner
	defer pin.Unpin()
	if !probe {
		arg.CountModes, arg.ModesPtr = 1, pinned(&pin, scratch)
	}
	if err := c.Ioctl(uapi.IoctlModeGetConnector, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(uapi.IoctlModeGetConnector, err, detail())
	}
	for try := 0; try < maxCountRetries; try++ {
		if arg.CountModes > maxReplyCount || arg.CountEncoders > maxReplyCount {
			return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetConnector), Req: uapi.IoctlModeGetConnector, Err: errBadReply,
				Detail: fmt.Sprintf("connector %d: %d modes, %d encoders", id, arg.CountModes, arg.CountEncoders)}
		}
		modes := make([]ModeInfo, arg.CountModes)
		encoders := make([]uint32, arg.CountEncoders)
		arg = uapi.ModeGetConnector{
			ConnectorID:   id,
			CountModes:    uint32(len(modes)),
			ModesPtr:      pinned(&pin, modes),
			CountEncoders: uint32(len(encoders)),
			EncodersPtr:   pinned(&pin, encoders),
		}
		if len(modes) == 0 {
			arg.CountModes, arg.ModesPtr = 1, pinned(&pin, scratch)
		}
		if err := c.Ioctl(uapi.IoctlModeGetConnector, unsafe.Pointer(&arg)); err != nil {
			return nil, ioctlError(uapi.IoctlModeGetConnector, err, detail())
		}
		if int(arg.CountModes) > len(modes) || int(arg.CountEncoders) > len(encoders) {
			continue // a display was plugged in between: ask again with room for its modes
		}
		return &Connector{
			ID:        arg.ConnectorID,
			Type:      uapi.ConnectorType(arg.ConnectorType),
			TypeID:    arg.ConnectorTypeID,
			Status:    uapi.ConnectorStatus(arg.Connection),
			EncoderID: arg.EncoderID,
			Encoders:  encoders[:arg.CountEncoders],
			Modes:     modes[:arg.CountModes],
			MmWidth:   arg.MmWidth,
			MmHeight:  arg.MmHeight,
			Subpixel:  arg.Subpixel,
		}, nil
	}
	return nil, &Error{Op: uapi.IoctlName(uapi.IoctlModeGetConnector), Req: uapi.IoctlModeGetConnector, Err: errCountsUnstable, Detail: detail()}
}

// Encoder links connectors to CRTCs.
type Encoder struct {
	ID             uint32
	Type           uapi.EncoderType
	CrtcID         uint32 // the CRTC it is attached to, or 0
	PossibleCrtcs  uint32 // bit i: it can be driven by Resources.CRTCs[i]
	PossibleClones uint32
}

// GetEncoder describes encoder id.
func GetEncoder(c uapi.Conn, id uint32) (Encoder, error) {
	arg := uapi.ModeGetEncoder{EncoderID: id}
	if err := c.Ioctl(uapi.IoctlModeGetEncoder, unsafe.Pointer(&arg)); err != nil {
		return Encoder{}, ioctlError(uapi.IoctlModeGetEncoder, err, fmt.Sprintf("encoder %d", id))
	}
	return Encoder{ID: arg.EncoderID, Type: uapi.EncoderType(arg.EncoderType), CrtcID: arg.CrtcID,
		PossibleCrtcs: arg.PossibleCrtcs, PossibleClones: arg.PossibleClones}, nil
}

// Crtc is a scanout engine's state: the framebuffer it shows and its mode.
type Crtc struct {
	ID        uint32
	FbID      uint32 // 0 when it shows nothing
	X, Y      uint32 // position of the visible area in the framebuffer
	GammaSize uint32
	ModeValid bool // Mode is meaningful (the CRTC is on)
	Mode      ModeInfo
}

// GetCrtc describes CRTC id; save it before SetCrtc to restore it on exit.
func GetCrtc(c uapi.Conn, id uint32) (Crtc, error) {
	arg := uapi.ModeCrtc{CrtcID: id}
	if err := c.Ioctl(uapi.IoctlModeGetCrtc, unsafe.Pointer(&arg)); err != nil {
		return Crtc{}, ioctlError(uapi.IoctlModeGetCrtc, err, fmt.Sprintf("crtc %d", id))
	}
	return Crtc{ID: arg.CrtcID, FbID: arg.FbID, X: arg.X, Y: arg.Y, GammaSize: arg.GammaSize,
		ModeValid: arg.ModeValid != 0, Mode: ModeInfo{arg.Mode}}, nil
}

// SetCrtc shows framebuffer fb on CRTC crtc in mode, at (x, y) of the
// framebuffer, driving the given connectors. A nil mode turns the CRTC off
// (then fb and connectors must be 0 and empty). Needs DRM master.
func SetCrtc(c uapi.Conn, crtc, fb, x, y uint32, connectors []uint32, mode *ModeInfo) error {
	conns := append([]uint32(nil), connectors...) // a heap copy to pin
	arg := uapi.ModeCrtc{CrtcID: crtc, FbID: fb, X: x, Y: y, CountConnectors: uint32(len(conns))}
	var pin runtime.Pinner
	defer pin.Unpin()
	arg.SetConnectorsPtr = pinned(&pin, conns)
	if mode != nil {
		arg.ModeValid, arg.Mode = 1, mode.ModeModeInfo
	}
	if err := c.Ioctl(uapi.IoctlModeSetCrtc, unsafe.Pointer(&arg)); err != nil {
		m := "off"
		if mode != nil {
			m = mode.String()
		}
		return ioctlError(uapi.IoctlModeSetCrtc, err, fmt.Sprintf("crtc %d, fb %d, mode %s, connectors %v", crtc, fb, m, connectors))
	}
	return nil
}

// AddFB2 registers a framebuffer described by cmd (pixel format, up to
// four planes of BO handle, pitch and offset, modifiers when
// FbModifiers is set) and stores its id in cmd.FbID.
func AddFB2(c uapi.Conn, cmd *uapi.ModeFbCmd2) error {
	if err := c.Ioctl(uapi.IoctlModeAddFB2, unsafe.Pointer(cmd)); err != nil {
		return ioctlError(uapi.IoctlModeAddFB2, err, fmt.Sprintf("%dx%d %s, handle %d, pitch %d, flags %d, modifier 0x%x",
			cmd.Width, cmd.Height, fourccString(cmd.PixelFormat), cmd.Handles[0], cmd.Pitches[0], cmd.Flags, cmd.Modifier[0]))
	}
	return nil
}

// AddFramebuffer registers a single-plane framebuffer of BO handle and
// returns its id. A modifier other than FormatModLinear (such as
// FormatModBroadcomVC4TTiled) is passed with FbModifiers; linear buffers
// go without, so drivers that know no modifiers accept them too.
func AddFramebuffer(c uapi.Conn, width, height, format, handle, pitch uint32, modifier uint64) (uint32, error) {
	cmd := uapi.ModeFbCmd2{Width: width, Height: height, PixelFormat: format}
	cmd.Handles[0], cmd.Pitches[0] = handle, pitch
	if modifier != uapi.FormatModLinear {
		cmd.Flags |= uapi.FbModifiers
		cmd.Modifier[0] = modifier
	}
	if err := AddFB2(c, &cmd); err != nil {
		return 0, err
	}
	return cmd.FbID, nil
}

// fourccString spells a pixel format as its four characters, e.g. "XR24".
func fourccString(f uint32) string {
	b := []byte{byte(f), byte(f >> 8), byte(f >> 16), byte(f >> 24)}
	for _, ch := range b {
		if ch < ' ' || ch > '~' {
			return fmt.Sprintf("format 0x%08x", f)
		}
	}
	return string(b)
}

// RmFB removes framebuffer fb; a CRTC showing it is turned off.
func RmFB(c uapi.Conn, fb uint32) error {
	arg := fb
	if err := c.Ioctl(uapi.IoctlModeRmFB, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlModeRmFB, err, fmt.Sprintf("fb %d", fb))
	}
	return nil
}

// PageFlip asks the CRTC arg.CrtcID to show framebuffer arg.FbID from the
// next vblank on. With PageFlipEvent in arg.Flags the kernel queues an
// EventTypeFlipComplete event carrying arg.UserData when the flip is done;
// until then another flip on the CRTC fails with EBUSY. Needs DRM master.
//
// arg is the caller's, reused every frame: a struct that only lived in
// this call would escape to the heap through the Conn interface, one
// allocation per frame.
func PageFlip(c uapi.Conn, arg *uapi.ModeCrtcPageFlip) error {
	if err := c.Ioctl(uapi.IoctlModePageFlip, unsafe.Pointer(arg)); err != nil {
		return ioctlError(uapi.IoctlModePageFlip, err, fmt.Sprintf("crtc %d, fb %d, flags 0x%x", arg.CrtcID, arg.FbID, arg.Flags))
	}
	return nil
}

// DumbBuffer is a CPU-drawn scanout buffer from CreateDumb.
type DumbBuffer struct {
	Handle uint32 // GEM handle; free with DestroyDumb
	Pitch  uint32 // bytes per row
	Size   uint64 // bytes
}

// CreateDumb allocates a linear buffer of width x height pixels of bpp
// bits that KMS can scan out.
func CreateDumb(c uapi.Conn, width, height, bpp uint32) (DumbBuffer, error) {
	arg := uapi.ModeCreateDumb{Width: width, Height: height, Bpp: bpp}
	if err := c.Ioctl(uapi.IoctlModeCreateDumb, unsafe.Pointer(&arg)); err != nil {
		return DumbBuffer{}, ioctlError(uapi.IoctlModeCreateDumb, err, fmt.Sprintf("%dx%d, %d bpp", width, height, bpp))
	}
	return DumbBuffer{Handle: arg.Handle, Pitch: arg.Pitch, Size: arg.Size}, nil
}

// MapDumb returns the fake offset at which Conn.Mmap maps a dumb buffer.
func MapDumb(c uapi.Conn, handle uint32) (uint64, error) {
	arg := uapi.ModeMapDumb{Handle: handle}
	if err := c.Ioctl(uapi.IoctlModeMapDumb, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(uapi.IoctlModeMapDumb, err, fmt.Sprintf("handle %d", handle))
	}
	return arg.Offset, nil
}

// DestroyDumb frees a dumb buffer's handle.
func DestroyDumb(c uapi.Conn, handle uint32) error {
	arg := uapi.ModeDestroyDumb{Handle: handle}
	if err := c.Ioctl(uapi.IoctlModeDestroyDumb, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(uapi.IoctlModeDestroyDumb, err, fmt.Sprintf("handle %d", handle))
	}
	return nil
}
