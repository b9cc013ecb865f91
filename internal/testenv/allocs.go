package testenv

import (
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
