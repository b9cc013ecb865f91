package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The agent's optional driver capabilities, offered by the runtime so
// that the API layer never asserts Driver() to an SPI interface itself.

// RecordChain records a chain of kernel dispatches as one replayable unit
// (a CUDA graph on cuda); an agent whose driver cannot (cpu, rocm, whose
// queues replay packets as fast) returns an error wrapping
// hsa.ErrNotSupported. It makes *Agent an spi.ChainRecorder.
func (a *Agent) RecordChain(ks []spi.ChainKernel) (spi.Chain, error) {
	if a == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidAgent, "record chain", "nil agent")
	}
	r, ok := a.drv.(spi.ChainRecorder)
	if !ok {
		return nil, hsa.Errorf(hsa.StatusErrorNotSupported, "record chain", "%v records no chains", a)
	}
	return r.RecordChain(ks)
}

// RunWithContext runs f on an OS thread of its own with the agent's
// vendor context current (spi.ContextRunner: a CUDA context), for a
// vendor library's calls that take no stream. An agent without one
// returns an error wrapping hsa.ErrNotSupported and does not call f.
func (a *Agent) RunWithContext(f func() error) error {
	if a == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, "run with context", "nil agent")
	}
	cr, ok := a.drv.(spi.ContextRunner)
	if !ok {
		return hsa.Errorf(hsa.StatusErrorNotSupported, "run with context", "%v has no vendor context", a)
	}
	return cr.RunWithContext(f)
}

// MemInfo is the agent's device memory free now and in all, in bytes.
// Drivers that can ask (spi.MemoryInfo: cuMemGetInfo,
// HSA_AMD_AGENT_INFO_MEMORY_AVAIL) count other processes' allocations;
// for the others (the cpu agent, whose memory is a heap of this process)
// it is the total less what this process's coarse-grained and IPC pools
// hold.
func (a *Agent) MemInfo() (free, total uint64, err error) {
	if a == nil {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidAgent, "mem get info", "nil agent")
	}
	total = a.info.TotalMemory
	if m, ok := a.drv.(spi.MemoryInfo); ok {
		if f, t, err := m.MemInfo(); err == nil {
			if t == 0 {
				t = total
			}
			return min(f, t), t, nil
		}
	}
	var used uint64
	for _, p := range a.pools {
		if pi := p.Info(); pi.Segment == hsa.SegmentGlobal && pi.Flags&hsa.FlagCoarseGrained != 0 {
			used += p.Used()
		}
	}
	if p, err := a.IPCPool(); err == nil {
		used += p.Used()
	}
	return total - min(used, total), total, nil
}
