package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr"
	_ "github.com/hipgo/hipgo/rocr/drivers/cpu" // for Observe
)

// machine is a fake machine: files (contents), symbolic links and denied
// device nodes under a temporary root, and an environment.
type machine struct {
	files  map[string]string
	links  map[string]string // path -> target, as the machine would see it
	denied map[string]bool
	env    map[string]string
}

func (m machine) system(t *testing.T) System {
	t.Helper()
	root := t.TempDir()
	for p, body := range m.files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range m.links {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	return System{
		Root: root,
		Getenv: func(k string) (string, bool) {
			v, ok := m.env[k]
			return v, ok
		},
		Access: func(p string) error {
			rel := "/" + strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(p, root)), "/")
			if m.denied[rel] {
				return &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
			}
			_, err := os.Stat(p)
			return err
		},
		GOARCH: "amd64",
	}
}

// amdMachine is a working ROCm machine.
func amdMachine() machine {
	return machine{
		files: map[string]string{
			"/proc/sys/kernel/osrelease":               "6.8.0-45-generic\n",
			"/sys/module/amdgpu/version":               "6.8.5\n",
			"/sys/bus/pci/devices/0000:03:00.0/vendor": "0x1002\n",
			"/sys/bus/pci/devices/0000:03:00.0/class":  "0x038000\n",
			"/sys/bus/pci/devices/0000:00:02.0/vendor": "0x8086\n",
			"/sys/bus/pci/devices/0000:00:02.0/class":  "0x030000\n",
			"/dev/kfd":                                       "",
			"/dev/dri/renderD128":                            "",
			"/dev/dri/renderD129":                            "",
			"/sys/bus/pci/drivers/amdgpu/x":                  "",
			"/sys/bus/pci/drivers/i915/x":                    "",
			"/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1.14.0": "",
			"/opt/rocm-6.2.0/.info/version":                  "6.2.0-66\n",
		},
		links: map[string]string{
			"/opt/rocm": "rocm-6.2.0",
			"/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1": "libhsa-runtime64.so.1.14.0",
			"/sys/class/drm/renderD128/device/driver":   "/sys/bus/pci/drivers/amdgpu",
			"/sys/class/drm/renderD129/device/driver":   "/sys/bus/pci/drivers/i915",
		},
		env: map[string]string{},
	}
}

func amdRuntime() *Runtime {
	return &Runtime{
		Drivers: []string{"rocm", "cuda", "cpu"},
		Status: map[string]error{
			"rocm": nil,
			"cuda": errors.New("no NVIDIA driver: cannot open libcuda.so.1: not found"),
			"cpu":  nil,
		},
		Agents: []Agent{
			{Driver: "rocm", Name: "AMD Instinct MI210", ISA: "gfx90a:sramecc+:xnack-", GPU: true, UUID: "GPU-aa"},
			{Driver: "rocm", Name: "AMD Instinct MI210", ISA: "gfx90a:sramecc+:xnack-", GPU: true, UUID: "GPU-bb"},
			{Driver: "cpu", Name: "hipgo software agent", ISA: "go"},
		},
	}
}

func cpuRuntime() *Runtime {
	return &Runtime{
		Drivers: []string{"rocm", "cuda", "cpu"},
		Status: map[string]error{
			"rocm": errors.New("no AMD agent: HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."),
			"cuda": errors.New("no NVIDIA driver: cannot open libcuda.so.1: not found"),
			"cpu":  nil,
		},
		Agents: []Agent{{Driver: "cpu", Name: "hipgo software agent", ISA: "go"}},
	}
}

// finding returns the finding of a check, failing the test if there is none.
func finding(t *testing.T, r *Report, check string) Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Check == check {
			return f
		}
	}
	var buf bytes.Buffer
	_ = r.WriteText(&buf)
	t.Fatalf("no finding for %q in\n%s", check, buf.String())
	return Finding{}
}

func want(t *testing.T, f Finding, l Level, parts ...string) {
	t.Helper()
	text := f.Msg + " | hint: " + f.Hint
	if f.Level != l {
		t.Errorf("%s: level %v, want %v (%s)", f.Check, f.Level, l, text)
	}
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s: %q lacks %q", f.Check, text, p)
		}
	}
}

