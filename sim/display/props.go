package display

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"github.com/vccube/vccube/uapi"
)

// Planes, properties and property blobs, as a Pi 0-3's vc4 exposes them.
//
// The planes: vc4_crtc_init gives each CRTC a primary plane, and
// vc4_plane_create_additional_planes (vc4_plane.c) adds 16 overlay planes
// any CRTC may use and a cursor plane per CRTC. Every plane scans out the
// same formats (hvs_formats[]) with the modifiers of vc4_plane_init
// (T-tiled, SAND128, SAND64, SAND256, linear), and carries the DRM core's
// plane properties (drm_plane.c __drm_universal_plane_init: "type",
// FB_ID, IN_FENCE_FD, CRTC_ID, CRTC_X/Y/W/H, SRC_X/Y/W/H, IN_FORMATS) and
// vc4's own: "alpha", "rotation" (0 and 180 degrees, reflections),
// COLOR_ENCODING and COLOR_RANGE (vc4_plane_init).
//
// The CRTC has ACTIVE, MODE_ID, OUT_FENCE_PTR and VRR_ENABLED
// (drm_crtc.c drm_crtc_init_with_planes) and the gamma table's GAMMA_LUT
// and GAMMA_LUT_SIZE (drm_color_mgmt.c drm_crtc_enable_color_mgmt, which
// vc4_crtc_init calls with the 256-entry table); the HDMI connector has
// EDID, DPMS, link-status, non-desktop, TILE and CRTC_ID
// (drm_connector.c __drm_connector_init).
//
// Ids: the kernel takes every object id (properties, blobs, planes,
// CRTCs, encoders, connectors, framebuffers) from one idr. The simulator
// numbers its properties from 1, puts the planes' IN_FORMATS blob and the
// primary plane just below the CRTC, the overlays and the cursor after
// the connector, and framebuffers and user blobs after those; programs
// take every id from the ioctls.

// Plane ids and the shared IN_FORMATS blob.
const (
	inFormatsBlobID = 93
	PrimaryPlaneID  = 94
	firstOverlayID  = 99
	numOverlays     = 16
	CursorPlaneID   = firstOverlayID + numOverlays // 115
	numPlanes       = numOverlays + 2
)

// planeIDs lists the planes in creation order (GETPLANERESOURCES order):
// the primary plane, the overlays, the cursor.
var planeIDs = func() [numPlanes]uint32 {
	var ids [numPlanes]uint32
	ids[0] = PrimaryPlaneID
	for i := 0; i < numOverlays; i++ {
		ids[1+i] = firstOverlayID + uint32(i)
	}
	ids[numPlanes-1] = CursorPlaneID
	return ids
}()

// planeIndex returns the index of plane id in planeIDs, or -1.
func planeIndex(id uint32) int {
	switch {
	case id == PrimaryPlaneID:
		return 0
	case id >= firstOverlayID && id < firstOverlayID+numOverlays:
		return 1 + int(id-firstOverlayID)
	case id == CursorPlaneID:
		return numPlanes - 1
	}
	return -1
}

// planeType is the value of plane i's "type" property.
func planeType(i int) uint64 {
	switch i {
	case 0:
		return uapi.PlaneTypePrimary
	case numPlanes - 1:
		return uapi.PlaneTypeCursor
	}
	return uapi.PlaneTypeOverlay
}

// property is a struct drm_property.
type property struct {
	id     uint32
	name   string
	flags  uint32
	values []uint64 // a range's min and max, an object property's object type, enum values
	enums  []enumEntry
}

type enumEntry struct {
	value uint64
	name  string
}

