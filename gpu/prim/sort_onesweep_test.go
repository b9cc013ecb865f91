package prim

import (
	"fmt"
	"maps"
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
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			dev, s := newStream(t)
			tile := sweepU32.block * sweepU32.items
			tiles := 4
			h := make([]uint32, tiles*tile)
			for i := range tile {
				h[3*tile+i] = uint32(i) // digit i%256, 16 keys a digit
			}
			// 60 keys of each digit in all: digit d's keys start at 60d
			// (sweepScan's first places, which only tile 0 reads).
			meta := make([]uint32, 8*256+8)
			for d := range 256 {
				meta[d] = 60 * uint32(d)
			}
			meta[2048] = 3 // the launched block takes ticket 3
			// Tile 0 has published its prefix (the digit's first place and 1
			// key of each digit), tiles 1 and 2 only their counts (2 and 3);
			// the other half holds junk that tile 3 clears for the next pass.
			st := make([]uint32, 2*256*tiles)
			for d := range 256 {
				st[d] = sweepPrefix | (60*uint32(d) + 1)
				st[256+d] = sweepAggregate | 2
				st[512+d] = sweepAggregate | 3
				st[256*tiles+3*256+d] = 0xdead
			}
			in, out := upload(t, dev, h), upload(t, dev, make([]uint32, len(h)))
			mb, sb := upload(t, dev, meta), upload(t, dev, st)
			require.NoError(t, LaunchSweepKeysU32(s, gpu.D1(1), gpu.D1(uint32(sweepU32.block)), 0, in, out, mb, sb, 0, 0, 8, false))
			got := download(t, s, out)
			for i := range tile {
				d, r := i%256, i/256
				if !assert.Equal(t, uint32(i), got[60*d+6+r], "key %d (digit %d, rank %d)", i, d, r) {
					break
				}
			}
			states := download(t, s, sb)
			for d := range 256 {
				require.Equal(t, sweepPrefix|(60*uint32(d)+6+16), states[3*256+d], "tile 3's prefix of digit %d", d)
				require.Zero(t, states[256*tiles+3*256+d], "tile 3's state of digit %d for the next pass", d)
			}
			assert.Equal(t, uint32(4), download(t, s, mb)[2048], "the ticket counter")
		})
	})
}

// Onesweep sorts on several streams at once, each with its own look-back
// states and tickets, give each stream's keys and values sorted, in the
// GPU's shapes on the cpu agent.
func TestOnesweepConcurrent(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			dev := gputest.Device(t)
			streams, rounds, n := 3, 2, 2*sweepU32.block*sweepU32.items+5 // three tiles
			if raceflag.Enabled {
				streams, rounds, n = 2, 1, sweepU32.block*sweepU32.items+5 // see underRace
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
	})
}

// Onesweep sorts racing a Destroy of their stream or a Free of their
// output return nil or an error with its code, in the GPU's shapes.
func TestOnesweepRaceDestroy(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			dev := gputest.Device(t)
			n, rounds := sweepU32.block*sweepU32.items+1, 4
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
	})
}

// Onesweep's other shapes of uint32 keys and uint32/uint32 pairs
// (sweepTune, which the benchmarks compare) sort stably across tiles, in
// both orders, in the GPU's shapes.
func TestOnesweepShapes(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			defer func(old string) { sweepTune = old }(sweepTune)
			dev, s := newStream(t)
			run := func(t *testing.T, name string, sh sweepShape, pairs bool) {
				sweepTune = name
				k, p, block, items, ok := tuned[uint32, uint32](pairs)
				require.True(t, ok, "shape %s", name)
				require.Equal(t, [2]int{sh.block, sh.items}, [2]int{block, items})
				require.True(t, (k != nil) != pairs && (p != nil) == pairs)
				n := underRace([]int{2*block*items + 5}, []int{block*items + 5})[0] // across tiles
				r := rand.New(rand.NewPCG(11, uint64(n)))
				h := random[uint32](r, n)
				for i := range n / 4 {
					h[r.IntN(n)] = h[i%5] // equal keys: stability shows in the values
				}
				idx := make([]uint32, n)
				for i := range idx {
					idx[i] = uint32(i)
				}
				kin, kout := upload(t, dev, h), upload(t, dev, make([]uint32, n))
				vin, vout := upload(t, dev, idx), upload(t, dev, make([]uint32, n))
				for _, desc := range []bool{false, true} {
					want, wantIdx := refSort(h, desc)
					o := SortOrder{Descending: desc}
					if pairs {
						require.NoError(t, SortPairs(s, kin, kout, vin, vout, o))
						got := download(t, s, vout)
						for i := range got {
							if int32(got[i]) != wantIdx[i] {
								t.Fatalf("desc=%v: values[%d] = %d, want %d", desc, i, got[i], wantIdx[i])
							}
						}
					} else {
						require.NoError(t, SortKeys(s, kin, kout, o))
					}
					assert.Equal(t, want, download(t, s, kout), "desc=%v: the keys", desc)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(sweepTuneKeys)) {
				t.Run("keys-"+name, func(t *testing.T) { run(t, name, sweepTuneKeys[name], false) })
			}
			for _, name := range slices.Sorted(maps.Keys(sweepTunePairs)) {
				t.Run("pairs-"+name, func(t *testing.T) { run(t, name, sweepTunePairs[name], true) })
			}
		})
	})
}
