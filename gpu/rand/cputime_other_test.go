//go:build !unix

package rand

import "time"

// cpuTime is 0 where the process's CPU time is not at hand: the
// benchmarks then leave GB/cpu-s out.
func cpuTime() time.Duration { return 0 }
