package gpu

import (
	"errors"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// HIP's peer access error codes.
const (
	ErrPeerAccessUnsupported    ErrorCode = 217
	ErrPeerAccessAlreadyEnabled ErrorCode = 704
	ErrPeerAccessNotEnabled     ErrorCode = 705
)

func init() {
	codeNames[ErrPeerAccessUnsupported] = "hipErrorPeerAccessUnsupported"
	codeNames[ErrPeerAccessAlreadyEnabled] = "hipErrorPeerAccessAlreadyEnabled"
	codeNames[ErrPeerAccessNotEnabled] = "hipErrorPeerAccessNotEnabled"
}

// checkPeers validates the two devices of a peer call.
func checkPeers(dev, peer *Device) error {
	if err := dev.Valid(); err != nil {
		return err
	}
	if err := peer.Valid(); err != nil {
		return err
	}
	return nil
}

// peerErr gives a rocr peer error the HIP code that fits it.
func peerErr(op string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, rocr.ErrPeerAlreadyEnabled):
		return &Error{Code: ErrPeerAccessAlreadyEnabled, Op: op, Err: err}
	case errors.Is(err, rocr.ErrPeerNotEnabled):
		return &Error{Code: ErrPeerAccessNotEnabled, Op: op, Err: err}
	case errors.Is(err, hsa.ErrNotSupported):
		return &Error{Code: ErrPeerAccessUnsupported, Op: op, Err: err}
	}
	return wrap(op, err)
}

// CanAccessPeer reports whether dev can be given access to peer's device
// memory (hipDeviceCanAccessPeer). A device is not its own peer; devices of
// two drivers are never peers. cpu agents can always access each other's
// memory (it is all host memory); NVIDIA GPUs ask the CUDA driver
// (cuDeviceCanAccessPeer); the rocm driver offers no peer access yet.
func CanAccessPeer(dev, peer *Device) (bool, error) {
	const op = "device can access peer"
	if err := checkPeers(dev, peer); err != nil {
		return false, err
	}
	ok, err := dev.agent.CanAccessPeer(peer.agent)
	return ok, wrap(op, err)
}

// EnablePeerAccess lets kernels and copies on d use coarse-grained memory
// that peer owns (hipDeviceEnablePeerAccess). Access is one way: peer's
// work still cannot use d's memory until peer.EnablePeerAccess(d). The
// errors: ErrInvalidDevice for d itself, ErrPeerAccessUnsupported where
// CanAccessPeer is false, ErrPeerAccessAlreadyEnabled the second time.
func (d *Device) EnablePeerAccess(peer *Device) error {
	const op = "device enable peer access"
	if err := checkPeers(d, peer); err != nil {
		return err
	}
	if d == peer {
		return Errorf(ErrInvalidDevice, op, "%s cannot be its own peer", d)
	}
	return peerErr(op, d.agent.EnablePeer(peer.agent))
}

// DisablePeerAccess withdraws what EnablePeerAccess gave
// (hipDeviceDisablePeerAccess); ErrPeerAccessNotEnabled if it was not
// enabled. Later work on d that uses peer's memory fails with ErrNotOwner.
func (d *Device) DisablePeerAccess(peer *Device) error {
	const op = "device disable peer access"
	if err := checkPeers(d, peer); err != nil {
		return err
	}
	return peerErr(op, d.agent.DisablePeer(peer.agent))
}

// PeerAccessEnabled reports whether d has access to peer's memory.
func (d *Device) PeerAccessEnabled(peer *Device) bool {
	return d != nil && peer != nil && d.agent.PeerEnabled(peer.agent)
}
