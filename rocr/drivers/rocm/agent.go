package rocm

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// agent is one ROCR GPU agent.
type agent struct {
	rt    *runtime
	h     agentH
	cpu   agentH // the CPU agent whose system pools serve this GPU
	info  hsa.AgentInfo
	pools []spi.PoolDriver
	host  *pool // fine-grained system pool (hipHostMalloc, staging)

	mu     sync.Mutex
	queues map[uint64]*hwQueue // by HSA queue id
	exes   map[*executable]struct{}
}

// discover lists ROCR's agents and builds one agent per GPU kernel agent.
// ROCR's CPU agents are not kernel-dispatch agents for hipgo; their system
// pools become the GPUs' host and kernarg pools.
func (rt *runtime) discover() ([]*agent, error) {
	api := rt.api
	var freq uint64
	if api.SystemGetInfo(sysTimestampFrequency, unsafe.Pointer(&freq)) != hsaSuccess || freq == 0 {
		freq = 1e9
	}
	rt.freq = freq
	var major, minor uint16
	api.SystemGetInfo(sysVersionMajor, unsafe.Pointer(&major))
	api.SystemGetInfo(sysVersionMinor, unsafe.Pointer(&minor))

	var gpus, cpus []agentH
	if s := api.IterateAgents(func(a agentH) hsaStatus {
		var dev, feat uint32
		if s := api.AgentGetInfo(a, agentDevice, unsafe.Pointer(&dev)); s != hsaSuccess {
			return s
		}
		api.AgentGetInfo(a, agentFeature, unsafe.Pointer(&feat))
		switch {
		case hsa.DeviceType(dev) == hsa.DeviceCPU:
			cpus = append(cpus, a)
		case hsa.DeviceType(dev) == hsa.DeviceGPU && feat&featureKernelDispatch != 0:
			gpus = append(gpus, a)
		}
		return hsaSuccess
	}); s != hsaSuccess && s != hsaInfoBreak {
		return nil, rt.fail(s, "agents", "hsa_iterate_agents")
	}
	var out []*agent
	for _, g := range gpus {
		a := &agent{rt: rt, h: g, queues: map[uint64]*hwQueue{}, exes: map[*executable]struct{}{}}
		if err := a.discoverPools(cpus, gpus); err != nil {
			return nil, err
		}
		a.info = a.readInfo()
		a.info.DriverVersion = fmt.Sprintf("ROCR, HSA %d.%d", major, minor)
		out = append(out, a)
	}
	return out, nil
}

// discoverPools picks the agent's pools, in the order rocr's Agent.Pool
// searches them: the coarse-grained device pool (hipMalloc), the
// fine-grained system pool of the first CPU agent the GPU may access
// (hipHostMalloc), that CPU agent's kernarg pool, and the group segment
// (LDS). Fine-grained device pools are not offered. Host allocations are
// made accessible to every GPU that needs hsa_amd_agents_allow_access for
// them; kernarg allocations to this GPU.
func (a *agent) discoverPools(cpus, gpus []agentH) error {
	var device, group *pool
	if err := a.eachPool(a.h, func(p *pool) {
		switch {
		case p.info.Segment == hsa.SegmentGlobal && p.info.Flags&hsa.FlagCoarseGrained != 0 && p.info.AllocAllowed && device == nil:
			device = p
		case p.info.Segment == hsa.SegmentGroup && group == nil:
			group = p
		}
	}); err != nil {
		return err
	}
	if device == nil {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidMemoryPool, "pools", "GPU agent %#x has no coarse-grained global pool", uint64(a.h))
	}
	var host, kernarg *pool
	for _, c := range cpus {
		var fine, fineKA, ka *pool
		if err := a.eachPool(c, func(p *pool) {
			if p.info.Segment != hsa.SegmentGlobal || !p.info.AllocAllowed {
				return
			}
			if a.access(a.h, p.h) == accessNeverAllowed {
				return
			}
			p.info.Host = true
			fl := p.info.Flags
			if fl&hsa.FlagKernargInit != 0 {
				if a.access(a.h, p.h) == accessDisallowDefault {
					p.allow = []agentH{a.h}
				}
			} else {
				for _, g := range gpus {
					if a.access(g, p.h) == accessDisallowDefault {
						p.allow = append(p.allow, g)
					}
				}
			}
			switch {
			case fl&hsa.FlagFineGrained != 0 && fl&hsa.FlagKernargInit == 0 && fine == nil:
				fine = p
			case fl&hsa.FlagFineGrained != 0 && fl&hsa.FlagKernargInit != 0 && fineKA == nil:
				fineKA = p
			}
			if fl&hsa.FlagKernargInit != 0 && ka == nil {
				ka = p
			}
		}); err != nil {
			return err
		}
		if fine == nil {
			fine = fineKA
		}
		if fine != nil && ka != nil {
			a.cpu, host, kernarg = c, fine, ka
			break
		}
	}
	if host == nil {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidMemoryPool, "pools", "GPU agent %#x can access no CPU agent's fine-grained and kernarg pools", uint64(a.h))
	}
	a.host = host
	a.pools = []spi.PoolDriver{device, host}
	if kernarg != host {
		a.pools = append(a.pools, kernarg)
	}
	if group != nil {
		a.pools = append(a.pools, group)
	}
	return nil
}