func TestWorkingAMD(t *testing.T) {
	r := Check(amdMachine().system(t), amdRuntime())
	want(t, finding(t, r, "kernel"), OK, "Linux 6.8.0-45-generic")
	want(t, finding(t, r, "AMD GPUs (PCI)"), OK, "1: 0000:03:00.0")
	want(t, finding(t, r, "amdgpu module"), OK, "loaded, version 6.8.5")
	want(t, finding(t, r, "/dev/kfd"), OK, "accessible")
	rd := finding(t, r, "/dev/dri/renderD*")
	want(t, rd, OK, "/dev/dri/renderD128")
	if strings.Contains(rd.Msg, "renderD129") {
		t.Errorf("the i915 render node counted as AMD: %s", rd.Msg)
	}
	want(t, finding(t, r, "libhsa-runtime64.so.1"), OK, "/opt/rocm/lib/libhsa-runtime64.so.1 -> /opt/rocm-6.2.0/lib/libhsa-runtime64.so.1.14.0")
	want(t, finding(t, r, "ROCm versions"), OK, "kernel driver: amdgpu 6.8.5 (DKMS) | user-space runtime: ROCR 1.14.0, ROCm 6.2.0")
	want(t, finding(t, r, "driver rocm"), OK, "AMD Instinct MI210 (rocm, gfx90a:sramecc+:xnack-)")
	if !r.GPU {
		t.Errorf("GPU not usable: %s", r.Verdict)
	}
	want(t, finding(t, r, "verdict"), OK, "GPU usable: AMD Instinct MI210")
	for _, f := range r.Findings {
		if f.Level == Fail {
			t.Errorf("unexpected fail: %+v", f)
		}
	}
}

func TestInTreeAMDGPUAndReleaseFile(t *testing.T) {
	m := amdMachine()
	delete(m.files, "/sys/module/amdgpu/version")
	m.files["/sys/module/amdgpu/initstate"] = "live"
	// Debian's packaging: the library in the multiarch directory, no ROCm tree.
	delete(m.files, "/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1.14.0")
	delete(m.files, "/opt/rocm-6.2.0/.info/version")
	delete(m.links, "/opt/rocm")
	delete(m.links, "/opt/rocm-6.2.0/lib/libhsa-runtime64.so.1")
	m.files["/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.5.0"] = ""
	m.links["/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1"] = "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.5.0"
	rt := cpuRuntime()
	rt.Status["rocm"] = errors.New("no AMD agent: HSA_STATUS_ERROR_OUT_OF_RESOURCES")
	r := Check(m.system(t), rt)
	want(t, finding(t, r, "amdgpu module"), OK, "the kernel's own driver")
	want(t, finding(t, r, "libhsa-runtime64.so.1"), OK, "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.5.0")
	// Both present and hsa_init failing: say they may be out of step.
	want(t, finding(t, r, "ROCm versions"), Warn, "amdgpu of Linux 6.8.0-45-generic | user-space runtime: ROCR 1.5.0", "same ROCm release")
	want(t, finding(t, r, "driver rocm"), Fail, "no AMD agent: HSA_STATUS_ERROR_OUT_OF_RESOURCES")
}

func TestKFDPermission(t *testing.T) {
	m := amdMachine()
	m.denied = map[string]bool{"/dev/kfd": true, "/dev/dri/renderD128": true}
	r := Check(m.system(t), amdRuntime())
	want(t, finding(t, r, "/dev/kfd"), Fail, "not accessible: permission denied", "add your user to the render and video groups")
	want(t, finding(t, r, "/dev/dri/renderD*"), Fail, "/dev/dri/renderD128", "render and video groups")
}