// The properties, in the order their ids are given.
var (
	propType = enumProp("type", uapi.PropImmutable, enumEntry{0, "Overlay"}, enumEntry{1, "Primary"}, enumEntry{2, "Cursor"})
	propFBID = &property{name: "FB_ID", flags: uapi.PropObject | uapi.PropAtomic, values: []uint64{uapi.ObjectFB}}
	// IN_FENCE_FD is a signed range from -1 to INT_MAX.
	propInFenceFD   = &property{name: "IN_FENCE_FD", flags: uapi.PropSignedRange | uapi.PropAtomic, values: []uint64{^uint64(0), 1<<31 - 1}}
	propPlaneCrtcID = &property{name: "CRTC_ID", flags: uapi.PropObject | uapi.PropAtomic, values: []uint64{uapi.ObjectCrtc}}
	propCrtcX       = signedRange("CRTC_X")
	propCrtcY       = signedRange("CRTC_Y")
	propCrtcW       = &property{name: "CRTC_W", flags: uapi.PropRange | uapi.PropAtomic, values: []uint64{0, 1<<31 - 1}}
	propCrtcH       = &property{name: "CRTC_H", flags: uapi.PropRange | uapi.PropAtomic, values: []uint64{0, 1<<31 - 1}}
	propSrcX        = srcRange("SRC_X")
	propSrcY        = srcRange("SRC_Y")
	propSrcW        = srcRange("SRC_W")
	propSrcH        = srcRange("SRC_H")
	propInFormats   = &property{name: "IN_FORMATS", flags: uapi.PropBlob | uapi.PropImmutable}
	propAlpha       = &property{name: "alpha", flags: uapi.PropRange, values: []uint64{0, 0xffff}}
	propRotation    = &property{name: "rotation", flags: uapi.PropBitmask,
		values: []uint64{0, 2, 4, 5}, // bit numbers of the supported rotations
		enums:  []enumEntry{{0, "rotate-0"}, {2, "rotate-180"}, {4, "reflect-x"}, {5, "reflect-y"}}}
	propColorEncoding = enumProp("COLOR_ENCODING", 0, enumEntry{0, "ITU-R BT.601 YCbCr"}, enumEntry{1, "ITU-R BT.709 YCbCr"}, enumEntry{2, "ITU-R BT.2020 YCbCr"})
	propColorRange    = enumProp("COLOR_RANGE", 0, enumEntry{0, "YCbCr limited range"}, enumEntry{1, "YCbCr full range"})

	propActive       = &property{name: "ACTIVE", flags: uapi.PropRange | uapi.PropAtomic, values: []uint64{0, 1}}
	propModeID       = &property{name: "MODE_ID", flags: uapi.PropBlob | uapi.PropAtomic}
	propOutFencePtr  = &property{name: "OUT_FENCE_PTR", flags: uapi.PropRange | uapi.PropAtomic, values: []uint64{0, ^uint64(0)}}
	propVrrEnabled   = &property{name: "VRR_ENABLED", flags: uapi.PropRange, values: []uint64{0, 1}}
	propGammaLUT     = &property{name: "GAMMA_LUT", flags: uapi.PropBlob}
	propGammaLUTSize = &property{name: "GAMMA_LUT_SIZE", flags: uapi.PropRange | uapi.PropImmutable, values: []uint64{0, 1<<32 - 1}}

	propEDID       = &property{name: "EDID", flags: uapi.PropBlob | uapi.PropImmutable}
	propDPMS       = enumProp("DPMS", 0, enumEntry{0, "On"}, enumEntry{1, "Standby"}, enumEntry{2, "Suspend"}, enumEntry{3, "Off"})
	propLinkStatus = enumProp("link-status", 0, enumEntry{0, "Good"}, enumEntry{1, "Bad"})
	propNonDesktop = &property{name: "non-desktop", flags: uapi.PropRange | uapi.PropImmutable, values: []uint64{0, 1}}
	propTile       = &property{name: "TILE", flags: uapi.PropBlob | uapi.PropImmutable}
	propConnCrtcID = &property{name: "CRTC_ID", flags: uapi.PropObject | uapi.PropAtomic, values: []uint64{uapi.ObjectCrtc}}
)

// The properties each kind of object carries, in the order the kernel
// attaches them (OBJ_GETPROPERTIES lists them so).
var (
	planePropList = []*property{propType, propFBID, propInFenceFD, propPlaneCrtcID, propCrtcX, propCrtcY, propCrtcW, propCrtcH,
		propSrcX, propSrcY, propSrcW, propSrcH, propInFormats, propAlpha, propRotation, propColorEncoding, propColorRange}
	crtcProps      = []*property{propActive, propModeID, propOutFencePtr, propVrrEnabled, propGammaLUT, propGammaLUTSize}
	connectorProps = []*property{propEDID, propDPMS, propLinkStatus, propNonDesktop, propTile, propConnCrtcID}
)