// access is hsa_amd_agent_memory_pool_get_info's ACCESS of pool p for g.
func (a *agent) access(g agentH, p poolH) uint32 {
	var v uint32
	if a.rt.api.AgentPoolGetInfo(g, p, agentPoolAccess, unsafe.Pointer(&v)) != hsaSuccess {
		return accessNeverAllowed
	}
	return v
}

// eachPool reads every pool of agent owner.
func (a *agent) eachPool(owner agentH, f func(*pool)) error {
	api := a.rt.api
	var err error
	s := api.AgentIteratePools(owner, func(h poolH) hsaStatus {
		p := &pool{rt: a.rt, h: h}
		if err = p.read(); err != nil {
			return hsaInfoBreak
		}
		f(p)
		return hsaSuccess
	})
	if err != nil {
		return err
	}
	if s != hsaSuccess && s != hsaInfoBreak {
		return a.rt.fail(s, "pools", "hsa_amd_agent_iterate_memory_pools")
	}
	return nil
}

func (a *agent) u32(attr uint32) uint32 {
	var v uint32
	a.rt.api.AgentGetInfo(a.h, attr, unsafe.Pointer(&v))
	return v
}

// str reads a char[N] attribute. The buffer is larger than any of hsa.h's.
func (a *agent) str(attr uint32) string {
	var b [256]byte
	if a.rt.api.AgentGetInfo(a.h, attr, unsafe.Pointer(&b)) != hsaSuccess {
		return ""
	}
	return cstr(b[:])
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

func (a *agent) readInfo() hsa.AgentInfo {
	api := a.rt.api
	in := hsa.AgentInfo{
		Name:             a.str(agentName),
		Vendor:           a.str(agentVendor),
		ProductName:      a.str(amdProductName),
		Type:             hsa.DeviceGPU,
		ISA:              a.isa(),
		Wavefront:        int(a.u32(agentWavefrontSize)),
		ComputeUnits:     int(a.u32(amdComputeUnitCount)),
		MaxWorkGroupSize: int(a.u32(agentWGMaxSize)),
		MaxGrid:          uint64(a.u32(agentGridMaxSize)),
		QueueMinSize:     a.u32(agentQueueMinSize),
		QueueMaxSize:     a.u32(agentQueueMaxSize),
		QueuesMax:        int(a.u32(agentQueuesMax)),
		ClockMHz:         int(a.u32(amdMaxClockMHz)),
		MemoryClockMHz:   int(a.u32(amdMemoryMaxMHz)),
		MemoryBusWidth:   int(a.u32(amdMemoryWidth)),
		PCIDomain:        int(a.u32(amdDomain)),
		UUID:             a.str(amdUUID),
		Node:             int(a.u32(agentNode)),
		Profiling:        true,
	}
	var wg [3]uint16
	api.AgentGetInfo(a.h, agentWGMaxDim, unsafe.Pointer(&wg))
	var grid [3]uint32 // hsa_dim3_t
	api.AgentGetInfo(a.h, agentGridMaxDim, unsafe.Pointer(&grid))
	for i := range 3 {
		in.MaxWorkGroupDim[i] = int(wg[i])
		in.MaxGridSize[i] = uint64(grid[i])
	}
	var cache [4]uint32
	api.AgentGetInfo(a.h, agentCacheSize, unsafe.Pointer(&cache))
	in.L2CacheSize = int(cache[1])
	bdf := a.u32(amdBDFID)
	in.PCIBus, in.PCIDevice = int(bdf>>8&0xff), int(bdf>>3&0x1f)
	in.ComputeMajor, in.ComputeMinor = gfxVersion(in.Name)
	for _, p := range a.pools {
		pi := p.Info()
		switch {
		case pi.Segment == hsa.SegmentGlobal && pi.Flags&hsa.FlagCoarseGrained != 0 && !pi.Host && in.TotalMemory == 0:
			in.TotalMemory = pi.Size
		case pi.Segment == hsa.SegmentGroup:
			in.GroupMemSize = int(pi.Size)
		}
	}
	if in.GroupMemSize == 0 {
		in.GroupMemSize = 64 << 10
	}
	in.MaxDynamicGroup = in.GroupMemSize
	// hipDeviceProp_t's other fields as HIP reports them on AMD GPUs: a
	// compute unit holds MAX_WAVES_PER_CU waves and one LDS; 64K VGPRs a
	// work-group; constants and pitches as large as memory allows.
	in.MaxThreadsPerCU = int(a.u32(amdMaxWavesPerCU)) * in.Wavefront
	in.GroupMemPerCU = in.GroupMemSize
	in.RegsPerBlock = 64 << 10
	in.TotalConstMem = 1<<31 - 1
	in.MemPitch = int(min(in.TotalMemory, 1<<31-1))
	in.AsyncEngines = 2
	in.Cooperative = a.u32(amdCooperativeQueues) != 0
	in.ConcurrentKernels = true
	in.ManagedMemory = true
	in.ConcurrentManagedAccess = strings.Contains(in.ISA, "xnack+")
	return in
}

// isa is the target of the agent's first ISA, without the
// "amdgcn-amd-amdhsa--" triple: "gfx90a:sramecc+:xnack-".
func (a *agent) isa() string {
	api := a.rt.api
	var name string
	api.AgentIterateISAs(a.h, func(i isaH) hsaStatus {
		var n uint32
		if api.ISAGetInfo(i, isaNameLength, unsafe.Pointer(&n)) != hsaSuccess || n == 0 || n > 4096 {
			return hsaInfoBreak
		}
		b := make([]byte, n+1)
		if api.ISAGetInfo(i, isaName, unsafe.Pointer(&b[0])) == hsaSuccess {
			name = cstr(b)
		}
		return hsaInfoBreak
	})
	if i := strings.LastIndex(name, "--"); i >= 0 {
		name = name[i+2:]
	}
	return name
}

// gfxVersion maps "gfx90a" to 9, 0 and "gfx1030" to 10, 3, as HIP's
// hipDeviceProp_t major and minor do.
func gfxVersion(name string) (major, minor int) {
	v, ok := strings.CutPrefix(name, "gfx")
	if !ok || len(v) < 3 {
		return 0, 0
	}
	maj, err1 := strconv.Atoi(v[:len(v)-2])
	mnr, err2 := strconv.ParseInt(v[len(v)-2:len(v)-1], 16, 8)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return maj, int(mnr)
}

func (a *agent) Info() hsa.AgentInfo { return a.info }

// StreamPriorityRange implements spi.StreamPriorities. HSA has no query
// for it: the range is the one hipgo's streams have always had, (0, -1),
// the least and greatest of HIP's stream priorities on AMD GPUs.
func (a *agent) StreamPriorityRange() (least, greatest int, err error) { return 0, -1, nil }
func (a *agent) Pools() []spi.PoolDriver                               { return a.pools }

// NewExecutor is not used: the agent's queues are hardware rings
// (CreateHardwareQueue) that the GPU's command processor reads.
func (a *agent) NewExecutor(spi.Queue) (spi.Executor, error) {
	return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidQueueCreation, "queue create", "%s has hardware queues only", a.info.Name)
}

