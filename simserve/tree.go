package simserve

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vccube/vccube/sim"
)

// The files a program's DRM stack reads besides the device itself, as a
// Raspberry Pi 0-3 running Raspberry Pi OS has them. The server writes
// them under Dir/root, and the preload sends every path under /dev/dri,
// /sys/dev/char/226:*, /sys/class/drm and /sys/devices/platform/soc/soc:gpu
// there, so the program sees this device and no other (not the host's
// own GPU, when it has one).
//
// What reads them (libdrm 2.4.114 xf86drm.c, Mesa's loader):
//   - drmGetDevice2 and drmGetDevices2 list /dev/dri, stat each node,
//     check /sys/dev/char/M:m/device/drm exists (drmNodeIsDRM), readlink
//     /sys/dev/char/M:m/device/subsystem to learn the bus (a link ending
//     in /platform is DRM_BUS_PLATFORM: get_subsystem_type), and read
//     OF_FULLNAME and OF_COMPATIBLE_N / OF_COMPATIBLE_<i> (falling back on
//     MODALIAS) from /sys/dev/char/M:m/device/uevent
//     (drmParseOFBusInfo, drmParseOFDeviceInfo);
//   - drmGetDeviceNameFromFd2 reads DEVNAME from /sys/dev/char/M:m/uevent;
//   - drmGetPrimaryDeviceNameFromFd and drmGetRenderDeviceNameFromFd list
//     /sys/dev/char/M:m/device/drm for the card and renderD entries;
//   - Mesa's loader_get_pci_id_for_fd tries /sys/dev/char/M:m/device/vendor
//     and .../device, which a platform device does not have.
//
// The device nodes are empty regular files here: the preload makes stat
// report them as character devices 226:minor, from their names.

// ofNode is the device-tree node of the vc4 device: on a Pi 0-3 the "gpu"
// node under /soc (arch/arm/boot/dts/bcm2835-common.dtsi in the kernels
// Raspberry Pi OS ships; newer mainline kernels moved it to the root, as
// /gpu), compatible with "brcm,bcm2835-vc4". Its platform device is named
// after the parent and the node, soc:gpu (of_device_make_bus_id for a
// node without reg).
const (
	ofName     = "gpu"
	ofFullName = "/soc/gpu"
	deviceDir  = "sys/devices/platform/soc/soc:gpu"
	// platformDriver is vc4's platform driver (vc4_drv.c
	// vc4_platform_driver: .name = "vc4-drm"), the device's DRIVER.
	platformDriver = "vc4-drm"
)

// compatible is the vc4 node's compatible string for a board (vc4_drv.c
// vc4_of_match: the BCM2835 family's vc4, the BCM2711's display-only
// "vc5", the BCM2712's "vc6").
func compatible(b sim.Board) string {
	switch b {
	case sim.BoardPi4:
		return "brcm,bcm2711-vc5"
	case sim.BoardPi5:
		return "brcm,bcm2712-vc6"
	}
	return "brcm,bcm2835-vc4"
}

// deviceUevent is the platform device's uevent file as dev_uevent
// (drivers/base/core.c) writes it: DRIVER, then the device-tree keys of
// of_device_uevent (OF_NAME, OF_FULLNAME, no OF_TYPE since the node has no
// device_type, OF_COMPATIBLE_<i>, OF_COMPATIBLE_N), then the platform
// bus's MODALIAS (platform_uevent, of_device_uevent_modalias:
// "of:N<name>T<type>C<compatible>", the absent type printed by vsnprintf
// as "(null)").
func deviceUevent(b sim.Board) string {
	c := compatible(b)
	return fmt.Sprintf("DRIVER=%s\nOF_NAME=%s\nOF_FULLNAME=%s\nOF_COMPATIBLE_0=%s\nOF_COMPATIBLE_N=1\nMODALIAS=of:N%sT(null)C%s\n",
		platformDriver, ofName, ofFullName, c, ofName, c)
}

// minorUevent is a DRM minor's uevent file (dev_uevent for a device with
// a devt: MAJOR, MINOR, DEVNAME with the name drm_sysfs gives, "dri/card0";
// DEVTYPE from the drm_minor device type, drm_sysfs.c).
func minorUevent(name string, minor int) string {
	return fmt.Sprintf("MAJOR=%d\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n", DRMMajor, minor, name)
}

// writeTree writes the files under root, replacing any earlier tree.
func writeTree(root string, b sim.Board) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	type node struct {
		name  string
		minor int
	}
	nodes := []node{{"card0", PrimaryMinor}}
	if b != sim.BoardPi4 && b != sim.BoardPi5 {
		// vc5_drm_driver has no DRIVER_RENDER: no render node.
		nodes = append(nodes, node{"renderD128", RenderMinor})
	}
	var files []struct{ path, content string }
	file := func(path, content string) { files = append(files, struct{ path, content string }{path, content}) }
	var links [][2]string // path, target, both in the tree
	link := func(path, target string) { links = append(links, [2]string{path, target}) }
	var dirs []string

	dev := deviceDir
	file(dev+"/uevent", deviceUevent(b))
	// The bus and driver links of a platform device.
	link(dev+"/subsystem", "sys/bus/platform")
	link(dev+"/driver", "sys/bus/platform/drivers/"+platformDriver)
	dirs = append(dirs, "sys/bus/platform/drivers/"+platformDriver, "sys/class/drm")
	for _, n := range nodes {
		file("dev/dri/"+n.name, "")
		m := dev + "/drm/" + n.name
		file(m+"/uevent", minorUevent(n.name, n.minor))
		file(m+"/dev", fmt.Sprintf("%d:%d\n", DRMMajor, n.minor))
		link(m+"/device", dev)
		link(m+"/subsystem", "sys/class/drm")
		// /sys/dev/char/226:N and /sys/class/drm/NAME link to the minor.
		link(fmt.Sprintf("sys/dev/char/%d:%d", DRMMajor, n.minor), m)
		link("sys/class/drm/"+n.name, m)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range files {
		p := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			return err
		}
	}
	for _, l := range links {
		p := filepath.Join(root, l[0])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// Relative links, as sysfs has them, so the tree can move.
		target, err := filepath.Rel(filepath.Dir(l[0]), l[1])
		if err != nil {
			return err
		}
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	return nil
}
