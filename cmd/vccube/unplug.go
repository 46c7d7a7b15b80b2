package main

import (
	"fmt"

	"github.com/vccube/vccube/present"
)

// A display unplugged in the middle of a run. vc4 keeps the CRTC running
// and the page flips completing when the monitor goes away; only the
// connector's status, which the kernel updates when it notices (package
// present, hotplug.go), tells. The program looks at it about once a
// second (every refresh-rate frames: a GETCONNECTOR that does not probe,
// no allocation), and when the display is gone it stops, puts the CRTC
// back as it found it (cleanup, as after any error), prints the report
// and exits with status 1.

// checkInterval is how many frames apart the connector is looked at: the
// mode's refresh rate, so about once a second while frames keep up.
func checkInterval(refreshMilliHz uint64) uint64 {
	return max(1, (refreshMilliHz+500)/1000)
}

// checkDisplay looks at the display's connector after frame k, every
// checkEvery frames.
func (p *program) checkDisplay(k uint64) error {
	if p.disp == nil || p.checkEvery == 0 || (k+1)%p.checkEvery != 0 {
		return nil
	}
	ok, err := p.disp.Connected()
	if err != nil || ok {
		return err
	}
	return &stopError{
		reason: fmt.Sprintf("the display was unplugged (seen after frame %d)", k),
		err: fmt.Errorf("%w: %s reports no display connected (seen after frame %d); vccube stopped and put the CRTC back as it found it; "+
			"plug the display in and start vccube again", present.ErrDisconnected, p.disp, k),
	}
}
