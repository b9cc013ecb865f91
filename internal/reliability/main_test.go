package reliability_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// Every test runs on the cpu agent (TestMisuse and TestStress on the
// driver HIPGO_RELIABILITY_DRIVER names, if set), and no goroutine may
// outlive gpu.Shutdown or rocr.ShutDown: queue processors, workers,
// waiters.
func TestMain(m *testing.M) {
	os.Setenv("HIPGO_DRIVER", "cpu")
	os.Unsetenv("HSA_ENABLE_DEBUG")
	os.Unsetenv("HIPGO_KERNEL_TIMEOUT")
	goleak.VerifyTestMain(m)
}
