package cabitest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

// DefaultFeature is the feature word of the package-level functions.
const DefaultFeature = "hsa"

// Program describes the C side of a check: what it includes and how it is
// compiled. The zero value includes nothing but the standard headers.
type Program struct {
	// Headers are included in order, each as #include <h>.
	Headers []string
	// CFlags are extra compiler flags, e.g. "-DHSA_LARGE_MODEL" or "-I/opt/rocm/include".
	CFlags []string
	// Feature is the HIPGO_REQUIRE word that turns a skip into a failure;
	// DefaultFeature when empty.
	Feature string
}

// Eval compiles and runs a program printing each expression and returns the
// values by expression text. An expression that does not compile fails the
// test: it is a mistake in the test or a real ABI difference.
func Eval(tb testing.TB, headers, exprs []string) map[string]int64 {
	tb.Helper()
	return Program{Headers: headers}.Eval(tb, exprs)
}

// EvalDeclared is Eval for expressions that may name declarations the
// installed headers lack (codes added in later releases): expressions that do
// not compile are left out of vals and listed in missing, in input order.
func EvalDeclared(tb testing.TB, headers, exprs []string) (vals map[string]int64, missing []string) {
	tb.Helper()
	return Program{Headers: headers}.EvalDeclared(tb, exprs)
}

// Enumerators lists, sorted and without repeats, the enumerators starting
// with prefix that the headers declare.
func Enumerators(tb testing.TB, headers []string, prefix string) []string {
	tb.Helper()
	return Program{Headers: headers}.Enumerators(tb, prefix)
}

// Eval is the package-level Eval for p.
func (p Program) Eval(tb testing.TB, exprs []string) map[string]int64 {
	tb.Helper()
	dir := p.prepare(tb)
	vals, bad, out := p.run(tb, dir, exprs)
	if len(bad) > 0 {
		tb.Fatalf("cabitest: expressions do not compile against %v: %q\n%s", p.Headers, bad, out)
	}
	return vals
}

// EvalDeclared is the package-level EvalDeclared for p.
func (p Program) EvalDeclared(tb testing.TB, exprs []string) (map[string]int64, []string) {
	tb.Helper()
	dir := p.prepare(tb)
	vals, bad, _ := p.run(tb, dir, exprs)
	if len(bad) == 0 {
		return vals, nil
	}
	var ok []string
	for _, e := range exprs {
		if !slices.Contains(bad, e) {
			ok = append(ok, e)
		}
	}
	vals, bad2, out := p.run(tb, dir, ok)
	if len(bad2) > 0 {
		tb.Fatalf("cabitest: expressions do not compile against %v: %q\n%s", p.Headers, bad2, out)
	}
	return vals, bad
}

