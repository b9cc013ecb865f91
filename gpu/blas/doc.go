// Package blas is BLAS on hipgo streams, shaped like hipBLAS: a Handle is
// bound to one stream, and every routine queues its work there, ordered
// with the stream's kernels and copies and with other streams' work on the
// same buffers by the automatic dependencies that launches get.
//
// Matrices are row-major, as Go programs and gonum write them: element
// (i, j) of an m×n matrix A with leading dimension lda is A[i*lda+j], and
// lda ≥ n. Routines exist for float32 and float64:
//
//	level 1: Axpy, Scal, Copy, Dot/DotTo, Nrm2/Nrm2To
//	level 2: Gemv
//	level 3: Gemm, GemmStridedBatched
//
// Every dimension, increment, leading dimension, stride and buffer size is
// checked before anything is queued; a bad one is a *gpu.Error with
// gpu.ErrInvalidValue whose message names the argument.
//
// The device's driver picks the backend: gonum's own implementation on
// the cpu agent (run as stream work on the buffers' memory), cuBLAS on
// NVIDIA GPUs (queued on the stream's CUDA stream), rocBLAS on AMD GPUs.
// A missing vendor library is an error wrapping gpu.ErrNotSupported.
//
// Results of Dot and Nrm2 come back two ways, like hipBLAS's pointer
// modes: DotTo and Nrm2To write them into a buffer asynchronously (device
// pointer mode); Dot and Nrm2 return them as Go values after waiting for
// the stream (host pointer mode).
//
// A Handle's routines are safe from several goroutines; work submitted by
// one goroutine runs in submission order. Routines return once the work
// is queued, except Dot and Nrm2, which wait for the stream.
package blas
