package doctor

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hipgo/hipgo/internal/visible"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Agent is one agent the runtime found.
type Agent struct {
	Driver string `json:"driver"`
	Name   string `json:"name"`
	ISA    string `json:"isa"`
	GPU    bool   `json:"gpu"`
	UUID   string `json:"uuid,omitempty"`
}

func (a Agent) String() string { return fmt.Sprintf("%s (%s, %s)", a.Name, a.Driver, a.ISA) }

// Runtime is what rocr saw when it opened, before HIPGO_DRIVER and the
// visible-devices lists were applied (Check applies them, so that it can
// say what they hide).
type Runtime struct {
	Drivers []string         // the registered drivers, in the order Init opens them
	Status  map[string]error // what each driver's Open returned: nil, or why it did not open
	Agents  []Agent          // every agent of every driver that opened
	Err     error            // rocr.Init's error, if it failed
	// Collectives is what NCCL and RCCL said of themselves (opened, not
	// initialized); nil where they were not asked.
	Collectives []Collective
}

// envVars are the variables Observe clears so that rocr opens every driver
// and shows every GPU.
var envVars = []string{"HIPGO_DRIVER", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}

// Observe opens the rocr runtime, records its drivers' statuses and agents,
// and shuts it down; it also opens NCCL and RCCL, where they are, for their
// versions. It unsets HIPGO_DRIVER and the *_VISIBLE_DEVICES
// variables while it does, restoring them after, so that it sees every driver
// and every GPU. Drivers are those registered with rocr: the caller imports
// them (through github.com/hipgo/hipgo/gpu). If the runtime is already open
// in this process, Observe sees it as it was opened.
func Observe() *Runtime {
	for _, k := range envVars {
		if v, ok := os.LookupEnv(k); ok {
			_ = os.Unsetenv(k)
			defer os.Setenv(k, v)
		}
	}
	rt := &Runtime{Drivers: rocr.Drivers(), Collectives: observeCollectives()}
	if err := rocr.Init(); err != nil {
		rt.Err = err
		return rt
	}
	defer func() { _ = rocr.ShutDown() }()
	rt.Status, _ = rocr.DriverStatus()
	agents, err := rocr.Agents()
	if err != nil {
		rt.Err = err
		return rt
	}
	for _, a := range agents {
		in := a.Info()
		rt.Agents = append(rt.Agents, Agent{Driver: in.Driver, Name: agentName(in), ISA: in.ISA, GPU: in.Type != hsa.DeviceCPU, UUID: in.UUID})
	}
	return rt
}

func agentName(in hsa.AgentInfo) string {
	if in.ProductName != "" {
		return in.ProductName
	}
	return in.Name
}

// gpuDrivers are hipgo's GPU drivers and the vendor each serves.
var gpuDrivers = []struct{ name, vendor string }{{"rocm", "AMD"}, {"cuda", "NVIDIA"}}

// drivers reports each driver's status from rocr.Init.
func (c *checker) drivers() {
	rt := c.rt
	if rt.Err != nil {
		c.add(Fail, "runtime", "", "rocr.Init failed: %v", rt.Err)
	}
	for _, g := range gpuDrivers {
		if !slices.Contains(rt.Drivers, g.name) {
			c.add(Warn, "driver "+g.name, "use a hipgo build whose gpu package imports rocr/drivers/"+g.name, "not built into this program: %s GPUs cannot be used", g.vendor)
		}
	}
	for _, d := range rt.Drivers {
		err, tried := rt.Status[d]
		var mine []string
		for _, a := range rt.Agents {
			if a.Driver == d {
				mine = append(mine, a.String())
			}
		}
		switch {
		case !tried && rt.Err != nil:
			// A failed Init keeps no status per driver; its error has them.
			c.add(Warn, "driver "+d, "", "no status of its own: rocr.Init failed (see runtime)")
		case !tried:
			c.add(Warn, "driver "+d, "", "not tried by rocr.Init")
		case err != nil:
			c.add(c.driverLevel(d), "driver "+d, "", "did not open: %v", err)
		case len(mine) == 0:
			c.add(c.driverLevel(d), "driver "+d, "", "opened but found no agent")
		default:
			c.add(OK, "driver "+d, "", "opened: %s", strings.Join(mine, ", "))
		}
	}
}

// driverLevel grades a GPU driver that found nothing: Fail where its
// vendor's GPU is on this machine, Warn elsewhere.
func (c *checker) driverLevel(d string) Level {
	for _, f := range c.r.Findings {
		switch {
		case d == "rocm" && f.Check == "amdgpu module" && f.Level == OK,
			d == "rocm" && f.Check == "AMD GPUs (PCI)",
			d == "cuda" && f.Check == "NVIDIA kernel driver" && f.Level == OK,
			d == "cuda" && f.Check == "NVIDIA GPUs (PCI)",
			d == "cpu":
			return Fail
		}
	}
	return Warn
}