// Enumerators is the package-level Enumerators for p. It scans the
// preprocessed headers for prefix-named identifiers followed by '=', ',' or
// '}', which is how enumerators are declared; macros are not found.
func (p Program) Enumerators(tb testing.TB, prefix string) []string {
	tb.Helper()
	dir := p.prepare(tb)
	src := filepath.Join(dir, "enum.c")
	if err := os.WriteFile(src, []byte(p.includes()), 0o644); err != nil {
		tb.Fatalf("cabitest: %v", err)
	}
	out, err := p.cc(dir, "-E", "-P", src)
	if err != nil {
		tb.Fatalf("cabitest: preprocess %v: %v\n%s", p.Headers, err, out)
	}
	re := regexp.MustCompile(`\b(` + regexp.QuoteMeta(prefix) + `\w*)\s*[=,}]`)
	var names []string
	for _, m := range re.FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func (p Program) feature() string {
	if p.Feature == "" {
		return DefaultFeature
	}
	return p.Feature
}

// Compiler is $CC split into words, or the first of cc and gcc found:
// the C compiler of every test that builds C (these checks, the fake
// libcuda).
func Compiler() ([]string, error) {
	if cc := strings.Fields(os.Getenv("CC")); len(cc) > 0 {
		if _, err := exec.LookPath(cc[0]); err != nil {
			return nil, fmt.Errorf("the C compiler $CC=%q was not found: %w", cc[0], err)
		}
		return cc, nil
	}
	for _, name := range []string{"cc", "gcc"} {
		if _, err := exec.LookPath(name); err == nil {
			return []string{name}, nil
		}
	}
	return nil, errors.New("no C compiler found (install gcc or set CC)")
}

func (p Program) includes() string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stddef.h>\n#include <stdint.h>\n")
	for _, h := range p.Headers {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	return b.String()
}

// probes caches, per compiler flags and headers, whether the headers compile.
var probes sync.Map // string -> *probe

type probe struct {
	once sync.Once
	err  error
}

// prepare makes a work directory, or skips (fails under HIPGO_REQUIRE) when
// the compiler or the headers are missing.
func (p Program) prepare(tb testing.TB) string {
	tb.Helper()
	key := strings.Join(p.CFlags, " ") + "\x00" + strings.Join(p.Headers, "\x00")
	v, _ := probes.LoadOrStore(key, new(probe))
	pr := v.(*probe)
	dir := tb.TempDir()
	pr.once.Do(func() {
		if _, err := Compiler(); err != nil {
			pr.err = err
			return
		}
		src := filepath.Join(dir, "probe.c")
		if err := os.WriteFile(src, []byte(p.includes()), 0o644); err != nil {
			pr.err = err
			return
		}
		if out, err := p.cc(dir, "-fsyntax-only", src); err != nil {
			first, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
			pr.err = fmt.Errorf("headers %v do not compile here (%v): %s", p.Headers, err, first)
		}
	})
	if pr.err != nil {
		testenv.Requiref(tb, p.feature(), "cabitest: %v", pr.err)
	}
	return dir
}

func (p Program) cc(dir string, args ...string) ([]byte, error) {
	cc, err := Compiler()
	if err != nil {
		return nil, err
	}
	argv := append(append(slices.Clone(cc[1:]), p.CFlags...), args...)
	cmd := exec.Command(cc[0], argv...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

var errorLine = regexp.MustCompile(`(?m)^[^:\n]*prog\.c:(\d+):\d+: (?:fatal )?error`)

// run compiles and runs one program. Expressions whose lines have compile
// errors come back in bad, with the compiler output, and nothing is run.
func (p Program) run(tb testing.TB, dir string, exprs []string) (vals map[string]int64, bad []string, out []byte) {
	tb.Helper()
	var src strings.Builder
	src.WriteString(p.includes())
	src.WriteString("int main(void) {\n")
	first := strings.Count(src.String(), "\n") + 1 // line of exprs[0]
	for i, e := range exprs {
		if strings.ContainsAny(e, "\n\r") {
			tb.Fatalf("cabitest: expression %q spans lines", e)
		}
		fmt.Fprintf(&src, "\tprintf(\"%d %%lld\\n\", (long long)(%s));\n", i, e)
	}
	src.WriteString("\treturn 0;\n}\n")
	cfile, bin := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog")
	if err := os.WriteFile(cfile, []byte(src.String()), 0o644); err != nil {
		tb.Fatalf("cabitest: %v", err)
	}
	out, err := p.cc(dir, "-w", "-o", bin, "prog.c")
	if err != nil {
		for _, m := range errorLine.FindAllSubmatch(out, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			if i := n - first; i >= 0 && i < len(exprs) && !slices.Contains(bad, exprs[i]) {
				bad = append(bad, exprs[i])
			}
		}
		if len(bad) == 0 {
			tb.Fatalf("cabitest: compile: %v\n%s\n--- prog.c ---\n%s", err, out, src.String())
		}
		slices.SortFunc(bad, func(a, b string) int { return slices.Index(exprs, a) - slices.Index(exprs, b) })
		return nil, bad, out
	}
	res, err := exec.Command(bin).Output()
	if err != nil {
		tb.Fatalf("cabitest: run: %v", err)
	}
	vals = make(map[string]int64, len(exprs))
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(res))
	for sc.Scan() {
		lines++
		idx, val, ok := strings.Cut(sc.Text(), " ")
		i, err1 := strconv.Atoi(idx)
		v, err2 := strconv.ParseInt(val, 10, 64)
		if !ok || err1 != nil || err2 != nil || i < 0 || i >= len(exprs) {
			tb.Fatalf("cabitest: bad output line %q", sc.Text())
		}
		vals[exprs[i]] = v
	}
	if lines != len(exprs) {
		tb.Fatalf("cabitest: got %d values for %d expressions:\n%s", lines, len(exprs), res)
	}
	return vals, nil, out
}
