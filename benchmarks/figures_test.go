package benchmarks

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A figure the READMEs and docs quote from a results file carries where it
// comes from in a comment beside it, which this file's test recomputes:
//
//	| launch + sync | 9.62 µs | 10.05 µs (1.05×) | <!-- from: results/h200-20261204/run3/r/suite/peers.txt 9.62=us(Native/launch_sync) --> |
//
// A comment is "from:", the results files (results/… or
// benchmarks/results/…, in Go benchmark format; after the first, a bare
// name is a file in the first one's folder), then figure=expr pairs. The
// files' samples are pooled, as the report pools them. Several comments
// may sit on one row. The figure is the text
// as written beside it, and the expression recomputes it from the file:
//
//	us(B), ms(B), ns(B)  the median ns/op of benchmark B, in µs, ms or ns
//	gbs(B)               the median MB/s of B, in GB/s
//	gflops(B)            the median GFLOP/s of B
//	tflops(B)            the median GFLOP/s of B, in TFLOP/s
//	x(A, B)              the median ns/op of A ÷ that of B (a time ratio)
//	bx(A, B)             the median MB/s of A ÷ that of B (a bandwidth ratio)
//	fx(A, B)             the median GFLOP/s of A ÷ that of B (a FLOP rate ratio)
//
//	msmin(B), msmax(B)   the least and the greatest ns/op of B, in ms (a range)
//
// A name may end in @unit to read another metric of the same kind, in its
// own scale (see units): us(DispatchWait@median_ns), tflops(Gemm@TFLOP/s),
// x(vector_add@us, VectorAdd@gpu-ns/op); @unit÷N divides by N (a time per
// kernel of an N-kernel chain: us(Native/chain100_direct@ns/op÷100)). A
// name may end in #N to read only the file's Nth run (counted at its
// "goos:" headers), where a file holds two runs of one benchmark under
// different settings: us(Chain100/graph#2@us/kernel).
//
// Lines not in Go's format are read by the extractors of lineKinds: the
// peers' own outputs (nvcc's "vector_add 234.299 us 3437.1 GB/s", CuPy's
// "cupy matmul float32 n=4096: median 2.677 ms, 51.34 TFLOP/s").
//
// B is the benchmark's name as the file writes it, with or without
// "Benchmark" and the -GOMAXPROCS suffix; it must name one benchmark of the
// file. A median is over all the file's samples of it (the -count rounds).
// The figure must appear in the comment's table row (or, outside a table,
// its paragraph), and the recomputed value, rounded to the figure's
// decimals, must equal it.
var fromComment = regexp.MustCompile(`<!--\s*from:\s*(.*?)\s*-->`)

// inlineCode is a code span: a comment written inside one is an example.
var inlineCode = regexp.MustCompile("`[^`]*`")

// figureRef is one figure=expr pair of a from: comment.
type figureRef struct {
	Figure string // as written, e.g. "9.62"
	Fn     string
	Args   []string
}

