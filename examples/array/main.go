// Command array ranks a million scores with gpu/array, as a CuPy user
// would: centre them on their mean, find the top ten by an argsort, and
// check every figure against plain Go.
//
// It runs on the first GPU hipgo finds, or on the cpu agent when there is
// none (HIPGO_DRIVER=cpu|cuda|rocm forces a driver).
package main

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/array"
	"github.com/hipgo/hipgo/gpu/stream"
)

const (
	n = 1 << 20
	k = 10
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "array:", err)
		os.Exit(1)
	}
}

func run() (err error) {
	dev, err := gpu.Default()
	if err != nil {
		return err
	}
	defer gpu.Shutdown()
	s, err := stream.New(dev)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Destroy()) }()

	r := rand.New(rand.NewPCG(7, 49))
	h := make([]float64, n)
	for i := range h {
		h[i] = r.NormFloat64()*15 + 100
	}

	// On the device: x, its mean, x - mean, the top k by an argsort.
	x, err := array.FromSlice(s, h)
	if err != nil {
		return err
	}
	defer x.Free()
	sum, err := array.Sum(x)
	if err != nil {
		return err
	}
	defer sum.Free()
	total, err := sum.Item()
	if err != nil {
		return err
	}
	mean := total / n
	centred, err := array.SubScalar(x, mean)
	if err != nil {
		return err
	}
	defer centred.Free()
	best, err := array.ArgMax(centred)
	if err != nil {
		return err
	}
	defer best.Free()
	order, err := array.Argsort(centred)
	if err != nil {
		return err
	}
	defer order.Free()
	top, err := order.Slice(n-k, n)
	if err != nil {
		return err
	}
	topIdx, err := top.ToSlice()
	if err != nil {
		return err
	}
	bestIdx, err := best.Item()
	if err != nil {
		return err
	}

	// The same in plain Go.
	var goSum float64
	for _, v := range h {
		goSum += v
	}
	goMean := goSum / n
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(a, b int64) int { return cmpFloat(h[a]-goMean, h[b]-goMean) })
	if math.Abs(mean-goMean) > 1e-9*goMean {
		return fmt.Errorf("mean %v, plain Go %v", mean, goMean)
	}
	if !slices.Equal(topIdx, idx[n-k:]) {
		return fmt.Errorf("top %d %v, plain Go %v", k, topIdx, idx[n-k:])
	}
	if bestIdx != idx[n-1] {
		return fmt.Errorf("argmax %d, plain Go %d", bestIdx, idx[n-1])
	}
	fmt.Printf("%s: mean %.3f over %d scores; the top %d, best first:\n", dev, mean, n, k)
	for i := k - 1; i >= 0; i-- {
		j := topIdx[i]
		fmt.Printf("  #%-7d %.3f (%+.3f)\n", j, h[j], h[j]-mean)
	}
	fmt.Println("matches plain Go")
	return nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
