// Package hostmem turns the raw addresses of pool memory, queue rings and
// signals into Go pointers and slices. It is the one place outside the Go
// type system that hipgo's runtime, its drivers and its API share: the
// memory is mapped outside the Go heap (or kept alive by its pool under the
// race detector), so an address stays valid for as long as its allocation
// does, and the caller guarantees that.
//
// Every function is safe from several goroutines; none allocates.
package hostmem
