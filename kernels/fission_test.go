package kernels_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/kernels"
)

// sgemm runs by loop fission on the cpu agent; an index out of range in
// it still names the kernel's own line.
func TestFissionPanicNamesKernelLine(t *testing.T) {
	dev, s := device(t)
	r := rand.New(rand.NewPCG(3, 4))
	const n = 256
	a := upload(t, dev, random(r, 16)) // far shorter than n*n
	b, c := upload(t, dev, random(r, n*n)), upload(t, dev, random(r, n*n))
	defer a.Free()
	defer b.Free()
	defer c.Free()
	require.NoError(t, kernels.LaunchSgemm(s, gpu.D2(n/16, n/16), gpu.D2(16, 16), 0, n, n, n, 1, a, b, 0, c))
	err := s.Synchronize()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kernels.go:122", "the line of as[ty][tx] = a[...] in sgemm")
	assert.Contains(t, err.Error(), "index out of range")
}
