package cuda

import (
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// CUresults of peer access calls that rocr's own bookkeeping already
// reports (ErrPeerAlreadyEnabled, ErrPeerNotEnabled): here they mean the
// context was in that state already, which is what the caller wanted.
const (
	cudaPeerAccessAlreadyEnabled cuResult = 704
	cudaPeerAccessNotEnabled     cuResult = 705
)

// CanAccessPeer asks cuDeviceCanAccessPeer whether d's context can map
// other's memory (spi.PeerAccessor).
func (d *device) CanAccessPeer(other spi.AgentDriver) bool {
	o, ok := other.(*device)
	if !ok || o == d || d.api.cuDeviceCanAccessPeer == 0 {
		return false
	}
	var v int32
	r := res(purego.SyscallN(d.api.cuDeviceCanAccessPeer, uintptr(unsafe.Pointer(&v)), d.ordinal, o.ordinal))
	return r == cudaSuccess && v != 0
}

// EnablePeer maps other's memory into d's primary context
// (cuCtxEnablePeerAccess). Every queue of d uses that context, so kernels
// and copies on d may then use other's allocations; copies between the two
// stay cuMemcpyAsync, which unified addressing makes a peer copy.
func (d *device) EnablePeer(other spi.AgentDriver) error {
	o, ok := other.(*device)
	if !ok || d.api.cuCtxEnablePeerAccess == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "enable peer access", "%s: no peer access to %v", d, other.Info().Name)
	}
	return d.with(func() error {
		if r := call(d.api.cuCtxEnablePeerAccess, o.ctx, 0); r != cudaSuccess && r != cudaPeerAccessAlreadyEnabled {
			return cuErr("enable peer access", "cuCtxEnablePeerAccess", r)
		}
		return nil
	})
}

// DisablePeer unmaps other's memory from d's context (cuCtxDisablePeerAccess).
func (d *device) DisablePeer(other spi.AgentDriver) error {
	o, ok := other.(*device)
	if !ok || d.api.cuCtxDisablePeerAccess == 0 {
		return nil
	}
	return d.with(func() error {
		if r := call(d.api.cuCtxDisablePeerAccess, o.ctx); r != cudaSuccess && r != cudaPeerAccessNotEnabled {
			return cuErr("disable peer access", "cuCtxDisablePeerAccess", r)
		}
		return nil
	})
}

var (
	_ spi.PeerAccessor = (*device)(nil)
	_ spi.PeerDisabler = (*device)(nil)
)
