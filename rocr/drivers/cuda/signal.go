package cuda

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// live is the open driver, for the signal-memory hook (rocr keeps hooks for
// the life of the process, so one hook is installed and follows this).
var live struct {
	mu    sync.Mutex
	d     *driver
	hook  sync.Once
	slabs []slab // registered signal slabs
	snap  []slab // copy for lock-free lookups on the launch path
}

type slab struct{ host, dev, size uintptr }

// registerSlab makes a signal slab visible to every device (page-locked,
// device-mapped, portable), so GPUs write and wait on signal values.
func registerSlab(base, size uintptr) error {
	live.mu.Lock()
	defer live.mu.Unlock()
	d := live.d
	if d == nil {
		live.slabs = append(live.slabs, slab{host: base, size: size})
		return nil
	}
	dev0 := d.devs[0]
	var dptr uintptr
	err := dev0.with(func() error {
		if r := call(d.api.cuMemHostRegister, base, size, memHostRegisterPortable|memHostRegisterDevMap); r != cudaSuccess {
			return cuErr("signal memory", "cuMemHostRegister", r)
		}
		if r := res(purego.SyscallN(d.api.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&dptr)), base, 0)); r != cudaSuccess {
			call(d.api.cuMemHostUnregister, base)
			return cuErr("signal memory", "cuMemHostGetDevicePointer", r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	live.slabs = append(live.slabs, slab{host: base, dev: dptr, size: size})
	live.snap = append([]slab(nil), live.slabs...)
	return nil
}

// devAddr translates a host address in a signal slab to the device address
// a GPU uses for it; 0 when the address is in no registered slab.
func devAddr(host uintptr) uintptr {
	for _, s := range live.snap {
		if host >= s.host && host < s.host+s.size && s.dev != 0 {
			return s.dev + (host - s.host)
		}
	}
	return 0
}

// signal is rocr.SignalFromHandle through a small cache, which keeps the
// launch path free of the lookup's allocation. A cached signal that was
// destroyed is looked up again (its handle may name a new signal).
func (e *executor) signal(h uint64) (spi.HostSignal, error) {
	c := &e.sigs[h>>6%uint64(len(e.sigs))]
	if s := *c; s != nil && s.Handle() == h && !s.Destroyed() {
		return s, nil
	}
	s, err := host.SignalFromHandle(h)
	if err == nil {
		*c = s
	}
	return s, err
}
