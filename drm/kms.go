package drm

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"time"
	"unsafe"
)

// ConnectorType is a connector's kind (DRM_MODE_CONNECTOR_* in drm_mode.h).
type ConnectorType uint32

// Connector types.
const (
	ConnectorUnknown     ConnectorType = 0
	ConnectorVGA         ConnectorType = 1
	ConnectorDVII        ConnectorType = 2
	ConnectorDVID        ConnectorType = 3
	ConnectorDVIA        ConnectorType = 4
	ConnectorComposite   ConnectorType = 5
	ConnectorSVideo      ConnectorType = 6
	ConnectorLVDS        ConnectorType = 7
	ConnectorComponent   ConnectorType = 8
	Connector9PinDIN     ConnectorType = 9
	ConnectorDisplayPort ConnectorType = 10
	ConnectorHDMIA       ConnectorType = 11
	ConnectorHDMIB       ConnectorType = 12
	ConnectorTV          ConnectorType = 13
	ConnectorEDP         ConnectorType = 14
	ConnectorVirtual     ConnectorType = 15
	ConnectorDSI         ConnectorType = 16
	ConnectorDPI         ConnectorType = 17
	ConnectorWriteback   ConnectorType = 18
	ConnectorSPI         ConnectorType = 19
	ConnectorUSB         ConnectorType = 20
)

// connectorNames are the kernel's names of the connector types
// (drm_connector.c: drm_connector_enum_list), which make up connector
// names such as "HDMI-A-1" in sysfs, dmesg and the video= parameter.
var connectorNames = [...]string{
	ConnectorUnknown:     "Unknown",
	ConnectorVGA:         "VGA",
	ConnectorDVII:        "DVI-I",
	ConnectorDVID:        "DVI-D",
	ConnectorDVIA:        "DVI-A",
	ConnectorComposite:   "Composite",
	ConnectorSVideo:      "SVIDEO",
	ConnectorLVDS:        "LVDS",
	ConnectorComponent:   "Component",
	Connector9PinDIN:     "DIN",
	ConnectorDisplayPort: "DP",
	ConnectorHDMIA:       "HDMI-A",
	ConnectorHDMIB:       "HDMI-B",
	ConnectorTV:          "TV",
	ConnectorEDP:         "eDP",
	ConnectorVirtual:     "Virtual",
	ConnectorDSI:         "DSI",
	ConnectorDPI:         "DPI",
	ConnectorWriteback:   "Writeback",
	ConnectorSPI:         "SPI",
	ConnectorUSB:         "USB",
}

// String returns the kernel's name of the type, e.g. "HDMI-A".
func (t ConnectorType) String() string {
	if int(t) < len(connectorNames) {
		return connectorNames[t]
	}
	return "Connector" + strconv.FormatUint(uint64(t), 10)
}

// ConnectorStatus says whether a display is attached (enum
// drm_connector_status in include/drm/drm_connector.h; the uAPI has no
// names for it).
type ConnectorStatus uint32

// Connector states.
const (
	StatusConnected    ConnectorStatus = 1
	StatusDisconnected ConnectorStatus = 2
	StatusUnknown      ConnectorStatus = 3
)

// String returns "connected", "disconnected" or "unknown".
func (s ConnectorStatus) String() string {
	switch s {
	case StatusConnected:
		return "connected"
	case StatusDisconnected:
		return "disconnected"
	case StatusUnknown:
		return "unknown"
	}
	return "status " + strconv.FormatUint(uint64(s), 10)
}

// EncoderType is an encoder's kind (DRM_MODE_ENCODER_* in drm_mode.h).
type EncoderType uint32

// Encoder types.
const (
	EncoderNone    EncoderType = 0
	EncoderDAC     EncoderType = 1
	EncoderTMDS    EncoderType = 2
	EncoderLVDS    EncoderType = 3
	EncoderTVDAC   EncoderType = 4
	EncoderVirtual EncoderType = 5
	EncoderDSI     EncoderType = 6
	EncoderDPMST   EncoderType = 7
	EncoderDPI     EncoderType = 8
)

// encoderNames are the kernel's names (drm_encoder.c: drm_encoder_enum_list).
var encoderNames = [...]string{
	EncoderNone: "None", EncoderDAC: "DAC", EncoderTMDS: "TMDS", EncoderLVDS: "LVDS",
	EncoderTVDAC: "TV", EncoderVirtual: "Virtual", EncoderDSI: "DSI",
	EncoderDPMST: "DP MST", EncoderDPI: "DPI",
}