// visible applies HIPGO_DRIVER and the visible-devices lists the way rocr
// and gpu do, and says what each leaves.
func (c *checker) visible() {
	force, forced := c.sys.env("HIPGO_DRIVER")
	force = strings.TrimSpace(force)
	var all []Agent
	for _, a := range c.rt.Agents {
		if a.GPU {
			all = append(all, a)
		}
	}
	c.gpus = all
	if forced && force != "" {
		c.gpus = nil
		for _, a := range all {
			if a.Driver == force {
				c.gpus = append(c.gpus, a)
			}
		}
		c.forceDriver(force, len(all))
	} else {
		c.add(OK, "HIPGO_DRIVER", "", "unset: every driver is tried, GPUs first, the cpu agent last")
	}
	// rocr applies ROCR_VISIBLE_DEVICES to every GPU; gpu then applies
	// HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES where that is unset.
	c.gpus = c.visibleList("ROCR_VISIBLE_DEVICES", c.gpus)
	if _, ok := c.sys.env("HIP_VISIBLE_DEVICES"); ok {
		c.gpus = c.visibleList("HIP_VISIBLE_DEVICES", c.gpus)
		if _, ok := c.sys.env("CUDA_VISIBLE_DEVICES"); ok {
			c.add(Warn, "CUDA_VISIBLE_DEVICES", "set only one of the two", "set, but HIP_VISIBLE_DEVICES is set too and takes precedence")
		}
	} else {
		c.gpus = c.visibleList("CUDA_VISIBLE_DEVICES", c.gpus)
	}
}

func (c *checker) forceDriver(force string, gpus int) {
	if !slices.Contains(c.rt.Drivers, force) {
		c.initFails = true
		c.add(Fail, "HIPGO_DRIVER", "unset HIPGO_DRIVER, or set it to one of "+strings.Join(c.rt.Drivers, ", "),
			"%q names no driver of this program (it has %s): rocr.Init fails", force, strings.Join(c.rt.Drivers, ", "))
		return
	}
	if force == "cpu" {
		if gpus > 0 {
			c.add(Fail, "HIPGO_DRIVER", "unset HIPGO_DRIVER to use the GPU", "cpu forces the cpu agent although %d GPU(s) were found", gpus)
		} else {
			c.add(Warn, "HIPGO_DRIVER", "", "cpu forces the cpu agent")
		}
		return
	}
	n := 0
	for _, a := range c.rt.Agents {
		if a.Driver == force {
			n++
		}
	}
	if n == 0 {
		c.initFails = true
		c.add(Fail, "HIPGO_DRIVER", "unset HIPGO_DRIVER so hipgo falls back to the other drivers",
			"%s forces a driver that found no device, and rocr opens no other: rocr.Init fails with no agent", force)
		return
	}
	c.add(OK, "HIPGO_DRIVER", "", "%s forces the %s driver (%d agent(s))", force, force, n)
}

// visibleList applies one visible-devices variable, if set, to gpus.
func (c *checker) visibleList(name string, gpus []Agent) []Agent {
	v, ok := c.sys.env(name)
	if !ok {
		return gpus
	}
	uuid := func(a Agent) string { return a.UUID }
	got, err := visible.Select(gpus, v, uuid)
	if err != nil {
		c.initFails = true
		c.add(Fail, name, "name each device once", "%q: %v", v, err)
		return nil
	}
	span := "the one GPU, index 0"
	if len(gpus) > 1 {
		span = fmt.Sprintf("%d GPUs, indexes 0-%d", len(gpus), len(gpus)-1)
	}
	hint := "unset " + name + " or list the devices to use by index or UUID"
	switch {
	case len(gpus) == 0:
		c.add(OK, name, "", "%q is set, but there is no GPU for it to select", v)
	case strings.TrimSpace(v) == "":
		c.add(Fail, name, hint, "is set but empty, which hides every GPU (%s)", span)
	default:
		bad := ""
		for _, e := range strings.Split(v, ",") {
			if one, _ := visible.Select(gpus, e, uuid); len(one) == 0 {
				bad = strings.TrimSpace(e)
				break
			}
		}
		switch {
		case len(got) == 0:
			c.add(Fail, name, hint, "%q hides every GPU: %q matches no GPU (%s)", v, bad, span)
		case bad != "":
			c.add(Warn, name, hint, "%q shows %d of %d GPU(s): %q matches no GPU (%s) and ends the list", v, len(got), len(gpus), bad, span)
		default:
			c.add(OK, name, "", "%q shows %d of %d GPU(s)", v, len(got), len(gpus))
		}
	}
	return got
}

// verdict says whether a program here gets a GPU.
func (c *checker) verdict() {
	r := c.r
	var fails []string
	for _, f := range r.Findings {
		if f.Level == Fail && !slices.Contains(fails, f.Check) {
			fails = append(fails, f.Check)
		}
	}
	hint := ""
	if len(fails) > 0 {
		hint = "see the fail lines: " + strings.Join(fails, ", ")
	}
	switch {
	case c.initFails || c.rt.Err != nil:
		r.Verdict = "no device: rocr.Init fails, so hipgo programs get no device at all"
	case len(c.gpus) > 0:
		r.GPU = true
		names := make([]string, len(c.gpus))
		for i, a := range c.gpus {
			names[i] = a.String()
		}
		r.Verdict = fmt.Sprintf("GPU usable: %s", strings.Join(names, ", "))
		c.add(OK, "verdict", "", "%s", r.Verdict)
		return
	default:
		r.Verdict = "no GPU: hipgo runs on the cpu agent"
		if hint == "" {
			hint = "this machine shows no GPU hipgo can drive"
		}
	}
	c.add(Fail, "verdict", hint, "%s", r.Verdict)
}
