package cuda

import (
	"errors"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Priority orders the driver before cpu (0) and after rocm (30).
const Priority = 20

func init() { spi.Register(&driver{}) }

type driver struct {
	api  *api
	devs []*device
}

func (*driver) Name() string  { return "cuda" }
func (*driver) Priority() int { return Priority }

func (d *driver) Open(h spi.Host) ([]spi.AgentDriver, error) {
	keepHost(h)
	a, err := load()
	if err != nil {
		return nil, err
	}
	d.api = a
	if r := call(a.cuInit, 0); r != cudaSuccess {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "open", "no NVIDIA GPU: cuInit: %v", r)
	}
	var n, ver int32
	if r := res(purego.SyscallN(a.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))); r != cudaSuccess || n == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "open", "no NVIDIA GPU: cuDeviceGetCount: %d devices (%v)", n, r)
	}
	_, _, _ = purego.SyscallN(a.cuDriverGetVersion, uintptr(unsafe.Pointer(&ver)))
	var out []spi.AgentDriver
	d.devs = nil
	for i := 0; i < int(n); i++ {
		dev, err := newDevice(a, i, ver)
		if err != nil {
			d.release()
			return nil, err
		}
		d.devs = append(d.devs, dev)
		out = append(out, dev)
	}
	live.mu.Lock()
	live.d = d
	old := append([]slab(nil), live.slabs...)
	live.slabs, live.snap = nil, nil
	live.mu.Unlock()
	// Slabs registered by an earlier Init were unregistered at its Close.
	for _, s := range old {
		if err := registerSlab(s.host, s.size); err != nil {
			d.release()
			return nil, err
		}
	}
	var herr error
	live.hook.Do(func() { herr = host.OnSignalMemory(registerSlab) })
	if herr != nil {
		d.release()
		return nil, herr
	}
	return out, nil
}

// Close releases the contexts after every agent was closed.
func (d *driver) Close() error {
	live.mu.Lock()
	var errs []error
	if live.d == d && len(d.devs) > 0 {
		for i := range live.slabs {
			s := &live.slabs[i]
			if s.dev != 0 {
				if err := d.devs[0].do("close", "cuMemHostUnregister", d.api.cuMemHostUnregister, s.host); err != nil {
					errs = append(errs, err)
				}
				s.dev = 0
			}
		}
		live.snap = nil
		live.d = nil
	}
	live.mu.Unlock()
	errs = append(errs, d.release())
	return errors.Join(errs...)
}

func (d *driver) release() error {
	var errs []error
	for _, dev := range d.devs {
		if dev.ctx != 0 {
			if r := call(d.api.cuDevicePrimaryCtxRelease, dev.ordinal); r != cudaSuccess {
				errs = append(errs, cuErr("close", "cuDevicePrimaryCtxRelease", r))
			}
			dev.ctx = 0
		}
	}
	d.devs = nil
	return errors.Join(errs...)
}

// host is the runtime's side of the SPI, kept from the first Open: the
// runtime hands every Open the same one, and nothing writes it after.
var host spi.Host

func keepHost(h spi.Host) {
	if host == nil {
		host = h
	}
}
