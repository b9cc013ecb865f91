package vendorlib

import (
	"path"
	"strings"
)

// The vendor libraries, by runtime. The drivers open CUDA and ROCm; the
// gpu packages open the rest (rtc: NVRTC, HIPRTC; blas: CuBLAS, RocBLAS,
// HIP; fft: CuFFT, RocFFT, HIP; collective: NCCL, RCCL, HIP).
var (
	CUDA = &Library{
		Name: "libcuda.so.1",
		Env:  "HIPGO_CUDA_LIBRARY",
		Dirs: func(Env) []Dir {
			return []Dir{{"/usr/local/cuda/lib64", false}, {"/usr/lib/wsl/lib", false}}
		},
		Global: true,
		Hint:   "install the NVIDIA driver's user-space library (libcuda1 / nvidia-driver-libs / libnvidia-compute)",
		Vendor: "nvidia",
		Use:    "the cuda driver",
	}
	ROCm = &Library{
		Name:    "libhsa-runtime64.so.1",
		Env:     "HIPGO_ROCM_LIBRARY",
		Aliases: []string{"HIPGO_ROCM_LIB"},
		Dirs: func(e Env) []Dir {
			var out []Dir
			if r := getenv(e, "ROCM_PATH"); r != "" {
				out = append(out, Dir{path.Join(r, "lib"), true})
			}
			return append(out, Dir{"/opt/rocm/lib", true})
		},
		Hint:   "install ROCm (the rocm-hip-runtime package) or Debian's libhsa-runtime64-1",
		Vendor: "amd",
		Use:    "the rocm driver",
	}
	NVRTC = &Library{
		Name:     "libnvrtc.so.13",
		Names:    []string{"libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"},
		Env:      "HIPGO_NVRTC_LIBRARY",
		Patterns: []string{"libnvrtc.so.*"},
		Dirs: func(e Env) []Dir {
			var ds []string
			for _, v := range []string{"CUDA_PATH", "CUDA_HOME"} {
				if d := getenv(e, v); d != "" {
					ds = append(ds, path.Join(d, "lib64"), path.Join(d, "lib"))
				}
			}
			ds = append(ds, "/usr/local/cuda/lib64")
			ds = append(ds, newestFirst(e, "/usr/local/cuda-*/lib64")...)
			return loadable(append(ds, systemDirs(e)...))
		},
		IfPresent:  true,
		LoaderLast: true,
		Probe:      "nvrtcCreateProgram",
		Hint:       "install the CUDA toolkit's NVRTC (cuda-nvrtc, or pip's nvidia-cuda-nvrtc)",
		Vendor:     "nvidia",
		Use:        "runtime compilation (gpu/rtc)",
	}
	// hipRTC is its own library from ROCm 6; before, libamdhip64 carried it.
	HIPRTC = &Library{
		Name:     "libhiprtc.so.7",
		Names:    []string{"libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5"},
		Env:      "HIPGO_HIPRTC_LIBRARY",
		Patterns: []string{"libhiprtc.so.*"},
		Dirs: func(e Env) []Dir {
			var ds []string
			if d := getenv(e, "ROCM_PATH"); d != "" {
				ds = append(ds, path.Join(d, "lib"))
			}
			ds = append(ds, "/opt/rocm/lib")
			ds = append(ds, newestFirst(e, "/opt/rocm-*/lib")...)
			return loadable(append(ds, systemDirs(e)...))
		},
		IfPresent:  true,
		LoaderLast: true,
		Probe:      "hiprtcCreateProgram",
		Hint:       "install ROCm's hipRTC, or Debian's libamdhip64-5 and libamd-comgr2",
		Vendor:     "amd",
		Use:        "runtime compilation (gpu/rtc)",
	}
	CuBLAS = &Library{
		Name:  "libcublas.so.13",
		Names: []string{"libcublas.so.12", "libcublas.so"},
		Env:   "HIPGO_CUBLAS_LIBRARY",
		Dirs: func(Env) []Dir {
			return loadable([]string{"/usr/local/cuda/lib64", "/usr/local/cuda-13.0/lib64", "/usr/local/cuda-13/lib64", "/usr/local/cuda-12/lib64", "/usr/lib/x86_64-linux-gnu"})
		},
		IfPresent: true,
		Global:    true,
		Hint:      "install the CUDA toolkit's cuBLAS (libcublas, or pip's nvidia-cublas)",
		Vendor:    "nvidia",
		Use:       "gpu/blas",
	}
	CuFFT = &Library{
		Name:  "libcufft.so.12",
		Names: []string{"libcufft.so.11", "libcufft.so"},
		Env:   "HIPGO_CUFFT_LIBRARY",
		Dirs: func(Env) []Dir {
			return loadable([]string{"/usr/local/cuda/lib64", "/usr/local/cuda-13.0/lib64", "/usr/local/cuda-13/lib64", "/usr/local/cuda-12/lib64", "/usr/lib/x86_64-linux-gnu"})
		},
		IfPresent: true,
		Global:    true,
		Hint:      "install the CUDA toolkit's cuFFT (libcufft, or pip's nvidia-cufft)",
		Vendor:    "nvidia",
		Use:       "gpu/fft",
	}
	NCCL = &Library{
		Name:  "libnccl.so.2",
		Names: []string{"libnccl.so"},
		Env:   "HIPGO_NCCL_LIBRARY",
		Dirs: func(e Env) []Dir {
			ds := []string{"/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64", "/usr/local/nccl/lib"}
			for _, g := range []string{
				"/usr/local/lib/python3*/dist-packages/nvidia/nccl/lib",
				"/usr/local/lib/python3*/site-packages/nvidia/nccl/lib",
				"/usr/lib/python3*/*-packages/nvidia/nccl/lib",
				"/opt/conda/lib/python3*/site-packages/nvidia/nccl/lib",
			} {
				ds = append(ds, e.Glob(g)...)
			}
			return loadable(ds)
		},
		IfPresent: true,
		Global:    true,
		Hint:      "install NCCL (libnccl2, or pip's nvidia-nccl-cu12)",
		Vendor:    "nvidia",
		Use:       "gpu/collective",
	}
	// HIP is the HIP runtime, which rocBLAS and RCCL run on.
	HIP = &Library{
		Name:   "libamdhip64.so",
		Env:    "HIPGO_HIP_LIBRARY",
		Global: true,
		Hint:   "install ROCm's HIP runtime (hip-runtime-amd)",
		Vendor: "amd",
		Use:    "gpu/blas, gpu/fft and gpu/collective (under rocBLAS, rocFFT and RCCL)",
	}
	RocBLAS = &Library{
		Name:   "librocblas.so",
		Env:    "HIPGO_ROCBLAS_LIBRARY",
		Global: true,
		Hint:   "install ROCm's rocBLAS (rocblas)",
		Vendor: "amd",
		Use:    "gpu/blas",
	}
	RocFFT = &Library{
		Name:   "librocfft.so.0",
		Names:  []string{"librocfft.so"},
		Env:    "HIPGO_ROCFFT_LIBRARY",
		Global: true,
		Hint:   "install ROCm's rocFFT (rocfft)",
		Vendor: "amd",
		Use:    "gpu/fft",
	}
	RCCL = &Library{
		Name:   "librccl.so.1",
		Env:    "HIPGO_RCCL_LIBRARY",
		Global: true,
		Hint:   "install ROCm's RCCL (rccl)",
		Vendor: "amd",
		Use:    "gpu/collective",
	}
)

