package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
)

// runCmd runs the command in-process on the cpu agent.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("HIPGO_DRIVER", "cpu")
	t.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			t.Error(err)
		}
	})
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	// Every subcommand closes the runtime it opened.
	if _, err := rocr.Agents(); err == nil {
		t.Errorf("gpuinfo %v left the runtime open", args)
		_ = rocr.ShutDown()
	}
	return code, out.String(), errb.String()
}

func TestInfoText(t *testing.T) {
	code, out, errs := runCmd(t)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{
		"Agent 0: cpu0 (driver cpu)", "Device type", "CPU", "ISA / target", " go\n",
		"Wavefront size", "Compute units", "Max workgroup size", "Grid max", "Queue size", "Group memory",
		"Total memory", "UUID", "Profiling", "Pools",
		"COARSE_GRAINED", "FINE_GRAINED", "KERNARG_INIT|FINE_GRAINED", "group ",
		"Drivers\n  cpu  opened, 1 agent(s)",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// One pool row per pool: the cpu agent has four.
	if n := strings.Count(out, "\n    ") - 1; n != 4 {
		t.Errorf("%d pool rows, want 4:\n%s", n, out)
	}
}

func TestInfoJSON(t *testing.T) {
	code, out, errs := runCmd(t, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep infoReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in\n%s", err, out)
	}
	if len(rep.Agents) != 1 {
		t.Fatalf("%d agents, want the cpu agent", len(rep.Agents))
	}
	a := rep.Agents[0]
	if a.Driver != "cpu" || a.ISA != "go" || a.DeviceType != "CPU" || a.Index != 0 || a.MaxWorkGroupSize == 0 || a.QueueMaxSize == 0 || a.TotalMemory == 0 {
		t.Errorf("agent %+v", a)
	}
	if len(a.Pools) != 4 {
		t.Fatalf("pools %+v", a.Pools)
	}
	var coarse, kernarg, group bool
	for _, p := range a.Pools {
		flags := strings.Join(p.Flags, "|")
		coarse = coarse || (p.Segment == "global" && flags == "COARSE_GRAINED" && p.AllocAllowed && !p.AccessibleByAll)
		kernarg = kernarg || (p.Segment == "global" && strings.Contains(flags, "KERNARG_INIT") && p.AccessibleByAll)
		group = group || (p.Segment == "group" && p.Size > 0)
		if p.Segment == "global" && (p.Size == 0 || p.Granule == 0 || p.Alignment == 0) {
			t.Errorf("pool %+v", p)
		}
	}
	if !coarse || !kernarg || !group {
		t.Errorf("pools %+v: coarse %v kernarg %v group %v", a.Pools, coarse, kernarg, group)
	}
	if len(rep.Drivers) != 1 || rep.Drivers[0] != (driverReport{Name: "cpu", Opened: true, Agents: 1}) {
		t.Errorf("drivers %+v", rep.Drivers)
	}
	// Scripts read the snake_case names.
	var raw struct {
		Agents []map[string]any `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"index", "driver", "name", "product", "vendor", "device_type", "isa", "wavefront_size",
		"compute_units", "max_workgroup_size", "max_workgroup_dim", "max_grid_size", "queue_min_size", "queue_max_size",
		"group_memory", "total_memory", "clock_mhz", "l2_cache_size", "uuid", "profiling", "pools"} {
		if _, ok := raw.Agents[0][k]; !ok {
			t.Errorf("JSON agent lacks %q", k)
		}
	}
}

func TestInfoInitFails(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "no-such-driver")
	var out, errb bytes.Buffer
	if code := run(nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errb.String(), "no-such-driver") || !strings.Contains(errb.String(), "gpuinfo doctor") {
		t.Errorf("stderr %q", errb.String())
	}
}

var allKernels = []string{"empty", "vector_add", "saxpy", "fill_f32", "reduce_sum", "transpose", "sgemm"}

func TestCodeobj(t *testing.T) {
	dir := t.TempDir()
	hipfb := filepath.Join(dir, "kernels.hipfb")
	ptx := filepath.Join(dir, "kernels_sm90.ptx")
	if err := os.WriteFile(hipfb, kernels.AMDGPUBundle, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ptx, []byte(kernels.PTXsm90), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, container string
		targets         []string
	}{
		{hipfb, "clang offload bundle, 4 code object(s)", []string{"gfx90a", "gfx942", "gfx1030", "gfx1100"}},
		{ptx, "PTX, 1 code object(s)", []string{"sm_90"}},
	} {
		code, out, errs := runCmd(t, "codeobj", c.file)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, errs)
		}
		if !strings.Contains(out, c.file+": "+c.container) {
			t.Errorf("%s: no header %q:\n%s", c.file, c.container, out)
		}
		for _, tg := range c.targets {
			if !strings.Contains(out, "\n"+tg+" ") {
				t.Errorf("%s: target %s missing", c.file, tg)
			}
		}
		sections := layoutSections(out)
		for _, k := range allKernels {
			if _, ok := sections[k]; !ok {
				t.Errorf("%s: kernel %s has no layout:\n%s", c.file, k, out)
			}
		}
		if got := sections["vector_add"]; !equal(got, []int{0, 8, 16, 24}) {
			t.Errorf("%s: vector_add explicit argument offsets %v, want [0 8 16 24]", c.file, got)
		}
	}
}

// layoutSections maps each kernel's layout section (the first, where a
// kernel has several) to the offsets of its explicit argument rows.
func layoutSections(out string) map[string][]int {
	secs := map[string][]int{}
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "":
			cur = ""
		case strings.Contains(line, "  (") && !strings.HasPrefix(line, " "):
			name := strings.Fields(line)[0]
			if _, seen := secs[name]; !seen {
				cur = name
				secs[name] = []int{}
			}
		case cur != "":
			if f := strings.Fields(line); len(f) > 0 {
				if off, err := strconv.Atoi(f[0]); err == nil {
					secs[cur] = append(secs[cur], off)
				}
			}
		}
	}
	return secs
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCodeobjVerboseAndErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "k.hipfb")
	bad := filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(good, kernels.AMDGPUBundle, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("\x7fELF\x02\x01\x01garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "codeobj", "-v", good)
	if code != 0 || !strings.Contains(out, "hidden_block_count_x") || !strings.Contains(out, "descriptor:") {
		t.Errorf("-v: exit %d, output lacks the hidden arguments or descriptors", code)
	}
	code, out, errs := runCmd(t, "codeobj", bad, good, filepath.Join(dir, "missing"))
	if code != 1 {
		t.Errorf("bad files: exit %d, want 1", code)
	}
	if !strings.Contains(errs, bad+": ") || !strings.Contains(errs, "missing: ") || !strings.Contains(out, good+": clang offload bundle") {
		t.Errorf("stdout %q\nstderr %q", out, errs)
	}
	if code, _, _ := runCmd(t, "codeobj"); code != 2 {
		t.Errorf("no files: exit %d, want 2", code)
	}
}

func TestDoctor(t *testing.T) {
	code, out, errs := runCmd(t, "doctor")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (no GPU here)\n%s%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "fail") || !strings.Contains(last, "no GPU: hipgo runs on the cpu agent") {
		t.Errorf("last line %q", last)
	}
	for _, s := range []string{"libhsa-runtime64.so.1", "libcuda.so.1", "/dev/kfd", "amdgpu module", "kernel", "driver cpu", "HIPGO_DRIVER", "cpu forces the cpu agent"} {
		if !strings.Contains(out, s) {
			t.Errorf("doctor output lacks %q:\n%s", s, out)
		}
	}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 0 || (f[0] != "ok" && f[0] != "warn" && f[0] != "fail") {
			t.Errorf("line without a level: %q", l)
		}
	}

	code, out, _ = runCmd(t, "doctor", "--json")
	var rep struct {
		GPU      bool   `json:"gpu_usable"`
		Verdict  string `json:"verdict"`
		Findings []struct {
			Level, Check, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if code != 1 || rep.GPU || rep.Verdict != "no GPU: hipgo runs on the cpu agent" || len(rep.Findings) == 0 {
		t.Errorf("exit %d, report %+v", code, rep)
	}
}

func TestUsage(t *testing.T) {
	if code, out, _ := runCmd(t, "help"); code != 0 || !strings.Contains(out, "gpuinfo doctor") {
		t.Errorf("help: exit %d, %q", code, out)
	}
	if code, _, _ := runCmd(t, "--bogus"); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _, _ := runCmd(t, "extra"); code != 2 {
		t.Errorf("unknown argument: exit %d, want 2", code)
	}
}
