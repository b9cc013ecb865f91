package rocr

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// markLost records the failure of queue q that lost the agent's device.
func (a *Agent) markLost(q *Queue, err error) {
	lost := hsa.Errorf(hsa.StatusOf(err), "device", "%s was lost by a failure on queue %d, until a reset (Device.Reset, hipDeviceReset) recovers it: %w", a, q.id, err)
	a.lost.CompareAndSwap(nil, &lost)
}

// Lost is the failure that lost the agent's device since Init or the last
// Reset, or nil.
func (a *Agent) Lost() error {
	if p := a.lost.Load(); p != nil {
		return *p
	}
	return nil
}

// Reset returns the agent to the state Init left it in, as
// hipDeviceReset does for one device: its queues are destroyed (their
// pending packets fail), every allocation of its pools is freed, and the
// driver rebuilds what it keeps for the device. A device that a kernel
// fault left unusable works again afterwards, where its driver can
// recover it; where it cannot (CUDA keeps a fault for the life of the
// process), Reset returns an error wrapping hsa.ErrDeviceLost and the agent
// stays lost. Code loaded on the agent must be loaded again.
func (a *Agent) Reset() error {
	if a == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, "agent reset", "nil agent")
	}
	if q := RunningQueue(); q != nil && q.agent == a {
		return hsa.Errorf(hsa.StatusError, "agent reset", "called from a packet of queue %d of %s: %w", q.id, a, ErrSelfWait)
	}
	// New queues and allocations wait for the reset, and those being made
	// are waited for: a queue tracked after the lists below would run on
	// with its kernarg area freed.
	rt := a.rt
	rt.mu.Lock()
	for a.resetting != nil {
		c := a.resetting
		rt.mu.Unlock()
		<-c
		rt.mu.Lock()
	}
	done := make(chan struct{})
	a.resetting = done
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		a.resetting = nil
		rt.mu.Unlock()
		close(done)
	}()
	a.creating.Wait()
	var als []*Allocation
	for _, al := range allocs.all() {
		if al.pool.agent == a {
			als = append(als, al)
		}
	}
	rt.mu.Lock()
	var qs []*Queue
	for q := range rt.queues {
		if q.agent == a {
			qs = append(qs, q)
		}
	}
	rt.mu.Unlock()
	var errs []error
	for _, q := range qs {
		if err := q.Destroy(); err != nil && (!q.Destroyed() || errors.Is(err, hsa.ErrAbandoned)) {
			errs = append(errs, err)
		}
		<-q.done
	}
	// Other agents' queues keep running: memory they may still use goes
	// back to the driver once they are past their packets so far.
	rt.mu.Lock()
	others := make([]*Queue, 0, len(rt.queues))
	for q := range rt.queues {
		if q.agent != a {
			others = append(others, q)
		}
	}
	rt.mu.Unlock()
	for _, al := range als {
		if al.Freed() {
			continue // a queue's kernarg area, or freed meanwhile
		}
		free := al.Free
		if marks := foreignMarks(a, al, others); len(marks) > 0 {
			free = func() error { return al.freeAfter(marks) }
		}
		if err := free(); err != nil && !al.Freed() {
			errs = append(errs, err)
		}
	}
	rt.releaseDeferred(false)
	r, rebuild := a.drv.(spi.Resetter)
	if rebuild {
		// The driver's reset releases the memory whatever freeing it
		// said (after a fault, every call into the context fails).
		errs = nil
		if err := r.Reset(); err != nil {
			err = fmt.Errorf("%s: %w", a, err)
			if errors.Is(err, hsa.ErrDeviceLost) {
				// The driver could not recover the device: it stays lost,
				// every call saying why, rather than half-working.
				lost := hsa.Errorf(hsa.StatusOf(err), "device", "%s is lost and a reset could not recover it: %w", a, err)
				a.lost.Store(&lost)
				return err
			}
			errs = append(errs, err)
		}
	}
	a.lost.Store(nil)
	return errors.Join(errs...)
}
