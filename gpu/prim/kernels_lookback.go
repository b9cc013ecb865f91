package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// The single-pass scan of large inputs on a GPU: decoupled look-back
// (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016). Each block takes a ticket in the order blocks
// started (OrderedBlockID, so the tiles before it belong to running or
// finished blocks), publishes its tile's total (aggregate), then walks
// back over its predecessors' states, adding aggregates until it meets a
// published inclusive prefix, publishes its own inclusive prefix, and
// scans its tile from the exclusive one. Inputs are read once and
// outputs written once: 2n, where reduce-then-scan moves 3n.

// Look-back states of a tile (flags' values).
const (
	tileNone      uint32 = iota // nothing published yet
	tileAggregate               // agg[tile] holds the tile's total
	tilePrefix                  // incl[tile] holds the inclusive prefix
)

// scanLookBack is the single-pass scan: flags has one state a tile and
// the ticket counter last, all zero at the start.
func scanLookBack[T kernel.Shuffleable](t kernel.Thread, in, out, agg, incl []T, flags []uint32, exclusive bool, tile int, sh []T, warps, bcast *[32]T) {
	nt := len(flags) - 1
	b := kernel.OrderedBlockID(t, &flags[nt])
	n := len(in)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	items := tile / bd
	lo := b * tile
	for j := 0; j < items; j++ {
		var x T
		if i := lo + j*bd + tid; i < n {
			x = in[i]
		}
		sh[j*bd+tid] = x
	}
	t.SyncThreads()
	var sum T
	for j := 0; j < items; j++ {
		sum += sh[tid*items+j]
	}
	pre, total := blockScan(t, sum, warps)
	if tid == 0 {
		var excl T
		if b == 0 {
			incl[0] = total
			kernel.ThreadFence()
			kernel.AtomicStore(&flags[0], tilePrefix, kernel.Release, kernel.ScopeDevice)
		} else {
			agg[b] = total
			kernel.ThreadFence()
			kernel.AtomicStore(&flags[b], tileAggregate, kernel.Release, kernel.ScopeDevice)
			j := b - 1
			done := false
			for !done {
				f := kernel.AtomicLoad(&flags[j], kernel.Acquire, kernel.ScopeDevice)
				if f == tilePrefix {
					excl = incl[j] + excl
					done = true
				} else if f == tileAggregate {
					excl = agg[j] + excl
					j--
				}
			}
			incl[b] = excl + total
			kernel.ThreadFence()
			kernel.AtomicStore(&flags[b], tilePrefix, kernel.Release, kernel.ScopeDevice)
		}
		bcast[0] = excl
	}
	t.SyncThreads()
	run := bcast[0] + pre
	for j := 0; j < items; j++ {
		x := sh[tid*items+j]
		if exclusive {
			sh[tid*items+j] = run
			run += x
		} else {
			run += x
			sh[tid*items+j] = run
		}
	}
	t.SyncThreads()
	for j := 0; j < items; j++ {
		if i := lo + j*bd + tid; i < n {
			out[i] = sh[j*bd+tid]
		}
	}
}
