package faulty

import "github.com/hipgo/hipgo/rocr/kernel"

// Number is what the generic kernels here take.
type Number interface {
	~int32 | ~float32 | ~float64
}

// GenericBlock is genericBlockSum's block size.
const GenericBlock = 64

// genericAxpy is y = a*x + y, wrapping for integers as Go does, the
// product rounded before the sum (no FMA) for floats.
//
//hipgo:kernel
//hipgo:instantiate T=float32,int32,float64
func genericAxpy[T Number](t kernel.Thread, a T, x, y []T) {
	if i := t.GlobalX(); i < len(y) {
		y[i] = T(a*x[i]) + y[i] // the product rounded on its own: the same bits on every agent
	}
}

// genericBlockSum sums each block's GenericBlock elements by a tree in
// shared memory (barriers in a top-level loop: loop fission on the cpu
// agent), each block's sum to out[block].
//
//hipgo:kernel maxthreads=64 minblocks=2
//hipgo:instantiate T=float32,int32,float64
func genericBlockSum[T Number](t kernel.Thread, in, out []T) {
	part := kernel.Shared[[GenericBlock]T](t)
	tid := t.ThreadIdx().X
	part[tid] = in[t.GlobalX()]
	t.SyncThreads()
	for s := GenericBlock / 2; s > 0; s /= 2 {
		if tid < s {
			part[tid] += part[tid+s]
		}
		t.SyncThreads()
	}
	if tid == 0 {
		out[t.BlockIdx().X] = part[0]
	}
}

// genericWarpSum gives each work-item its warp's sum by shuffles (a warp
// operation: coroutines on the cpu agent).
//
//hipgo:kernel
//hipgo:instantiate T=float32,int32,float64
func genericWarpSum[T Number](t kernel.Thread, in, out []T) {
	i := t.GlobalX()
	v := in[i]
	for d := 16; d > 0; d /= 2 {
		v += kernel.ShflXor(t, v, d)
	}
	out[i] = v
}