func TestAMDGPUNotLoaded(t *testing.T) {
	m := amdMachine()
	delete(m.files, "/sys/module/amdgpu/version")
	delete(m.files, "/dev/kfd")
	delete(m.files, "/dev/dri/renderD128")
	delete(m.files, "/dev/dri/renderD129")
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "amdgpu module"), Fail, "not loaded", "1 AMD GPU(s) are on the PCI bus", "modprobe amdgpu")
	want(t, finding(t, r, "/dev/kfd"), Fail, "missing")
	want(t, finding(t, r, "/dev/dri/renderD*"), Fail, "no render node")
	want(t, finding(t, r, "ROCm versions"), Warn, "kernel driver: not loaded | user-space runtime: ROCR 1.14.0")
	want(t, finding(t, r, "driver rocm"), Fail, "HSA_STATUS_ERROR_OUT_OF_RESOURCES")
	want(t, finding(t, r, "verdict"), Fail, "no GPU: hipgo runs on the cpu agent", "amdgpu module", "/dev/kfd")
	if r.GPU {
		t.Error("GPU usable without a driver")
	}
}

func TestKFDMissingWithAMDGPU(t *testing.T) {
	m := amdMachine()
	delete(m.files, "/dev/kfd")
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "/dev/kfd"), Fail, "missing although amdgpu is loaded", "CONFIG_HSA_AMD", "--device=/dev/kfd")
}

func TestLibraryNotFound(t *testing.T) {
	m := machine{
		files: map[string]string{
			"/etc/ld.so.conf":                       "include /etc/ld.so.conf.d/*.conf\n",
			"/etc/ld.so.conf.d/x86_64.conf":         "# multiarch\n/usr/local/lib/x86_64-linux-gnu\n",
			"/usr/local/cuda/lib64/libcudart.so.12": "",
		},
		env: map[string]string{"LD_LIBRARY_PATH": "/home/u/lib:", "ROCM_PATH": "/srv/rocm"},
	}
	r := Check(m.system(t), cpuRuntime())
	hsa := finding(t, r, "libhsa-runtime64.so.1")
	want(t, hsa, Warn, "not found; looked in /home/u/lib, /usr/local/lib/x86_64-linux-gnu, /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu",
		"/usr/lib64", "/srv/rocm/lib, /opt/rocm/lib", "HIPGO_ROCM_LIB")
	cuda := finding(t, r, "libcuda.so.1")
	want(t, cuda, Warn, "/home/u/lib", "/usr/lib64", "/usr/local/cuda/lib64", "HIPGO_CUDA_LIBRARY")
	if strings.Contains(cuda.Msg, "/opt/rocm") {
		t.Errorf("libcuda looked for under /opt/rocm: %s", cuda.Msg)
	}
	want(t, finding(t, r, "kernel"), Warn, "unknown")
	want(t, finding(t, r, "amdgpu module"), Warn, "not loaded")
	want(t, finding(t, r, "NVIDIA kernel driver"), Warn, "not loaded")
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

func TestLibraryOverride(t *testing.T) {
	m := machine{
		files: map[string]string{"/srv/lib/libhsa-runtime64.so.1.13.0": ""},
		links: map[string]string{"/srv/lib/hsa.so": "libhsa-runtime64.so.1.13.0"},
		env:   map[string]string{"HIPGO_ROCM_LIB": "/srv/lib/hsa.so", "HIPGO_CUDA_LIBRARY": "/nowhere/libcuda.so.1"},
	}
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "libhsa-runtime64.so.1"), OK, "/srv/lib/hsa.so -> /srv/lib/libhsa-runtime64.so.1.13.0", "from HIPGO_ROCM_LIB")
	want(t, finding(t, r, "libcuda.so.1"), Warn, "not found at /nowhere/libcuda.so.1 (from HIPGO_CUDA_LIBRARY)")
}

func nvidiaMachine(module, lib string) machine {
	return machine{
		files: map[string]string{
			"/proc/sys/kernel/osrelease":               "5.15.0-105-generic",
			"/proc/driver/nvidia/version":              "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  " + module + "  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jan 11 2024\nGCC version:  gcc version 12.3.0\n",
			"/sys/bus/pci/devices/0000:17:00.0/vendor": "0x10de",
			"/sys/bus/pci/devices/0000:17:00.0/class":  "0x030200",
			"/dev/nvidiactl":                           "",
			"/dev/nvidia0":                             "",
			"/dev/nvidia-uvm":                          "",
			"/usr/lib64/libcuda.so." + lib:             "",
		},
		links: map[string]string{"/usr/lib64/libcuda.so.1": "libcuda.so." + lib},
		env:   map[string]string{},
	}
}

