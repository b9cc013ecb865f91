// Package clock is the timestamp clock that rocr and its drivers share:
// packets' start and end times, signals' completion times and kernel
// deadlines all read it, so they compare with each other.
package clock

import "time"

var epoch = time.Now()

// Now is the runtime's timestamp clock in nanoseconds
// (HSA_SYSTEM_INFO_TIMESTAMP with a frequency of 1 GHz). It is safe from
// several goroutines and does not allocate.
func Now() uint64 { return uint64(time.Since(epoch)) }
