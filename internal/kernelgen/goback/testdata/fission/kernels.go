// Package fission holds kernels with barriers for hipgo-gen's loop
// fission analysis: which ones it fissions, and why the others run as
// coroutines.
package fission

import "github.com/hipgo/hipgo/rocr/kernel"

// topLevel has barriers at the top level and an early return.
//
//hipgo:kernel
func topLevel(t kernel.Thread, x []float32, n int32) {
	s := kernel.Shared[[64]float32](t)
	i := t.ThreadIdx().X
	if i >= int(n) {
		return
	}
	s[i] = x[i]
	t.SyncThreads()
	x[i] = s[63-i]
}

// uniformLoop has barriers in a loop whose header is uniform.
//
//hipgo:kernel
func uniformLoop(t kernel.Thread, x []float32, n int32) {
	s := kernel.Shared[[64]float32](t)
	half := t.BlockDim().X / 2
	tid := t.ThreadIdx().X
	s[tid] = x[t.GlobalX()]
	t.SyncThreads()
	for k := half; k > 0 && k < int(n); k >>= 1 {
		if tid < k {
			s[tid] += s[tid+k]
		}
		t.SyncThreads()
	}
	x[t.GlobalX()] = s[0]
}

// barrierInIf synchronizes inside an if.
//
//hipgo:kernel
func barrierInIf(t kernel.Thread, x []float32) {
	if t.ThreadIdx().X < 4 {
		t.SyncThreads()
	}
	x[0] = 1
}

// nonUniformLoop runs a loop with a barrier a per-work-item number of times.
//
//hipgo:kernel
func nonUniformLoop(t kernel.Thread, x []float32) {
	tid := t.ThreadIdx().X
	for i := 0; i < tid; i++ {
		x[tid] += 1
		t.SyncThreads()
	}
}

// warpOp shuffles.
//
//hipgo:kernel
func warpOp(t kernel.Thread, x []float32) {
	i := t.ThreadIdx().X
	v := kernel.ShflDown(t, x[i], 1)
	t.SyncThreads()
	x[i] = v
}

// returnInLoop returns inside a loop with a barrier.
//
//hipgo:kernel
func returnInLoop(t kernel.Thread, x []float32) {
	for k := 0; k < 4; k++ {
		if t.ThreadIdx().X == k {
			return
		}
		t.SyncThreads()
	}
	x[0] = 1
}

// viaDevice synchronizes in a device function.
//
//hipgo:kernel
func viaDevice(t kernel.Thread, x []float32) {
	step(t, x)
}

func step(t kernel.Thread, x []float32) {
	x[t.ThreadIdx().X] = 1
	t.SyncThreads()
}

// nestedLoops has barriers in a loop inside a loop with barriers.
//
//hipgo:kernel
func nestedLoops(t kernel.Thread, x []float32, rounds, steps int) {
	s := kernel.Shared[[64]float32](t)
	tid := t.ThreadIdx().X
	acc := float32(0)
	for r := 0; r < rounds; r++ {
		s[tid] = x[r*64+tid]
		t.SyncThreads()
		for k := 1; k < steps; k++ {
			v := s[(tid+k)%64]
			t.SyncThreads()
			s[tid] += v
			t.SyncThreads()
		}
		acc += s[tid]
		t.SyncThreads()
	}
	x[tid] = acc
}

// nestedNonUniform has an inner loop with a barrier whose bound is the
// work-item's.
//
//hipgo:kernel
func nestedNonUniform(t kernel.Thread, x []float32) {
	for r := 0; r < 2; r++ {
		for k := 0; k < t.ThreadIdx().X; k++ {
			t.SyncThreads()
		}
		t.SyncThreads()
	}
	x[0] = 1
}

// viaDeviceInIf synchronizes in a device function under a per-item if.
//
//hipgo:kernel
func viaDeviceInIf(t kernel.Thread, x []float32) {
	if t.ThreadIdx().X > 1 {
		step(t, x)
	}
}

// viaWarpDevice calls a device function with a warp operation.
//
//hipgo:kernel
func viaWarpDevice(t kernel.Thread, x []float32) {
	warpStep(t, x)
}

func warpStep(t kernel.Thread, x []float32) {
	x[t.ThreadIdx().X] = kernel.ShflDown(t, x[t.ThreadIdx().X], 1)
	t.SyncThreads()
}

// viaDeviceNonUniform passes a per-work-item value.
//
//hipgo:kernel
func viaDeviceNonUniform(t kernel.Thread, x []float32) {
	step(t, x[t.ThreadIdx().X:])
}

// viaDeviceInLoop calls a device function that synchronizes in a
// uniform loop, after a stretch of its own, with shared memory.
//
//hipgo:kernel
func viaDeviceInLoop(t kernel.Thread, x []float32, n int) {
	s := kernel.Shared[[64]float32](t)
	for r := 0; r < n; r++ {
		s[t.ThreadIdx().X] = x[t.ThreadIdx().X]
		stage(t, x, s, r)
	}
}

func stage(t kernel.Thread, x []float32, s *[64]float32, r int) {
	t.SyncThreads()
	if t.ThreadIdx().X == r {
		return
	}
	x[t.ThreadIdx().X] = s[63-t.ThreadIdx().X]
}

// warpInIf reduces in the first warp only, under an if without else.
//
//hipgo:kernel
func warpInIf(t kernel.Thread, x []float32) {
	v := x[t.ThreadIdx().X]
	if t.ThreadIdx().X < t.WarpSize() {
		for off := 16; off > 0; off >>= 1 {
			v += kernel.ShflDown(t, v, off)
		}
		if t.ThreadIdx().X == 0 {
			x[0] = v
		}
	}
}

// warpInHeader shuffles in a loop's condition.
//
//hipgo:kernel
func warpInHeader(t kernel.Thread, x []float32) {
	for i := 0; kernel.Any(t, i < len(x)); i++ {
		x[0]++
	}
}

// warpInElse shuffles under an if with an else.
//
//hipgo:kernel
func warpInElse(t kernel.Thread, x []float32) {
	if t.ThreadIdx().X < 16 {
		x[0] = kernel.ShflDownSync(t, 0xffff, x[0], 1, 16)
	} else {
		x[1] = 0
	}
}

// warpBesideCall calls a device function in a statement with a shuffle.
//
//hipgo:kernel
func warpBesideCall(t kernel.Thread, x []float32) {
	x[0] = half(x[1]) + kernel.ShflDown(t, x[0], 1)
}

func half(v float32) float32 { return v / 2 }

// warpShortCircuit votes on the right of &&.
//
//hipgo:kernel
func warpShortCircuit(t kernel.Thread, x []float32) {
	if x[0] > 0 && kernel.All(t, x[1] > 0) {
		x[2] = 1
	}
}
