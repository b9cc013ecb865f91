// Command fuse runs three element-wise expressions with gpu/array, each
// written as one Go function and run as one kernel (fusion): a clipped
// a*x + y, a softplus, and squared distances to a centre followed by
// the farthest of them (prim.ReduceWith), their running maximum
// (prim.InclusiveScanWith) and the points ranked farthest first
// (prim.MergeSortPairsWith), and checks every figure against plain Go.
//
// The kernels come from go generate (ops.go's line): hipgo-gen finds the
// calls of array.Map1..Map4 and prim's functions With an operation and writes their kernels
// into hipgo_inst_gen.go, compiled for NVIDIA and AMD GPUs like any Go
// kernel. It runs on the first GPU hipgo finds, or on the cpu agent when
// there is none (HIPGO_DRIVER=cpu|cuda|rocm forces a driver).
package main

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/array"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/stream"
)

const n = 1 << 20

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fuse:", err)
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
	x, y := make([]float32, n), make([]float32, n)
	px, py := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = float32(r.NormFloat64()*3), float32(r.NormFloat64())
		px[i], py[i] = r.NormFloat64()*10, r.NormFloat64()*10
	}
	const a, cx, cy = 0.5, 1.5, -2.0

	// On the device.
	ax, err := array.FromSlice(s, x)
	if err != nil {
		return err
	}
	defer ax.Free()
	ay, err := array.FromSlice(s, y)
	if err != nil {
		return err
	}
	defer ay.Free()
	aa, err := array.Full[float32](s, a) // 0-d: broadcast
	if err != nil {
		return err
	}
	defer aa.Free()
	clipped, err := array.Map3(axpyClip{}, aa, ax, ay)
	if err != nil {
		return err
	}
	defer clipped.Free()
	soft, err := array.Map1(softplus{}, ax)
	if err != nil {
		return err
	}
	defer soft.Free()
	apx, err := array.FromSlice(s, px)
	if err != nil {
		return err
	}
	defer apx.Free()
	apy, err := array.FromSlice(s, py)
	if err != nil {
		return err
	}
	defer apy.Free()
	centre, err := array.FromSlice(s, []float64{cx, cy}) // its elements as views: (1,) broadcasts
	if err != nil {
		return err
	}
	defer centre.Free()
	acx, err := centre.Slice(0, 1)
	if err != nil {
		return err
	}
	defer acx.Free()
	acy, err := centre.Slice(1, 2)
	if err != nil {
		return err
	}
	defer acy.Free()
	d2, err := array.Map4(sqDist{}, apx, apy, acx, acy)
	if err != nil {
		return err
	}
	defer d2.Free()
	far, err := buffer.NewAsync[float64](s, 1)
	if err != nil {
		return err
	}
	defer far.Free()
	if err := prim.ReduceWith(s, farthest{}, d2.Buffer(), far); err != nil {
		return err
	}
	running, err := buffer.NewAsync[float64](s, n)
	if err != nil {
		return err
	}
	defer running.Free()
	if err := prim.InclusiveScanWith(s, farthest{}, d2.Buffer(), running); err != nil {
		return err
	}
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	bids, err := buffer.FromSlice(dev, ids)
	if err != nil {
		return err
	}
	defer bids.Free()
	ranked, err := buffer.NewAsync[float64](s, n)
	if err != nil {
		return err
	}
	defer ranked.Free()
	if err := prim.MergeSortPairsWith(s, fartherFirst{}, d2.Buffer(), ranked, bids, bids); err != nil {
		return err
	}

	gotClip, err := clipped.ToSlice()
	if err != nil {
		return err
	}
	gotSoft, err := soft.ToSlice()
	if err != nil {
		return err
	}
	gotD2, err := d2.ToSlice()
	if err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	gotFar := make([]float64, 1)
	if err := far.CopyTo(gotFar); err != nil {
		return err
	}
	gotRunning, gotRanked, gotIDs := make([]float64, n), make([]float64, n), make([]int32, n)
	if err := running.CopyTo(gotRunning); err != nil {
		return err
	}
	if err := ranked.CopyTo(gotRanked); err != nil {
		return err
	}
	if err := bids.CopyTo(gotIDs); err != nil {
		return err
	}

	// The same in plain Go. GPUs may contract a*x + y into one fused
	// multiply-add and approximate exp and log, hence the tolerances.
	var wantFar float64
	for i := range n {
		wantClip := float32(math.Min(math.Max(float64(a)*float64(x[i])+float64(y[i]), -1), 1))
		if err := near("clip", i, float64(gotClip[i]), float64(wantClip), 1e-6); err != nil {
			return err
		}
		wantSoft := math.Log1p(math.Exp(float64(x[i])))
		if err := near("softplus", i, float64(gotSoft[i]), wantSoft, 1e-5); err != nil {
			return err
		}
		dx, dy := px[i]-cx, py[i]-cy
		wantD2 := dx*dx + dy*dy
		if err := near("squared distance", i, gotD2[i], wantD2, 1e-12); err != nil {
			return err
		}
		wantFar = max(wantFar, wantD2)
		if err := near("running maximum", i, gotRunning[i], wantFar, 1e-12); err != nil {
			return err
		}
	}
	if err := near("farthest", 0, gotFar[0], wantFar, 1e-12); err != nil {
		return err
	}
	// The ranking: the ids in a stable sort by distance, farthest first,
	// of the distances the device computed (so that rounding cannot
	// reorder near ties).
	wantIDs := slices.Clone(ids)
	slices.SortStableFunc(wantIDs, func(a, b int32) int { return cmp.Compare(gotD2[b], gotD2[a]) })
	for i, id := range wantIDs {
		if gotIDs[i] != id || gotRanked[i] != gotD2[id] {
			return fmt.Errorf("ranked[%d] = point %d at %v, plain Go point %d at %v", i, gotIDs[i], gotRanked[i], id, gotD2[id])
		}
	}
	fmt.Printf("%s: %d elements, three fused expressions, a custom reduction, scan and sort\n", dev, n)
	fmt.Printf("  clip(a*x+y)[:3] = %.4f, softplus(x)[:3] = %.4f\n", gotClip[:3], gotSoft[:3])
	fmt.Printf("  farthest point from (%.1f, %.1f): %.3f away; the three farthest: points %d\n", cx, cy, math.Sqrt(gotFar[0]), gotIDs[:3])
	fmt.Println("matches plain Go")
	return nil
}

// near checks got against want within a relative tolerance (absolute
// near zero).
func near(what string, i int, got, want, tol float64) error {
	if math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) {
		return nil
	}
	return fmt.Errorf("%s[%d] = %v, plain Go %v", what, i, got, want)
}
