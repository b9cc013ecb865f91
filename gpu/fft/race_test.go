package fft

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
)

// Executions on several goroutines race the plan's Destroy, a buffer's
// Free, the stream's Destroy and gpu.Shutdown: each call returns nil or
// a gpu error, none panics or hangs, and the executions that were queued
// finish (run under -race).
func TestExecRacesDestroyFreeShutdown(t *testing.T) {
	dev := cputest.Device(t)
	for round := range 8 {
		s, err := stream.New(dev)
		require.NoError(t, err)
		p, err := NewPlan(dev, C2C, []int{256}, 4)
		require.NoError(t, err)
		cp, err := Cached(dev, R2C, []int{256}, 4, nil)
		require.NoError(t, err)
		in, err := buffer.New[complex64](dev, 1024)
		require.NoError(t, err)
		out, err := buffer.New[complex64](dev, 1024)
		require.NoError(t, err)
		r, err := buffer.New[float32](dev, 1024)
		require.NoError(t, err)
		check := func(err error) {
			var ge *gpu.Error
			if err != nil && !errors.As(err, &ge) {
				t.Errorf("round %d: not a gpu error: %v", round, err)
			}
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 40 {
					switch {
					case g < 2:
						check(C2CExec(p, s, in, out, Forward))
						check(R2CExec(cp, s, r, out))
					case g == 2:
						check(C2CExec(p, s, out, out, Inverse))
						if i%8 == 0 {
							check(s.Synchronize())
						}
					case i == 15:
						switch round % 4 {
						case 0:
							check(p.Destroy())
							check(ClearCache(dev))
						case 1:
							check(in.Free())
						case 2:
							check(s.Destroy())
						case 3:
							check(gpu.Shutdown())
						}
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: executions racing Destroy, Free or Shutdown did not return", round)
		}
		check(s.Synchronize())
		if round%4 == 3 {
			assert.Error(t, C2CExec(p, s, in, out, Forward), "after Shutdown")
			dev = cputest.Device(t)
			continue
		}
		_ = s.Destroy()
		_ = p.Destroy()
		_ = in.Free()
		_ = out.Free()
		_ = r.Free()
	}
}
