package simserve_test

import (
	"encoding/binary"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/vccube/vccube/drm"
	"github.com/vccube/vccube/simserve"
	"github.com/vccube/vccube/uapi"
	"golang.org/x/sys/unix"
)

// packet builds a message for the seeds.
func packet(typ, arg uint32, a, b, c uint64, payload []byte) []byte {
	p := make([]byte, simserve.HeaderSize, simserve.HeaderSize+len(payload))
	binary.NativeEndian.PutUint32(p[0:], typ)
	binary.NativeEndian.PutUint32(p[4:], arg)
	binary.NativeEndian.PutUint64(p[8:], a)
	binary.NativeEndian.PutUint64(p[16:], b)
	binary.NativeEndian.PutUint64(p[24:], c)
	return append(p, payload...)
}

// frame joins packets into a fuzz input: each packet is a 2-byte length
// and its bytes.
func frame(pkts ...[]byte) []byte {
	var out []byte
	for _, p := range pkts {
		out = binary.LittleEndian.AppendUint16(out, uint16(len(p)))
		out = append(out, p...)
	}
	return out
}

// Nothing a client sends may crash or hang the server or corrupt the
// device for other clients: after any sequence of packets (after a valid
// greeting, or instead of it) the server still serves a new client. The
// fake client answers every copy request (with EFAULT, zeros or taken
// descriptors), so the server's own answers are exercised too.
func FuzzWire(f *testing.F) {
	hello := packet(simserve.MsgHello, simserve.ProtocolVersion, 0, 2, 8, nil)
	version := make([]byte, uapi.IoctlVersion.Size())
	binary.NativeEndian.PutUint64(version[8:], 4)       // name_len
	binary.NativeEndian.PutUint64(version[16:], 0x1000) // name: the client answers EFAULT
	create := make([]byte, uapi.IoctlCreateBO.Size())
	binary.NativeEndian.PutUint32(create, 4096)
	f.Add(frame(hello, packet(simserve.MsgIoctl, uint32(uapi.IoctlVersion), 0, 0, 0, version)))
	f.Add(frame(hello, packet(simserve.MsgIoctl, uint32(uapi.IoctlCreateBO), 0, 0, 0, create),
		packet(simserve.MsgMmap, 0, 1<<32, 4096, 3, nil), packet(simserve.MsgMunmap, 0, 0, 1, 0, nil)))
	f.Add(frame(hello, packet(simserve.MsgIoctl, uint32(uapi.IoctlCreateBO), 0, 0, 0, create[:3])))
	f.Add(frame(hello, packet(simserve.MsgReadReply, 0, 0, 0, 0, []byte("unasked"))))
	f.Add(frame(packet(simserve.MsgHello, 99, 0, 0, 8, nil)))
	f.Add(frame([]byte{1, 2, 3}))
	f.Add(frame(hello, packet(simserve.MsgIoctl, 0xffffffff, 0, 0, 0, nil)))

	r := newRig(f, simserve.Options{Timeout: 200 * time.Millisecond})
	f.Fuzz(func(t *testing.T, data []byte) {
		conn, err := net.DialUnix("unixpacket", nil, &net.UnixAddr{Name: filepath.Join(r.dir, simserve.SocketName), Net: "unixpacket"})
		if err != nil {
			t.Fatal(err)
		}
		var fds []int
		done := make(chan struct{})
		go func() { // the responder
			defer close(done)
			buf := make([]byte, simserve.HeaderSize+simserve.MaxPayload)
			oob := make([]byte, unix.CmsgSpace(2*4))
			for {
				n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
				if err != nil || n == 0 {
					return
				}
				if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
					for i := range msgs {
						if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
							fds = append(fds, got...)
						}
					}
				}
				if n < simserve.HeaderSize {
					continue
				}
				typ := binary.NativeEndian.Uint32(buf)
				b := binary.NativeEndian.Uint64(buf[16:])
				switch typ {
				case simserve.MsgReadUser:
					if b%2 == 0 && b <= simserve.MaxPayload {
						conn.Write(packet(simserve.MsgReadReply, 0, 0, 0, 0, make([]byte, b)))
					} else {
						conn.Write(packet(simserve.MsgReadReply, 14, 0, 0, 0, nil))
					}
				case simserve.MsgWriteUser:
					conn.Read(buf)
					conn.Write(packet(simserve.MsgWriteReply, 0, 0, 0, 0, nil))
				case simserve.MsgInstallFd:
					conn.Write(packet(simserve.MsgInstallReply, 0, 5, 0, 0, nil))
				case simserve.MsgGetFd:
					conn.Write(packet(simserve.MsgGetFdReply, 9, 0, 0, 0, nil))
				case simserve.MsgIoctlReply:
					if b > 0 {
						conn.Read(buf)
					}
				}
			}
		}()
		for len(data) >= 2 {
			n := int(binary.LittleEndian.Uint16(data))
			data = data[2:]
			n = min(n, len(data))
			if _, err := conn.Write(data[:n]); err != nil {
				break
			}
			data = data[n:]
		}
		conn.CloseWrite()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the server neither finished nor cut the client off in 30 s")
		}
		conn.Close()
		for _, fd := range fds {
			unix.Close(fd)
		}
		// The device still serves others.
		c, err := simserve.Dial(r.dir, simserve.PrimaryMinor)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drm.GetVersion(c); err != nil {
			t.Fatal(err)
		}
		c.Close()
	})
}
