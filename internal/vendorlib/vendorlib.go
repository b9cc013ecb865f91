package vendorlib

import (
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/ebitengine/purego"
)

// Library describes one vendor library and how it is found.
type Library struct {
	// Name is the soname opened through the loader's search path.
	Name string
	// Env is the override variable; Aliases are older names for it,
	// honoured after Env.
	Env     string
	Aliases []string
	// Dirs lists directories beyond the loader's search path, given the
	// environment.
	Dirs func(getenv func(string) (string, bool)) []Dir
	// Global loads the library RTLD_GLOBAL instead of RTLD_LOCAL.
	Global bool
	// Hint says what installs the library.
	Hint string
}

// Dir is a directory where a library may lie. Loadable: the driver tries
// the library there by full path; otherwise only the loader finds it
// there (the doctor says so).
type Dir struct {
	Path     string
	Loadable bool
}

// The vendor libraries.
var (
	CUDA = &Library{
		Name: "libcuda.so.1",
		Env:  "HIPGO_CUDA_LIBRARY",
		Dirs: func(func(string) (string, bool)) []Dir {
			return []Dir{{"/usr/local/cuda/lib64", false}, {"/usr/lib/wsl/lib", false}}
		},
		Global: true,
		Hint:   "install the NVIDIA driver's user-space library (libcuda1 / nvidia-driver-libs / libnvidia-compute)",
	}
	ROCm = &Library{
		Name:    "libhsa-runtime64.so.1",
		Env:     "HIPGO_ROCM_LIBRARY",
		Aliases: []string{"HIPGO_ROCM_LIB"},
		Dirs: func(getenv func(string) (string, bool)) []Dir {
			var out []Dir
			if r, _ := getenv("ROCM_PATH"); strings.TrimSpace(r) != "" {
				out = append(out, Dir{path.Join(strings.TrimSpace(r), "lib"), true})
			}
			return append(out, Dir{"/opt/rocm/lib", true})
		},
		Hint: "install ROCm (the rocm-hip-runtime package) or Debian's libhsa-runtime64-1",
	}
)

// Override returns the override path and the variable it came from, if
// one is set.
func (l *Library) Override(getenv func(string) (string, bool)) (p, from string, ok bool) {
	for _, name := range append([]string{l.Env}, l.Aliases...) {
		if v, set := getenv(name); set && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), name, true
		}
	}
	return "", "", false
}

// Candidates lists what Open tries, in order: the override alone, or the
// name (the loader's search path) and then the library in each loadable
// directory.
func (l *Library) Candidates(getenv func(string) (string, bool)) []string {
	if p, _, ok := l.Override(getenv); ok {
		return []string{p}
	}
	out := []string{l.Name}
	for _, d := range l.Dirs(getenv) {
		if d.Loadable {
			out = append(out, path.Join(d.Path, l.Name))
		}
	}
	return out
}

// Open opens the first candidate that loads (from the process
// environment) and returns its handle and path.
func (l *Library) Open() (uintptr, string, error) {
	return l.OpenFrom(l.Candidates(os.LookupEnv))
}

// OpenFrom opens the first of paths that loads. The error lists every
// path tried and what to do.
func (l *Library) OpenFrom(paths []string) (uintptr, string, error) {
	mode := purego.RTLD_NOW | purego.RTLD_LOCAL
	if l.Global {
		mode = purego.RTLD_NOW | purego.RTLD_GLOBAL
	}
	var tried []string
	for _, p := range paths {
		h, err := purego.Dlopen(p, mode)
		if err == nil {
			return h, p, nil
		}
		tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
	}
	return 0, "", fmt.Errorf("cannot open %s: tried %s; %s, or set %s to its path", l.Name, strings.Join(tried, ", "), l.Hint, l.Env)
}
