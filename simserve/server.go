package simserve

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/vccube/vccube/sim"
)

// Options configure a Server.
type Options struct {
	// Device is the simulated device to serve. The server does not close
	// it.
	Device *sim.Device
	// Dir is the server's directory: it holds the socket ("socket") and
	// the files the preload shows the client in place of /dev/dri and the
	// DRM part of /sys ("root"). Clients find it through the VC4SIM
	// environment variable. It is created if missing; the socket and the
	// tree of an earlier server are replaced.
	Dir string
	// Timeout is how long the server waits for a client's answer to a
	// copy request (copy_from_user, copy_to_user) or for a client to take
	// a message; a client that lets it pass is cut off, its ioctl fails
	// with EFAULT and its files are closed. 0 means 30 seconds.
	Timeout time.Duration
	// Log, if set, receives a line for each connection opened and closed
	// and for each client cut off, with the reason.
	Log io.Writer
	// OnIdle, if set, is called whenever the last connection closes.
	OnIdle func()
	// OnOpen, if set, is called when a client has opened a node (card0 or
	// renderD128), with the client's process id (SO_PEERCRED; 0 if
	// unknown).
	OnOpen func(pid int, node string)
}

// SocketName and RootName are the names of the socket and of the file
// tree inside Options.Dir.
const (
	SocketName = "socket"
	RootName   = "root"
)

// Server serves a simulated device to programs in other processes
// through the preload library.
type Server struct {
	opts Options
	ln   *net.UnixListener

	mu     sync.Mutex
	conns  map[*conn]struct{}
	closed bool
	wg     sync.WaitGroup
	logMu  sync.Mutex
}

// New creates the server's directory, its file tree and its socket. Serve
// then accepts clients.
func New(opts Options) (*Server, error) {
	if opts.Device == nil {
		return nil, errors.New("simserve: Options.Device is nil: pass the simulated device to serve")
	}
	if opts.Dir == "" {
		return nil, errors.New("simserve: Options.Dir is empty: name a directory for the socket and the device files")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("simserve: %w", err)
	}
	opts.Dir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("simserve: creating the server directory: %w", err)
	}
	if err := writeTree(filepath.Join(dir, RootName), opts.Device.Board()); err != nil {
		return nil, fmt.Errorf("simserve: writing the device files under %s: %w", dir, err)
	}
	sock := filepath.Join(dir, SocketName)
	// sockaddr_un.sun_path holds 108 bytes with the NUL.
	if len(sock) >= 108 {
		return nil, fmt.Errorf("simserve: the socket path %s is %d bytes, longer than a Unix socket address allows (107): choose a shorter -dir", sock, len(sock))
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("simserve: removing an old socket: %w", err)
	}
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: sock, Net: "unixpacket"})
	if err != nil {
		return nil, fmt.Errorf("simserve: %w", err)
	}
	return &Server{opts: opts, ln: ln, conns: map[*conn]struct{}{}}, nil
}

// Dir is the server's directory, the value of VC4SIM for its clients.
func (s *Server) Dir() string { return s.opts.Dir }

// Serve accepts clients until Close; it returns nil after Close.
func (s *Server) Serve() error {
	for {
		uc, err := s.ln.AcceptUnix()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Out of descriptors: wait for connections to close
				// rather than spin.
				s.logf("accept: %v (waiting)", err)
				time.Sleep(100 * time.Millisecond)
				continue
			}
			return fmt.Errorf("simserve: accepting a client: %w", err)
		}
		c := newConn(s, uc)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			uc.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			idle := len(s.conns) == 0 && !s.closed
			s.mu.Unlock()
			if idle && s.opts.OnIdle != nil {
				s.opts.OnIdle()
			}
		}()
	}
}

// Close stops accepting clients, cuts off the connected ones (their DRM
// files are closed) and removes the socket. It waits for the connections'
// goroutines to end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.shutdown()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log == nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.opts.Log, "vc4serve: "+format+"\n", args...)
}