// String returns the kernel's name of the type, e.g. "TMDS".
func (t EncoderType) String() string {
	if int(t) < len(encoderNames) {
		return encoderNames[t]
	}
	return "Encoder" + strconv.FormatUint(uint64(t), 10)
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
func (m ModeInfo) Preferred() bool { return m.Type&ModeTypePreferred != 0 }

// Interlaced reports whether the mode is interlaced.
func (m ModeInfo) Interlaced() bool { return m.Flags&ModeFlagInterlace != 0 }

// RefreshMilliHz is the refresh rate in mHz computed from the timings as
// drm_modes.c (drm_mode_vrefresh) does before rounding: clock over
// htotal*vtotal, doubled when interlaced, halved for double scan, divided
// by vscan. 0 when the timings are empty.
func (m ModeModeInfo) RefreshMilliHz() uint64 {
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
func (m ModeModeInfo) VrefreshHz() uint32 {
	num, den := m.refreshFraction()
	if den == 0 {
		return 0
	}
	return uint32((num*1000 + den/2) / den)
}

// refreshFraction is the refresh rate in kHz-clock units as num/den.
func (m ModeModeInfo) refreshFraction() (num, den uint64) {
	num = uint64(m.Clock)
	den = uint64(m.Htotal) * uint64(m.Vtotal)
	if m.Flags&ModeFlagInterlace != 0 {
		num *= 2
	}
	if m.Flags&ModeFlagDblScan != 0 {
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
func (m ModeModeInfo) FramePeriod() time.Duration {
	if m.Clock == 0 {
		return 0
	}
	ns := uint64(m.Htotal) * uint64(m.Vtotal) * 1_000_000 / uint64(m.Clock)
	if m.Flags&ModeFlagInterlace != 0 {
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
func GetResources(c Conn) (*Resources, error) {
	var arg ModeCardRes
	if err := c.Ioctl(IoctlModeGetResources, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(IoctlModeGetResources, err, "")
	}
	for try := 0; try < maxCountRetries; try++ {
		if max(arg.CountFbs, arg.CountCrtcs, arg.CountConnectors, arg.CountEncoders) > maxReplyCount {
			return nil, &Error{Op: IoctlName(IoctlModeGetResources), Req: IoctlModeGetResources, Err: errBadReply,
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
		err := c.Ioctl(IoctlModeGetResources, unsafe.Pointer(&arg))
		pin.Unpin()
		if err != nil {
			return nil, ioctlError(IoctlModeGetResources, err, "second pass")
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
	return nil, &Error{Op: IoctlName(IoctlModeGetResources), Req: IoctlModeGetResources, Err: errCountsUnstable}
}

// Connector is a display output: its kind, whether a display is attached,
// and the modes that display supports.
type Connector struct {
	ID        uint32
	Type      ConnectorType
	TypeID    uint32          // the N of "HDMI-A-N"
	Status    ConnectorStatus // connected, disconnected, unknown
	EncoderID uint32          // the encoder driving it now, or 0
	Encoders  []uint32        // the encoders that can drive it
	Modes     []ModeInfo      // the display's modes, usually the preferred one first
	MmWidth   uint32          // physical size of the display in mm
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
func GetConnector(c Conn, id uint32) (*Connector, error) { return getConnector(c, id, true) }

// GetConnectorCurrent describes connector id from what the kernel already
// knows, without a probe (as libdrm's drmModeGetConnectorCurrent).
func GetConnectorCurrent(c Conn, id uint32) (*Connector, error) { return getConnector(c, id, false) }

// getConnector runs the count-then-fill protocol of GETCONNECTOR: the
// kernel (drm_connector.c: drm_mode_getconnector) fills the encoder and
// mode arrays only when their counts are large enough and always writes
// back the real counts, so the passes repeat while a count grew. Property
// lists are not fetched (vccube uses no connector property).
func getConnector(c Conn, id uint32, probe bool) (*Connector, error) {
	detail := func() string { return fmt.Sprintf("connector %d", id) }
	// A one-mode scratch array keeps CountModes non-zero on the passes that
	// must not probe (libdrm does the same with a mode on its stack).
	scratch := make([]ModeInfo, 1)
	arg := ModeGetConnector{ConnectorID: id}
	var pin runtime.Pinner
	defer pin.Unpin()
	if !probe {
		arg.CountModes, arg.ModesPtr = 1, pinned(&pin, scratch)
	}
	if err := c.Ioctl(IoctlModeGetConnector, unsafe.Pointer(&arg)); err != nil {
		return nil, ioctlError(IoctlModeGetConnector, err, detail())
	}
	for try := 0; try < maxCountRetries; try++ {
		if arg.CountModes > maxReplyCount || arg.CountEncoders > maxReplyCount {
			return nil, &Error{Op: IoctlName(IoctlModeGetConnector), Req: IoctlModeGetConnector, Err: errBadReply,
				Detail: fmt.Sprintf("connector %d: %d modes, %d encoders", id, arg.CountModes, arg.CountEncoders)}
		}
		modes := make([]ModeInfo, arg.CountModes)
		encoders := make([]uint32, arg.CountEncoders)
		arg = ModeGetConnector{
			ConnectorID:   id,
			CountModes:    uint32(len(modes)),
			ModesPtr:      pinned(&pin, modes),
			CountEncoders: uint32(len(encoders)),
			EncodersPtr:   pinned(&pin, encoders),
		}
		if len(modes) == 0 {
			arg.CountModes, arg.ModesPtr = 1, pinned(&pin, scratch)
		}
		if err := c.Ioctl(IoctlModeGetConnector, unsafe.Pointer(&arg)); err != nil {
			return nil, ioctlError(IoctlModeGetConnector, err, detail())
		}
		if int(arg.CountModes) > len(modes) || int(arg.CountEncoders) > len(encoders) {
			continue // a display was plugged in between: ask again with room for its modes
		}
		return &Connector{
			ID:        arg.ConnectorID,
			Type:      ConnectorType(arg.ConnectorType),
			TypeID:    arg.ConnectorTypeID,
			Status:    ConnectorStatus(arg.Connection),
			EncoderID: arg.EncoderID,
			Encoders:  encoders[:arg.CountEncoders],
			Modes:     modes[:arg.CountModes],
			MmWidth:   arg.MmWidth,
			MmHeight:  arg.MmHeight,
			Subpixel:  arg.Subpixel,
		}, nil
	}
	return nil, &Error{Op: IoctlName(IoctlModeGetConnector), Req: IoctlModeGetConnector, Err: errCountsUnstable, Detail: detail()}
}

// Encoder links connectors to CRTCs.
type Encoder struct {
	ID             uint32
	Type           EncoderType
	CrtcID         uint32 // the CRTC it is attached to, or 0
	PossibleCrtcs  uint32 // bit i: it can be driven by Resources.CRTCs[i]
	PossibleClones uint32
}

// GetEncoder describes encoder id.
func GetEncoder(c Conn, id uint32) (Encoder, error) {
	arg := ModeGetEncoder{EncoderID: id}
	if err := c.Ioctl(IoctlModeGetEncoder, unsafe.Pointer(&arg)); err != nil {
		return Encoder{}, ioctlError(IoctlModeGetEncoder, err, fmt.Sprintf("encoder %d", id))
	}
	return Encoder{ID: arg.EncoderID, Type: EncoderType(arg.EncoderType), CrtcID: arg.CrtcID,
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
func GetCrtc(c Conn, id uint32) (Crtc, error) {
	arg := ModeCrtc{CrtcID: id}
	if err := c.Ioctl(IoctlModeGetCrtc, unsafe.Pointer(&arg)); err != nil {
		return Crtc{}, ioctlError(IoctlModeGetCrtc, err, fmt.Sprintf("crtc %d", id))
	}
	return Crtc{ID: arg.CrtcID, FbID: arg.FbID, X: arg.X, Y: arg.Y, GammaSize: arg.GammaSize,
		ModeValid: arg.ModeValid != 0, Mode: ModeInfo{arg.Mode}}, nil
}

// SetCrtc shows framebuffer fb on CRTC crtc in mode, at (x, y) of the
// framebuffer, driving the given connectors. A nil mode turns the CRTC off
// (then fb and connectors must be 0 and empty). Needs DRM master.
func SetCrtc(c Conn, crtc, fb, x, y uint32, connectors []uint32, mode *ModeInfo) error {
	conns := append([]uint32(nil), connectors...) // a heap copy to pin
	arg := ModeCrtc{CrtcID: crtc, FbID: fb, X: x, Y: y, CountConnectors: uint32(len(conns))}
	var pin runtime.Pinner
	defer pin.Unpin()
	arg.SetConnectorsPtr = pinned(&pin, conns)
	if mode != nil {
		arg.ModeValid, arg.Mode = 1, mode.ModeModeInfo
	}
	if err := c.Ioctl(IoctlModeSetCrtc, unsafe.Pointer(&arg)); err != nil {
		m := "off"
		if mode != nil {
			m = mode.String()
		}
		return ioctlError(IoctlModeSetCrtc, err, fmt.Sprintf("crtc %d, fb %d, mode %s, connectors %v", crtc, fb, m, connectors))
	}
	return nil
}

// AddFB2 registers a framebuffer described by cmd (pixel format, up to
// four planes of BO handle, pitch and offset, modifiers when
// FbModifiers is set) and stores its id in cmd.FbID.
func AddFB2(c Conn, cmd *ModeFbCmd2) error {
	if err := c.Ioctl(IoctlModeAddFB2, unsafe.Pointer(cmd)); err != nil {
		return ioctlError(IoctlModeAddFB2, err, fmt.Sprintf("%dx%d %s, handle %d, pitch %d, flags %d, modifier 0x%x",
			cmd.Width, cmd.Height, fourccString(cmd.PixelFormat), cmd.Handles[0], cmd.Pitches[0], cmd.Flags, cmd.Modifier[0]))
	}
	return nil
}

// AddFramebuffer registers a single-plane framebuffer of BO handle and
// returns its id. A modifier other than FormatModLinear (such as
// FormatModBroadcomVC4TTiled) is passed with FbModifiers; linear buffers
// go without, so drivers that know no modifiers accept them too.
func AddFramebuffer(c Conn, width, height, format, handle, pitch uint32, modifier uint64) (uint32, error) {
	cmd := ModeFbCmd2{Width: width, Height: height, PixelFormat: format}
	cmd.Handles[0], cmd.Pitches[0] = handle, pitch
	if modifier != FormatModLinear {
		cmd.Flags |= FbModifiers
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
func RmFB(c Conn, fb uint32) error {
	arg := fb
	if err := c.Ioctl(IoctlModeRmFB, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(IoctlModeRmFB, err, fmt.Sprintf("fb %d", fb))
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
func PageFlip(c Conn, arg *ModeCrtcPageFlip) error {
	if err := c.Ioctl(IoctlModePageFlip, unsafe.Pointer(arg)); err != nil {
		return ioctlError(IoctlModePageFlip, err, fmt.Sprintf("crtc %d, fb %d, flags 0x%x", arg.CrtcID, arg.FbID, arg.Flags))
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
func CreateDumb(c Conn, width, height, bpp uint32) (DumbBuffer, error) {
	arg := ModeCreateDumb{Width: width, Height: height, Bpp: bpp}
	if err := c.Ioctl(IoctlModeCreateDumb, unsafe.Pointer(&arg)); err != nil {
		return DumbBuffer{}, ioctlError(IoctlModeCreateDumb, err, fmt.Sprintf("%dx%d, %d bpp", width, height, bpp))
	}
	return DumbBuffer{Handle: arg.Handle, Pitch: arg.Pitch, Size: arg.Size}, nil
}

// MapDumb returns the fake offset at which Conn.Mmap maps a dumb buffer.
func MapDumb(c Conn, handle uint32) (uint64, error) {
	arg := ModeMapDumb{Handle: handle}
	if err := c.Ioctl(IoctlModeMapDumb, unsafe.Pointer(&arg)); err != nil {
		return 0, ioctlError(IoctlModeMapDumb, err, fmt.Sprintf("handle %d", handle))
	}
	return arg.Offset, nil
}

// DestroyDumb frees a dumb buffer's handle.
func DestroyDumb(c Conn, handle uint32) error {
	arg := ModeDestroyDumb{Handle: handle}
	if err := c.Ioctl(IoctlModeDestroyDumb, unsafe.Pointer(&arg)); err != nil {
		return ioctlError(IoctlModeDestroyDumb, err, fmt.Sprintf("handle %d", handle))
	}
	return nil
}
