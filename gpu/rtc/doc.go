// Package rtc compiles CUDA and HIP kernel source at run time, as CuPy's
// RawKernel and HIP's hipRTC do, and loads it as a module.
//
//	m, err := rtc.Compile(dev, src, rtc.Options{NameExpressions: []string{"scale<float>"}})
//	scale, err := m.Function("scale<float>") // the template instance, by its expression
//
// The compiler is the device's: NVRTC (libnvrtc, found under
// /usr/local/cuda*/lib64 and the system library directories, or where
// HIPGO_NVRTC_LIBRARY says) on NVIDIA GPUs, giving a cubin for the GPU's
// sm_NN (PTX where the NVRTC has no cubin output); hipRTC (libhiprtc, or
// libamdhip64 of ROCm 5; HIPGO_HIPRTC_LIBRARY) on AMD GPUs, giving a code
// object for the agent's gfx target. Both are opened at run time; without
// them Compile is ErrNoCompiler (and gpu.ErrNotSupported). The cpu agent
// has no compiler: its kernels are Go functions (cpu.Define). CompileFor
// compiles for a named target without a device.
//
// A program the compiler refuses is a *CompileError (gpu.ErrInvalidValue)
// holding the compiler's log.
//
// Compiled programs are cached on disk, keyed by the source, its headers,
// the options, the name expressions, the target and the compiler library
// (its resolved file name, size and time, which change with its version):
// a later Compile of the same program, in this process or another, reads
// one file and compiles nothing. The cache is Options.Cache, else
// $HIPGO_RTC_CACHE, else os.UserCacheDir()/hipgo/rtc; "off" turns it off.
// Entries are written to a temporary file and renamed into place, so
// processes sharing a cache see whole entries; a damaged entry is
// compiled again and replaced. The cache never shrinks by itself: delete
// the directory to empty it.
//
// Compile and CompileFor are safe for concurrent use. hipRTC compiles one
// program at a time in a process.
package rtc
