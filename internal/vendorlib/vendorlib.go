package vendorlib

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ebitengine/purego"
)

// Library describes one vendor library and how it is found.
type Library struct {
	// Name is the library's best soname: tried first and named in errors
	// and reports. Names are other names it goes by, tried after Name.
	Name  string
	Names []string
	// Env is the override variable; Aliases are older names for it,
	// honoured after Env.
	Env     string
	Aliases []string
	// Dirs lists directories beyond the loader's search path, given the
	// environment.
	Dirs func(Env) []Dir
	// Patterns are file name globs for any version of the library, tried
	// in the loadable directories (highest version first) after the
	// known names.
	Patterns []string
	// IfPresent tries a name in a directory only where the file exists
	// (a stat each), for libraries looked for in many directories.
	IfPresent bool
	// LoaderLast tries the bare names (the loader's search path) after
	// the directories instead of before them, so that a toolkit's own copy
	// wins over whatever the loader finds first.
	LoaderLast bool
	// Probe is a symbol a candidate must have to be taken (libamdhip64
	// of ROCm 6 and later no longer carries hipRTC).
	Probe string
	// Global loads the library RTLD_GLOBAL instead of RTLD_LOCAL.
	Global bool
	// Hint says what installs the library.
	Hint string
	// Vendor is the GPUs the library serves: "nvidia" or "amd".
	Vendor string
	// Use says what needs the library, for reports.
	Use string
}

// Dir is a directory where a library may lie. Loadable: the library is
// tried there by full path; otherwise only the loader finds it there
// (the doctor says so).
type Dir struct {
	Path     string
	Loadable bool
}

// Env is what a search reads: the environment and the file system. OS
// is the process's; tests and the doctor give their own.
type Env interface {
	LookupEnv(key string) (string, bool)
	Exists(path string) bool
	Glob(pattern string) []string
}

type osEnv struct{}

func (osEnv) LookupEnv(k string) (string, bool) { return os.LookupEnv(k) }
func (osEnv) Exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
func (osEnv) Glob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// OS is the running process's environment and file system.
var OS Env = osEnv{}

// getenv is a variable's trimmed value, "" when unset.
func getenv(e Env, key string) string {
	v, _ := e.LookupEnv(key)
	return strings.TrimSpace(v)
}

// AllNames is Name followed by Names.
func (l *Library) AllNames() []string { return append([]string{l.Name}, l.Names...) }

// Vars is Env followed by Aliases.
func (l *Library) Vars() []string { return append([]string{l.Env}, l.Aliases...) }

// Override returns the override path and the variable it came from, if
// one is set.
func (l *Library) Override(e Env) (p, from string, ok bool) {
	for _, name := range l.Vars() {
		if v := getenv(e, name); v != "" {
			return v, name, true
		}
	}
	return "", "", false
}

// SearchDirs lists the library's own directories, nil Dirs being none.
func (l *Library) SearchDirs(e Env) []Dir {
	if l.Dirs == nil {
		return nil
	}
	return l.Dirs(e)
}

// Candidates lists what Open tries, in order: the override alone; else
// the names (the loader's search path), the names in each loadable
// directory and any version matching Patterns there, with the bare names
// last instead of first when LoaderLast is set.
func (l *Library) Candidates(e Env) []string {
	if p, _, ok := l.Override(e); ok {
		return []string{p}
	}
	names := l.AllNames()
	var out []string
	if !l.LoaderLast {
		out = append(out, names...)
	}
	var dirs []string
	for _, d := range l.SearchDirs(e) {
		if d.Loadable {
			dirs = append(dirs, d.Path)
		}
	}
	for _, d := range dirs {
		for _, n := range names {
			if p := path.Join(d, n); !l.IfPresent || e.Exists(p) {
				out = append(out, p)
			}
		}
	}
	for _, d := range dirs {
		for _, pat := range l.Patterns {
			m := e.Glob(path.Join(d, pat))
			slices.SortFunc(m, func(a, b string) int { return CompareVersions(b, a) })
			out = append(out, m...)
		}
	}
	if l.LoaderLast {
		out = append(out, names...)
	}
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(p string) bool {
		dup := seen[p]
		seen[p] = true
		return dup
	})
}

// Handle is an opened library.
type Handle struct {
	Lib  *Library
	Path string // the candidate that loaded
	h    uintptr
}

// Sym returns the address of the first of names the library has, 0 if
// it has none of them.
func (h *Handle) Sym(names ...string) uintptr {
	for _, n := range names {
		if p, err := purego.Dlsym(h.h, n); err == nil && p != 0 {
			return p
		}
	}
	return 0
}

// Bind resolves each symbol into its slot. It returns the first name of
// every required symbol the library lacks; optional ones it lacks stay 0.
func (h *Handle) Bind(syms ...Symbol) (missing []string) {
	for _, s := range syms {
		if *s.P = h.Sym(s.Names...); *s.P == 0 && !s.Optional {
			missing = append(missing, s.Names[0])
		}
	}
	return missing
}

// Symbol is one entry point to bind: the slot its address goes to and
// its names, best first (a _v2 before the original).
type Symbol struct {
	P        *uintptr
	Names    []string
	Optional bool
}

// Open opens the first candidate that loads (from the process
// environment).
func (l *Library) Open() (*Handle, error) {
	return l.OpenFrom(l.Candidates(OS))
}

// OpenFrom opens the first of paths that loads and has Probe. The error
// lists every path tried and why it was refused, and what to do.
func (l *Library) OpenFrom(paths []string) (*Handle, error) {
	mode := purego.RTLD_NOW | purego.RTLD_LOCAL
	if l.Global {
		mode = purego.RTLD_NOW | purego.RTLD_GLOBAL
	}
	var tried []string
	for _, p := range paths {
		h, err := purego.Dlopen(p, mode)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", p, err))
			continue
		}
		hd := &Handle{Lib: l, Path: p, h: h}
		if l.Probe != "" && hd.Sym(l.Probe) == 0 {
			tried = append(tried, fmt.Sprintf("%s (has no %s)", p, l.Probe))
			continue
		}
		return hd, nil
	}
	if len(tried) == 0 {
		tried = []string{"nothing"}
	}
	return nil, fmt.Errorf("cannot open %s: tried %s; %s, or set %s to its path", l.Name, strings.Join(tried, ", "), l.Hint, l.Env)
}

// CompareVersions orders names by their dotted numbers, so that
// libnvrtc.so.13.0.88 comes after libnvrtc.so.12.9 and libnvrtc.so.
func CompareVersions(a, b string) int {
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

// newestFirst globs versioned install directories, highest version first.
func newestFirst(e Env, pattern string) []string {
	m := e.Glob(pattern)
	slices.SortFunc(m, func(a, b string) int { return CompareVersions(b, a) })
	return m
}