var figureExpr = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)=([a-z]+)\(([^()]*)\)$`)

// fns are the figure functions: the kind of metric each reads, the unit it
// reads by default, the divisor from that kind's base unit to the figure's,
// and whether it is a ratio of two benchmarks.
var fns = map[string]struct {
	kind, unit string
	div        float64
	ratio      bool
	pick       func([]float64) float64 // median if nil
}{
	"msmin":  {"time", "ns/op", 1e6, false, slices.Min[[]float64]},
	"msmax":  {"time", "ns/op", 1e6, false, slices.Max[[]float64]},
	"us":     {"time", "ns/op", 1e3, false, nil},
	"ms":     {"time", "ns/op", 1e6, false, nil},
	"ns":     {"time", "ns/op", 1, false, nil},
	"gbs":    {"rate", "MB/s", 1e3, false, nil},
	"gflops": {"flops", "GFLOP/s", 1, false, nil},
	"tflops": {"flops", "GFLOP/s", 1e3, false, nil},
	"x":      {"time", "ns/op", 1, true, nil},
	"bx":     {"rate", "MB/s", 1, true, nil},
	"fx":     {"flops", "GFLOP/s", 1, true, nil},
}

// units are the metrics the files write: their kind and their value in the
// kind's base unit (ns, MB/s, GFLOP/s).
var units = map[string]struct {
	kind string
	mul  float64
}{
	"ns/op": {"time", 1}, "gpu-ns/op": {"time", 1}, "median_ns": {"time", 1}, "resolve_median_ns": {"time", 1},
	"us": {"time", 1e3}, "us/kernel": {"time", 1e3}, "ms": {"time", 1e6},
	"MB/s": {"rate", 1}, "GB/s": {"rate", 1e3},
	"GFLOP/s": {"flops", 1}, "TFLOP/s": {"flops", 1e3},
}

// parseFrom parses the inside of a from: comment: one or more results
// files, then figure=expr pairs. A file after the first that names no
// folder lies in the first one's.
func parseFrom(s string) (files []string, refs []figureRef, err error) {
	fields := splitTopLevel(s)
	for len(fields) > 0 && !strings.Contains(fields[0], "=") {
		f := fields[0]
		fields = fields[1:]
		switch {
		case strings.HasPrefix(f, "results/") || strings.HasPrefix(f, "benchmarks/results/"):
			_, f, _ = strings.Cut(f, "results/")
		case len(files) > 0 && !strings.Contains(f, "/"):
			f = path.Join(path.Dir(files[0]), f)
		default:
			return nil, nil, fmt.Errorf("from: %q: a file must be results/… or benchmarks/results/… (or, after the first, a name in its folder)", f)
		}
		files = append(files, f)
	}
	if len(files) == 0 || len(fields) == 0 {
		return nil, nil, fmt.Errorf("from: %q: want a results file and at least one figure=expr", s)
	}
	for _, f := range fields {
		m := figureExpr.FindStringSubmatch(f)
		if m == nil {
			return nil, nil, fmt.Errorf("from: %q: want figure=fn(benchmark[, benchmark])", f)
		}
		var args []string
		for a := range strings.SplitSeq(m[3], ",") {
			args = append(args, strings.TrimSpace(a))
		}
		fn, ok := fns[m[2]]
		if !ok {
			return nil, nil, fmt.Errorf("from: %q: unknown function %s", f, m[2])
		}
		want := 1
		if fn.ratio {
			want = 2
		}
		if len(args) != want {
			return nil, nil, fmt.Errorf("from: %q: %s takes %d benchmark names", f, m[2], want)
		}
		for _, a := range args {
			if _, u, ok := strings.Cut(a, "@"); ok {
				if _, err := unitScale(u, fn.kind); err != nil {
					return nil, nil, fmt.Errorf("from: %q: %s: %v", f, m[2], err)
				}
			}
		}
		refs = append(refs, figureRef{Figure: m[1], Fn: m[2], Args: args})
	}
	return files, refs, nil
}

// unitScale is the factor from unit (a metric of units, with ÷N or
// without) to kind's base unit.
func unitScale(unit, kind string) (float64, error) {
	n := 1.0
	if u, d, ok := strings.Cut(unit, "÷"); ok {
		var err error
		if n, err = strconv.ParseFloat(d, 64); err != nil || n <= 0 {
			return 0, fmt.Errorf("%s: ÷%s is not a count", unit, d)
		}
		unit = u
	}
	if units[unit].kind != kind {
		return 0, fmt.Errorf("%s is not a %s", unit, kind)
	}
	return units[unit].mul / n, nil
}

// splitTopLevel splits s at spaces outside parentheses.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, -1
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ' ' && depth == 0:
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// benchFile is the samples of one Go benchmark output file: for each
// benchmark (its name as written, -GOMAXPROCS suffix included), for each
// unit, the values of its rounds.
type benchFile map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-[0-9]+$`)

// lineKinds read the lines of a results file: Go's benchmark format, and
// the peers' outputs that are not in it. Each returns a line's benchmark
// name and its values by unit, or ok false for a line not of its kind.
var lineKinds = []struct {
	name string
	read func(line string) (name string, vals map[string]float64, ok bool)
}{
	{"go", readGoLine},
	{"nvcc peer", readFields(regexp.MustCompile(`^([a-z][a-z0-9_]*) ([0-9.]+) (us) ([0-9.]+) (GB/s|GFLOP/s)\b`))},
	{"cupy matmul", readFields(regexp.MustCompile(`^(cupy matmul float(?:32|64) n=[0-9]+): median ([0-9.]+) (ms), ([0-9.]+) (TFLOP/s)$`))},
}

