package prim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// TestOnesweepLookBack: a tile whose predecessors have published only
// their counts (as on a GPU, where they are still running) adds them up
// to the first inclusive prefix, and its keys land after them. The cpu
// agent runs blocks to the end in ticket order, so a launch never shows
// it that state: the test sets the states and the ticket, and launches
// the one block.
func TestOnesweepLookBack(t *testing.T) {
	withGPUShape(t, func() {
		dev, s := newStream(t)
		tile := sweepBlock * sweepU32.items
		tiles := 4
		h := make([]uint32, tiles*tile)
		for i := range tile {
			h[3*tile+i] = uint32(i) // digit i%256, 16 keys a digit
		}
		// 60 keys of each digit in all: digit d's keys start at 60d.
		meta := make([]uint32, 8*256+8)
		for d := range 256 {
			meta[d] = 60
		}
		meta[2048] = 3 // the launched block takes ticket 3
		// Tile 0 has published its prefix (1 key of each digit), tiles 1
		// and 2 only their counts (2 and 3); the other half holds junk
		// that tile 3 clears for the next pass.
		st := make([]uint32, 2*256*tiles)
		for d := range 256 {
			st[d] = sweepPrefix | 1
			st[256+d] = sweepAggregate | 2
			st[512+d] = sweepAggregate | 3
			st[256*tiles+3*256+d] = 0xdead
		}
		in, out := upload(t, dev, h), upload(t, dev, make([]uint32, len(h)))
		mb, sb := upload(t, dev, meta), upload(t, dev, st)
		require.NoError(t, LaunchSweepKeysU32(s, gpu.D1(1), gpu.D1(sweepBlock), 0, in, out, mb, sb, 0, 0, 8, false))
		got := download(t, s, out)
		for i := range tile {
			d, r := i%256, i/256
			if !assert.Equal(t, uint32(i), got[60*d+6+r], "key %d (digit %d, rank %d)", i, d, r) {
				break
			}
		}
		states := download(t, s, sb)
		for d := range 256 {
			require.Equal(t, sweepPrefix|(6+16), states[3*256+d], "tile 3's prefix of digit %d", d)
			require.Zero(t, states[256*tiles+3*256+d], "tile 3's state of digit %d for the next pass", d)
		}
		assert.Equal(t, uint32(4), download(t, s, mb)[2048], "the ticket counter")
	})
}

// Onesweep sorts on several streams at once, each with its own look-back
// states and tickets, give each stream's keys and values sorted, in the
// GPU's shapes on the cpu agent.
func TestOnesweepConcurrent(t *testing.T) {
	withGPUShape(t, func() {
		dev := gputest.Device(t)
		streams, rounds, n := 3, 2, 2*sweepBlock*sweepU32.items+5 // three tiles
		if raceflag.Enabled {
			streams, rounds, n = 2, 1, sweepBlock*sweepU32.items+5 // see underRace
		}
		var wg sync.WaitGroup
		errs := make([]error, streams)
		for g := range streams {
			s, err := stream.New(dev)
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Destroy() })
			r := rand.New(rand.NewPCG(9, uint64(g)))
			h := random[uint32](r, n)
			for i := range n / 4 {
				h[r.IntN(n)] = h[i%5] // equal keys: stability shows in the values
			}
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(i)
			}
			kin, kout := upload(t, dev, h), upload(t, dev, make([]uint32, n))
			vin, vout := upload(t, dev, idx), upload(t, dev, make([]int32, n))
			want, wantIdx := refSort(h, g%2 == 1)
			wg.Go(func() {
				errs[g] = func() error {
					o := SortOrder{Descending: g%2 == 1}
					for range rounds {
						if err := SortPairs(s, kin, kout, vin, vout, o); err != nil {
							return err
						}
						if err := s.Synchronize(); err != nil {
							return err
						}
						gotK, gotV := make([]uint32, n), make([]int32, n)
						if err := kout.CopyTo(gotK); err != nil {
							return err
						}
						if err := vout.CopyTo(gotV); err != nil {
							return err
						}
						if !slices.Equal(gotK, want) || !slices.Equal(gotV, wantIdx) {
							return fmt.Errorf("stream %d: pairs not sorted stably", g)
						}
					}
					return nil
				}()
			})
		}
		wg.Wait()
		for _, err := range errs {
			assert.NoError(t, err)
		}
	})
}

// Onesweep sorts racing a Destroy of their stream or a Free of their
// output return nil or an error with its code, in the GPU's shapes.
func TestOnesweepRaceDestroy(t *testing.T) {
	withGPUShape(t, func() {
		dev := gputest.Device(t)
		n, rounds := sweepBlock*sweepU32.items+1, 4
		if raceflag.Enabled {
			rounds = 2 // see underRace
		}
		for i := range 2 {
			s, err := stream.New(dev)
			require.NoError(t, err)
			u, err := buffer.New[uint32](dev, n)
			require.NoError(t, err)
			uo, err := buffer.New[uint32](dev, n)
			require.NoError(t, err)
			v, err := buffer.New[uint32](dev, n)
			require.NoError(t, err)
			vo, err := buffer.New[uint32](dev, n)
			require.NoError(t, err)
			var wg sync.WaitGroup
			var callErr, raceErr error
			wg.Go(func() {
				callErr = func() error {
					for range rounds {
						if err := SortKeys(s, u, uo, SortOrder{}); err != nil {
							return err
						}
						if err := SortPairs(s, u, uo, v, vo, SortOrder{Descending: true}); err != nil {
							return err
						}
					}
					return s.Synchronize()
				}()
			})
			wg.Go(func() {
				if i == 0 {
					raceErr = s.Destroy()
				} else {
					raceErr = uo.Free()
				}
			})
			wg.Wait()
			gputest.Released(t, callErr, "the sorts")
			gputest.Released(t, raceErr, "the destroy or free")
			_ = s.Destroy()
			for _, b := range []interface{ Free() error }{u, uo, v, vo} {
				_ = b.Free()
			}
		}
	})
}
