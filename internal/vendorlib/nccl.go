package vendorlib

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// NCCLInfo is what an NCCL or RCCL library says of itself.
type NCCLInfo struct {
	Path string
	// Version is ncclGetVersion's code: major*10000 + minor*100 + patch
	// from 2.9 on, major*1000 + minor*100 + patch before.
	Version int
	// Scalable reports whether the library has ncclCommInitRankScalable,
	// which gpu/collective needs across processes.
	Scalable bool
}

// ProbeNCCL opens l (NCCL or RCCL) and asks it its version. It initializes
// nothing: ncclGetVersion only reads a constant.
func ProbeNCCL(l *Library) (NCCLInfo, error) {
	h, err := l.Open()
	if err != nil {
		return NCCLInfo{}, err
	}
	info := NCCLInfo{Path: h.Path, Scalable: h.Sym("ncclCommInitRankScalable") != 0}
	fn := h.Sym("ncclGetVersion")
	if fn == 0 {
		return info, fmt.Errorf("%s has no ncclGetVersion", h.Path)
	}
	v := new(int32)
	r, _, _ := purego.SyscallN(fn, uintptr(unsafe.Pointer(v)))
	runtime.KeepAlive(v)
	if r != 0 {
		return info, fmt.Errorf("%s: ncclGetVersion returned %d", h.Path, r)
	}
	info.Version = int(*v)
	return info, nil
}