// properties is every property by id (index id-1).
var properties = func() []*property {
	var all []*property
	seen := map[*property]bool{}
	for _, list := range [][]*property{planePropList, crtcProps, connectorProps} {
		for _, p := range list {
			if !seen[p] {
				seen[p] = true
				all = append(all, p)
				p.id = uint32(len(all))
			}
		}
	}
	return all
}()

func enumProp(name string, flags uint32, entries ...enumEntry) *property {
	p := &property{name: name, flags: uapi.PropEnum | flags, enums: entries}
	for _, e := range entries {
		p.values = append(p.values, e.value)
	}
	return p
}

func signedRange(name string) *property {
	return &property{name: name, flags: uapi.PropSignedRange | uapi.PropAtomic, values: []uint64{minInt32U64, 1<<31 - 1}}
}

// minInt32U64 is INT_MIN as a property value (a signed range's bound is
// stored as the 64-bit two's complement, I642U64).
var minInt32U64 = func() uint64 { v := int64(-1 << 31); return uint64(v) }()

func srcRange(name string) *property {
	return &property{name: name, flags: uapi.PropRange | uapi.PropAtomic, values: []uint64{0, 1<<32 - 1}}
}

// findProperty returns property id, or nil.
func findProperty(id uint32) *property {
	if id == 0 || int(id) > len(properties) {
		return nil
	}
	return properties[id-1]
}

// propType returns the property's type bits: a legacy type or an
// extended one.
func (p *property) kind() uint32 {
	if t := p.flags & uapi.PropLegacyType; t != 0 {
		return t
	}
	return p.flags & uapi.PropExtendedType
}

// blob is a struct drm_property_blob: user blobs (CREATEPROPBLOB, owned
// by the file until DESTROYPROPBLOB or close), the mode blobs the kernel
// makes for legacy mode sets, and the planes' IN_FORMATS blob. Each state
// that points at one holds a reference.
type blob struct {
	id    uint32
	data  []byte
	owner *clientState
	refs  int
}

func (b *blob) get() *blob {
	if b != nil {
		b.refs++
	}
	return b
}

func (d *Display) putBlob(b *blob) {
	if b == nil || b.id == inFormatsBlobID {
		return
	}
	b.refs--
	if b.refs <= 0 {
		delete(d.blobs, b.id)
	}
}

// newObjectID is the lowest id no framebuffer or blob holds, from the
// first one after the fixed objects, as idr_alloc picks it.
func (d *Display) newObjectID() uint32 {
	for id := uint32(firstFBID); ; id++ {
		if d.fbs[id] == nil && d.blobs[id] == nil {
			return id
		}
	}
}

// inFormatsBlob builds the IN_FORMATS blob (drm_plane.c
// create_in_format_blob): the header, the formats, then per modifier of
// vc4_plane_init's list the formats vc4_format_mod_supported accepts with
// it, as a bitmask.
func inFormatsBlob() []byte {
	mods := []uint64{uapi.FormatModBroadcomVC4TTiled, uapi.FormatModBroadcomSAND128, uapi.FormatModBroadcomSAND64,
		uapi.FormatModBroadcomSAND256, uapi.FormatModLinear}
	hdr := uapi.FormatModifierBlob{Version: uapi.FormatBlobCurrent, CountFormats: uint32(len(formats)),
		FormatsOffset: uint32(unsafe.Sizeof(uapi.FormatModifierBlob{})), CountModifiers: uint32(len(mods))}
	hdr.ModifiersOffset = (hdr.FormatsOffset + 4*hdr.CountFormats + 7) &^ 7
	b := make([]byte, int(hdr.ModifiersOffset)+len(mods)*int(unsafe.Sizeof(uapi.FormatModifier{})))
	copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&hdr)), unsafe.Sizeof(hdr)))
	for i := range formats {
		binary.NativeEndian.PutUint32(b[int(hdr.FormatsOffset)+4*i:], formats[i].fourcc)
	}
	for j, m := range mods {
		var fm uapi.FormatModifier
		fm.Modifier = m
		for i := range formats {
			if formats[i].supports(m) {
				fm.Formats |= 1 << i
			}
		}
		copy(b[int(hdr.ModifiersOffset)+j*int(unsafe.Sizeof(fm)):], unsafe.Slice((*byte)(unsafe.Pointer(&fm)), unsafe.Sizeof(fm)))
	}
	return b
}

