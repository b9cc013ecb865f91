//go:build !race

// Package raceflag tells tests whether the race detector is on.
package raceflag

// Enabled reports whether the race detector is on; its instrumentation
// changes what allocates, so allocation assertions skip under it.
const Enabled = false
