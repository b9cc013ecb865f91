package vendorlib

import (
	"fmt"
	"sync"
)

// HIPRuntime holds the HIP runtime calls that the libraries running on
// HIP (rocBLAS, RCCL) need around their own: choosing the device and
// waiting for its null stream. The rocm driver runs on ROCR, not HIP, so
// these come from libamdhip64 itself.
type HIPRuntime struct {
	Path                                            string
	SetDevice, StreamSynchronize, DeviceSynchronize uintptr
}

var hip struct {
	once sync.Once
	rt   *HIPRuntime
	err  error
}

// OpenHIP opens the HIP runtime once per process.
func OpenHIP() (*HIPRuntime, error) {
	hip.once.Do(func() {
		h, err := HIP.Open()
		if err != nil {
			hip.err = err
			return
		}
		rt := &HIPRuntime{Path: h.Path}
		if missing := h.Bind(
			Symbol{P: &rt.SetDevice, Names: []string{"hipSetDevice"}},
			Symbol{P: &rt.StreamSynchronize, Names: []string{"hipStreamSynchronize"}},
			Symbol{P: &rt.DeviceSynchronize, Names: []string{"hipDeviceSynchronize"}},
		); len(missing) > 0 {
			hip.err = fmt.Errorf("%s lacks %v", h.Path, missing)
			return
		}
		hip.rt = rt
	})
	return hip.rt, hip.err
}
