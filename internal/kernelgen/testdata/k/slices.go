package k

import "github.com/hipgo/hipgo/rocr/kernel"

// Kernels whose C ABI depends on which lengths they read.

// VecAddN keeps the C signature vector_add(const float*, const float*,
// float*, int): no length is read.
//
//hipgo:kernel
func VecAddN(t kernel.Thread, a, b, c []float32, n int32) {
	if i := int32(t.GlobalX()); i < n {
		c[i] = a[i] + b[i]
	}
}

// total reads its slice's length.
func total(xs []float32) float32 {
	var s float32
	for _, x := range xs {
		s += x
	}
	return s
}

// first reads only an element.
func first(xs []float32) float32 { return xs[0] }

// Sums passes a to a device function that ranges over it, b to one that
// does not, and reads lengths through slice expressions: len(c[i:j]) is
// j-i, cap(d[i:j]) is d's capacity, e[1:] takes e's length.
//
//hipgo:kernel
func Sums(t kernel.Thread, a, b, c, d, e []float32, out []float32) {
	i := t.GlobalX()
	w := c[i : i+4]
	v := e[1:]
	out[i] = total(a) + first(b) + float32(len(w)) + float32(cap(d[i:i+1])) + float32(len(v))
}

// ReduceDyn is a tree reduction over dynamic shared memory that never
// reads its length: reduce_sum(const float*, float*, int) with extern
// __shared__.
//
//hipgo:kernel
func ReduceDyn(t kernel.Thread, in, out []float32, n int32) {
	sdata := kernel.DynamicShared[float32](t)
	tid := t.ThreadIdx().X
	i := t.GlobalX()
	sdata[tid] = 0
	if i < int(n) {
		sdata[tid] = in[i]
	}
	t.SyncThreads()
	for s := t.BlockDim().X / 2; s > 0; s >>= 1 {
		if tid < s {
			sdata[tid] += sdata[tid+s]
		}
		t.SyncThreads()
	}
	if tid == 0 {
		out[t.BlockIdx().X] = sdata[0]
	}
}

// ReduceDynLen sizes its reduction by the dynamic shared memory's length.
//
//hipgo:kernel
func ReduceDynLen(t kernel.Thread, in, out []float32) {
	sdata := kernel.DynamicShared[float32](t)
	tid := t.ThreadIdx().X
	sdata[tid] = in[t.GlobalX()]
	t.SyncThreads()
	for s := len(sdata) / 2; s > 0; s >>= 1 {
		if tid < s {
			sdata[tid] += sdata[tid+s]
		}
		t.SyncThreads()
	}
	if tid == 0 {
		out[t.BlockIdx().X] = sdata[0]
	}
}
