package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// infoReport is what gpuinfo prints; its JSON form is for scripts.
type infoReport struct {
	Agents  []agentReport  `json:"agents"`
	Drivers []driverReport `json:"drivers"`
}

type agentReport struct {
	Index            int          `json:"index"`
	Driver           string       `json:"driver"`
	Name             string       `json:"name"`
	Product          string       `json:"product"`
	Vendor           string       `json:"vendor"`
	DeviceType       string       `json:"device_type"`
	ISA              string       `json:"isa"`
	Wavefront        int          `json:"wavefront_size"`
	ComputeUnits     int          `json:"compute_units"`
	MaxWorkGroupSize int          `json:"max_workgroup_size"`
	MaxWorkGroupDim  [3]int       `json:"max_workgroup_dim"`
	MaxGridSize      [3]uint64    `json:"max_grid_size"`
	MaxGrid          uint64       `json:"max_grid"`
	QueueMinSize     uint32       `json:"queue_min_size"`
	QueueMaxSize     uint32       `json:"queue_max_size"`
	QueuesMax        int          `json:"queues_max"`
	GroupMemory      int          `json:"group_memory"`
	MaxDynamicGroup  int          `json:"max_dynamic_group_memory"`
	TotalMemory      uint64       `json:"total_memory"`
	ClockMHz         int          `json:"clock_mhz"`
	MemoryClockMHz   int          `json:"memory_clock_mhz"`
	MemoryBusWidth   int          `json:"memory_bus_width"`
	L2CacheSize      int          `json:"l2_cache_size"`
	PCI              string       `json:"pci,omitempty"`
	UUID             string       `json:"uuid,omitempty"`
	Node             int          `json:"node"`
	ComputeVersion   string       `json:"compute_capability,omitempty"`
	DriverVersion    string       `json:"driver_version,omitempty"`
	Profiling        bool         `json:"profiling"`
	Pools            []poolReport `json:"pools"`
}

type poolReport struct {
	Segment         string   `json:"segment"`
	Flags           []string `json:"flags"`
	Size            uint64   `json:"size"`
	Granule         uint64   `json:"granule"`
	Alignment       uint64   `json:"alignment"`
	AllocAllowed    bool     `json:"alloc_allowed"`
	AccessibleByAll bool     `json:"accessible_by_all"`
	Host            bool     `json:"host"`
}

type driverReport struct {
	Name   string `json:"name"`
	Opened bool   `json:"opened"`
	Agents int    `json:"agents"`
	Error  string `json:"error,omitempty"` // why it did not open
}

func runInfo(args []string, stdout, stderr io.Writer) int {
	asJSON, ok := parseJSONFlag("gpuinfo", args, stderr)
	if !ok {
		return 2
	}
	rep, err := collect()
	if err != nil {
		fmt.Fprintf(stderr, "gpuinfo: %v\n(gpuinfo doctor says why)\n", err)
		return 1
	}
	if err := write(stdout, asJSON, rep, rep.writeText); err != nil {
		fmt.Fprintf(stderr, "gpuinfo: %v\n", err)
		return 1
	}
	return 0
}

// collect opens the runtime, reads every agent and driver status, and
// closes it again.
func collect() (*infoReport, error) {
	if err := rocr.Init(); err != nil {
		return nil, err
	}
	defer func() { _ = rocr.ShutDown() }()
	agents, err := rocr.Agents()
	if err != nil {
		return nil, err
	}
	status, err := rocr.DriverStatus()
	if err != nil {
		return nil, err
	}
	rep := &infoReport{Agents: []agentReport{}}
	count := map[string]int{}
	for _, a := range agents {
		rep.Agents = append(rep.Agents, agentOf(a))
		count[a.Info().Driver]++
	}
	for _, d := range rocr.Drivers() {
		err, tried := status[d]
		if !tried {
			continue // HIPGO_DRIVER named another
		}
		dr := driverReport{Name: d, Opened: err == nil, Agents: count[d]}
		if err != nil {
			dr.Error = err.Error()
		}
		rep.Drivers = append(rep.Drivers, dr)
	}
	return rep, nil
}

