package rocr_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// withLive allocates live 4 KiB blocks from pool and frees them when the
// test ends.
func withLive(tb testing.TB, pool *rocr.Pool, live int) []*rocr.Allocation {
	tb.Helper()
	als := make([]*rocr.Allocation, 0, live)
	tb.Cleanup(func() {
		for _, al := range als {
			_ = al.Free()
		}
	})
	for range live {
		al, err := pool.Allocate(4096)
		require.NoError(tb, err)
		als = append(als, al)
	}
	return als
}

// allocFreeCost is the best per-pair time of rounds of n 4 KiB
// Allocate+Free pairs, each checked by an address lookup.
func allocFreeCost(tb testing.TB, pool *rocr.Pool, rounds, n int) time.Duration {
	tb.Helper()
	best := time.Duration(1<<63 - 1)
	for range rounds {
		start := time.Now()
		for range n {
			al, err := pool.Allocate(4096)
			if err != nil {
				tb.Fatal(err)
			}
			if rocr.FindAllocation(al.Base+100) != al {
				tb.Fatal("FindAllocation did not find a fresh allocation")
			}
			if err := al.Free(); err != nil {
				tb.Fatal(err)
			}
		}
		best = min(best, time.Since(start)/time.Duration(n))
	}
	return best
}

// BenchmarkAllocFree4KiB: one 4 KiB Allocate+Free with 1k, 10k and 200k
// allocations live (target: 0.5 µs at 200k).
func BenchmarkAllocFree4KiB(b *testing.B) {
	for _, live := range []int{1000, 10000, 200000} {
		b.Run(itoa(int64(live))+"live", func(b *testing.B) {
			a := cputest.Agents(b, 1)[0]
			pool, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
			require.NoError(b, err)
			withLive(b, pool, live)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				al, err := pool.Allocate(4096)
				if err != nil {
					b.Fatal(err)
				}
				if err := al.Free(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFindAllocation: the pointer -> allocation lookup of every
// dispatch argument, with 200k allocations live.
func BenchmarkFindAllocation(b *testing.B) {
	a := cputest.Agents(b, 1)[0]
	pool, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	require.NoError(b, err)
	als := withLive(b, pool, 200000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		al := als[i%len(als)]
		if _, err := rocr.CheckRange(a, al.Base+8, 64); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// Allocation cost does not grow with the number of live allocations: from
// 1k to 200k live, a 4 KiB Allocate+Free (and a lookup) costs at most ~3x
// as much (8x under the race detector). Best-of-rounds on both sides keeps a noisy machine from failing
// it.
func TestAllocCostFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fills 200k allocations")
	}
	a := cputest.Agents(t, 1)[0]
	pool, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	require.NoError(t, err)
	// A list kept sorted costs ~200x more at 200k live; a tree, a few
	// times more from cache misses alone, which the race detector's
	// shadow memory and a loaded machine multiply: 3.1x was seen on a
	// loaded 2-core box, so the bound is 10x, still 20 times below what
	// a structure linear in the live count would cost.
	rounds, n, bound := 15, 2000, 10.0
	if raceflag.Enabled {
		rounds, n, bound = 7, 500, 20.0
	}
	withLive(t, pool, 1000)
	small := allocFreeCost(t, pool, rounds, n)
	withLive(t, pool, 199000)
	large := allocFreeCost(t, pool, rounds, n)
	t.Logf("4 KiB alloc+free: %v with 1k live, %v with 200k live", small, large)
	assert.LessOrEqual(t, float64(large), bound*float64(small), "cost grew from %v (1k live) to %v (200k live)", small, large)
	// Lookups stay correct among many neighbours.
	als := withLive(t, pool, 1000)
	for i, al := range als {
		require.Same(t, al, rocr.FindAllocation(al.Base), "allocation %d at its base", i)
		require.Same(t, al, rocr.FindAllocation(al.Base+al.Size-1), "allocation %d at its last byte", i)
		_, err := rocr.CheckRange(a, al.Base, al.Size+1)
		require.ErrorIs(t, err, hsa.ErrInvalidArgument, "a range past allocation %d", i)
	}
	require.NoError(t, als[500].Free())
	assert.Nil(t, rocr.FindAllocation(als[500].Base+8), "a freed allocation is found")
	_, err = rocr.CheckRange(a, als[500].Base, 8)
	assert.ErrorIs(t, err, hsa.ErrInvalidAllocation)
}

// Allocate, Free and lookups race: every goroutine finds its own live
// allocations and never a freed one.
func TestAllocLookupRace(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	pool, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < scale(3000); i++ {
				al, err := pool.Allocate(uint64(256 << (i % 6)))
				if !assert.NoError(t, err) {
					return
				}
				if got := rocr.FindAllocation(al.Base + al.Size - 1); got != al {
					t.Errorf("lookup of a live allocation gave %v", got)
					return
				}
				base := al.Base
				assert.NoError(t, al.Free())
				if got := rocr.FindAllocation(base); got == al {
					t.Error("a freed allocation was found")
					return
				}
			}
		}()
	}
	wg.Wait()
}
