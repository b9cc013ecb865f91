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
// has no compiler: its kernels are Go kernels (rocr/kernel). CompileFor
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
// The cache is a trust boundary: what it holds is loaded and run as code.
// It defends against another local user, and against a process of the
// user's that can write the cache directory but not the program or the
// user's config directory (a sandbox or container given the cache, a
// shared scratch file system). Such a writer cannot get its bytes taken
// for a compiled program:
//   - Each entry ends with an HMAC-SHA256, under a per-user key, of the
//     entry and the key it is stored under, checked before anything in it
//     is parsed. The key is 32 bytes from crypto/rand, made on first use
//     in os.UserConfigDir()/hipgo/rtc-cache.key, or where
//     $HIPGO_RTC_KEY_FILE says. It must lie outside the cache directory
//     (by name and by where symbolic links lead: a linked directory that
//     resolves into the cache is refused)
//     and be a regular file of the user's, not a symbolic link, readable
//     and writable by no one else, in a directory only the user may write.
//   - The directories the cache makes are 0700, its files 0600. A cache
//     directory that another user owns, or that the group or others may
//     write, is refused.
//   - Entries are opened without following symbolic links and without
//     waiting on a FIFO or device; only regular files of at most 256 MiB
//     are read, their size checked before reading.
//
// A refused cache or key is not an error: the program is compiled and not
// cached, and a warning says why (AMD_LOG_LEVEL=2 or more, once the
// runtime has opened; gpu.SetLogOutput moves it). An entry that does not
// check out is a miss, logged the same way, compiled again and replaced.
// Integrity is the aim, not secrecy: a cache directory made 0755 before
// stays readable. A process that can write the key file can forge
// entries; so can the program's user, by design.
//
// Compile and CompileFor are safe for concurrent use. hipRTC compiles one
// program at a time in a process.
package rtc
