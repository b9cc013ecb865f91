package gpu_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu")) }

// setup opens the runtime on the cpu agent with extra environment and shuts
// it down when the test ends.
func setup(t *testing.T, env ...string) {
	t.Helper()
	t.Setenv("HIPGO_DRIVER", "cpu")
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	t.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			t.Error(err)
		}
	})
}
