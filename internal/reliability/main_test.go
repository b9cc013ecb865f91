package reliability_test

import (
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

// Every test runs on the cpu agent (TestMisuse and TestStress on the
// driver HIPGO_RELIABILITY_DRIVER names, if set), and no goroutine may
// outlive gpu.Shutdown or rocr.ShutDown: queue processors, workers,
// waiters.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu"),
		testenv.Unsetenv("HSA_ENABLE_DEBUG"), testenv.Unsetenv("HIPGO_KERNEL_TIMEOUT"))
}
