package cpu

import (
	"os"
	"strconv"
	"strings"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// ISA is the cpu agent's target name.
const ISA = "go"

// MaxAgents bounds HIPGO_CPU_AGENTS.
const MaxAgents = 64

func init() { spi.Register(driver{}) }

type driver struct{}

func (driver) Name() string  { return "cpu" }
func (driver) Priority() int { return 0 }
func (driver) Close() error  { return nil }

func (driver) Open(h spi.Host) ([]spi.AgentDriver, error) {
	keepHost(h)
	n := 1
	if v := strings.TrimSpace(os.Getenv("HIPGO_CPU_AGENTS")); v != "" {
		x, err := strconv.Atoi(v)
		if err != nil || x < 1 || x > MaxAgents {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "cpu", "HIPGO_CPU_AGENTS=%q: want a number from 1 to %d", v, MaxAgents)
		}
		n = x
	}
	mem := physicalMemory()
	hostPool := &pool{heap: &heap{watched: true}, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true}}
	var out []spi.AgentDriver
	for i := 0; i < n; i++ {
		a := &agent{id: i}
		// Managed memory is host memory every agent addresses, as all of
		// this agent's memory is: the race detector watches it.
		a.managed = &pool{heap: &heap{watched: true}, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true, Managed: true}}
		a.pools = []spi.PoolDriver{
			&pool{heap: &heap{watched: true, device: true}, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagCoarseGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true}},
			hostPool,
			&pool{heap: &heap{}, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagKernargInit | hsa.FlagFineGrained, Size: mem, Granule: 1 << minClassShift, Alignment: 1 << minClassShift, AllocAllowed: true, AccessibleByAll: true, Host: true}},
			&pool{heap: &heap{}, info: hsa.PoolInfo{Segment: hsa.SegmentGroup, Size: GroupMemory}},
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

// host is the runtime's side of the SPI, kept from the first Open: the
// runtime hands every Open the same one, and nothing writes it after.
var host spi.Host

func keepHost(h spi.Host) {
	if host == nil {
		host = h
	}
}
