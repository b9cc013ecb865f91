package fft

import (
	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// vendorLib is an FFT library's entry points, opened once through the
// vendor layer, and how they are called: sys is purego's call, which the
// tests replace with a Go fake computing on the cpu agent's memory (whose
// device addresses are host addresses), so that the bindings' arguments
// are checked without the library. after, if set, runs after each call
// that queues work (rocFFT's hipDeviceSynchronize).
type vendorLib struct {
	name  string
	fns   map[string]uintptr
	sys   func(fn uintptr, args []uintptr) uintptr
	after func() error
}

// sysCall calls a C function through purego. args is a slice the caller
// keeps on the heap, so that the call allocates nothing.
func sysCall(fn uintptr, args []uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// open resolves every symbol of names in lib, or says which is missing.
func open(lib *vendorlib.Library, name string, names []string) (*vendorLib, error) {
	h, err := lib.Open()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrNotSupported, "fft plan", "no %s: %v", name, err)
	}
	v := &vendorLib{name: name, fns: map[string]uintptr{}, sys: sysCall}
	for _, n := range names {
		p := h.Sym(n)
		if p == 0 {
			return nil, gpu.Errorf(gpu.ErrNotSupported, "fft plan", "%s (%s) lacks %s", name, h.Path, n)
		}
		v.fns[n] = p
	}
	return v, nil
}

// call calls the entry point name with args (a small array on the heap or
// the stack: only the error path allocates).
func (v *vendorLib) call(name string, args ...uintptr) uintptr {
	return v.sys(v.fns[name], args)
}
