package simserve

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

//go:generate go run ./internal/genwire

// The wire protocol between the server and the preload library. This file
// is its one description: the preload's C header (preload/wire.h) is
// generated from it (go generate), and a test checks that the two agree.
//
// Every message is one packet of a SOCK_SEQPACKET Unix socket: a Header,
// possibly followed by a payload in the same packet. Bytes that go into
// the client's memory (the ioctl argument coming back, a copy_to_user) are
// not a payload: they travel as a packet of their own, right after the
// header that announces them, so that the client can receive them straight
// into place and learns of a bad address (EFAULT) before it consumes them.
// Integers are the host's byte order: both ends run on one machine.
//
//	client                                server
//	HELLO{version, minor, flags, ptrsize} →
//	                                      ← WELCOME{version, pool size} + [event fd, pool memfd]
//	                                        (or ERROR{errno} + message)
//	IOCTL{request} + argument bytes      →
//	                                      ← READ_USER{addr, n}         (any number of
//	READ_REPLY{errno} + n bytes          →                              copy requests,
//	                                      ← WRITE_USER{addr, n}, bytes  in the order the
//	WRITE_REPLY{errno}                   →                              kernel makes them)
//	                                      ← INSTALL_FD{cloexec} + [fd]  (fd_install: a
//	INSTALL_REPLY{errno, number}         →                              new descriptor)
//	                                      ← GET_FD{number}              (fget: one of
//	GET_FD_REPLY{errno} + [fd]           →                              the client's)
//	                                      ← IOCTL_REPLY{errno, n}, n bytes of argument
//	FD_IOCTL{request} + argument bytes   →  (an ioctl on a descriptor the
//	  + [fd]                                server made: answered as IOCTL)
//	MMAP{offset, length, prot}           →
//	                                      ← MMAP_REPLY{errno, memfd offset, token}
//	MUNMAP{token}                        →  (no answer)
//
// The event fd is the client's end of a socketpair: the file descriptor
// the program holds as its DRM fd. Its only traffic is DRM events, one
// struct drm_event record per packet, so poll, select and read work on it
// natively; when the program has closed every copy of it the server
// closes the DRM file.
//
// File descriptors cross like memory: the kernel's fd_install of a new
// descriptor (a PRIME export's dma-buf; later a sync_file) is an
// INSTALL_FD carrying it, which the client takes into its table and
// answers with the number it got; its fget of a descriptor the caller
// names (a PRIME import) is a GET_FD, which the client answers with a copy
// of that descriptor. So the preload never learns where in a struct a
// descriptor lives.
//
// Sync files (an atomic commit's out-fence, a syncobj's exported fence)
// are one end of a socket pair the server made, so the program polls
// them natively. The preload knows them by their peer, the server
// (SO_PEERCRED), and sends an ioctl on one as FD_IOCTL with a copy of the
// descriptor; the server runs it on the sync file (SYNC_IOC_MERGE,
// SYNC_IOC_FILE_INFO) with the same copy and descriptor requests as an
// IOCTL, and copies the argument back only on success, as
// sync_file_ioctl does.

// ProtocolVersion is the version HELLO and WELCOME carry; the server
// refuses any other.
const ProtocolVersion = 1

// HeaderSize is the size of a Header on the wire.
const HeaderSize = 32

// MaxPayload bounds every payload and every data packet: copies between
// the kernel and the client's memory go in chunks of at most this many
// bytes, and an ioctl argument is at most 16 KiB (_IOC_SIZEBITS is 14).
const MaxPayload = 64 << 10

// Message types.
const (
	// Client to server.
	MsgHello        = 1 // Arg: ProtocolVersion; A: the node's minor (0 card0, 128 renderD128); B: open(2) flags; C: sizeof(void *), 4 for a 32-bit program (sim/ilp32.go)
	MsgIoctl        = 2 // Arg: the request number; payload: the argument's bytes (_IOC_SIZE of them when _IOC_WRITE)
	MsgMmap         = 3 // A: the offset; B: the length; C: the protection (PROT_*)
	MsgMunmap       = 4 // B: the token of MMAP_REPLY
	MsgReadReply    = 5 // Arg: 0 or the errno; payload: the bytes asked for
	MsgWriteReply   = 6 // Arg: 0 or the errno
	MsgInstallReply = 7 // Arg: 0 or the errno; A: the descriptor's number in the client
	MsgGetFdReply   = 8 // Arg: 0 or the errno; SCM_RIGHTS: the descriptor
	MsgFdIoctl      = 9 // Arg: the request number; payload: the argument's bytes; SCM_RIGHTS: the descriptor

	// Server to client.
	MsgWelcome    = 16 // Arg: ProtocolVersion; A: the pool's size; SCM_RIGHTS: the event fd, the pool's memfd
	MsgReadUser   = 17 // A: the address; B: the length
	MsgWriteUser  = 18 // A: the address; B: the length; a data packet of B bytes follows
	MsgIoctlReply = 19 // Arg: 0 or the errno; B: the length of the data packet that follows (the argument out)
	MsgMmapReply  = 20 // Arg: 0 or the errno; A: the offset in the pool's memfd; B: the token
	MsgError      = 21 // Arg: the errno; payload: a message for the user. The server closes the connection after it.
	MsgInstallFd  = 22 // A: 1 for close-on-exec; SCM_RIGHTS: the descriptor
	MsgGetFd      = 23 // A: the client's descriptor number
)

