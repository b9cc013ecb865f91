package gputest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Without a GPU, Differential checks the cpu agent's run alone and says so
// in the test's log, so a passing test is not read as proof on a GPU.
func TestDifferentialWithoutGPUSaysSo(t *testing.T) {
	// The package's runtime has cpu agents only (TestMain), whatever the
	// machine: a HIPGO_REQUIRE naming its GPUs does not apply here.
	t.Setenv(testenv.RequireEnv, "")
	r := newRecorder(t, "TestNoGPU")
	runs := 0
	r.run(func(tb testing.TB) {
		gputest.Differential(tb, func(dev *gpu.Device) ([]int32, error) {
			runs++
			return []int32{1, 2, 3}, nil
		})
	})
	r.finish()
	assert.Empty(t, r.errorText())
	assert.Equal(t, 1, runs, "HIPGO_DRIVER=cpu: the cpu agent alone")
	if assert.Len(t, r.logs, 1) {
		assert.Contains(t, r.logs[0], "no GPU present")
		assert.Contains(t, r.logs[0], "TestNoGPU")
	}
}