// readGoLine reads a line of Go's benchmark format.
func readGoLine(line string) (string, map[string]float64, bool) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
		return "", nil, false
	}
	if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
		return "", nil, false
	}
	vals := map[string]float64{}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			break
		}
		vals[fields[i+1]] = v
	}
	return fields[0], vals, true
}

// readFields reads a line whose first group is the name and whose other
// groups are value, unit pairs.
func readFields(re *regexp.Regexp) func(string) (string, map[string]float64, bool) {
	return func(line string) (string, map[string]float64, bool) {
		m := re.FindStringSubmatch(line)
		if m == nil {
			return "", nil, false
		}
		vals := map[string]float64{}
		for i := 2; i+1 < len(m); i += 2 {
			v, err := strconv.ParseFloat(m[i], 64)
			if err != nil {
				return "", nil, false
			}
			vals[m[i+1]] = v
		}
		return m[1], vals, true
	}
}

// readBenchFile reads a results file. A benchmark's samples are kept under
// its name, and under name#N for the file's Nth run (counted at each
// "goos:" line).
func readBenchFile(path string) (benchFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := benchFile{}
	put := func(name string, vals map[string]float64) {
		if out[name] == nil {
			out[name] = map[string][]float64{}
		}
		for u, v := range vals {
			out[name][u] = append(out[name][u], v)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	runs := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "goos:") {
			runs++
		}
		for _, k := range lineKinds {
			name, vals, ok := k.read(line)
			if !ok {
				continue
			}
			put(name, vals)
			if runs > 0 {
				put(name+"#"+strconv.Itoa(runs), vals)
			}
			break
		}
	}
	return out, sc.Err()
}

// add pools o's samples into b.
func (b benchFile) add(o benchFile) {
	for name, units := range o {
		if b[name] == nil {
			b[name] = map[string][]float64{}
		}
		for u, v := range units {
			b[name][u] = append(b[name][u], v...)
		}
	}
}

// median is the median of a benchmark's values in unit, or what pick
// picks of them.
func (b benchFile) median(name, unit string, pick func([]float64) float64) (float64, error) {
	units, ok := b[name]
	if !ok && !strings.HasPrefix(name, "Benchmark") {
		name = "Benchmark" + name
		units, ok = b[name]
	}
	if !ok {
		// Without its -GOMAXPROCS suffix, a name must mean one benchmark.
		var found []string
		base, run, _ := strings.Cut(name, "#")
		for n := range b {
			nb, nr, _ := strings.Cut(n, "#")
			if procSuffix.ReplaceAllString(nb, "") == base && nr == run {
				found = append(found, n)
			}
		}
		switch len(found) {
		case 0:
			return 0, fmt.Errorf("no benchmark %s", name)
		case 1:
			units = b[found[0]]
		default:
			slices.Sort(found)
			return 0, fmt.Errorf("%s is %s: name one", name, strings.Join(found, " and "))
		}
	}
	v := slices.Clone(units[unit])
	if len(v) == 0 {
		return 0, fmt.Errorf("%s has no %s", name, unit)
	}
	if pick != nil {
		return pick(v), nil
	}
	slices.Sort(v)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2, nil
	}
	return v[len(v)/2], nil
}

// eval recomputes a figure from its file.
func (b benchFile) eval(r figureRef) (float64, error) {
	fn := fns[r.Fn]
	vals := make([]float64, len(r.Args))
	for i, a := range r.Args {
		unit := fn.unit
		if n, u, ok := strings.Cut(a, "@"); ok {
			a, unit = n, u
		}
		mul, err := unitScale(unit, fn.kind)
		if err != nil {
			return 0, err
		}
		v, err := b.median(a, strings.SplitN(unit, "÷", 2)[0], fn.pick)
		if err != nil {
			return 0, err
		}
		vals[i] = v * mul
	}
	if fn.ratio {
		return vals[0] / vals[1], nil
	}
	return vals[0] / fn.div, nil
}

// matches says whether v, rounded to the decimals figure is written
// with, is figure.
func matches(figure string, v float64) bool {
	f, err := strconv.ParseFloat(figure, 64)
	if err != nil {
		return false
	}
	dec := 0
	if _, frac, ok := strings.Cut(figure, "."); ok {
		dec = len(frac)
	}
	return math.Abs(v-f) <= 0.5*math.Pow(10, -float64(dec))+1e-9
}