// objectType returns the type of object id, 0 when there is none
// (__drm_mode_object_find).
func (d *Display) objectType(id uint32) uint32 {
	switch {
	case id == CrtcID:
		return uapi.ObjectCrtc
	case id == EncoderID:
		return uapi.ObjectEncoder
	case id == ConnectorID:
		return uapi.ObjectConnector
	case planeIndex(id) >= 0:
		return uapi.ObjectPlane
	case findProperty(id) != nil:
		return uapi.ObjectProperty
	case d.fbs[id] != nil:
		return uapi.ObjectFB
	case d.blobs[id] != nil:
		return uapi.ObjectBlob
	}
	return 0
}

// objectProps returns the properties of object id, nil for an object
// without any (encoders, framebuffers, blobs, properties).
func objectProps(typ uint32) []*property {
	switch typ {
	case uapi.ObjectPlane:
		return planePropList
	case uapi.ObjectCrtc:
		return crtcProps
	case uapi.ObjectConnector:
		return connectorProps
	}
	return nil
}

// propValue is the value of property p of object id (of type typ) in
// the current state (drm_atomic_get_property: the plane, CRTC and
// connector states).
func (d *Display) propValue(typ, id uint32, p *property) uint64 {
	c := &d.crtc
	switch typ {
	case uapi.ObjectPlane:
		i := planeIndex(id)
		pp := &d.planes[i]
		primary := i == 0
		on := primary && c.fb != nil
		switch p {
		case propType:
			return planeType(i)
		case propFBID:
			if on {
				return uint64(c.fb.id)
			}
		case propInFenceFD:
			return ^uint64(0) // -1: the fence is consumed by the commit
		case propPlaneCrtcID:
			if on {
				return CrtcID
			}
		case propCrtcX:
			if on {
				return uint64(int64(c.crtcX))
			}
		case propCrtcY:
			if on {
				return uint64(int64(c.crtcY))
			}
		case propCrtcW:
			if on {
				return uint64(c.crtcW)
			}
		case propCrtcH:
			if on {
				return uint64(c.crtcH)
			}
		case propSrcX:
			if on {
				return uint64(c.x) << 16
			}
		case propSrcY:
			if on {
				return uint64(c.y) << 16
			}
		case propSrcW:
			if on {
				return uint64(c.srcW)
			}
		case propSrcH:
			if on {
				return uint64(c.srcH)
			}
		case propInFormats:
			return inFormatsBlobID
		case propAlpha:
			return pp.alpha
		case propRotation:
			return pp.rotation
		case propColorEncoding:
			return pp.colorEncoding
		case propColorRange:
			return pp.colorRange
		}
	case uapi.ObjectCrtc:
		switch p {
		case propActive:
			if c.active {
				return 1
			}
		case propModeID:
			if c.modeBlob != nil {
				return uint64(c.modeBlob.id)
			}
		case propVrrEnabled:
			if c.vrr {
				return 1
			}
		case propGammaLUT:
			if c.gammaLUT != nil {
				return uint64(c.gammaLUT.id)
			}
		case propGammaLUTSize:
			return gammaSize
		}
	case uapi.ObjectConnector:
		switch p {
		case propDPMS:
			return d.dpms
		case propLinkStatus:
			return d.linkStatus
		case propConnCrtcID:
			if c.routed {
				return CrtcID
			}
		}
	}
	return 0
}

