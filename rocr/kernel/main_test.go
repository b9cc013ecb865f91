package kernel_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/hipgo/hipgo/gpu"
)

// TestMain runs every test on the cpu agent and checks that no coroutine,
// processor or worker outlives gpu.Shutdown.
func TestMain(m *testing.M) {
	os.Setenv("HIPGO_DRIVER", "cpu")
	code := m.Run()
	gpu.Shutdown()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
