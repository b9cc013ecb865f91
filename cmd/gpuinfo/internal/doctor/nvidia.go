package doctor

import (
	"errors"
	"io/fs"
	"regexp"
	"strings"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

const hintNvidiaContainer = "in a container, run with the NVIDIA container toolkit: docker run --gpus all"

// nvidiaVersion matches the kernel module's line of /proc/driver/nvidia/version:
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  ..." or, for the
// open modules, "... Open Kernel Module for x86_64  550.54.15  ...".
var nvidiaVersion = regexp.MustCompile(`Kernel Module(?: for \S+)?\s+([0-9][0-9.]*)`)

func (c *checker) nvidia() {
	s := c.sys
	hw := s.pciGPUs("0x10de")
	proc := s.read("/proc/driver/nvidia/version")
	relevant := len(hw) > 0 || proc != "" || s.exists("/dev/nvidiactl")
	bad := grade(relevant)
	c.relevant["nvidia"] = relevant

	if len(hw) > 0 {
		c.add(OK, "NVIDIA GPUs (PCI)", "", "%d: %s", len(hw), strings.Join(hw, ", "))
	}

	kver := ""
	if m := nvidiaVersion.FindStringSubmatch(proc); m != nil {
		kver = m[1]
	}
	switch {
	case proc != "":
		c.add(OK, "NVIDIA kernel driver", "", "loaded, version %s (/proc/driver/nvidia/version)", orUnknown(kver))
	case len(hw) > 0:
		c.add(Fail, "NVIDIA kernel driver", "install the NVIDIA driver and load it (sudo modprobe nvidia); "+hintNvidiaContainer, "not loaded (no /proc/driver/nvidia/version) although %d NVIDIA GPU(s) are on the PCI bus", len(hw))
	default:
		c.add(bad, "NVIDIA kernel driver", "", "not loaded (no /proc/driver/nvidia/version)")
	}

	// The device nodes CUDA opens: the control node, one per GPU, and the
	// unified-memory node (cuInit fails without it).
	nodes := append([]string{"/dev/nvidiactl"}, s.glob("/dev/nvidia[0-9]*")...)
	nodes = append(nodes, "/dev/nvidia-uvm")
	var missing, denied, ok []string
	for _, n := range nodes {
		switch err := s.access(n); {
		case err == nil:
			ok = append(ok, n)
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, n)
		default:
			denied = append(denied, n+" ("+errText(err)+")")
		}
	}
	switch {
	case len(denied) > 0:
		c.add(Fail, "/dev/nvidia*", "the NVIDIA nodes are normally mode 0666; check their permissions or the driver's NVreg_DeviceFileMode, or "+hintNvidiaContainer, "not accessible: %s", strings.Join(denied, ", "))
	case len(ok) == 0:
		c.add(bad, "/dev/nvidia*", hintIf(relevant, hintNvidiaContainer), "missing: no NVIDIA device node")
	case len(missing) > 0:
		hint := "run nvidia-modprobe -u -c=0 (or load nvidia_uvm) to create them"
		c.add(Fail, "/dev/nvidia*", hint, "%s missing (%s present)", strings.Join(missing, ", "), strings.Join(ok, ", "))
	default:
		c.add(OK, "/dev/nvidia*", "", "%s accessible", strings.Join(ok, ", "))
	}

	lib := s.findLibrary(vendorlib.CUDA)
	switch {
	case lib.Path == "":
		c.add(bad, lib.Name, vendorlib.CUDA.Hint+", or set "+vendorlib.CUDA.Env+" to its path", "%s", lib.describe())
	case !lib.Loadable:
		c.add(Fail, lib.Name, "add its directory to LD_LIBRARY_PATH or set "+vendorlib.CUDA.Env+"="+lib.Path, "%s, which the dynamic loader does not search", lib.describe())
	default:
		c.add(OK, lib.Name, "", "%s", lib.describe())
	}

	// The kernel module and libcuda must be the same release; after an
	// upgrade without a reboot they are not, and cuInit fails.
	if kver == "" || lib.Version == "" {
		return
	}
	msg := "kernel driver: " + kver + " | user-space libcuda: " + lib.Version
	if kver != lib.Version {
		c.add(Fail, "NVIDIA versions", "reboot after a driver upgrade, or reinstall so that the module and the library match", "%s: they differ", msg)
		return
	}
	c.add(OK, "NVIDIA versions", "", "%s", msg)
}

func hintIf(cond bool, hint string) string {
	if cond {
		return hint
	}
	return ""
}

// errText is an error's reason without the path a *PathError repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
