package kernels_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// Two streams that use two buffers in opposite roles (saxpy(a, b) beside
// saxpy(b, a), copies both ways), or one buffer as input and output at
// once, are ordered one way or the other: neither waits for the other for
// ever.
func TestOppositeRolesDoNotDeadlock(t *testing.T) {
	dev, _ := device(t)
	const n = 4096
	a, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	b, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			s, err := stream.New(dev)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Destroy()
			x, y := a, b
			if i == 1 {
				x, y = b, a
			}
			for range 500 {
				if err := kernels.Saxpy(s, 1, x, y, n); err != nil {
					errs[i] = err
					return
				}
				if err := kernels.VectorAdd(s, x, x, x, n); err != nil {
					errs[i] = err
					return
				}
				if err := s.Copy(y, 0, x, 0, n); err != nil {
					errs[i] = err
					return
				}
			}
			errs[i] = s.Synchronize()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		require.FailNow(t, "the streams wait for each other")
	}
	for _, err := range errs {
		assert.NoError(t, err)
	}
}