// msgNames names the message types in errors and traces.
var msgNames = map[uint32]string{
	MsgHello: "HELLO", MsgIoctl: "IOCTL", MsgMmap: "MMAP", MsgMunmap: "MUNMAP",
	MsgReadReply: "READ_REPLY", MsgWriteReply: "WRITE_REPLY", MsgInstallReply: "INSTALL_REPLY", MsgGetFdReply: "GET_FD_REPLY",
	MsgFdIoctl: "FD_IOCTL",
	MsgWelcome: "WELCOME", MsgReadUser: "READ_USER", MsgWriteUser: "WRITE_USER",
	MsgIoctlReply: "IOCTL_REPLY", MsgMmapReply: "MMAP_REPLY", MsgError: "ERROR", MsgInstallFd: "INSTALL_FD", MsgGetFd: "GET_FD",
}

func msgName(t uint32) string {
	if n, ok := msgNames[t]; ok {
		return n
	}
	return fmt.Sprintf("message type %d", t)
}

// Header starts every message.
type Header struct {
	Type uint32
	Arg  uint32 // the request, errno or version
	A    uint64
	B    uint64
	C    uint64
}

// put writes h into b[:HeaderSize].
func (h *Header) put(b []byte) {
	binary.NativeEndian.PutUint32(b[0:], h.Type)
	binary.NativeEndian.PutUint32(b[4:], h.Arg)
	binary.NativeEndian.PutUint64(b[8:], h.A)
	binary.NativeEndian.PutUint64(b[16:], h.B)
	binary.NativeEndian.PutUint64(b[24:], h.C)
}

// parseHeader reads a header from the start of a packet.
func parseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("a %d-byte packet is shorter than a message header (%d bytes)", len(b), HeaderSize)
	}
	return Header{
		Type: binary.NativeEndian.Uint32(b[0:]),
		Arg:  binary.NativeEndian.Uint32(b[4:]),
		A:    binary.NativeEndian.Uint64(b[8:]),
		B:    binary.NativeEndian.Uint64(b[16:]),
		C:    binary.NativeEndian.Uint64(b[24:]),
	}, nil
}

// The device nodes. The preload knows a node by its file name alone
// (cardN is the primary node of minor N, renderDN the render node of
// minor N, as drmGetMinorType and the kernel name them), so it needs no
// table of its own; which nodes exist is the server's choice (Nodes).
const (
	// DRMMajor is the character-device major of every DRM node
	// (include/drm/drm.h: DRM_MAJOR 226).
	DRMMajor = 226
	// PrimaryMinor and RenderMinor are the minors of a Pi's only DRM
	// device: card0 and renderD128 (drm_drv.c drm_minor_alloc: primary
	// minors start at 0, render minors at 128).
	PrimaryMinor = 0
	RenderMinor  = 128
)

// RedirectedDirs are the directories whose paths the preload sends to the
// server's tree (Dir/root followed by the path): the path itself and
// everything under it. RedirectedNames are name prefixes: any path that
// starts with one (the DRM majors' nodes in /sys/dev/char). Everything
// else passes through untouched.
var (
	RedirectedDirs  = []string{"/dev/dri", "/sys/class/drm", "/sys/devices/platform/soc/soc:gpu"}
	RedirectedNames = []string{"/sys/dev/char/226:"}
)

// WireHeader is the C header the preload is built with (preload/wire.h):
// this file's constants and the header layout, so that the two ends share
// one description. go generate writes it; TestWireHeader checks it.
func WireHeader() string {
	var b strings.Builder
	b.WriteString("/* Generated from simserve/wire.go by go generate (simserve/internal/genwire). DO NOT EDIT. */\n")
	b.WriteString("#ifndef VC4SIM_WIRE_H\n#define VC4SIM_WIRE_H\n\n#include <stdint.h>\n\n")
	def := func(name string, v uint64) { fmt.Fprintf(&b, "#define %-26s %d\n", name, v) }
	def("VC4SIM_PROTOCOL_VERSION", ProtocolVersion)
	def("VC4SIM_HEADER_SIZE", HeaderSize)
	def("VC4SIM_MAX_PAYLOAD", MaxPayload)
	def("VC4SIM_DRM_MAJOR", DRMMajor)
	fmt.Fprintf(&b, "#define %-26s %q\n", "VC4SIM_SOCKET_NAME", SocketName)
	fmt.Fprintf(&b, "#define %-26s %q\n", "VC4SIM_ROOT_NAME", RootName)
	b.WriteString("\n")
	list := func(name string, l []string) {
		fmt.Fprintf(&b, "static const char *const %s[] = {", name)
		for _, s := range l {
			fmt.Fprintf(&b, "%q, ", s)
		}
		b.WriteString("NULL};\n")
	}
	list("vc4sim_redirected_dirs", RedirectedDirs)
	list("vc4sim_redirected_names", RedirectedNames)
	b.WriteString("\n")
	types := make([]uint32, 0, len(msgNames))
	for t := range msgNames {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		def("VC4SIM_MSG_"+msgNames[t], uint64(t))
	}
	b.WriteString(`
/* Every message starts with this header (host byte order). */
struct vc4sim_header {
	uint32_t type;
	uint32_t arg; /* the request, errno or version */
	uint64_t a;
	uint64_t b;
	uint64_t c;
};

_Static_assert(sizeof(struct vc4sim_header) == VC4SIM_HEADER_SIZE, "header size");

#endif
`)
	return b.String()
}