// Close destroys the executables still loaded; rocr has already destroyed
// the queues and freed the allocations.
func (a *agent) Close() error {
	a.mu.Lock()
	exes := slices.Collect(maps.Keys(a.exes))
	a.mu.Unlock()
	var first error
	for _, e := range exes {
		if err := e.Destroy(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// NewSignal creates a ROCR signal (hsa_signal_create) that the GPU can
// complete and wait on. It is the agent's spi.SignalFactory.
func (a *agent) NewSignal(initial int64) (spi.SignalBackend, error) {
	if !a.rt.alive.Load() {
		return nil, hsa.Errorf(hsa.StatusErrorNotInitialized, "signal create", "the rocm driver is closed")
	}
	h, s := a.rt.api.SignalCreate(initial)
	if s != hsaSuccess {
		return nil, a.rt.fail(s, "signal create", "hsa_signal_create")
	}
	sig := &signal{rt: a.rt, h: h, ag: a}
	signals.add(sig)
	return sig, nil
}

var (
	_ spi.SignalFactory    = (*agent)(nil)
	_ spi.Copier           = (*agent)(nil)
	_ spi.QueueErrorBinder = (*agent)(nil)
	_ spi.HardwareQueues   = (*agent)(nil)
)

// AppliesVisible: libhsa-runtime64 applies ROCR_VISIBLE_DEVICES itself, so
// rocr does not apply the same list again to the agents it reports.
func (a *agent) AppliesVisible(env string) bool { return env == "ROCR_VISIBLE_DEVICES" }

var _ spi.VisibleFilter = (*agent)(nil)

// MemInfo implements spi.MemoryInfo: the device memory the kernel driver
// says is available (HSA_AMD_AGENT_INFO_MEMORY_AVAIL); the total is the
// agent's.
func (a *agent) MemInfo() (free, total uint64, err error) {
	if st := a.rt.api.AgentGetInfo(a.h, amdMemoryAvail, unsafe.Pointer(&free)); st != hsaSuccess {
		return 0, 0, hsa.Errorf(hsa.StatusErrorNotSupported, "mem get info", "HSA_AMD_AGENT_INFO_MEMORY_AVAIL: status %#x", uint32(st))
	}
	return free, 0, nil
}
