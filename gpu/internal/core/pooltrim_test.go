package core

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// pending reads whether p counts itself as having something to trim.
func (p *MemPool) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.over
}

// A pool counts itself for TrimPools only while it holds freed blocks and
// reserves more than its threshold; a stream's synchronization trims it
// back and the count returns to what it was, so TrimPools is one load
// again.
func TestTrimPoolsCountsOnlyWhatIsOver(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	p := newPool(t, dev)
	base := trimPending.Load()
	x := allocAsync(t, p, s, 64)
	assert.False(t, p.pending(), "in use: nothing to trim")
	require.NoError(t, FreeAsync(x, s))
	assert.True(t, p.pending(), "freed, over threshold 0")
	assert.Equal(t, base+1, trimPending.Load())
	require.NoError(t, s.Synchronize())
	TrimPools(dev)
	assert.Zero(t, p.Stats().Reserved, "trimmed at the synchronization")
	assert.False(t, p.pending())
	assert.Equal(t, base, trimPending.Load())

	p.SetReleaseThreshold(1 << 20)
	y := allocAsync(t, p, s, 64)
	require.NoError(t, FreeAsync(y, s))
	assert.False(t, p.pending(), "under the threshold")
	p.SetReleaseThreshold(0)
	assert.True(t, p.pending(), "a lower threshold puts it over")
	z := allocAsync(t, p, s, 64) // takes the cached block back
	assert.False(t, p.pending(), "nothing cached")
	require.NoError(t, z.Free())
	require.NoError(t, s.Synchronize())
	TrimPools(dev)
	assert.False(t, p.pending())
	assert.Equal(t, base, trimPending.Load())
}

// TrimPools makes no allocation, with pools open and with something to
// trim.
func TestTrimPoolsAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev := device(t)
	s := newStream(t, dev, 16)
	p := newPool(t, dev)
	x := allocAsync(t, p, s, 64)
	require.NoError(t, FreeAsync(x, s))
	require.NoError(t, s.Synchronize())
	assert.Zero(t, testing.AllocsPerRun(100, func() { TrimPools(dev) }))
	assert.False(t, p.pending())
}

// Allocations, frees, threshold changes and synchronizations from several
// goroutines keep the count exact: once all is quiet, the pools counted
// are those with something to trim.
func TestTrimPoolsRace(t *testing.T) {
	dev := device(t)
	p, q := newPool(t, dev), newPool(t, dev)
	base := trimPending.Load()
	var wg sync.WaitGroup
	for i := range 4 {
		s := newStream(t, dev, 64)
		pool := p
		if i%2 == 1 {
			pool = q
		}
		wg.Go(func() {
			for j := range 200 {
				m := new(Mem)
				if !assert.NoError(t, pool.AllocAsync(m, s, int32Type, 64<<(j%4))) {
					return
				}
				assert.NoError(t, FreeAsync(m, s))
				if j%7 == 0 {
					pool.SetReleaseThreshold(uint64(j%3) * 1024)
				}
				if j%5 == 0 {
					assert.NoError(t, s.Synchronize())
					TrimPools(dev)
				}
			}
			assert.NoError(t, s.Synchronize())
		})
	}
	wg.Wait()
	n := int32(0)
	for _, x := range []*MemPool{p, q} {
		if x.pending() {
			n++
		}
	}
	assert.Equal(t, base+n, trimPending.Load())
	p.SetReleaseThreshold(0)
	q.SetReleaseThreshold(0)
	TrimPools(dev)
	assert.Equal(t, base, trimPending.Load(), "all trimmed")
	assert.Zero(t, p.Stats().Reserved)
	assert.Zero(t, q.Stats().Reserved)
}
