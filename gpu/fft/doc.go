// Package fft computes fast Fourier transforms on a stream, as cuFFT and
// hipFFT do for CUDA and HIP programs: plans of one, two or three
// dimensions, batched, complex-to-complex (C2C, Z2Z), real-to-complex
// (R2C, D2Z) and complex-to-real (C2R, Z2D), in float32 and float64, in
// cuFFT's basic or advanced (strided) data layout, out of place or in
// place.
//
// A Plan is made once for a device (NewPlan, NewPlanMany with a Layout,
// or Cached from the device's LRU plan cache) and executed on any stream
// of that device (C2CExec, R2CExec, C2RExec, R2CInPlace, C2RInPlace);
// executions are queued in stream order like kernels. The transforms are
// unscaled, with cuFFT's signs and data layout: a real-to-complex
// transform keeps the n/2+1 non-redundant values of its last axis, and an
// in-place real transform pads its real rows to 2·(n/2+1) values.
//
// Backends follow the device: on the cpu agent gonum's dsp/fourier
// (FFTPACK) in float64, float32 plans converting on the way in and out,
// small executions inline and batches over a per-device goroutine pool;
// on NVIDIA GPUs cuFFT and on AMD GPUs rocFFT, opened at run time through
// the project's vendor-library layer (HIPGO_CUFFT_LIBRARY,
// HIPGO_ROCFFT_LIBRARY override the search); where the library is absent
// NewPlan returns an error wrapping gpu.ErrNotSupported.
//
// A call checks its arguments first (sizes, layouts, element types
// against the plan's kind, buffer lengths against the layout, overlapping
// buffers, a destroyed plan) and queues nothing when they are wrong,
// returning an error wrapping gpu.ErrInvalidValue or gpu.ErrInvalidHandle.
// An execution after a plan's first allocates nothing on the host.
//
// Plans are safe for concurrent use from several goroutines and streams:
// a plan has one work area (cuFFT's), so its executions run one at a
// time, each ordered after the previous one on any stream by the streams'
// dependency tracking. Destroy is ordered after the executions queued
// before it; a plan of the cache is destroyed by the cache (SetCacheSize,
// ClearCache, and the device's Shutdown or Reset).
package fft
