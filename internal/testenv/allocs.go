package testenv

import (
	"runtime/debug"
	"testing"

	"github.com/hipgo/hipgo/internal/raceflag"
)

// SkipAllocsUnderRace skips an allocation test under the race detector,
// whose instrumentation allocates on paths that otherwise do not. Every
// such test is named Test...Allocs, and make test-allocs runs them
// without -race.
func SkipAllocsUnderRace(tb testing.TB) {
	tb.Helper()
	if raceflag.Enabled {
		tb.Skip("run by make test-allocs without -race")
	}
}

// AllocsPerCall is testing.AllocsPerRun(runs, f) with the collector off,
// taken three times, the least of the three: an allocation of the call
// itself shows in every round, while what a loaded machine adds now and
// then (a pool the last collection emptied and the next wait refills, a
// timer's first use) shows in one. A call still allocating in all three
// rounds fails the caller's assertion.
func AllocsPerCall(runs int, f func()) float64 {
	gc := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(gc)
	least := testing.AllocsPerRun(runs, f)
	for range 2 {
		if least == 0 {
			break
		}
		least = min(least, testing.AllocsPerRun(runs, f))
	}
	return least
}
