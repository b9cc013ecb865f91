package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// 32,764 bytes of kernel parameters need both a CUDA 12.1 driver and
// compute capability 7.0.
func TestMaxKernarg(t *testing.T) {
	for _, c := range []struct {
		ver   int32
		major int
		want  int
	}{
		{12010, 7, 32764}, {12080, 9, 32764}, {13000, 10, 32764},
		{12000, 9, 4096}, {11080, 8, 4096}, {12010, 6, 4096},
	} {
		assert.Equal(t, c.want, maxKernarg(c.ver, c.major), "driver %d, compute capability %d", c.ver, c.major)
	}
}

// Clusters need compute capability 9.0, a device that says it launches
// them, and cuLaunchKernelEx.
func TestClusterSize(t *testing.T) {
	attr := func(v int) func(int) int {
		return func(a int) int {
			if a == attrClusterLaunch {
				return v
			}
			return 0
		}
	}
	ex := &api{cuLaunchKernelEx: 1}
	assert.Equal(t, 8, clusterSize(ex, 9, attr(1)))
	assert.Equal(t, 8, clusterSize(ex, 10, attr(1)))
	assert.Zero(t, clusterSize(ex, 8, attr(1)), "sm_80")
	assert.Zero(t, clusterSize(ex, 9, attr(0)), "the device says no")
	assert.Zero(t, clusterSize(&api{}, 9, attr(1)), "no cuLaunchKernelEx")
}