func nvidiaRuntime() *Runtime {
	rt := cpuRuntime()
	rt.Status["cuda"] = nil
	rt.Agents = append([]Agent{{Driver: "cuda", Name: "NVIDIA H200", ISA: "sm_90", GPU: true, UUID: "GPU-5f"}}, rt.Agents...)
	return rt
}

func TestNVIDIA(t *testing.T) {
	r := Check(nvidiaMachine("550.54.15", "550.54.15").system(t), nvidiaRuntime())
	want(t, finding(t, r, "NVIDIA GPUs (PCI)"), OK, "0000:17:00.0")
	want(t, finding(t, r, "NVIDIA kernel driver"), OK, "version 550.54.15")
	want(t, finding(t, r, "/dev/nvidia*"), OK, "/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm accessible")
	want(t, finding(t, r, "libcuda.so.1"), OK, "/usr/lib64/libcuda.so.1 -> /usr/lib64/libcuda.so.550.54.15")
	want(t, finding(t, r, "NVIDIA versions"), OK, "kernel driver: 550.54.15 | user-space libcuda: 550.54.15")
	want(t, finding(t, r, "driver cuda"), OK, "NVIDIA H200 (cuda, sm_90)")
	// No AMD hardware: the AMD lines warn, they do not fail.
	want(t, finding(t, r, "/dev/kfd"), Warn, "missing")
	want(t, finding(t, r, "driver rocm"), Warn, "no AMD agent")
	if !r.GPU {
		t.Errorf("GPU not usable: %s", r.Verdict)
	}
}

func TestNVIDIAMismatchAndNodes(t *testing.T) {
	m := nvidiaMachine("535.161.07", "550.54.15")
	delete(m.files, "/dev/nvidia-uvm")
	m.files["/proc/driver/nvidia/version"] = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.07  Thu Feb 29 2024\n"
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "NVIDIA kernel driver"), OK, "535.161.07")
	want(t, finding(t, r, "NVIDIA versions"), Fail, "kernel driver: 535.161.07 | user-space libcuda: 550.54.15", "reboot")
	want(t, finding(t, r, "/dev/nvidia*"), Fail, "/dev/nvidia-uvm missing", "nvidia-modprobe")
	want(t, finding(t, r, "driver cuda"), Fail, "cannot open libcuda.so.1")

	m = nvidiaMachine("550.54.15", "550.54.15")
	m.denied = map[string]bool{"/dev/nvidiactl": true}
	r = Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "/dev/nvidia*"), Fail, "/dev/nvidiactl (permission denied)", "0666")
}

func TestLibcudaOutsideLoaderPath(t *testing.T) {
	m := nvidiaMachine("550.54.15", "550.54.15")
	delete(m.files, "/usr/lib64/libcuda.so.550.54.15")
	delete(m.links, "/usr/lib64/libcuda.so.1")
	m.files["/usr/local/cuda/lib64/libcuda.so.1"] = ""
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "libcuda.so.1"), Fail, "found at /usr/local/cuda/lib64/libcuda.so.1, which the dynamic loader does not search", "LD_LIBRARY_PATH")
}