// getPlaneResources is DRM_IOCTL_MODE_GETPLANERESOURCES (drm_plane.c
// drm_mode_getplane_res): the planes, only the overlays for a file
// without the UNIVERSAL_PLANES capability; as many as the count allows,
// and the count set to the number.
func (d *Display) getPlaneResources(cs *clientState, r *uapi.ModeGetPlaneRes) error {
	count := uint32(0)
	for i, id := range planeIDs {
		if planeType(i) != uapi.PlaneTypeOverlay && !cs.universalPlanes {
			continue
		}
		if count < r.CountPlanes {
			if err := putUint32s(cs.c.User(), r.PlaneIDPtr+4*uint64(count), []uint32{id}); err != nil {
				return err
			}
		}
		count++
	}
	r.CountPlanes = count
	return nil
}

// getPlane is DRM_IOCTL_MODE_GETPLANE (drm_plane.c drm_mode_getplane):
// the plane's CRTC and framebuffer, the CRTCs it can use, and its formats
// when the count holds them all.
func (d *Display) getPlane(cs *clientState, r *uapi.ModeGetPlane) error {
	i := planeIndex(r.PlaneID)
	if i < 0 {
		return errorf(syscall.ENOENT, "unknown plane %d", r.PlaneID)
	}
	r.CrtcID, r.FbID = 0, 0
	if i == 0 && d.crtc.fb != nil {
		r.CrtcID, r.FbID = CrtcID, d.crtc.fb.id
	}
	r.PossibleCrtcs = 1
	r.GammaSize = 0
	if n := uint32(len(formats)); r.CountFormatTypes >= n {
		var ids [len(formats)]uint32
		for k := range formats {
			ids[k] = formats[k].fourcc
		}
		if err := putUint32s(cs.c.User(), r.FormatTypePtr, ids[:]); err != nil {
			return err
		}
	}
	r.CountFormatTypes = uint32(len(formats))
	return nil
}

// objGetProperties is DRM_IOCTL_MODE_OBJ_GETPROPERTIES (drm_mode_object.c
// drm_mode_obj_get_properties_ioctl, drm_mode_object_get_properties): an
// unknown object (or one of another type than asked) is ENOENT, one
// without properties EINVAL; atomic-only properties are listed only to
// files with the ATOMIC capability; as many as fit are copied, and the
// count is set to the number.
func (d *Display) objGetProperties(cs *clientState, r *uapi.ModeObjGetProperties) error {
	typ := d.objectType(r.ObjID)
	if typ == 0 || (r.ObjType != uapi.ObjectAny && r.ObjType != typ) {
		return errorf(syscall.ENOENT, "no object %d of type 0x%08x", r.ObjID, r.ObjType)
	}
	props := objectProps(typ)
	if props == nil {
		return errorf(syscall.EINVAL, "object %d has no properties", r.ObjID)
	}
	count := uint32(0)
	u := cs.c.User()
	for _, p := range props {
		if p.flags&uapi.PropAtomic != 0 && !cs.atomic {
			continue
		}
		if count < r.CountProps {
			var v [8]byte
			binary.NativeEndian.PutUint64(v[:], d.propValue(typ, r.ObjID, p))
			if err := putUint32s(u, r.PropsPtr+4*uint64(count), []uint32{p.id}); err != nil {
				return err
			}
			if err := u.CopyToUser(r.PropValuesPtr+8*uint64(count), v[:]); err != nil {
				return err
			}
		}
		count++
	}
	r.CountProps = count
	return nil
}

// getProperty is DRM_IOCTL_MODE_GETPROPERTY (drm_property.c
// drm_mode_getproperty_ioctl): the name and flags; the values when the
// count holds them all; for enum and bitmask properties the named values,
// as many as the count holds; blob properties report no values.
func (d *Display) getProperty(cs *clientState, r *uapi.ModeGetProperty) error {
	p := findProperty(r.PropID)
	if p == nil {
		return errorf(syscall.ENOENT, "unknown property %d", r.PropID)
	}
	r.Name = [uapi.PropNameLen]byte{}
	copy(r.Name[:uapi.PropNameLen-1], p.name)
	r.Flags = p.flags
	u := cs.c.User()
	n := uint32(len(p.values))
	if r.CountValues >= n && n > 0 {
		for i, v := range p.values {
			var b [8]byte
			binary.NativeEndian.PutUint64(b[:], v)
			if err := u.CopyToUser(r.ValuesPtr+8*uint64(i), b[:]); err != nil {
				return err
			}
		}
	}
	r.CountValues = n
	switch p.kind() {
	case uapi.PropEnum, uapi.PropBitmask:
		count := uint32(0)
		for _, e := range p.enums {
			count++
			if r.CountEnumBlobs < count {
				continue
			}
			var pe uapi.ModePropertyEnum
			pe.Value = e.value
			copy(pe.Name[:uapi.PropNameLen-1], e.name)
			if err := putStruct(u, r.EnumBlobPtr+uint64(count-1)*uint64(unsafe.Sizeof(pe)), &pe); err != nil {
				return err
			}
		}
		r.CountEnumBlobs = count
	case uapi.PropBlob:
		r.CountEnumBlobs = 0
	}
	return nil
}

