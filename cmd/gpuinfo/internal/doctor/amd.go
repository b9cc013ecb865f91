package doctor

import (
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// Hints shared by several checks.
const (
	hintGroups    = "add your user to the render and video groups (sudo usermod -aG render,video $USER), then log in again"
	hintContainer = "in a container, pass the devices in: docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render"
	hintModprobe  = "load the kernel driver: sudo modprobe amdgpu (dmesg | grep amdgpu says why it failed to load)"
)

// pciGPUs lists the PCI addresses of display or processing-accelerator
// devices of a vendor ("0x1002" AMD, "0x10de" NVIDIA).
func (s *System) pciGPUs(vendor string) []string {
	var out []string
	for _, dev := range s.glob("/sys/bus/pci/devices/*") {
		if s.read(dev+"/vendor") != vendor {
			continue
		}
		class := s.read(dev + "/class")
		if strings.HasPrefix(class, "0x03") || strings.HasPrefix(class, "0x12") {
			out = append(out, path.Base(dev))
		}
	}
	return out
}

func (c *checker) amd() {
	s := c.sys
	hw := s.pciGPUs("0x1002")
	module := s.exists("/sys/module/amdgpu")
	kfd := s.exists("/dev/kfd")
	relevant := len(hw) > 0 || module || kfd
	bad := grade(relevant)
	c.relevant["amd"] = relevant

	if len(hw) > 0 {
		c.add(OK, "AMD GPUs (PCI)", "", "%d: %s", len(hw), strings.Join(hw, ", "))
	}

	// The kernel driver.
	kver := ""
	switch {
	case module:
		kver = s.read("/sys/module/amdgpu/version")
		if kver != "" {
			c.add(OK, "amdgpu module", "", "loaded, version %s (DKMS, from /sys/module/amdgpu/version)", kver)
		} else {
			c.add(OK, "amdgpu module", "", "loaded, the kernel's own driver (no /sys/module/amdgpu/version)")
		}
	case len(hw) > 0:
		c.add(Fail, "amdgpu module", hintModprobe, "not loaded (no /sys/module/amdgpu) although %d AMD GPU(s) are on the PCI bus", len(hw))
	default:
		c.add(bad, "amdgpu module", "", "not loaded (no /sys/module/amdgpu): no AMD GPU driver in this kernel")
	}

	// /dev/kfd: ROCR's door to the GPU.
	switch err := s.access("/dev/kfd"); {
	case err == nil:
		c.add(OK, "/dev/kfd", "", "present and accessible")
	case errors.Is(err, fs.ErrNotExist) && module:
		c.add(Fail, "/dev/kfd", "the kernel needs CONFIG_HSA_AMD; "+hintContainer, "missing although amdgpu is loaded")
	case errors.Is(err, fs.ErrNotExist):
		c.add(bad, "/dev/kfd", hintIf(relevant, hintModprobe+"; "+hintContainer), "missing: ROCm cannot reach any AMD GPU")
	case errors.Is(err, fs.ErrPermission):
		c.add(Fail, "/dev/kfd", hintGroups, "present but not accessible: %s", errText(err))
	default:
		c.add(Fail, "/dev/kfd", "", "present but cannot be opened: %s", errText(err))
	}

	// The render nodes of AMD GPUs (all render nodes where sysfs does not
	// say which driver owns them).
	var nodes, denied []string
	var other error
	for _, n := range s.glob("/dev/dri/renderD*") {
		drv := path.Base(s.realpath("/sys/class/drm/" + path.Base(n) + "/device/driver"))
		if drv != "driver" && drv != "amdgpu" {
			continue
		}
		nodes = append(nodes, n)
		if err := s.access(n); errors.Is(err, fs.ErrPermission) {
			denied = append(denied, n)
		} else if err != nil && other == nil {
			other = err
		}
	}
	switch {
	case len(denied) > 0:
		c.add(Fail, "/dev/dri/renderD*", hintGroups, "not accessible: %s", strings.Join(denied, ", "))
	case other != nil:
		c.add(Fail, "/dev/dri/renderD*", "", "cannot be opened: %s", errText(other))
	case len(nodes) > 0:
		c.add(OK, "/dev/dri/renderD*", "", "%s accessible", strings.Join(nodes, ", "))
	default:
		c.add(bad, "/dev/dri/renderD*", hintIf(relevant, hintContainer), "no render node of an AMD GPU")
	}

	// The user-space runtime.
	lib := s.findLibrary(vendorlib.ROCm)
	if lib.Path == "" {
		c.add(bad, lib.Name, vendorlib.ROCm.Hint+", or set "+vendorlib.ROCm.Env+" to the library's path", "%s", lib.describe())
	} else {
		c.add(OK, lib.Name, "", "%s", lib.describe())
	}
	rocmPath, _ := s.env("ROCM_PATH")
	release := c.rocmRelease(strings.TrimSpace(rocmPath), lib)

	// Kernel driver and runtime side by side: out of step is the most
	// common ROCm failure, and hsa_init's status rarely says so.
	if !module && lib.Path == "" {
		return
	}
	kside := "not loaded"
	switch {
	case kver != "":
		kside = "amdgpu " + kver + " (DKMS)"
	case module:
		kside = "amdgpu of Linux " + orUnknown(c.osrelease)
	}
	uside := "not found"
	if lib.Path != "" {
		uside = "ROCR " + orUnknown(lib.Version)
		if release != "" {
			uside += ", ROCm " + release
		}
	}
	msg := "kernel driver: " + kside + " | user-space runtime: " + uside
	rocmErr, tried := c.rt.Status["rocm"]
	switch {
	case !module || lib.Path == "":
		c.add(Warn, "ROCm versions", "", "%s", msg)
	case tried && rocmErr != nil:
		c.add(Warn, "ROCm versions", "if hsa_init fails with both present, they are likely out of step: install the amdgpu-dkms of the same ROCm release, or a ROCm that supports this kernel's driver (see ROCm's compatibility matrix)", "%s", msg)
	default:
		c.add(OK, "ROCm versions", "", "%s", msg)
	}
}

var rocmDirVersion = regexp.MustCompile(`/rocm-([0-9][0-9.]*)/`)

// rocmRelease finds the ROCm release: $ROCM_PATH/.info/version,
// /opt/rocm/.info/version, or a /opt/rocm-X.Y.Z/ directory in the library's
// path.
func (c *checker) rocmRelease(rocmPath string, lib Library) string {
	var files []string
	if rocmPath != "" {
		files = append(files, path.Join(rocmPath, ".info/version"))
	}
	if m := rocmDirVersion.FindStringSubmatch(lib.Real); m != nil {
		return m[1]
	}
	for _, f := range append(files, "/opt/rocm/.info/version") {
		if v := c.sys.read(f); v != "" {
			return strings.Fields(v)[0]
		}
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(version unknown)"
	}
	return s
}