func TestVisibleDevices(t *testing.T) {
	cases := []struct {
		env   map[string]string
		check string
		level Level
		parts []string
		gpu   bool
	}{
		{map[string]string{"ROCR_VISIBLE_DEVICES": ""}, "ROCR_VISIBLE_DEVICES", Fail, []string{"empty, which hides every GPU", "2 GPUs, indexes 0-1", "unset ROCR_VISIBLE_DEVICES"}, false},
		{map[string]string{"ROCR_VISIBLE_DEVICES": "2"}, "ROCR_VISIBLE_DEVICES", Fail, []string{`"2" hides every GPU`, `"2" matches no GPU (2 GPUs`}, false},
		{map[string]string{"HIP_VISIBLE_DEVICES": "1,7"}, "HIP_VISIBLE_DEVICES", Warn, []string{"shows 1 of 2", `"7" matches no GPU`}, true},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "GPU-bb"}, "CUDA_VISIBLE_DEVICES", OK, []string{"shows 1 of 2"}, true},
		{map[string]string{"HIP_VISIBLE_DEVICES": "0", "CUDA_VISIBLE_DEVICES": "-1"}, "CUDA_VISIBLE_DEVICES", Warn, []string{"HIP_VISIBLE_DEVICES is set too"}, true},
		{map[string]string{"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"}, "HIP_VISIBLE_DEVICES", Fail, []string{"hides every GPU", "the one GPU, index 0"}, false},
		{map[string]string{"ROCR_VISIBLE_DEVICES": "0,0"}, "ROCR_VISIBLE_DEVICES", Fail, []string{"twice"}, false},
	}
	for _, c := range cases {
		m := amdMachine()
		m.env = c.env
		r := Check(m.system(t), amdRuntime())
		want(t, finding(t, r, c.check), c.level, c.parts...)
		if r.GPU != c.gpu {
			t.Errorf("%v: GPU usable %v, want %v (%s)", c.env, r.GPU, c.gpu, r.Verdict)
		}
	}
	// With no GPU, a list hides nothing worth a warning.
	m := machine{env: map[string]string{"CUDA_VISIBLE_DEVICES": ""}}
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "CUDA_VISIBLE_DEVICES"), OK, "no GPU for it to select")
}

func TestHIPGODriver(t *testing.T) {
	cases := []struct {
		value string
		level Level
		parts []string
		gpu   bool
	}{
		{"cpu", Fail, []string{"forces the cpu agent although 2 GPU(s)", "unset HIPGO_DRIVER"}, false},
		{"rocm", OK, []string{"forces the rocm driver (2 agent(s))"}, true},
		{"cuda", Fail, []string{"found no device", "rocr.Init fails"}, false},
		{"opencl", Fail, []string{`"opencl" names no driver`, "rocm, cuda, cpu"}, false},
	}
	for _, c := range cases {
		m := amdMachine()
		m.env = map[string]string{"HIPGO_DRIVER": c.value}
		r := Check(m.system(t), amdRuntime())
		want(t, finding(t, r, "HIPGO_DRIVER"), c.level, c.parts...)
		if r.GPU != c.gpu {
			t.Errorf("HIPGO_DRIVER=%s: GPU usable %v, want %v", c.value, r.GPU, c.gpu)
		}
		if c.level == Fail && !c.gpu && c.value != "cpu" {
			want(t, finding(t, r, "verdict"), Fail, "no device: rocr.Init fails")
		}
	}
}

