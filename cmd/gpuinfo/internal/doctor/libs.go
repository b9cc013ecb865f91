package doctor

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// Library is where a shared library was found, or where it was looked for.
type Library struct {
	Name     string   // "libcuda.so.1"
	Path     string   // where it was found; "" if not
	Real     string   // Path with symbolic links resolved
	Version  string   // from Real's name: "1.14.0" of libhsa-runtime64.so.1.14.0
	Looked   []string // the directories (or the one override path) searched, in order
	Override string   // the environment variable that named the path, if one did
	// Loadable is false when the library lies only in a directory that
	// neither the dynamic loader nor the hipgo driver searches.
	Loadable bool
}

// searchDir is a directory searched for a library and whether the driver
// would load the library from there.
type searchDir struct {
	dir      string
	loadable bool
}

// multiarch is Debian's library directory name for an architecture.
var multiarch = map[string]string{
	"amd64":   "x86_64-linux-gnu",
	"arm64":   "aarch64-linux-gnu",
	"ppc64le": "powerpc64le-linux-gnu",
	"riscv64": "riscv64-linux-gnu",
	"s390x":   "s390x-linux-gnu",
}

// loaderDirs lists what the dynamic loader searches: LD_LIBRARY_PATH, the
// directories of /etc/ld.so.conf (and its includes), then the defaults.
func (s *System) loaderDirs() []string {
	var dirs []string
	if v, _ := s.env("LD_LIBRARY_PATH"); v != "" {
		for _, d := range strings.Split(v, ":") {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range s.ldSoConf("/etc/ld.so.conf", 0) {
		// Debian's fakeroot package adds its preload library's directory
		// to the loader's path; nothing of a GPU's lives there.
		if path.Base(d) != "libfakeroot" {
			dirs = append(dirs, d)
		}
	}
	if m := multiarch[s.goarch()]; m != "" {
		dirs = append(dirs, "/lib/"+m, "/usr/lib/"+m)
	}
	return append(dirs, "/lib64", "/usr/lib64", "/lib", "/usr/lib")
}

// ldSoConf reads the directories of an ld.so.conf file, following include
// lines (with globs) a few levels deep.
func (s *System) ldSoConf(file string, depth int) []string {
	if depth > 4 {
		return nil
	}
	var dirs []string
	for _, line := range strings.Split(s.read(file), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "include"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			for _, pat := range strings.Fields(rest) {
				if !path.IsAbs(pat) {
					pat = path.Join(path.Dir(file), pat)
				}
				for _, f := range s.glob(pat) {
					dirs = append(dirs, s.ldSoConf(f, depth+1)...)
				}
			}
			continue
		}
		if line != "" && path.IsAbs(line) {
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// vendorEnv is the System as vendorlib's searches read it.
type vendorEnv struct{ s *System }

func (e vendorEnv) LookupEnv(k string) (string, bool) { return e.s.env(k) }
func (e vendorEnv) Exists(p string) bool              { return e.s.exists(p) }
func (e vendorEnv) Glob(pattern string) []string      { return e.s.glob(pattern) }

// findLibrary looks for a vendor library as vendorlib describes it. An
// override variable, when set, names the only path tried; otherwise the
// loader's directories come first, then the library's own (with whether
// the library is loaded from each).
func (s *System) findLibrary(vl *vendorlib.Library) Library {
	e := vendorEnv{s}
	lib := Library{Name: vl.Name}
	if p, from, ok := vl.Override(e); ok {
		lib.Override = from
		lib.Looked = []string{p}
		if s.exists(p) {
			lib.found(s, p, true)
		}
		return lib
	}
	var all []searchDir
	for _, d := range s.loaderDirs() {
		all = append(all, searchDir{d, true})
	}
	for _, d := range vl.SearchDirs(e) {
		all = append(all, searchDir{d.Path, d.Loadable})
	}
	seen := map[string]bool{}
	for _, d := range all {
		if seen[d.dir] {
			continue
		}
		seen[d.dir] = true
		lib.Looked = append(lib.Looked, d.dir)
		if lib.Path != "" {
			continue
		}
		for _, n := range vl.AllNames() {
			if p := path.Join(d.dir, n); s.exists(p) {
				lib.found(s, p, d.loadable)
				break
			}
		}
	}
	// Any version, where the library is also tried by version.
	for _, d := range vl.SearchDirs(e) {
		for _, pat := range vl.Patterns {
			if lib.Path != "" || !d.Loadable {
				break
			}
			if m := s.glob(path.Join(d.Path, pat)); len(m) > 0 {
				slices.SortFunc(m, func(a, b string) int { return vendorlib.CompareVersions(b, a) })
				lib.found(s, m[0], true)
			}
		}
	}
	return lib
}

// libraries reports the vendor libraries beyond the drivers' own (which
// amd and nvidia report): found, or missing where their vendor's GPUs
// are, with what needs them.
func (c *checker) libraries() {
	for _, vl := range vendorlib.All {
		if vl == vendorlib.CUDA || vl == vendorlib.ROCm {
			continue
		}
		lib := c.sys.findLibrary(vl)
		switch {
		case lib.Path != "":
			c.add(OK, lib.Name, "", "%s (for %s)", lib.describe(), vl.Use)
		case c.relevant[vl.Vendor]:
			c.add(Warn, lib.Name, vl.Hint+", or set "+vl.Env+" to its path", "%s (%s needs it)", lib.describe(), vl.Use)
		}
	}
}

// soStem is a library's file name without its .so and version.
func soStem(name string) string {
	stem, _, _ := strings.Cut(name, ".so")
	return stem
}

var soVersion = regexp.MustCompile(`\.so\.([0-9][0-9A-Za-z.]*)$`)

func (l *Library) found(s *System, p string, loadable bool) {
	l.Path = p
	l.Loadable = loadable
	l.Real = s.realpath(p)
	if m := soVersion.FindStringSubmatch(path.Base(l.Real)); m != nil && strings.Contains(m[1], ".") {
		l.Version = m[1]
	}
}

// describe says where the library is, or where it was looked for.
func (l *Library) describe() string {
	if l.Path == "" {
		if l.Override != "" {
			return fmt.Sprintf("not found at %s (from %s)", l.Looked[0], l.Override)
		}
		return "not found; looked in " + strings.Join(l.Looked, ", ")
	}
	msg := "found at " + l.Path
	if f := path.Base(l.Path); soStem(f) != soStem(l.Name) {
		// Another library that provides this one's functions
		// (libamdhip64.so.5 is ROCm 5's hipRTC): name what was found.
		msg = fmt.Sprintf("found %s in its place at %s", f, l.Path)
	}
	if l.Real != l.Path {
		msg += " -> " + l.Real
	}
	if l.Override != "" {
		msg += " (from " + l.Override + ")"
	}
	return msg
}
