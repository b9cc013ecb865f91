package rocm

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Name is the driver's name, for HIPGO_DRIVER.
const Name = "rocm"

// Priority orders the driver before cuda (20) and cpu (0).
const Priority = 30

func init() { spi.Register(theDriver) }

var theDriver = &driver{open: openLibrary}

// driver opens ROCR and lists its GPU agents. open is openLibrary except in
// tests, which substitute a fake function table.
type driver struct {
	open func() (hsaAPI, error)

	mu sync.Mutex
	rt *runtime // nil while closed
}

// runtime is one hsa_init..hsa_shut_down of ROCR.
type runtime struct {
	api    hsaAPI
	freq   uint64 // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, ticks per second
	alive  atomic.Bool
	agents []*agent
}

func (d *driver) Name() string  { return Name }
func (d *driver) Priority() int { return Priority }

// Open initializes ROCR and returns its GPU agents. When hsa_init fails
// nothing else in ROCR is called but hsa_status_string, so a machine
// without an AMD GPU is left as it was.
func (d *driver) Open(h spi.Host) ([]spi.AgentDriver, error) {
	keepHost(h)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rt != nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidRuntimeState, "open", "driver already open")
	}
	api, err := d.open()
	if err != nil {
		return nil, err
	}
	if s := api.Init(); s != hsaSuccess {
		return nil, noAgent(api, s)
	}
	rt := &runtime{api: api}
	rt.alive.Store(true)
	agents, err := rt.discover()
	if err == nil && len(agents) == 0 {
		err = hsa.Newf(hsa.ErrNoAgent, hsa.StatusErrorInvalidAgent, "hsa_iterate_agents", "no AMD agent: ROCR initialized but reports no GPU kernel agent")
	}
	if err != nil {
		rt.alive.Store(false)
		api.ShutDown()
		return nil, err
	}
	// Copy timestamps cost little and make event timing work across copies.
	api.ProfilingAsyncCopyEnable(true)
	rt.agents = agents
	d.rt = rt
	out := make([]spi.AgentDriver, len(agents))
	for i, a := range agents {
		out[i] = a
	}
	return out, nil
}

// noAgent is the error of a failed hsa_init, with ROCR's own words.
func noAgent(api hsaAPI, s hsaStatus) error {
	msg := "no AMD agent: " + api.StatusString(s)
	if _, err := os.Stat("/dev/kfd"); errors.Is(err, os.ErrNotExist) {
		msg += " (/dev/kfd does not exist: the amdgpu kernel driver is not loaded or no AMD GPU is present)"
	}
	return &hsa.Error{Status: hsa.Status(s), Sentinel: hsa.ErrNoAgent, Op: "hsa_init", Msg: msg}
}

// Close shuts ROCR down after rocr closed every agent.
func (d *driver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	rt := d.rt
	if rt == nil {
		return nil
	}
	d.rt = nil
	rt.alive.Store(false)
	signals.clear(rt)
	if s := rt.api.ShutDown(); s != hsaSuccess {
		return rt.fail(s, "shut down", "hsa_shut_down")
	}
	return nil
}

// fail wraps a ROCR status with what was being done and ROCR's text.
func (rt *runtime) fail(s hsaStatus, op, format string, args ...any) error {
	e := hsa.Errorf(hsa.Status(s), op, format, args...).(*hsa.Error)
	e.Msg += ": " + rt.api.StatusString(s)
	return e
}

// host is the runtime's side of the SPI, kept from the first Open: the
// runtime hands every Open the same one, and nothing writes it after.
var host spi.Host

func keepHost(h spi.Host) {
	if host == nil {
		host = h
	}
}
