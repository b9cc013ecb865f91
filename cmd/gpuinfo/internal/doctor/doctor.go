package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Level grades a finding.
type Level int

// Levels, from good to bad.
const (
	OK   Level = iota // nothing to do
	Warn              // worth knowing; not why a GPU is unused, or only possibly
	Fail              // a reason hipgo does not use a GPU
)

func (l Level) String() string {
	switch l {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// MarshalText writes the level as "ok", "warn" or "fail".
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Finding is the result of one check.
type Finding struct {
	Level Level  `json:"level"`
	Check string `json:"check"` // what was looked at: "/dev/kfd", "libcuda.so.1"
	Msg   string `json:"message"`
	Hint  string `json:"hint,omitempty"` // what to do about it
}

// Report is every finding and the verdict.
type Report struct {
	Findings []Finding `json:"findings"`
	// GPU reports whether a program using hipgo here gets a GPU, given the
	// environment it runs with.
	GPU bool `json:"gpu_usable"`
	// Verdict says in a line which devices hipgo uses.
	Verdict string `json:"verdict"`
}

// WriteText prints one line per finding: level, check, message and hint.
func (r *Report) WriteText(w io.Writer) error {
	width := 0
	for _, f := range r.Findings {
		width = max(width, len(f.Check))
	}
	for _, f := range r.Findings {
		line := fmt.Sprintf("%-4s  %-*s  %s", f.Level, width, f.Check, f.Msg)
		if f.Hint != "" {
			line += "; hint: " + f.Hint
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON prints the report as one JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// System is the machine the checks look at.
type System struct {
	// Root is prepended to every path read ("" or "/" for the real one).
	Root string
	// Getenv looks up an environment variable; nil means os.LookupEnv.
	Getenv func(key string) (string, bool)
	// Access reports whether the user may open a device node for reading
	// and writing, as the GPU runtimes do; path includes Root. Nil means
	// opening it.
	Access func(path string) error
	// GOARCH picks the multiarch library directory; "" means runtime.GOARCH.
	GOARCH string
}

// path returns p (absolute, as on the machine) under the root.
func (s *System) path(p string) string {
	if s.Root == "" || s.Root == "/" {
		return p
	}
	return filepath.Join(s.Root, p)
}

func (s *System) env(key string) (string, bool) {
	if s.Getenv != nil {
		return s.Getenv(key)
	}
	return os.LookupEnv(key)
}

// rooted resolves p's links under Root, so an absolute link target names
// the machine's file, not this process's (they differ when Root is a fake
// machine in a test).
func (s *System) rooted(p string) string {
	if s.Root == "" || s.Root == "/" {
		return p
	}
	return s.path(s.realpath(p))
}

func (s *System) access(p string) error {
	if s.Access != nil {
		return s.Access(s.path(p))
	}
	f, err := os.OpenFile(s.rooted(p), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

func (s *System) exists(p string) bool {
	_, err := os.Stat(s.rooted(p))
	return err == nil
}

// read returns a file's contents, trimmed, or "" if it cannot be read.
func (s *System) read(p string) string {
	b, err := os.ReadFile(s.rooted(p))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (s *System) glob(pattern string) []string {
	m, _ := filepath.Glob(s.path(pattern))
	out := make([]string, 0, len(m))
	for _, p := range m {
		out = append(out, s.unroot(p))
	}
	return out
}

// unroot turns a path under Root back into the machine's path.
func (s *System) unroot(p string) string {
	if s.Root == "" || s.Root == "/" {
		return p
	}
	rel, err := filepath.Rel(s.Root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return "/" + filepath.ToSlash(rel)
}

// realpath resolves every symbolic link in p (an absolute path) the way the
// machine would, keeping absolute link targets under Root. A path that
// cannot be resolved comes back as far as it was.
func (s *System) realpath(p string) string {
	rest := strings.Split(strings.Trim(filepath.ToSlash(p), "/"), "/")
	done := "/"
	for hops := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, part)
		t, err := os.Readlink(s.path(next))
		if err != nil {
			done = next // not a link, or missing
			continue
		}
		if hops++; hops > 40 {
			return p
		}
		if filepath.IsAbs(t) {
			done = "/"
		}
		rest = append(strings.Split(strings.Trim(filepath.ToSlash(t), "/"), "/"), rest...)
	}
	return done
}

func (s *System) goarch() string {
	if s.GOARCH != "" {
		return s.GOARCH
	}
	return runtime.GOARCH
}

// Check runs every check against sys and what the runtime saw.
func Check(sys System, rt *Runtime) *Report {
	if rt == nil {
		rt = &Runtime{}
	}
	c := &checker{sys: &sys, rt: rt, r: &Report{}, relevant: map[string]bool{}}
	c.kernel()
	c.amd()
	c.nvidia()
	c.libraries()
	c.collectives()
	c.drivers()
	c.visible()
	c.verdict()
	return c.r
}

type checker struct {
	sys *System
	rt  *Runtime
	r   *Report

	osrelease string
	gpus      []Agent // GPU agents a program would see, after the environment
	initFails bool    // the environment makes rocr.Init fail
	// relevant says by vendor ("amd", "nvidia") whether the machine has
	// its GPUs or their kernel driver, so that a missing library matters.
	relevant map[string]bool
}

func (c *checker) add(l Level, check, hint, format string, args ...any) {
	c.r.Findings = append(c.r.Findings, Finding{Level: l, Check: check, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (c *checker) kernel() {
	c.osrelease = c.sys.read("/proc/sys/kernel/osrelease")
	if c.osrelease == "" {
		c.add(Warn, "kernel", "", "version unknown (/proc/sys/kernel/osrelease unreadable)")
		return
	}
	c.add(OK, "kernel", "", "Linux %s", c.osrelease)
}

// grade is Fail where the vendor's hardware or kernel driver is present,
// so that a missing piece is why its GPU is unused, and Warn elsewhere.
func grade(relevant bool) Level {
	if relevant {
		return Fail
	}
	return Warn
}
