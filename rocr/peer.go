package rocr

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Peer access errors: enabling access that is on, disabling access that is
// off (HIP's hipErrorPeerAccessAlreadyEnabled and hipErrorPeerAccessNotEnabled).
var (
	ErrPeerAlreadyEnabled = errors.New("peer access already enabled")
	ErrPeerNotEnabled     = errors.New("peer access not enabled")
)

type peerKey struct{ from, to *Agent }

// peers holds the enabled (from, to) pairs: from may use memory that to
// owns. Readers (CheckAccess) load the map without a lock; writers copy it
// under mu.
var peers struct {
	mu sync.Mutex
	m  atomic.Pointer[map[peerKey]struct{}]
}

// peerEnabled reports whether from was given access to to's memory.
func peerEnabled(from, to *Agent) bool {
	m := peers.m.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[peerKey{from, to}]
	return ok
}

// setPeer adds or removes a pair; entries of agents from a runtime that was
// shut down are dropped on the way. peers.mu is held.
func setPeer(k peerKey, on bool) {
	rt := currentRuntime()
	next := map[peerKey]struct{}{}
	if old := peers.m.Load(); old != nil {
		for x := range *old {
			if x.from.rt == rt && x.to.rt == rt {
				next[x] = struct{}{}
			}
		}
	}
	if on {
		next[k] = struct{}{}
	} else {
		delete(next, k)
	}
	peers.m.Store(&next)
}

// CanAccessPeer reports whether a can be given access to other's device
// memory (hipDeviceCanAccessPeer). An agent is not its own peer, and agents
// of two drivers are never peers.
func (a *Agent) CanAccessPeer(other *Agent) (bool, error) {
	if err := a.check("can access peer"); err != nil {
		return false, err
	}
	if err := other.check("can access peer"); err != nil {
		return false, err
	}
	return a.canAccessPeer(other), nil
}

func (a *Agent) canAccessPeer(other *Agent) bool {
	if a == other || a.info.Driver != other.info.Driver {
		return false
	}
	if p, ok := a.drv.(spi.PeerAccessor); ok {
		return p.CanAccessPeer(other.drv)
	}
	return a.info.Type == hsa.DeviceCPU && other.info.Type == hsa.DeviceCPU
}

// EnablePeer lets a's kernels and copies use coarse-grained memory owned by
// other (hipDeviceEnablePeerAccess; access is one way). Enabling it twice is
// ErrPeerAlreadyEnabled.
func (a *Agent) EnablePeer(other *Agent) error {
	const op = "enable peer access"
	if err := a.check(op); err != nil {
		return err
	}
	if err := other.check(op); err != nil {
		return err
	}
	if a == other {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s cannot be its own peer", a)
	}
	if !a.canAccessPeer(other) {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s cannot access the memory of %s", a, other)
	}
	peers.mu.Lock()
	defer peers.mu.Unlock()
	k := peerKey{a, other}
	if peerEnabled(a, other) {
		return hsa.Newf(ErrPeerAlreadyEnabled, hsa.StatusErrorInvalidArgument, op, "%s already has access to the memory of %s", a, other)
	}
	if p, ok := a.drv.(spi.PeerAccessor); ok {
		if err := p.EnablePeer(other.drv); err != nil {
			return err
		}
	}
	setPeer(k, true)
	return nil
}

// DisablePeer withdraws the access EnablePeer gave (hipDeviceDisablePeerAccess).
// Disabling access that is not enabled is ErrPeerNotEnabled. Work already
// queued that uses other's memory is not checked again.
func (a *Agent) DisablePeer(other *Agent) error {
	const op = "disable peer access"
	if err := a.check(op); err != nil {
		return err
	}
	if err := other.check(op); err != nil {
		return err
	}
	peers.mu.Lock()
	defer peers.mu.Unlock()
	k := peerKey{a, other}
	if !peerEnabled(a, other) {
		return hsa.Newf(ErrPeerNotEnabled, hsa.StatusErrorInvalidArgument, op, "%s has no peer access to the memory of %s", a, other)
	}
	if p, ok := a.drv.(spi.PeerDisabler); ok {
		if err := p.DisablePeer(other.drv); err != nil {
			return err
		}
	}
	setPeer(k, false)
	return nil
}

// PeerEnabled reports whether a has access to other's memory.
func (a *Agent) PeerEnabled(other *Agent) bool { return peerEnabled(a, other) }
