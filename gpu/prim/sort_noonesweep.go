//go:build !onesweep

package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// haveOnesweep says whether the package has Onesweep's kernels
// (kernels_sort.go, built with the tag onesweep once gen/ holds their
// code objects).
const haveOnesweep = false

func onesweepSort[K Key, V Value](*stream.Stream, shape, buffer.Array[K], buffer.Array[K], buffer.Array[V], buffer.Array[V], bool, int, int, bool) error {
	return gpu.Errorf(gpu.ErrNotSupported, "prim radix sort", "built without Onesweep")
}
