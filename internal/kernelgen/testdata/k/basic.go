// Package k holds kernels the generator's tests translate.
package k

import (
	"golang.org/x/exp/constraints"

	"github.com/hipgo/hipgo/rocr/kernel"
)

//hipgo:kernel
func VectorAdd(t kernel.Thread, a, b, c []float32) {
	if i := t.GlobalX(); i < len(c) {
		c[i] = a[i] + b[i]
	}
}

//hipgo:kernel
func Saxpy(t kernel.Thread, alpha float32, x, y []float32) {
	i := t.GlobalX()
	if i < len(y) {
		y[i] = alpha*x[i] + y[i]
	}
}

// warpSum adds v over the warp; lane 0 holds the total.
func warpSum[T constraints.Float](t kernel.Thread, v T) T {
	for off := t.WarpSize() / 2; off > 0; off /= 2 {
		v += kernel.ShflDown(t, v, off)
	}
	return v
}

//hipgo:kernel
func ReduceSum(t kernel.Thread, in []float32, out []float32) {
	sdata := kernel.DynamicShared[float32](t)
	tid := t.ThreadIdx().X
	i := t.BlockIdx().X*t.BlockDim().X*2 + tid
	var sum float32
	if i < len(in) {
		sum = in[i]
	}
	if j := i + t.BlockDim().X; j < len(in) {
		sum += in[j]
	}
	sdata[tid] = sum
	t.SyncThreads()
	for s := t.BlockDim().X / 2; s >= t.WarpSize(); s >>= 1 {
		if tid < s {
			sdata[tid] += sdata[tid+s]
		}
		t.SyncThreads()
	}
	if tid < t.WarpSize() {
		v := warpSum(t, sdata[tid])
		if tid == 0 {
			kernel.AtomicAdd(&out[0], v)
		}
	}
}

// Rounded: float32(x*y) and float64(x*y) round the product on its own;
// float32 of a float64 product and of a sum are plain conversions.
//
//hipgo:kernel
func Rounded(t kernel.Thread, x []float32, y []float64) {
	if i := t.GlobalX(); i < len(x) && i < len(y) {
		x[i] = float32(x[i]*2) + 1
		y[i] = float64((y[i])*y[i]) - 1
		x[i] = float32(y[i]*3) + float32(x[i]+1)
	}
}

// divmod has two results; minMax is generic, with named results and a
// bare return.
func divmod(a, b int32) (int32, int32) {
	return a / b, a % b
}

func minMax[T constraints.Ordered](a, b T) (lo, hi T) {
	lo, hi = a, b
	if b < a {
		lo, hi = b, a
	}
	return
}

func forward(a, b int32) (int32, int32) { return divmod(a, b) }

// unfused rounds its product in a generic function: T(a*b).
func unfused[T constraints.Float](a, b, c T) T { return T(a*b) + c }

// Results unpacks several results into new and existing variables.
//
//hipgo:kernel
func Results(t kernel.Thread, x []int32, y []float32) {
	if i := t.GlobalX(); i < len(x) && i < len(y) {
		q, r := divmod(x[i], 7)
		var lo, hi float32
		lo, hi = minMax(y[i], 1)
		var a, _ = forward(q, 3)
		x[i] = q + r + a
		y[i] = unfused(hi, lo, 1)
	}
}

// vec2's methods are device functions with the receiver first.
type vec2 struct{ X, Y float32 }

func (v vec2) dot(w vec2) float32 { return v.X*w.X + v.Y*w.Y }

func (v vec2) scaled(a float32) vec2 { return vec2{v.X * a, v.Y * a} }

// Methods calls methods, chained.
//
//hipgo:kernel
func Methods(t kernel.Thread, x []float32) {
	if i := t.GlobalX(); i < len(x) {
		v := vec2{x[i], 1}
		x[i] = v.scaled(2).dot(v)
	}
}
