// Package fft computes fast Fourier transforms on a stream, as cuFFT and
// hipFFT do for CUDA and HIP programs: plans of one, two or three
// dimensions, batched, complex-to-complex (C2C, Z2Z), real-to-complex
// (R2C, D2Z) and complex-to-real (C2R, Z2D), in float32 and float64.
//
// A Plan is made once for a device (NewPlan) and executed on any stream of
// that device (C2CExec, R2CExec, C2RExec); executions are queued in
// stream order like kernels and captured into graphs like any other stream
// work. The transforms are unscaled, with cuFFT's signs and data layout:
// a real-to-complex transform keeps the n/2+1 non-redundant values of its
// last axis.
//
// Backends follow the device: on the cpu agent gonum's dsp/fourier
// (FFTPACK) in float64, float32 plans converting on the way in and out,
// the batch's transforms in parallel over the workers; on NVIDIA GPUs
// cuFFT, opened at run time through the project's vendor-library layer
// (HIPGO_CUFFT_LIBRARY overrides the search); where cuFFT is absent
// NewPlan returns an error wrapping gpu.ErrNotSupported. AMD GPUs have no
// backend yet (rocFFT is not bound): ErrNotSupported as well.
//
// A call checks its arguments first (sizes, element types against the
// plan's kind, buffer lengths, overlapping buffers, a destroyed plan) and
// queues nothing when they are wrong, returning an error wrapping
// gpu.ErrInvalidValue or gpu.ErrInvalidHandle.
//
// Plans are safe for concurrent use: executions of one plan run one at a
// time, in the order their streams reach them.
package fft
