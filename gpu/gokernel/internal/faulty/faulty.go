// Package faulty holds Go kernels for gokernel's tests: kernels that fail
// as Go code fails, for checked mode, and kernels whose float results
// Go's rounding rules fix to the bit.
package faulty

//go:generate go run ../../../../cmd/hipgo-gen -go . -o kernels_gen.go -prefix Launch -var Library

import "github.com/hipgo/hipgo/rocr/kernel"

// fill sets x[i] = v for i < n: past len(x) when n is.
//
//hipgo:kernel
func fill(t kernel.Thread, x []float32, v float32, n int32) {
	if i := t.GlobalX(); i < int(n) {
		x[i] = v
	}
}

// divide sets x[i] /= d.
//
//hipgo:kernel
func divide(t kernel.Thread, x []int32, d int32) {
	if i := t.GlobalX(); i < len(x) {
		x[i] /= d
	}
}

// horner evaluates a*x^3 + b*x^2 + c*x + d with each product rounded on
// its own, as Go's float32(x*y) is: no agent may fuse it into an FMA, so
// every agent gives the same bits.
//
//hipgo:kernel
func horner(t kernel.Thread, x, y []float32, a, b, c, d float32) {
	if i := t.GlobalX(); i < len(y) && i < len(x) {
		v := x[i]
		p := float32(a*v) + b
		p = float32(p*v) + c
		y[i] = float32(p*v) + d
	}
}

// horner64 is horner in float64.
//
//hipgo:kernel
func horner64(t kernel.Thread, x, y []float64, a, b, c, d float64) {
	if i := t.GlobalX(); i < len(y) && i < len(x) {
		v := x[i]
		p := float64(a*v) + b
		p = float64(p*v) + c
		y[i] = float64(p*v) + d
	}
}

// divmod is a device function of two results.
func divmod(a, b int32) (int32, int32) { return a / b, a % b }

// quotients sets q[i], r[i] = x[i]/d, x[i]%d through divmod: a device
// function's several results, unpacked into slice elements.
//
//hipgo:kernel
func quotients(t kernel.Thread, x, q, r []int32, d int32) {
	if i := t.GlobalX(); i < len(x) && i < len(q) && i < len(r) {
		q[i], r[i] = divmod(x[i], d)
	}
}

// point is a value type with methods, which kernels call as device
// functions.
type point struct{ X, Y float32 }

func (p point) add(q point) point { return point{p.X + q.X, p.Y + q.Y} }

func (p point) norm1() float32 { return kernel.Abs(p.X) + kernel.Abs(p.Y) }

// pointNorms sets out[i] = |x[i]+1| + |y[i]-2| through point's methods.
//
//hipgo:kernel
func pointNorms(t kernel.Thread, x, y, out []float32) {
	if i := t.GlobalX(); i < len(out) && i < len(x) && i < len(y) {
		out[i] = point{x[i], y[i]}.add(point{1, -2}).norm1()
	}
}

// strided counts the trips of `for i := start; i < bound; i += step` for
// each case (start, bound, step) of c into out: the count and the last i,
// stopping at 1000 trips. It is a grid-stride loop, whose C++ counts its
// trips where Go's i cannot wrap and runs as written where it can.
//
//hipgo:kernel
func strided(t kernel.Thread, c, out []int64) {
	if k := t.GlobalX(); 3*k+2 < len(c) && 2*k+1 < len(out) {
		start, bound, step := c[3*k], c[3*k+1], c[3*k+2]
		trips, last := int64(0), int64(-1)
		for i := start; i < bound; i += step {
			trips++
			last = i
			if trips == 1000 {
				break
			}
		}
		out[2*k], out[2*k+1] = trips, last
	}
}

// hello prints a line for each work-item below n through kernel.Printf,
// the same on every agent that prints.
//
//hipgo:kernel
func hello(t kernel.Thread, n int32, scale float32) {
	if i := t.GlobalX(); i < int(n) {
		v := float32(i) * scale
		kernel.Printf(t, "hipgo hello %d of %v: %5.2f %e %.4g %t %x %-3d|\n", i, n, v, float64(v)/3, v, i%2 == 0, uint32(i)*255, int8(i))
	}
}

// Coef is constant memory the kernels read by name: __constant__ on GPUs.
//
//hipgo:constant
var Coef [4]float32

// Hits is device memory the kernels count in: __device__ on GPUs.
//
//hipgo:device
var Hits [2]int32

// scaleByCoef sets x[i] *= Coef[i%4] and counts even and odd i in Hits.
//
//hipgo:kernel
func scaleByCoef(t kernel.Thread, x []float32) {
	if i := t.GlobalX(); i < len(x) {
		x[i] *= Coef[i%4]
		kernel.AtomicAdd(&Hits[i%2], 1)
	}
}
