package rtc

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
)

// ErrNoCompiler is wrapped by the errors of a compile that has no
// compiler to run: the device runs none (the cpu agent) or its library is
// not installed. Those errors are gpu.ErrNotSupported too.
var ErrNoCompiler = errors.New("no runtime compiler")

// errNoCompiler builds a gpu.ErrNotSupported error wrapping ErrNoCompiler.
func errNoCompilerf(format string, args ...any) error {
	return &gpu.Error{Code: gpu.ErrorNotSupported, Op: "compile", Msg: fmt.Sprintf(format, args...), Err: ErrNoCompiler}
}

// library says where a compiler's shared library may be: file names
// (best first) looked for in directories, then any version of them,
// then the names alone for the dynamic loader's own search.
type library struct {
	names    []string
	patterns []string
	dirs     func() []string
}

var nvrtcLibrary = library{
	names:    []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"},
	patterns: []string{"libnvrtc.so.*"},
	dirs: func() []string {
		var ds []string
		for _, v := range []string{"CUDA_PATH", "CUDA_HOME"} {
			if d := os.Getenv(v); d != "" {
				ds = append(ds, filepath.Join(d, "lib64"), filepath.Join(d, "lib"))
			}
		}
		ds = append(ds, "/usr/local/cuda/lib64")
		return append(ds, newestFirst("/usr/local/cuda-*/lib64")...)
	},
}

// hipRTC is its own library from ROCm 6; before, libamdhip64 carried it.
var hiprtcLibrary = library{
	names:    []string{"libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5"},
	patterns: []string{"libhiprtc.so.*"},
	dirs: func() []string {
		var ds []string
		if d := os.Getenv("ROCM_PATH"); d != "" {
			ds = append(ds, filepath.Join(d, "lib"))
		}
		ds = append(ds, "/opt/rocm/lib")
		return append(ds, newestFirst("/opt/rocm-*/lib")...)
	},
}

// systemDirs are searched after a library's own directories.
func systemDirs() []string {
	var ds []string
	for d := range strings.SplitSeq(os.Getenv("LD_LIBRARY_PATH"), ":") {
		if d != "" {
			ds = append(ds, d)
		}
	}
	return append(ds, "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib")
}

// candidates yields what to dlopen, in order: the file env names (a path
// or a bare name); else the known names in each directory (a stat each, so
// that finding the library costs little); else any version of it there;
// else the bare names.
func (l library) candidates(env string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if v := os.Getenv(env); v != "" {
			yield(v)
			return
		}
		dirs := append(l.dirs(), systemDirs()...)
		for _, d := range dirs {
			for _, n := range l.names {
				if p := filepath.Join(d, n); exists(p) && !yield(p) {
					return
				}
			}
		}
		for _, d := range dirs {
			for _, pat := range l.patterns {
				m, _ := filepath.Glob(filepath.Join(d, pat))
				slices.SortFunc(m, func(a, b string) int { return compareVersions(b, a) })
				for _, p := range m {
					if !yield(p) {
						return
					}
				}
			}
		}
		for _, n := range l.names {
			if !yield(n) {
				return
			}
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// newestFirst globs versioned install directories, highest version first.
func newestFirst(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	slices.SortFunc(m, func(a, b string) int { return compareVersions(b, a) })
	return m
}

// compareVersions orders names by their dotted numbers, so that
// libnvrtc.so.13.0.88 comes after libnvrtc.so.12.9 and libnvrtc.so.
func compareVersions(a, b string) int {
	na, nb := numbers(a), numbers(b)
	for i := 0; i < len(na) && i < len(nb); i++ {
		if na[i] != nb[i] {
			return na[i] - nb[i]
		}
	}
	if len(na) != len(nb) {
		return len(na) - len(nb)
	}
	return strings.Compare(a, b)
}

func numbers(s string) []int {
	var out []int
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// dlopen opens the first candidate that loads and has probe.
func (l library) dlopen(env, probe string) (h uintptr, path string, err error) {
	var tried []string
	for c := range l.candidates(env) {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err != nil {
			tried = append(tried, err.Error())
			continue
		}
		if f, err := purego.Dlsym(h, probe); err != nil || f == 0 {
			tried = append(tried, c+" has no "+probe)
			continue // libamdhip64 of ROCm 6 and later has no hipRTC
		}
		return h, c, nil
	}
	return 0, "", errNoCompilerf("cannot open %s (set %s to its path): %s", l.names[0], env, strings.Join(tried, "; "))
}

// fileID names the library file for cache keys without loading it: its
// resolved path (which carries the version), size and time.
func fileID(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf("%s %d %d", real, st.Size(), st.ModTime().UnixNano())
}