// scopeOf is the text a comment on line i vouches for: its table row,
// or outside a table its paragraph, comments removed.
func scopeOf(lines []string, i int) string {
	if strings.HasPrefix(strings.TrimSpace(lines[i]), "|") {
		return fromComment.ReplaceAllString(lines[i], "")
	}
	lo, hi := i, i
	for lo > 0 && strings.TrimSpace(lines[lo-1]) != "" {
		lo--
	}
	for hi+1 < len(lines) && strings.TrimSpace(lines[hi+1]) != "" {
		hi++
	}
	return fromComment.ReplaceAllString(strings.Join(lines[lo:hi+1], "\n"), "")
}

// containsFigure says whether text has figure as a number of its own, not
// part of a longer one.
func containsFigure(text, figure string) bool {
	re := regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(figure) + `($|[^0-9]|\.[^0-9]|\.$)`)
	return re.MatchString(text)
}

// quoted matches a figure with its unit in a table row; a bound (≤, ≥)
// is a target, not a figure.
var quoted = regexp.MustCompile(`(≤ |≥ |[0-9.])?([0-9]+(?:\.[0-9]+)?) ?(×|µs|ms|ns|GB/s|GFLOP/s|TFLOP/s)`)

// unsourced returns the figures of a table row that none of its from:
// comments vouches for.
func unsourced(row string, vouched map[string]bool) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(fromComment.ReplaceAllString(row, ""), -1) {
		if m[1] == "" && !vouched[m[2]] {
			out = append(out, m[2]+m[3])
		}
	}
	return out
}

// checkFigures recomputes every from: figure of doc, reading results files
// under dir; it returns the figures checked and what does not hold.
func checkFigures(doc, text, dir string, files map[string]benchFile) (int, []string) {
	var bad []string
	n := 0
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		vouched := map[string]bool{}
		comments := fromComment.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1)
		for _, m := range comments {
			at := fmt.Sprintf("%s:%d", doc, i+1)
			names, refs, err := parseFrom(m[1])
			if err != nil {
				bad = append(bad, fmt.Sprintf("%s: %v", at, err))
				continue
			}
			bf := benchFile{}
			for _, name := range names {
				one, ok := files[name]
				if !ok {
					if one, err = readBenchFile(filepath.Join(dir, name)); err != nil {
						bad = append(bad, fmt.Sprintf("%s: %v", at, err))
						break
					}
					files[name] = one
				}
				bf.add(one)
			}
			if err != nil {
				continue
			}
			file := strings.Join(names, " + results/")
			scope := scopeOf(lines, i)
			for _, r := range refs {
				n++
				vouched[r.Figure] = true
				v, err := bf.eval(r)
				switch {
				case err != nil:
					bad = append(bad, fmt.Sprintf("%s: %s=%s(%s): %v in results/%s", at, r.Figure, r.Fn, strings.Join(r.Args, ", "), err, file))
				case !matches(r.Figure, v):
					bad = append(bad, fmt.Sprintf("%s: %s, but results/%s gives %s(%s) = %.4g", at, r.Figure, file, r.Fn, strings.Join(r.Args, ", "), v))
				case !containsFigure(scope, r.Figure):
					bad = append(bad, fmt.Sprintf("%s: %s is not written in the row or paragraph its comment is in", at, r.Figure))
				}
			}
		}
		if len(comments) > 0 && strings.HasPrefix(strings.TrimSpace(line), "|") {
			if u := unsourced(line, vouched); len(u) > 0 {
				bad = append(bad, fmt.Sprintf("%s:%d: %s in a row whose from: comments do not give them", doc, i+1, strings.Join(u, ", ")))
			}
		}
	}
	return n, bad
}

// Every figure the READMEs and docs quote with a from: comment is what its
// results file gives, within the rounding it is written with.
func TestFiguresRecomputed(t *testing.T) {
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Skipf("not in the source tree (%v): the READMEs are not here", err)
	}
	files := map[string]benchFile{}
	n := 0
	for _, doc := range citedDocs() {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		k, bad := checkFigures(filepath.Clean(doc), string(b), "results", files)
		n += k
		for _, e := range bad {
			t.Error(e)
		}
	}
	if n == 0 {
		t.Error("no figure with a from: comment found: has the layout changed?")
	}
	t.Logf("%d figures recomputed from %d results files", n, len(files))
}

