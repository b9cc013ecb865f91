package rocr

import (
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/internal/runner"
	"github.com/hipgo/hipgo/rocr/spi"
)

// host is the runtime's side of the SPI (spi.Host), which Init hands to
// each driver's Open: drivers reach the runtime through it, never by
// importing rocr.
type host struct{}

var theHost spi.Host = host{}

func (host) NewSignal(initial int64) (spi.HostSignal, error) {
	s, err := NewSignal(initial)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (host) SignalWithBackend(b spi.SignalBackend) spi.HostSignal { return newSignalWithBackend(b) }

func (host) SignalFromHandle(h uint64) (spi.HostSignal, error) {
	s, err := SignalFromHandle(h)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (host) OnSignalMemory(f func(base, size uintptr) error) error { return onSignalMemory(f) }

// WaitBarrier resolves a barrier packet on the calling goroutine: for AND
// every non-zero dependency signal reaches 0; for OR one of them does (a
// zero handle never satisfies OR). A dependency whose producer failed fails
// the barrier.
func (host) WaitBarrier(p *aql.BarrierAnd, or bool) error { return waitBarrier(p, or, nil) }

func (host) FindAllocation(addr uintptr) (spi.Allocation, bool) {
	al := FindAllocation(addr)
	if al == nil {
		return spi.Allocation{}, false
	}
	return describe(al), true
}

func (host) CheckRange(q spi.Queue, addr, size uintptr) (spi.Allocation, error) {
	al, err := checkRange(queueAgent(q), addr, size)
	if al == nil {
		return spi.Allocation{}, err
	}
	return describe(al), err
}

func (host) CheckBufferArgs(q spi.Queue, kernel string, kernarg uintptr, args []spi.BufferArg) error {
	return checkBufferArgs(queueAgent(q), kernel, kernarg, args)
}

func (host) MarkRunner() spi.Runner { return queueRunner{runner.Mark[Queue]()} }

// queueAgent is the agent of one of rocr's queues; nil (no agent may
// access anything but fine-grained memory) for another spi.Queue.
func queueAgent(q spi.Queue) *Agent {
	if rq, ok := q.(*Queue); ok {
		return rq.agent
	}
	return nil
}

// describe is an allocation as a driver sees it.
func describe(al *Allocation) spi.Allocation {
	d := spi.Allocation{Base: al.Base, Size: al.Size, Freed: al.Freed(), Name: al}
	if p := al.pool; p != nil {
		d.HostPool = p.info.Host
		if p.agent != nil {
			d.Agent = p.agent.drv
		}
	}
	return d
}

// queueRunner marks a driver's worker goroutine as running rocr's queues,
// so RunningQueue finds it.
type queueRunner struct{ r *runner.Runner[Queue] }

func (r queueRunner) Serve(q spi.Queue) {
	rq, _ := q.(*Queue)
	r.r.Serve(rq)
}

func (r queueRunner) Close() { r.r.Close() }

// Host is the runtime's side of the SPI, which Init hands to each
// driver's Open; a test that opens a driver outside Init passes it.
func Host() spi.Host { return theHost }