func agentOf(a *rocr.Agent) agentReport {
	in := a.Info()
	r := agentReport{
		Index: a.Index(), Driver: in.Driver, Name: in.Name, Product: in.ProductName, Vendor: in.Vendor,
		DeviceType: in.Type.String(), ISA: in.ISA, Wavefront: in.Wavefront, ComputeUnits: in.ComputeUnits,
		MaxWorkGroupSize: in.MaxWorkGroupSize, MaxWorkGroupDim: in.MaxWorkGroupDim,
		MaxGridSize: in.MaxGridSize, MaxGrid: in.MaxGrid,
		QueueMinSize: in.QueueMinSize, QueueMaxSize: in.QueueMaxSize, QueuesMax: in.QueuesMax,
		GroupMemory: in.GroupMemSize, MaxDynamicGroup: in.MaxDynamicGroup, TotalMemory: in.TotalMemory,
		ClockMHz: in.ClockMHz, MemoryClockMHz: in.MemoryClockMHz, MemoryBusWidth: in.MemoryBusWidth,
		L2CacheSize: in.L2CacheSize, UUID: in.UUID, Node: in.Node,
		DriverVersion: in.DriverVersion, Profiling: in.Profiling,
		Pools: []poolReport{},
	}
	if in.PCIDomain != 0 || in.PCIBus != 0 || in.PCIDevice != 0 {
		r.PCI = fmt.Sprintf("%04x:%02x:%02x.0", in.PCIDomain, in.PCIBus, in.PCIDevice)
	}
	if in.ComputeMajor != 0 || in.ComputeMinor != 0 {
		r.ComputeVersion = fmt.Sprintf("%d.%d", in.ComputeMajor, in.ComputeMinor)
	}
	for _, p := range a.Pools() {
		pi := p.Info()
		flags := []string{}
		if pi.Flags != 0 {
			flags = strings.Split(pi.Flags.String(), "|")
		}
		r.Pools = append(r.Pools, poolReport{
			Segment: pi.Segment.String(), Flags: flags, Size: pi.Size, Granule: pi.Granule,
			Alignment: pi.Alignment, AllocAllowed: pi.AllocAllowed, AccessibleByAll: pi.AccessibleByAll, Host: pi.Host,
		})
	}
	return r
}

func (rep *infoReport) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	gpus := 0
	for _, a := range rep.Agents {
		if a.DeviceType != hsa.DeviceCPU.String() {
			gpus++
		}
	}
	fmt.Fprintf(tw, "%d agent(s), %d GPU(s)\n", len(rep.Agents), gpus)
	for _, a := range rep.Agents {
		fmt.Fprintf(tw, "\nAgent %d: %s (driver %s)\n", a.Index, a.Name, a.Driver)
		row := func(k, format string, v ...any) { fmt.Fprintf(tw, "  %s\t"+format+"\n", append([]any{k}, v...)...) }
		row("Product", "%s", dash(a.Product))
		row("Vendor", "%s", dash(a.Vendor))
		row("Device type", "%s", a.DeviceType)
		row("ISA / target", "%s", a.ISA)
		row("Wavefront size", "%d", a.Wavefront)
		row("Compute units", "%d", a.ComputeUnits)
		row("Max workgroup size", "%d (x %d, y %d, z %d)", a.MaxWorkGroupSize, a.MaxWorkGroupDim[0], a.MaxWorkGroupDim[1], a.MaxWorkGroupDim[2])
		row("Grid max", "x %d, y %d, z %d work-items; %d in all", a.MaxGridSize[0], a.MaxGridSize[1], a.MaxGridSize[2], a.MaxGrid)
		row("Queue size", "min %d, max %d packets; at most %d queues", a.QueueMinSize, a.QueueMaxSize, a.QueuesMax)
		row("Group memory", "%s per workgroup (dynamic up to %s)", bytesText(uint64(a.GroupMemory)), bytesText(uint64(a.MaxDynamicGroup)))
		row("Total memory", "%s", bytesText(a.TotalMemory))
		row("Clock", "%s (memory %s, bus %s)", mhz(a.ClockMHz), mhz(a.MemoryClockMHz), bits(a.MemoryBusWidth))
		row("L2 cache", "%s", bytesText(uint64(a.L2CacheSize)))
		row("PCI", "%s", dash(a.PCI))
		row("UUID", "%s", dash(a.UUID))
		row("Node", "%d", a.Node)
		if a.ComputeVersion != "" {
			row("Compute capability", "%s", a.ComputeVersion)
		}
		row("Driver version", "%s", dash(a.DriverVersion))
		row("Profiling", "%s", yesNo(a.Profiling))
		fmt.Fprintf(tw, "  Pools\n")
		fmt.Fprintf(tw, "    #\tsegment\tflags\tsize\tgranule\talignment\talloc\taccessible by all\thost\n")
		for i, p := range a.Pools {
			fmt.Fprintf(tw, "    %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i, p.Segment, dash(strings.Join(p.Flags, "|")),
				bytesText(p.Size), bytesText(p.Granule), bytesText(p.Alignment), yesNo(p.AllocAllowed), yesNo(p.AccessibleByAll), yesNo(p.Host))
		}
	}
	fmt.Fprintf(tw, "\nDrivers\n")
	drivers := append([]driverReport(nil), rep.Drivers...)
	sort.SliceStable(drivers, func(i, j int) bool { return drivers[i].Opened && !drivers[j].Opened })
	for _, d := range drivers {
		if d.Opened {
			fmt.Fprintf(tw, "  %s\topened, %d agent(s)\n", d.Name, d.Agents)
		} else {
			fmt.Fprintf(tw, "  %s\tdid not open: %s\n", d.Name, d.Error)
		}
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func mhz(v int) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%d MHz", v)
}

func bits(v int) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%d bit", v)
}

// bytesText prints a size in the largest binary unit that keeps it whole
// to a tenth: "64 KiB", "31.3 GiB", "256 B".
func bytesText(n uint64) string {
	if n == 0 {
		return "0"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v == float64(uint64(v)) {
		return fmt.Sprintf("%d %s", uint64(v), units[u])
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}
