package fft

import (
	"errors"
	"math/cmplx"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

func cached(t *testing.T, dev *gpu.Device, k Kind, dims []int, batch int, l *Layout) *Plan {
	p, err := Cached(dev, k, dims, batch, l)
	if errors.Is(err, gpu.ErrNotSupported) {
		t.Skipf("no FFT on %s: %v", dev, err)
	}
	require.NoError(t, err)
	return p
}

// The cache hands out one plan per shape and layout, keeps the most
// recently used ones up to its size, and destroys what it evicts or
// clears; its plans are not the caller's to destroy.
func TestPlanCache(t *testing.T) {
	dev, s := newStream(t)
	t.Cleanup(func() { _ = ClearCache(dev) })
	size, held, err := CacheSize(dev)
	require.NoError(t, err)
	assert.Equal(t, DefaultCacheSize, size)
	assert.Zero(t, held)

	a := cached(t, dev, C2C, []int{8}, 2, nil)
	assert.Same(t, a, cached(t, dev, C2C, []int{8}, 2, nil), "the same shape: the same plan")
	assert.Same(t, a, cached(t, dev, C2C, []int{8}, 2, &Layout{}), "an empty layout is the basic one")
	assert.NotSame(t, a, cached(t, dev, C2C, []int{8}, 3, nil), "another batch")
	assert.NotSame(t, a, cached(t, dev, Z2Z, []int{8}, 2, nil), "another kind")
	l := &Layout{InEmbed: []int{8}, InStride: 2, InDist: 16, OutEmbed: []int{8}, OutStride: 1, OutDist: 8}
	b := cached(t, dev, C2C, []int{8}, 2, l)
	assert.NotSame(t, a, b, "another layout")
	l2 := *l
	l2.InEmbed = []int{99} // Embed[0] is not used
	assert.Same(t, b, cached(t, dev, C2C, []int{8}, 2, &l2))
	_, held, _ = CacheSize(dev)
	assert.Equal(t, 4, held)

	assert.ErrorIs(t, a.Destroy(), gpu.ErrInvalidValue, "a cached plan belongs to the cache")
	in := upload(t, dev, []complex64{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	out := upload(t, dev, make([]complex64, 16))
	require.NoError(t, C2CExec(a, s, in, out, Forward))
	assert.Equal(t, complex64(1), download(t, s, out)[7], "a cached plan runs")

	// Size 2: the two least recently used of four go, destroyed.
	cached(t, dev, C2C, []int{8}, 2, nil) // a is the most recent now
	require.NoError(t, SetCacheSize(dev, 2))
	size, held, _ = CacheSize(dev)
	assert.Equal(t, 2, size)
	assert.Equal(t, 2, held)
	assert.Same(t, a, cached(t, dev, C2C, []int{8}, 2, nil), "the most recently used stays")
	// b was used after the Z2Z plan and the batch-3 plan: b stays too.
	assert.Same(t, b, cached(t, dev, C2C, []int{8}, 2, l))
	c := cached(t, dev, R2C, []int{8}, 1, nil) // evicts the least recent: a
	assert.ErrorIs(t, C2CExec(a, s, in, out, Forward), gpu.ErrInvalidHandle, "an evicted plan is destroyed")
	assert.NotSame(t, a, cached(t, dev, C2C, []int{8}, 2, nil), "made again")
	assert.ErrorIs(t, SetCacheSize(dev, 0), gpu.ErrInvalidValue)

	require.NoError(t, ClearCache(dev))
	_, held, _ = CacheSize(dev)
	assert.Zero(t, held)
	f := upload(t, dev, make([]float32, 8))
	assert.ErrorIs(t, R2CExec(c, s, f, out), gpu.ErrInvalidHandle, "cleared plans are destroyed")
	_, err = Cached(nil, C2C, []int{8}, 1, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidDevice)
	_, err = Cached(dev, C2C, []int{8, 8, 8, 8}, 1, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

// One plan executed on two streams from two goroutines at once: every
// result is right (the executions are ordered one after another, as the
// plan's work area requires).
func TestPlanOnTwoStreams(t *testing.T) {
	dev, s0 := newStream(t)
	s1, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s1.Destroy() })
	const n, batch, rounds = 64, 5, 20
	p := newPlan(t, dev, Z2Z, []int{n}, batch)
	r := rand.New(rand.NewPCG(11, 12))
	var wg sync.WaitGroup
	for g, s := range []*stream.Stream{s0, s1} {
		x := randComplex(r, n*batch)
		var want []complex128
		for b := range batch {
			want = append(want, dft(x[b*n:(b+1)*n], []int{n}, -1)...)
		}
		in := upload(t, dev, x)
		outs := make([]*bufferZ, rounds)
		for i := range outs {
			outs[i] = upload(t, dev, make([]complex128, n*batch))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, o := range outs {
				if !assert.NoError(t, C2CExec(p, s, in, o, Forward)) {
					return
				}
			}
			assert.NoError(t, s.Synchronize())
			for i, o := range outs {
				got := make([]complex128, n*batch)
				assert.NoError(t, o.CopyTo(got))
				for k := range want {
					if !assert.InDelta(t, 0, cmplx.Abs(got[k]-want[k]), 1e-9, "stream %d round %d [%d]", g, i, k) {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

type bufferZ = buffer.Buffer[complex128]
type bufferC = buffer.Buffer[complex64]