// getPropBlob is DRM_IOCTL_MODE_GETPROPBLOB (drm_property.c
// drm_mode_getblob_ioctl): the blob's bytes when the caller's length is
// exactly the blob's, and its length always.
func (d *Display) getPropBlob(cs *clientState, r *uapi.ModeGetBlob) error {
	b := d.blobs[r.BlobID]
	if b == nil {
		return errorf(syscall.ENOENT, "unknown blob %d", r.BlobID)
	}
	if r.Length == uint32(len(b.data)) {
		if err := cs.c.User().CopyToUser(r.Data, b.data); err != nil {
			return err
		}
	}
	r.Length = uint32(len(b.data))
	return nil
}

// createPropBlob is DRM_IOCTL_MODE_CREATEPROPBLOB (drm_property.c
// drm_property_create_blob_ioctl): a blob of the caller's bytes, owned by
// the file. A length of 0 (or one that does not fit an int with the
// blob's header) is EINVAL.
func (d *Display) createPropBlob(cs *clientState, r *uapi.ModeCreateBlob) error {
	if r.Length == 0 || r.Length > 1<<31-1-64 {
		return errorf(syscall.EINVAL, "blob length %d", r.Length)
	}
	data := make([]byte, r.Length)
	if err := cs.c.User().CopyFromUser(data, r.Data); err != nil {
		return err
	}
	b := &blob{id: d.newObjectID(), data: data, owner: cs, refs: 1}
	d.blobs[b.id] = b
	cs.blobs = append(cs.blobs, b)
	r.BlobID = b.id
	return nil
}

// destroyPropBlob is DRM_IOCTL_MODE_DESTROYPROPBLOB (drm_property.c
// drm_property_destroy_blob_ioctl): only the file that made the blob may
// destroy it; an unknown blob or another's is EINVAL. States that use it
// keep it until they change.
func (d *Display) destroyPropBlob(cs *clientState, r *uapi.ModeDestroyBlob) error {
	b := d.blobs[r.BlobID]
	if b == nil {
		return errorf(syscall.EINVAL, "unknown blob %d", r.BlobID)
	}
	if b.owner != cs {
		return errorf(syscall.EINVAL, "blob %d is not one of this file's", r.BlobID)
	}
	d.dropUserBlob(cs, b)
	return nil
}

// dropUserBlob takes b off its file's list and drops the file's
// reference.
func (d *Display) dropUserBlob(cs *clientState, b *blob) {
	for i, x := range cs.blobs {
		if x == b {
			cs.blobs = append(cs.blobs[:i], cs.blobs[i+1:]...)
			break
		}
	}
	b.owner = nil
	d.putBlob(b)
}

// modeBlob returns a kernel-made blob holding mode (what
// drm_atomic_set_mode_for_crtc creates for a legacy mode set), with a
// reference: the current one when it holds the same bytes.
func (d *Display) modeBlob(mode *uapi.ModeModeInfo) *blob {
	um := *mode
	um.Vrefresh = vrefresh(mode)
	data := unsafe.Slice((*byte)(unsafe.Pointer(&um)), unsafe.Sizeof(um))
	if cur := d.crtc.modeBlob; cur != nil && string(cur.data) == string(data) {
		return cur.get()
	}
	b := &blob{id: d.newObjectID(), data: append([]byte(nil), data...), refs: 1}
	d.blobs[b.id] = b
	return b
}
