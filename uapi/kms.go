package uapi

import "strconv"

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
