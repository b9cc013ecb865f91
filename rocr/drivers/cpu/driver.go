package cpu

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/hipgo/hipgo/rocr"
)

// ISA is the cpu agent's target name.
const ISA = "go"

// MaxAgents bounds HIPGO_CPU_AGENTS.
const MaxAgents = 64

func init() { rocr.Register(driver{}) }

type driver struct{}

func (driver) Name() string  { return "cpu" }
func (driver) Priority() int { return 0 }
func (driver) Close() error  { return nil }

func (driver) Open() ([]rocr.AgentDriver, error) {
	n := 1
	if v := strings.TrimSpace(os.Getenv("HIPGO_CPU_AGENTS")); v != "" {
		x, err := strconv.Atoi(v)
		if err != nil || x < 1 || x > MaxAgents {
			return nil, rocr.Errorf(rocr.StatusErrorInvalidArgument, "cpu", "HIPGO_CPU_AGENTS=%q: want a number from 1 to %d", v, MaxAgents)
		}
		n = x
	}
	mem := physicalMemory()
	host := &pool{heap: &heap{watched: true}, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true}}
	var out []rocr.AgentDriver
	for i := 0; i < n; i++ {
		a := &agent{id: i}
		// Managed memory is host memory every agent addresses, as all of
		// this agent's memory is: the race detector watches it.
		a.managed = &pool{heap: &heap{watched: true}, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true, Managed: true}}
		a.pools = []rocr.PoolDriver{
			&pool{heap: &heap{watched: true, device: true}, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagCoarseGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true}},
			host,
			&pool{heap: &heap{}, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagKernargInit | rocr.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true}},
			&pool{heap: &heap{}, info: rocr.PoolInfo{Segment: rocr.SegmentGroup, Size: GroupMemory}},
		}
		out = append(out, a)
	}
	return out, nil
}

// GroupMemory is the group segment (LDS) size a work-group may use.
const GroupMemory = 64 << 10

func physicalMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 8 << 30
}

type agent struct {
	id      int
	pools   []rocr.PoolDriver
	managed *pool
}

// ManagedPool implements rocr.ManagedMemory.
func (a *agent) ManagedPool() (rocr.PoolDriver, error) { return a.managed, nil }

func (a *agent) Info() rocr.AgentInfo {
	procs := runtime.GOMAXPROCS(0)
	mem := a.pools[0].Info().Size
	return rocr.AgentInfo{
		Name:             fmt.Sprintf("cpu%d", a.id),
		Vendor:           "hipgo",
		ProductName:      fmt.Sprintf("hipgo software agent (%d workers)", procs),
		Type:             rocr.DeviceCPU,
		ISA:              ISA,
		Wavefront:        1,
		ComputeUnits:     procs,
		MaxWorkGroupSize: 1024,
		MaxWorkGroupDim:  [3]int{1024, 1024, 1024},
		MaxGridSize:      [3]uint64{1<<32 - 1, 1<<32 - 1, 1<<32 - 1},
		MaxGrid:          1<<64 - 1,
		QueueMinSize:     2,
		QueueMaxSize:     1 << 17,
		QueuesMax:        4096,
		GroupMemSize:     GroupMemory,
		MaxDynamicGroup:  GroupMemory,
		TotalMemory:      mem,
		ClockMHz:         1000,
		UUID:             fmt.Sprintf("CPU-%08x", a.id),
		Node:             a.id,
		DriverVersion:    runtime.Version(),
		Profiling:        true,
	}
}

func (a *agent) Pools() []rocr.PoolDriver { return a.pools }

// Close gives the pools' memory back to the system: ShutDown calls it after
// freeing every allocation.
func (a *agent) Close() error {
	var first error
	for _, p := range append(a.pools, a.managed) {
		if p, ok := p.(*pool); ok {
			if err := p.heap.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (a *agent) Load(code *rocr.Code) (rocr.Executable, error) {
	if code.Kind != rocr.CodeGo {
		return nil, rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorInvalidISA, "load", "%s: the cpu agent runs Go kernels, not %s code for %s", code.Name, code.Kind, code.Target)
	}
	set, ok := code.Go.(*Set)
	if !ok || set == nil {
		return nil, rocr.Errorf(rocr.StatusErrorInvalidCodeObject, "load", "%s: not a cpu kernel set", code.Name)
	}
	exe := &executable{}
	for i, k := range set.Kernels {
		if k == nil {
			return nil, rocr.Errorf(rocr.StatusErrorInvalidCodeObject, "load", "%s: nil kernel", code.Name)
		}
		// Names are unique within a set, as symbols are within a code
		// object; other sets may reuse them.
		for _, o := range set.Kernels[:i] {
			if o != nil && o.name == k.name {
				return nil, rocr.Errorf(rocr.StatusErrorInvalidCodeObject, "load", "%s: two kernels named %q", code.Name, k.name)
			}
		}
		exe.syms = append(exe.syms, k.sym)
	}
	return exe, nil
}

type executable struct{ syms []rocr.KernelSymbol }

func (e *executable) Kernels() []rocr.KernelSymbol { return e.syms }
func (e *executable) Destroy() error               { return nil }
