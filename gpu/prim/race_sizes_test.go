package prim

import "github.com/hipgo/hipgo/internal/raceflag"

// underRace is full, or race under the race detector, whose runtime keeps
// memory for every goroutine a test starts: each block of a kernel the
// cpu agent runs in the GPU's shape as coroutines (warp operations
// between barriers, as Onesweep's ranking) is 256 of them per launch, and
// the package's run grew past 16 GB with the sizes of a plain run.
func underRace(full, race []int) []int {
	if raceflag.Enabled {
		return race
	}
	return full
}
