package present

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// A descriptor the runtime's poller cannot watch (a regular file: epoll
// refuses it) gets no eventWaiter, so the swapchain keeps poll(2) for it
// instead of failing every wait for want of a deadline.
func TestNoWaiterForADescriptorThePollerCannotWatch(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "events")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	if w := newEventWaiter(fd); w != nil {
		w.close()
		t.Fatal("a regular file got a poller waiter; its waits would fail with no deadline")
	}
	if w := newEventWaiter(-1); w != nil {
		t.Fatal("no descriptor got a waiter")
	}
}
