package rocr

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Agent is one device that consumes AQL packets.
type Agent struct {
	drv   spi.AgentDriver
	info  hsa.AgentInfo
	pools []*Pool
	index int
	rt    *rtState
	lost  atomic.Pointer[error] // see markLost
	// creating counts the queues and allocations being made on the
	// agent; resetting, under rt.mu, is closed when the Reset running
	// ends (nil: none). See rtState.enter.
	creating  sync.WaitGroup
	resetting chan struct{}
}

// Info returns the agent's properties.
func (a *Agent) Info() hsa.AgentInfo { return a.info }

// ISA is the agent's target.
func (a *Agent) ISA() string { return a.info.ISA }

// Index is the agent's position in Agents().
func (a *Agent) Index() int { return a.index }

// Driver returns the driver-side agent, for drivers and tests.
func (a *Agent) Driver() spi.AgentDriver { return a.drv }

// Pools returns the agent's memory pools.
func (a *Agent) Pools() []*Pool { return a.pools }

func (a *Agent) String() string {
	return fmt.Sprintf("agent %d (%s %s, %s)", a.index, a.info.Driver, a.info.Name, a.info.ISA)
}

// Pool returns the first pool in segment seg whose flags include flags.
func (a *Agent) Pool(seg hsa.Segment, flags hsa.GlobalFlag) (*Pool, error) {
	for _, p := range a.pools {
		if p.info.Segment == seg && p.info.Flags&flags == flags {
			return p, nil
		}
	}
	return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidMemoryPool, "pool", "%s has no %s pool with flags %s", a, seg, flags)
}

// Load loads code onto the agent.
func (a *Agent) Load(code *hsa.Code) (spi.Executable, error) {
	if err := a.check("load"); err != nil {
		return nil, err
	}
	if code == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "load", "nil code")
	}
	exe, err := a.drv.Load(code)
	if err != nil {
		return nil, err
	}
	return &loaded{Executable: exe, agent: a}, nil
}

func (a *Agent) check(op string) error {
	if a == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "nil agent")
	}
	if err := checkInit(op); err != nil {
		return err
	}
	if a.rt != currentRuntime() {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s belongs to a runtime that was shut down", a)
	}
	if err := a.Lost(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
