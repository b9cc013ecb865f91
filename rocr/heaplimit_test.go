package rocr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr"
)

// Values of GPU_MAX_HEAP_SIZE that would mean no limit, or a limit below
// one allocation, are rejected like other bad values.
func TestMaxHeapSizeNoLimitValues(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	for _, v := range []string{"NaN", "nan%", "-NaN", "Inf", "+Inf", "-Inf", "1e-300", "1e-20", "0x0p+0"} {
		t.Setenv("GPU_MAX_HEAP_SIZE", v)
		err := rocr.Init()
		if err == nil {
			_ = rocr.ShutDown()
		}
		if assert.Error(t, err, "GPU_MAX_HEAP_SIZE=%s: Init succeeded", v) {
			assert.Contains(t, err.Error(), "GPU_MAX_HEAP_SIZE", v)
			assert.Contains(t, err.Error(), "INVALID_ARGUMENT", v)
		}
	}
}