// The profiler annotation libraries (internal/annotate). ROCTX is opened
// only when a profiler asks for roctx ranges: rocprofv3 preloads
// rocprofiler-sdk's roctx, which is tried first, and rocprof before it
// read libroctx64 (roctracer). NVTX has no library of its own: the
// profiler names its injection library in NVTX_INJECTION64_PATH (nsys sets
// it to its own), the one candidate NVTXInjection has; it is not in All,
// there being nothing to install.
var (
	ROCTX = &Library{
		Name:  "librocprofiler-sdk-roctx.so.1",
		Names: []string{"librocprofiler-sdk-roctx.so", "libroctx64.so.4", "libroctx64.so"},
		Env:   "HIPGO_ROCTX_LIBRARY",
		Dirs: func(e Env) []Dir {
			var out []Dir
			if r := getenv(e, "ROCM_PATH"); r != "" {
				out = append(out, Dir{path.Join(r, "lib"), true})
			}
			return append(out, Dir{"/opt/rocm/lib", true})
		},
		IfPresent: true,
		Probe:     "roctxRangePushA",
		Hint:      "install ROCm's rocprofiler-sdk-roctx, or Debian's libroctx64-4",
		Vendor:    "amd",
		Use:       "roctx ranges for rocprof (internal/annotate)",
	}
	NVTXInjection = &Library{
		Name:  "the NVTX injection library",
		Env:   "NVTX_INJECTION64_PATH",
		Probe: "InitializeInjectionNvtx2",
		Hint:  "run under a profiler that sets it (nsys does)",
		Use:   "NVTX ranges for nsys (internal/annotate)",
	}
)

// All lists every vendor library, for reports.
var All = []*Library{CUDA, ROCm, NVRTC, HIPRTC, CuBLAS, CuFFT, NCCL, HIP, RocBLAS, RocFFT, RCCL, ROCTX}

func loadable(ds []string) []Dir {
	out := make([]Dir, len(ds))
	for i, d := range ds {
		out[i] = Dir{d, true}
	}
	return out
}

// systemDirs are searched after a compiler's own directories:
// LD_LIBRARY_PATH, then the usual library directories.
func systemDirs(e Env) []string {
	var ds []string
	v, _ := e.LookupEnv("LD_LIBRARY_PATH")
	for d := range strings.SplitSeq(v, ":") {
		if d != "" {
			ds = append(ds, d)
		}
	}
	return append(ds, "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")
}