// The check fails on a figure its file does not give, on one the row does
// not write, and on a name the file lacks; it passes what the file gives at
// the figure's precision.
func TestCheckFigures(t *testing.T) {
	dir := t.TempDir()
	data := "BenchmarkNative/launch_sync\t20000\t9388.4 ns/op\n" +
		"BenchmarkNative/launch_sync\t20000\t9628.1 ns/op\n" +
		"BenchmarkNative/launch_sync\t20000\t9616.5 ns/op\n" +
		"BenchmarkAPI/launch_sync-16 \t 35402\t 10388 ns/op\t 1 B/op\t 0 allocs/op\n" +
		"BenchmarkAPI/launch_sync-16 \t 35402\t 10617 ns/op\t 0 B/op\t 0 allocs/op\n" +
		"BenchmarkVec/n=1-16 \t 300\t 242417.5 ns/op\t 3321981.62 MB/s\n"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "a.txt"), []byte(data), 0o644))
	from := "<!-- from: results/run/a.txt %s -->"
	for _, c := range []struct {
		row  string
		expr string
		ok   bool
	}{
		{"| 9.62 µs |", "9.62=us(Native/launch_sync)", true}, // median of 3
		{"| 9.6 µs |", "9.6=us(BenchmarkNative/launch_sync)", true},
		{"| 9.63 µs |", "9.63=us(Native/launch_sync)", false},
		{"| 10.50 µs |", "10.50=us(API/launch_sync)", true}, // median of 2: their mean
		{"| 10.50 µs (1.09×) |", "1.09=x(API/launch_sync-16, Native/launch_sync)", true},
		{"| 10.50 µs (1.10×) |", "1.10=x(API/launch_sync, Native/launch_sync)", false},
		{"| 3322 GB/s |", "3322=gbs(Vec/n=1)", true},
		{"| 3321 GB/s |", "3321=gbs(Vec/n=1)", false},
		{"| 9.62 µs |", "19.62=us(Native/launch_sync)", false},     // not the figure
		{"| 19.62 µs |", "9.62=us(Native/launch_sync)", false},     // not written
		{"| 9.62 µs |", "9.62=us(Native/launch_async)", false},     // no such benchmark
		{"| 9.62 µs |", "9.62=med(Native/launch_sync)", false},     // no such function
		{"| 9.62 µs |", "9.62=x(Native/launch_sync)", false},       // one name for two
		{"| 9.62 µs |", "9.62=us(Native/launch_sync) junk", false}, // not figure=expr
		{"| 9.62 µs |", "", false},
		{"`<!-- from: results/run/a.txt 9.63=us(Native/launch_sync) -->`", "", false}, // an example, and nothing to check                                 // nothing to check
	} {
		text := c.row + " " + fmt.Sprintf(from, c.expr)
		_, bad := checkFigures("doc.md", text, dir, map[string]benchFile{})
		if c.ok {
			assert.Empty(t, bad, text)
		} else {
			assert.NotEmpty(t, bad, text)
		}
	}
	// GOMAXPROCS told apart.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "c.txt"), []byte("BenchmarkL-1\t1\t1000 ns/op\nBenchmarkL-2\t1\t2000 ns/op\n"), 0o644))
	_, bad := checkFigures("doc.md", "| 1.00 / 2.00 µs | <!-- from: results/run/c.txt 1.00=us(L-1) 2.00=us(L-2) -->", dir, map[string]benchFile{})
	assert.Empty(t, bad)
	_, bad = checkFigures("doc.md", "| 1.00 µs | <!-- from: results/run/c.txt 1.00=us(L) -->", dir, map[string]benchFile{})
	assert.NotEmpty(t, bad, "L is L-1 and L-2")

	// Two files pooled, the second named in the first's folder.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "b.txt"), []byte("BenchmarkCuPy/launch_sync\t20000\t10884.8 ns/op\n"), 0o644))
	_, bad = checkFigures("doc.md", "| 10.88 µs (1.13×) | <!-- from: results/run/a.txt b.txt 10.88=us(CuPy/launch_sync) 1.13=x(CuPy/launch_sync, Native/launch_sync) -->", dir, map[string]benchFile{})
	assert.Empty(t, bad)
	// A comment in a code span is an example, not checked.
	n, bad := checkFigures("doc.md", "`<!-- from: results/run/a.txt 9.63=us(Native/launch_sync) -->`", dir, map[string]benchFile{})
	assert.Empty(t, bad)
	assert.Zero(t, n)

	// The peers' outputs, a metric named with @, a run picked with #N.
	peers := "2026-12-01T23:50:39Z\nvector_add 234.299 us 3437.1 GB/s\nmatrix_mul16 2110.285 us 8141.0 GFLOP/s check 2048\n" +
		"cupy matmul float32 n=4096: median 2.677 ms, 51.34 TFLOP/s\n" +
		"goos: linux\nBenchmarkVectorAdd-16 \t 50\t 231906 ns/op\t 3467 GB/s\t 232580 gpu-ns/op\n" +
		"BenchmarkD \t 9\t 1823 ns/op\t 1152 median_ns\nBenchmarkG-16 \t 1\t 60396 ns/op\t 0.6024 us/kernel\n" +
		"goos: linux\nBenchmarkG-16 \t 1\t 440480 ns/op\t 4.405 us/kernel\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "p.txt"), []byte(peers), 0o644))
	for _, c := range []struct {
		row, expr string
		ok        bool
	}{
		{"| 234.3 µs |", "234.3=us(vector_add@us)", true},
		{"| 234.3 µs |", "234.3=us(vector_add)", false}, // no ns/op in the peer's line
		{"| 3.44 GB/s |", "3437=bx(vector_add@GB/s, vector_add@MB/s)", false},
		{"| 8141 GFLOP/s |", "8141=gflops(matrix_mul16)", true},
		{"| 0.98× |", "0.98=fx(matrix_mul16, cupy matmul float32 n=4096@TFLOP/s)", false}, // 0.16
		{"| 0.16× |", "0.16=fx(matrix_mul16, cupy matmul float32 n=4096@TFLOP/s)", true},
		{"| 51.34 TFLOP/s |", "51.34=tflops(cupy matmul float32 n=4096@TFLOP/s)", true},
		{"| 2.68 ms |", "2.68=ms(VectorAdd@ms)", false}, // no such metric in Go's line
		{"| 232.6 µs (1.007×) |", "232.6=us(VectorAdd@gpu-ns/op) 1.007=x(vector_add@us, VectorAdd@gpu-ns/op)", true},
		{"| 232.6 µs |", "232.6=us(VectorAdd@GB/s)", false}, // not a time
		{"| 1.15 µs |", "1.15=us(D@median_ns)", true},
		{"| 0.602 µs |", "0.602=us(G@us/kernel)", false}, // both runs pooled: (0.6024+4.405)/2 is not 0.602
	} {
		text := c.row + " " + fmt.Sprintf("<!-- from: results/run/p.txt %s -->", c.expr)
		_, bad := checkFigures("doc.md", text, dir, map[string]benchFile{})
		if c.ok {
			assert.Empty(t, bad, text)
		} else {
			assert.NotEmpty(t, bad, text)
		}
	}
	for _, c := range []struct {
		row, expr string
		ok        bool
	}{
		{"| 4.41 µs / 0.602 µs (7.3×) |", "4.41=us(G#2@us/kernel) 0.602=us(G-16#1@us/kernel) 7.3=x(G#2@us/kernel, G#1@us/kernel)", true}, // each run alone
		{"| 4.41 µs |", "4.41=us(G#3@us/kernel)", false},            // no third run
		{"| 1.82 µs |", "1.82=us(D#1)", true},                       // D is in the first run
		{"| 0.60 µs |", "0.60=us(G#1@ns/op÷100)", true},             // per kernel of 100
		{"| 0.60 µs |", "0.60=us(G#1@ns/op÷0)", false},              // not a count
		{"| 0.06 / 0.44 ms |", "0.06=msmin(G) 0.44=msmax(G)", true}, // the range of both runs
		{"| 0.06 ms |", "0.06=msmax(G)", false},
	} {
		text := c.row + " " + fmt.Sprintf("<!-- from: results/run/p.txt %s -->", c.expr)
		_, bad := checkFigures("doc.md", text, dir, map[string]benchFile{})
		if c.ok {
			assert.Empty(t, bad, text)
		} else {
			assert.NotEmpty(t, bad, text)
		}
	}

	// A file that does not exist.
	_, bad = checkFigures("doc.md", "9.62 <!-- from: results/run/none.txt 9.62=us(A) -->", dir, map[string]benchFile{})
	assert.NotEmpty(t, bad, "a missing file")
}