func TestCPUOnlyReport(t *testing.T) {
	rt := cpuRuntime()
	rt.Drivers = []string{"cpu"}
	r := Check(machine{}.system(t), rt)
	want(t, finding(t, r, "driver rocm"), Warn, "not built into this program")
	want(t, finding(t, r, "driver cuda"), Warn, "not built into this program")
	want(t, finding(t, r, "driver cpu"), OK, "opened")
	want(t, finding(t, r, "verdict"), Fail, "no GPU: hipgo runs on the cpu agent")
	if r.GPU {
		t.Error("GPU usable with only the cpu agent")
	}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(r.Findings) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(r.Findings), buf.String())
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "fail  verdict") || !strings.Contains(last, "; hint: ") {
		t.Errorf("last line %q", last)
	}
	buf.Reset()
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Findings []map[string]string `json:"findings"`
		GPU      bool                `json:"gpu_usable"`
		Verdict  string              `json:"verdict"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.GPU || back.Verdict != r.Verdict || back.Findings[len(back.Findings)-1]["level"] != "fail" {
		t.Errorf("JSON report: %+v", back)
	}
}

func TestRuntimeInitFailed(t *testing.T) {
	rt := &Runtime{Drivers: []string{"cpu"}, Err: errors.New("init: no agent: cpu: broken")}
	r := Check(machine{}.system(t), rt)
	want(t, finding(t, r, "runtime"), Fail, "rocr.Init failed: init: no agent")
	want(t, finding(t, r, "verdict"), Fail, "no device")
}

func TestRuntimeInitFailedDoesNotSayNotTried(t *testing.T) {
	rt := &Runtime{Drivers: []string{"rocm", "cuda", "cpu"}, Err: errors.New("init: no agent: rocm: no kfd; cuda: no libcuda; cpu: bad HIPGO_CPU_AGENTS")}
	r := Check(machine{}.system(t), rt)
	for _, d := range rt.Drivers {
		f := finding(t, r, "driver "+d)
		assert.Equal(t, Warn, f.Level, d)
		assert.NotContains(t, f.Msg, "not tried", "Init tried every driver before it failed")
		assert.Contains(t, f.Msg, "rocr.Init failed (see runtime)")
	}
}

func TestObserve(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "no-such-driver")
	t.Setenv("ROCR_VISIBLE_DEVICES", "")
	rt := Observe()
	if rt.Err != nil {
		t.Fatalf("Observe: %v", rt.Err)
	}
	if err, ok := rt.Status["cpu"]; !ok || err != nil {
		t.Errorf("cpu driver status %v, %v", err, ok)
	}
	var cpu bool
	for _, a := range rt.Agents {
		cpu = cpu || (a.Driver == "cpu" && !a.GPU && a.ISA == "go")
	}
	if !cpu {
		t.Errorf("no cpu agent in %+v", rt.Agents)
	}
	if v, _ := os.LookupEnv("HIPGO_DRIVER"); v != "no-such-driver" {
		t.Errorf("HIPGO_DRIVER not restored: %q", v)
	}
	if v, ok := os.LookupEnv("ROCR_VISIBLE_DEVICES"); !ok || v != "" {
		t.Errorf("ROCR_VISIBLE_DEVICES not restored: %q %v", v, ok)
	}
	// The runtime is closed again.
	if _, err := rocr.Agents(); err == nil {
		t.Error("runtime still open after Observe")
	}
}

// The libraries beyond the drivers' are reported from vendorlib's table:
// found, or missing where their vendor's GPUs are, with their variable.
func TestVendorLibraries(t *testing.T) {
	m := nvidiaMachine("550.54.15", "550.54.15")
	m.files["/usr/local/cuda-12.4/lib64/libnvrtc.so.12.4.99"] = ""
	m.files["/usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2"] = ""
	m.env["HIPGO_CUBLAS_LIBRARY"] = "/nowhere/libcublas.so"
	r := Check(m.system(t), nvidiaRuntime())
	want(t, finding(t, r, "libnvrtc.so.13"), OK, "found at /usr/local/cuda-12.4/lib64/libnvrtc.so.12.4.99", "gpu/rtc")
	want(t, finding(t, r, "libnccl.so.2"), OK, "found at /usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2", "gpu/collective")
	want(t, finding(t, r, "libcublas.so.13"), Warn, "not found at /nowhere/libcublas.so (from HIPGO_CUBLAS_LIBRARY)", "gpu/blas needs it", "set HIPGO_CUBLAS_LIBRARY")
	// No AMD GPU here: the AMD libraries are not worth a line.
	for _, f := range r.Findings {
		assert.NotContains(t, []string{"librocblas.so", "librccl.so.1", "libamdhip64.so", "libhiprtc.so.7"}, f.Check)
	}
}

// ROCm 5 has hipRTC inside libamdhip64.so.5: the doctor names the file it
// found, not the library it looked for. And fakeroot's directory, which
// Debian adds to the loader's path, is no place a GPU library is looked for.
func TestFoundInPlaceAndNoFakeroot(t *testing.T) {
	m := machine{
		files: map[string]string{
			"/etc/ld.so.conf": "include /etc/ld.so.conf.d/*.conf\n",
			"/etc/ld.so.conf.d/fakeroot-x86_64-linux-gnu.conf": "/usr/lib/x86_64-linux-gnu/libfakeroot\n",
			"/opt/rocm/lib/libamdhip64.so.5":                   "",
		},
		env: map[string]string{},
	}
	r := Check(m.system(t), cpuRuntime())
	want(t, finding(t, r, "libhiprtc.so.7"), OK, "found libamdhip64.so.5 in its place at /opt/rocm/lib/libamdhip64.so.5")
	cuda := finding(t, r, "libcuda.so.1")
	want(t, cuda, Warn, "not found; looked in", "/usr/lib64")
	assert.NotContains(t, cuda.Msg, "libfakeroot")
}
