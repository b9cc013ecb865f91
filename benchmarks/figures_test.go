package benchmarks

import (
	"bufio"
	"cmp"
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
	"unicode"
	"unicode/utf8"

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
//	usmin(B), usmax(B)   the same in µs
//	xmin(A, B), xmax(A, B)  the least and the greatest ratio of one run
//	                     of A to one of B (ns/op ÷ ns/op; a range "2.5×
//	                     to 2.8×" over the runs, each run against each)
//	mw(A, B)             the two-sided p-value of the Mann-Whitney U test
//	                     of A's samples against B's (ns/op, or @unit), as
//	                     benchstat computes it: exact for small samples,
//	                     else the normal approximation with ties corrected
//
// A name may end in @unit to read another metric of the same kind, in its
// own scale (see units): us(DispatchWait@median_ns), tflops(Gemm@TFLOP/s),
// x(vector_add@us, VectorAdd@gpu-ns/op); @unit÷N divides by N (a time per
// kernel of an N-kernel chain: us(Native/chain100_direct@ns/op÷100)). A
// name may end in #N to read only the file's Nth run (counted at its
// "goos:" headers), where a file holds two runs of one benchmark under
// different settings: us(Chain100/graph#2@us/kernel). A name may end in
// %N (before any @unit) to read it from the comment's Nth file alone, where
// two files hold the same benchmark of two builds:
// x(API/cross_queue%2, API/cross_queue%1). A name may end in [i:j] (before
// %N and @unit) to read only its ith to jth samples in the file's order,
// where a file holds two runs with no "goos:" header between them:
// us(AllReduce/8B[4:6]).
//
// Lines not in Go's format are read by the extractors of lineKinds: the
// peers' own outputs (nvcc's "vector_add 234.299 us 3437.1 GB/s", CuPy's
// "cupy matmul float32 n=4096: median 2.677 ms, 51.34 TFLOP/s") and the
// PTX harness's ("lib_after.ptx   vector_add   231.44 us  3479.6 GB/s",
// named "lib_after.ptx vector_add": runs of spaces in a name read as one),
// the primitives' table (prims.txt: "add float32 1048576" with the metrics
// hipgo_us, cub_us and cupy_us) and fftrand_cupy.py's lines ("cupy
// C2C/n=2^10/batch=4096 us=26.54 rounds=...", one sample in us a round).
//
// B is the benchmark's name as the file writes it, with or without
// "Benchmark" and the -GOMAXPROCS suffix; it must name one benchmark of the
// file. A median is over all the file's samples of it (the -count rounds).
// The figure must appear in the comment's table row (or, outside a table,
// its paragraph), and the recomputed value, rounded to the figure's
// decimals, must equal it.
//
// Every performance figure of a paragraph (a number with µs, ms, ns, GB/s,
// GFLOP/s, TFLOP/s or ×; a bound written ≤ or ≥ is a target, not a figure)
// is given by a from: comment of that paragraph, or named by a comment
// saying why it is not measured:
//
//	the poll sleeps 1 ms between looks <!-- not measured, a setting: 1 ms -->
//
// A table row's figures are checked the same way. In a row or paragraph
// that cites a results file, a cell or sentence that says "faster" or
// "slower" writes an mw figure of that file below 0.05: a claim that one
// is faster holds only where the samples separate.
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

// A pick of a ratio function reads the samples of both benchmarks; pick
// of a plain one reads one's.
type pick2 func(a, b []float64) float64

// fns are the figure functions: the kind of metric each reads, the unit it
// reads by default, the divisor from that kind's base unit to the figure's,
// and whether it is a ratio of two benchmarks.
var fns = map[string]struct {
	kind, unit string
	div        float64
	ratio      bool
	pick       func([]float64) float64 // median if nil
	pick2      pick2                   // for a ratio: of both sample sets, not of the medians
}{
	"msmin":  {"time", "ns/op", 1e6, false, slices.Min[[]float64], nil},
	"msmax":  {"time", "ns/op", 1e6, false, slices.Max[[]float64], nil},
	"usmin":  {"time", "ns/op", 1e3, false, slices.Min[[]float64], nil},
	"usmax":  {"time", "ns/op", 1e3, false, slices.Max[[]float64], nil},
	"us":     {"time", "ns/op", 1e3, false, nil, nil},
	"ms":     {"time", "ns/op", 1e6, false, nil, nil},
	"ns":     {"time", "ns/op", 1, false, nil, nil},
	"gbs":    {"rate", "MB/s", 1e3, false, nil, nil},
	"gflops": {"flops", "GFLOP/s", 1, false, nil, nil},
	"tflops": {"flops", "GFLOP/s", 1e3, false, nil, nil},
	"x":      {"time", "ns/op", 1, true, nil, nil},
	"bx":     {"rate", "MB/s", 1, true, nil, nil},
	"fx":     {"flops", "GFLOP/s", 1, true, nil, nil},
	"xmin":   {"time", "ns/op", 1, true, nil, pairRatios(slices.Min[[]float64])},
	"xmax":   {"time", "ns/op", 1, true, nil, pairRatios(slices.Max[[]float64])},
	"mw":     {"", "ns/op", 1, true, nil, mannWhitneyP}, // any metric: the test reads ranks
}

// pairRatios picks of the ratios a÷b of each sample of a to each of b.
func pairRatios(pick func([]float64) float64) pick2 {
	return func(a, b []float64) float64 {
		var r []float64
		for _, x := range a {
			for _, y := range b {
				r = append(r, x/y)
			}
		}
		return pick(r)
	}
}

// mannWhitneyP is the two-sided p-value of the Mann-Whitney U test of a
// against b, computed as golang.org/x/perf's benchstat computes it
// (github.com/aclements/go-moremath/stats.MannWhitneyUTest): the exact
// distribution of U (with ties, over the tied ranks) where both samples
// have at most 50 values (25 with ties), else the normal approximation
// with the tie correction and a continuity correction.
func mannWhitneyP(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	type v struct {
		x     float64
		first bool
	}
	all := make([]v, 0, n1+n2)
	for _, x := range a {
		all = append(all, v{x, true})
	}
	for _, x := range b {
		all = append(all, v{x, false})
	}
	slices.SortFunc(all, func(p, q v) int {
		switch {
		case p.x < q.x:
			return -1
		case p.x > q.x:
			return 1
		}
		return 0
	})
	// Ranks doubled, so that a tie's mid-rank is a whole number.
	rank2 := make([]int, len(all))
	r1 := 0 // a's rank sum, doubled
	ties, tieCorr := false, 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		for k := i; k < j; k++ {
			rank2[k] = i + 1 + j // (i+1 + j) / 2, doubled
			if all[k].first {
				r1 += rank2[k]
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieCorr += t*t*t - t
		}
		i = j
	}
	if len(all) == 0 || all[0].x == all[len(all)-1].x {
		return 1 // nothing to tell apart
	}
	u1 := float64(r1)/2 - float64(n1*(n1+1))/2
	u2 := float64(n1*n2) - u1
	if u1 == u2 {
		return 1
	}
	if !ties && n1 <= 50 && n2 <= 50 || ties && n1 <= 25 && n2 <= 25 {
		// ways[k][s]: the ways to choose k of the ranks with doubled sum s.
		maxSum := 0
		for _, r := range rank2 {
			maxSum += r
		}
		ways := make([][]float64, n1+1)
		for k := range ways {
			ways[k] = make([]float64, maxSum+1)
		}
		ways[0][0] = 1
		for _, r := range rank2 {
			for k := n1; k >= 1; k-- {
				for s := maxSum; s >= r; s-- {
					ways[k][s] += ways[k-1][s-r]
				}
			}
		}
		// P(U1 <= min(u1, u2)): U1 = R1/2 - n1(n1+1)/2.
		limit := 2 * (math.Min(u1, u2) + float64(n1*(n1+1))/2)
		var le, all float64
		for s, w := range ways[n1] {
			all += w
			if float64(s) <= limit+1e-9 {
				le += w
			}
		}
		return math.Min(1, 2*le/all)
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) * ((n + 1) - tieCorr/(n*(n-1))) / 12)
	d := u1 - mu
	d -= math.Copysign(0.5, d)
	z := d / sigma
	cdf := 0.5 * math.Erfc(-z/math.Sqrt2)
	return 2 * math.Min(cdf, 1-cdf)
}

// units are the metrics the files write: their kind and their value in the
// kind's base unit (ns, MB/s, GFLOP/s).
var units = map[string]struct {
	kind string
	mul  float64
}{
	"ns/op": {"time", 1}, "gpu-ns/op": {"time", 1}, "median_ns": {"time", 1}, "resolve_median_ns": {"time", 1},
	"us": {"time", 1e3}, "us/kernel": {"time", 1e3}, "ms": {"time", 1e6},
	"launch-ns": {"time", 1}, "launch2-ns": {"time", 1}, "record-ns": {"time", 1}, "wait-ns": {"time", 1}, "sync-ns": {"time", 1},
	"hipgo_us": {"time", 1e3}, "cub_us": {"time", 1e3}, "cupy_us": {"time", 1e3},
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
	if u, ok := units[unit]; !ok || kind != "" && u.kind != kind {
		return 0, fmt.Errorf("%s is not a %s", unit, cmp.Or(kind, "unit"))
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
	{"go, old or new build", readTaggedGoLine},
	{"nvcc peer", readFields(regexp.MustCompile(`^([a-z][a-z0-9_]*) ([0-9.]+) (us) ([0-9.]+) (GB/s|GFLOP/s)\b`))},
	{"cupy matmul", readFields(regexp.MustCompile(`^(cupy matmul float(?:32|64) n=[0-9]+): median ([0-9.]+) (ms), ([0-9.]+) (TFLOP/s)$`))},
	{"ptx timing", readFields(regexp.MustCompile(`^([a-z0-9_]+\.ptx +[a-z0-9_]+) +([0-9.]+) (us) +([0-9.]+) (GB/s|TFLOP/s)$`))},
	{"primitives table", readPrimsRow},
}

// primsRow is a row of prims_summary.py's table (prims.txt): primitive,
// type, n, then hipgo_us, cub_us, cupy_us and cub/hipgo, "-" where one did
// not run: "add float32 1048576 5.62 4.94 15.02 0.879x" is the benchmark
// "add float32 1048576" with the metrics hipgo_us, cub_us and cupy_us.
var primsRow = regexp.MustCompile(`^([a-z][a-z0-9_]* +[a-z0-9-]+ +[0-9]+) +([0-9.]+|-) +([0-9.]+|-) +([0-9.]+|-) +(?:[0-9.]+x|-)$`)

// readPrimsRow reads a row of the primitives table.
func readPrimsRow(line string) (string, map[string]float64, bool) {
	m := primsRow.FindStringSubmatch(line)
	if m == nil {
		return "", nil, false
	}
	vals := map[string]float64{}
	for i, u := range []string{"hipgo_us", "cub_us", "cupy_us"} {
		if m[i+2] == "-" {
			continue
		}
		v, err := strconv.ParseFloat(m[i+2], 64)
		if err != nil {
			return "", nil, false
		}
		vals[u] = v
	}
	return strings.Join(strings.Fields(m[1]), " "), vals, len(vals) > 0
}

// roundsLine is a line of fftrand_cupy.py's output: "cupy C2C/n=2^10/batch=4096
// us=26.54 rounds=30.50,26.34,..." is the benchmark "cupy C2C/n=2^10/batch=4096"
// with one sample in us per round (us= is their median).
var roundsLine = regexp.MustCompile(`^(cupy \S+) us=[0-9.]+ rounds=([0-9.,]+)$`)

// readRounds reads a line of roundsLine: its name and one sample per round.
func readRounds(line string) (string, []map[string]float64, bool) {
	m := roundsLine.FindStringSubmatch(line)
	if m == nil {
		return "", nil, false
	}
	var out []map[string]float64
	for _, f := range strings.Split(m[2], ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return "", nil, false
		}
		out = append(out, map[string]float64{"us": v})
	}
	return m[1], out, true
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

// buildTag names the build of a line in a file of builds run alternately.
var buildTag = regexp.MustCompile(`^[a-z0-9]+$`)

// readTaggedGoLine reads a line of Go's format after a word naming its
// build ("old", "new", a commit), where builds ran alternately: "new
// BenchmarkSgemm-2 ..." is the benchmark "new BenchmarkSgemm-2".
func readTaggedGoLine(line string) (string, map[string]float64, bool) {
	tag, rest, ok := strings.Cut(line, " ")
	if !ok || !buildTag.MatchString(tag) {
		return "", nil, false
	}
	name, vals, ok := readGoLine(rest)
	return tag + " " + name, vals, ok
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
		return strings.Join(strings.Fields(m[1]), " "), vals, true
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
		if name, rounds, ok := readRounds(line); ok {
			for _, vals := range rounds {
				put(name, vals)
			}
			continue
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
	v, err := b.samples(name, unit)
	if err != nil {
		return 0, err
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

// sampleRange matches a name that ends in [i:j], its ith to jth samples.
var sampleRange = regexp.MustCompile(`^(.*)\[([0-9]+):([0-9]+)\]$`)

// samples are a copy of a benchmark's values in unit; of name[i:j], the
// ith to the jth of them in the file's order.
func (b benchFile) samples(name, unit string) ([]float64, error) {
	if m := sampleRange.FindStringSubmatch(name); m != nil {
		v, err := b.samples(m[1], unit)
		if err != nil {
			return nil, err
		}
		i, _ := strconv.Atoi(m[2])
		j, _ := strconv.Atoi(m[3])
		if i < 1 || j < i || j > len(v) {
			return nil, fmt.Errorf("%s: [%d:%d] is not within its %d samples", m[1], i, j, len(v))
		}
		return v[i-1 : j], nil
	}
	units, ok := b[name]
	alt := name // B or BenchmarkB
	if !ok && !strings.HasPrefix(name, "Benchmark") {
		alt = "Benchmark" + name
		units, ok = b[alt]
	}
	if !ok {
		// Without its -GOMAXPROCS suffix, a name must mean one benchmark.
		var found []string
		base, run, _ := strings.Cut(name, "#")
		altBase, _, _ := strings.Cut(alt, "#")
		for n := range b {
			nb, nr, _ := strings.Cut(n, "#")
			if nb = procSuffix.ReplaceAllString(nb, ""); (nb == base || nb == altBase) && nr == run {
				found = append(found, n)
			}
		}
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("no benchmark %s", name)
		case 1:
			units = b[found[0]]
		default:
			slices.Sort(found)
			return nil, fmt.Errorf("%s is %s: name one", name, strings.Join(found, " and "))
		}
	}
	v := slices.Clone(units[unit])
	if len(v) == 0 {
		return nil, fmt.Errorf("%s has no %s", name, unit)
	}
	return v, nil
}

// eval recomputes a figure from its file.
func (b benchFile) eval(r figureRef, each ...benchFile) (float64, error) {
	fn := fns[r.Fn]
	// source is the file an argument reads: B%N reads B of the comment's
	// Nth file alone, B all of them pooled.
	source := func(a string) (benchFile, string, error) {
		i := strings.LastIndex(a, "%")
		if i < 0 {
			return b, a, nil
		}
		n, err := strconv.Atoi(a[i+1:])
		if err != nil || n < 1 || n > len(each) {
			return nil, "", fmt.Errorf("%s: %%%s is not one of the comment's %d files", a, a[i+1:], len(each))
		}
		return each[n-1], a[:i], nil
	}
	if fn.pick2 != nil {
		var sets [2][]float64
		for i, a := range r.Args {
			unit := fn.unit
			if n, u, ok := strings.Cut(a, "@"); ok {
				a, unit = n, u
			}
			mul, err := unitScale(unit, fn.kind)
			if err != nil {
				return 0, err
			}
			src, a, err := source(a)
			if err != nil {
				return 0, err
			}
			v, err := src.samples(a, strings.SplitN(unit, "÷", 2)[0])
			if err != nil {
				return 0, err
			}
			for j := range v {
				v[j] *= mul
			}
			sets[i] = v
		}
		return fn.pick2(sets[0], sets[1]), nil
	}
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
		src, a, err := source(a)
		if err != nil {
			return 0, err
		}
		v, err := src.median(a, strings.SplitN(unit, "÷", 2)[0], fn.pick)
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

// figure matches a number with a performance unit (figuresIn leaves out
// bounds and dimensions).
var figure = regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?) ?(×|µs|ms|ns|GB/s|GFLOP/s|TFLOP/s)`)

// unsourced returns the figures of a table row that none of its from:
// comments vouches for.
func unsourced(row string, vouched map[string]bool) []string {
	var out []string
	for _, f := range figuresIn(fromComment.ReplaceAllString(row, "")) {
		if !vouched[f[0]] {
			out = append(out, f[0]+f[1])
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
	given := make([][]string, len(lines))     // figures the line's from: comments give
	pvalues := make([][]mwFigure, len(lines)) // its mw figures and their values
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
			var each []benchFile
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
				each = append(each, one)
			}
			if err != nil {
				continue
			}
			file := strings.Join(names, " + results/")
			scope := scopeOf(lines, i)
			for _, r := range refs {
				n++
				vouched[r.Figure] = true
				given[i] = append(given[i], r.Figure)
				v, err := bf.eval(r, each...)
				if err == nil && r.Fn == "mw" {
					pvalues[i] = append(pvalues[i], mwFigure{r.Figure, v})
				}
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
	bad = append(bad, checkProse(doc, lines, given, pvalues)...)
	return n, bad
}

// notMeasured is a comment naming figures of its paragraph that no file
// gives, and why: <!-- not measured, a target: 20 ns -->.
var notMeasured = regexp.MustCompile(`<!--\s*not measured\b(.*?)-->`)

// htmlComment is any comment.
var htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)

// claim is a word that says one thing is quicker than another.
var claim = regexp.MustCompile(`(?i)\b(faster|slower)\b`)

// mwFigure is an mw figure of a from: comment and the p-value its file gives.
type mwFigure struct {
	figure string
	p      float64
}

// sentenceEnd ends a sentence: a stop, then a space or the end ("0.05" is
// no end).
var sentenceEnd = regexp.MustCompile(`[.!?;](\s+|$)`)

// unseparated returns the claim (faster, slower) text makes unless it
// writes one of ps's figures whose p-value is below 0.05.
func unseparated(text string, ps []mwFigure) string {
	c := claim.FindString(text)
	if c == "" {
		return ""
	}
	for _, p := range ps {
		if p.p < 0.05 && containsFigure(text, p.figure) {
			return ""
		}
	}
	return strings.ToLower(c)
}

// figuresIn returns the performance figures text writes (number and unit),
// leaving out bounds (≤ 1.05×, < 1 µs), dimensions (1024×1024) and
// products (4 × 4).
func figuresIn(text string) [][2]string {
	var out [][2]string
	for _, m := range figure.FindAllStringSubmatchIndex(text, -1) {
		before := strings.TrimRight(strings.TrimRight(text[:m[0]], "+-−"), " ")
		prev, _ := utf8.DecodeLastRuneInString(before)
		if strings.ContainsRune("≤≥<>", prev) || m[0] > 0 && strings.ContainsRune("0123456789.", rune(text[m[0]-1])) {
			continue // a bound, or the tail of a longer number
		}
		unit := text[m[4]:m[5]]
		if next, _ := utf8.DecodeRuneInString(strings.TrimLeft(text[m[1]:], " ")); unit == "×" && unicode.IsDigit(next) {
			continue
		}
		if after, _ := utf8.DecodeRuneInString(text[m[1]:]); unicode.IsLetter(after) || unicode.IsDigit(after) {
			continue // "3 msgs", "5 nsec"
		}
		out = append(out, [2]string{text[m[2]:m[3]], unit})
	}
	return out
}

// checkProse checks the paragraphs and rows of a document: each
// performance figure is one a from: comment of the paragraph gives or a
// not measured comment names (a row with from: comments is checked figure
// by figure as it is read), and a sentence or cell that claims faster or
// slower from a file writes an mw figure below 0.05. given and pvalues
// are, by line, the figures the from: comments give and their mw values.
func checkProse(doc string, lines []string, given [][]string, pvalues [][]mwFigure) []string {
	var bad []string
	// Fenced blocks are commands and program output, not figures.
	inFence := make([]bool, len(lines))
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			inFence[i] = true
			continue
		}
		inFence[i] = fenced
	}
	isRow := func(i int) bool { return strings.HasPrefix(strings.TrimSpace(lines[i]), "|") }
	// Rows: a figure needs a comment (rows with a from: comment are
	// checked figure by figure as they are read), and a claim its
	// significance.
	for i := range lines {
		if inFence[i] || !isRow(i) {
			continue
		}
		if len(given[i]) == 0 && !fromComment.MatchString(inlineCode.ReplaceAllString(lines[i], "")) {
			vouched := map[string]bool{}
			for _, m := range notMeasured.FindAllStringSubmatch(lines[i], -1) {
				for _, f := range figuresIn(m[1]) {
					vouched[f[0]] = true
				}
			}
			var missing []string
			for _, f := range figuresIn(htmlComment.ReplaceAllString(inlineCode.ReplaceAllString(lines[i], ""), "")) {
				if !vouched[f[0]] {
					missing = append(missing, f[0]+f[1])
				}
			}
			if len(missing) > 0 {
				bad = append(bad, fmt.Sprintf("%s:%d: %s in a row with no from: comment", doc, i+1, strings.Join(missing, ", ")))
			}
			continue
		}
		for _, cell := range strings.Split(htmlComment.ReplaceAllString(lines[i], ""), "|") {
			if c := unseparated(cell, pvalues[i]); c != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: says %s in a cell without an mw figure below 0.05 written in it: the samples may not separate", doc, i+1, c))
			}
		}
	}
	for lo := 0; lo < len(lines); {
		if inFence[lo] || isRow(lo) || strings.TrimSpace(lines[lo]) == "" {
			lo++
			continue
		}
		hi := lo
		for hi+1 < len(lines) && !inFence[hi+1] && !isRow(hi+1) && strings.TrimSpace(lines[hi+1]) != "" {
			hi++
		}
		para := strings.Join(lines[lo:hi+1], "\n")
		vouched := map[string]bool{}
		var ps []mwFigure
		for i := lo; i <= hi; i++ {
			for _, f := range given[i] {
				vouched[f] = true
			}
			ps = append(ps, pvalues[i]...)
		}
		for _, m := range notMeasured.FindAllStringSubmatch(para, -1) {
			named := figuresIn(m[1])
			if len(named) == 0 {
				bad = append(bad, fmt.Sprintf("%s:%d: a not measured comment that names no figure (write them: <!-- not measured, why: 20 ns -->)", doc, lo+1))
			}
			for _, f := range named {
				vouched[f[0]] = true
			}
		}
		prose := htmlComment.ReplaceAllString(inlineCode.ReplaceAllString(para, ""), "")
		var missing []string
		for _, f := range figuresIn(prose) {
			if !vouched[f[0]] {
				missing = append(missing, f[0]+f[1])
			}
		}
		if len(missing) > 0 {
			bad = append(bad, fmt.Sprintf("%s:%d: %s in a paragraph whose comments neither give them (from:) nor say why no file does (not measured)", doc, lo+1, strings.Join(missing, ", ")))
		}
		hasFrom := false
		for i := lo; i <= hi; i++ {
			hasFrom = hasFrom || len(given[i]) > 0
		}
		if hasFrom {
			for _, sentence := range sentenceEnd.Split(prose, -1) {
				if c := unseparated(sentence, ps); c != "" {
					bad = append(bad, fmt.Sprintf("%s:%d: says %s in a sentence without an mw figure below 0.05 written in it: the samples may not separate", doc, lo+1, c))
				}
			}
		}
		lo = hi + 1
	}
	return bad
}

// Every figure the READMEs and docs quote with a from: comment is what its
// results file gives, within the rounding it is written with.
func TestFiguresRecomputed(t *testing.T) {
	if _, err := os.Stat("../go.mod"); err != nil {
		t.Skipf("not in the source tree (%v): the READMEs are not here", err)
	}
	files := map[string]benchFile{}
	n := 0
	for _, doc := range append(citedDocs(), "../CHANGELOG.md") {
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
		{"| 10.50 µs (1.09×) |", "10.50=us(API/launch_sync) 1.09=x(API/launch_sync-16, Native/launch_sync)", true},
		{"| 10.50 µs (1.09×) |", "1.09=x(API/launch_sync-16, Native/launch_sync)", false}, // 10.50 µs not given
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
		"goos: linux\nBenchmarkG-16 \t 1\t 440480 ns/op\t 4.405 us/kernel\n" +
		"primitive       type                    n    hipgo_us      cub_us     cupy_us cub/hipgo\n" +
		"add             float32           1048576        5.62        4.94       15.02    0.879x\n" +
		"exclusive_sum   float32           1048576       33.39        9.74           -    0.292x\n" +
		"cupy C2C/n=2^10/batch=4096 us=26.54 rounds=30.50,26.34,26.60,26.27,26.54\n" +
		"BenchmarkF-16 \t 9742\t 26053 ns/op\nBenchmarkF-16 \t 9742\t 25998 ns/op\nBenchmarkF-16 \t 9742\t 25975 ns/op\n"
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
		// prims_summary.py's table: a row's hipgo_us, cub_us, cupy_us; "-" is no sample.
		{"| 5.62 µs / 4.94 µs (0.88×) |", "5.62=us(add float32 1048576@hipgo_us) 4.94=us(add float32 1048576@cub_us) 0.88=x(add float32 1048576@cub_us, add float32 1048576@hipgo_us)", true},
		{"| 15.02 µs |", "15.02=us(add float32 1048576@cupy_us)", true},
		{"| 15.02 µs |", "15.02=us(add float32 1048576)", false},                 // the row has no ns/op
		{"| 9.74 µs |", "9.74=us(exclusive_sum float32 1048576@cupy_us)", false}, // CuPy's "-"
		// fftrand_cupy.py's lines: one sample a round, in us.
		{"| 26.54 µs |", "26.54=us(cupy C2C/n=2^10/batch=4096@us)", true},
		{"| 26.27 / 30.50 µs |", "26.27=usmin(cupy C2C/n=2^10/batch=4096@us) 30.50=usmax(cupy C2C/n=2^10/batch=4096@us)", true},
		{"| 1.02× |", "1.02=x(cupy C2C/n=2^10/batch=4096@us, F)", true},
		{"| 0.036 |", "0.036=mw(F, cupy C2C/n=2^10/batch=4096@us)", true}, // 3 against 5, apart
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

// mannWhitneyP gives what github.com/aclements/go-moremath's
// MannWhitneyUTest (benchstat's test) gives for the same samples: exact
// without ties, exact with ties, and the normal approximation.
func TestMannWhitneyP(t *testing.T) {
	var g, h []float64
	for i := range 60 {
		g = append(g, float64(i%17))
		h = append(h, float64(i%13)+2)
	}
	for _, c := range []struct {
		a, b []float64
		p    float64
	}{
		{[]float64{20884, 21711, 22141, 22229, 23432, 23736}, []float64{20984, 23448, 23878, 24004, 24060, 24336}, 0.06493506493506494},
		{[]float64{935.7, 1051, 902.9}, []float64{988.0, 1000.7, 955.7}, 0.7},
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},                                             // three against three: never below 0.05
		{[]float64{1, 2, 2, 3, 5, 5, 7}, []float64{2, 4, 5, 6, 8, 8, 9, 10}, 0.05314685314685315}, // ties: 0.0519 the other way round, as in moremath
		{g, h, 0.6472315988181103},
		{[]float64{1, 1}, []float64{1, 1}, 1},
	} {
		assert.InDelta(t, c.p, mannWhitneyP(c.a, c.b), 1e-9, "%v against %v", c.a, c.b)
	}
}

// A paragraph's figures are given by its from: comments or named by a
// not measured comment; a bound is a target; a claim of faster or slower
// from a file needs an mw figure below 0.05.
func TestCheckProse(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
	data := "BenchmarkA\t1\t100 ns/op\nBenchmarkA\t1\t101 ns/op\nBenchmarkA\t1\t102 ns/op\nBenchmarkA\t1\t103 ns/op\n" +
		"BenchmarkB\t1\t200 ns/op\nBenchmarkB\t1\t201 ns/op\nBenchmarkB\t1\t202 ns/op\nBenchmarkB\t1\t203 ns/op\n" +
		"BenchmarkC\t1\t150 ns/op\nBenchmarkC\t1\t300 ns/op\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "a.txt"), []byte(data), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run", "b.txt"), []byte("BenchmarkA\t1\t50 ns/op\n"), 0o644))
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"A takes 0.10 µs.", false}, // no comment
		{"A takes 0.10 µs and B 0.20 µs.\n<!-- from: results/run/a.txt 0.10=us(A) -->", false}, // B's not given
		{"A takes 0.10 µs and B 0.20 µs.\n<!-- from: results/run/a.txt 0.10=us(A) 0.20=us(B) -->", true},
		{"A takes 0.10\nµs, over two lines. <!-- from: results/run/a.txt 0.10=us(A) -->", true},
		{"The target is ≤ 1.05× and < 1 µs.", true}, // bounds
		{"A 4096×4096 matrix, 4 × 4 tiles.", true},  // dimensions, products
		{"A sleeps 1 ms. <!-- not measured, a setting: 1 ms -->", true},
		{"A sleeps 1 ms and 2 ms. <!-- not measured, a setting: 1 ms -->", false},
		{"A sleeps 1 ms. <!-- not measured, a setting -->", false}, // names no figure
		{"`go test -bench A` prints `100 ns/op`.", true},           // code
		{"```\nBenchmarkA 1 100 ns/op\n```", true},                 // a fenced block
		{"A is 2×\nfaster than B. <!-- from: results/run/a.txt 2=x(B, A) -->", false},
		{"A is 2× faster than B (p = 0.03). <!-- from: results/run/a.txt 2=x(B, A) 0.03=mw(B, A) -->", true},
		{"C is 2.5× slower than A (p = 0.13). <!-- from: results/run/a.txt 2.5=x(C, A) 0.13=mw(C, A) -->", false},
		{"| 2× faster | <!-- from: results/run/a.txt 2=x(B, A) -->", false}, // a row too
		{"| A | 0.10 µs |", false}, // a row with no comment
		{"| A | 1 ms | <!-- not measured, a setting: 1 ms -->", true},
		{"| 2× faster (p = 0.03) | <!-- from: results/run/a.txt 2=x(B, A) 0.03=mw(B, A) -->", true},
		{"| 2× faster | p = 0.03 | <!-- from: results/run/a.txt 2=x(B, A) 0.03=mw(B, A) -->", false},              // p in another cell
		{"A is 2× faster than B. Its p is 0.03. <!-- from: results/run/a.txt 2=x(B, A) 0.03=mw(B, A) -->", false}, // p in another sentence
		{"A is 2× faster than B (p = 0.03). C is slower than A (2.5×, p = 0.13). <!-- from: results/run/a.txt 2=x(B, A) 0.03=mw(B, A) 2.5=x(C, A) 0.13=mw(C, A) -->", false},
		{"A is faster than B: we think so.", true}, // no number, no file: not a figure
		// B%N reads one file, [i:j] some samples, xmin/xmax each sample against each.
		{"0.05 µs against 0.10 µs, 0.49×. <!-- from: results/run/b.txt a.txt 0.05=us(A%1) 0.10=us(A%2) 0.49=x(A%1, A%2) -->", true},
		{"0.05 µs. <!-- from: results/run/b.txt a.txt 0.05=us(A%3) -->", false},
		{"0.10 µs and 0.10 µs. <!-- from: results/run/a.txt 0.10=us(A[1:2]) 0.10=us(A[3:4]) -->", true},
		{"0.10 µs. <!-- from: results/run/a.txt 0.10=us(A[3:5]) -->", false},
		{"1.9× to 2.0×. <!-- from: results/run/a.txt 1.9=xmin(B, A) 2.0=xmax(B, A) -->", true},
		{"0.10 to 0.30 µs. <!-- from: results/run/a.txt 0.10=usmin(A) 0.30=usmax(C) -->", true},
	} {
		_, bad := checkFigures("doc.md", c.text, dir, map[string]benchFile{})
		if c.ok {
			assert.Empty(t, bad, c.text)
		} else {
			assert.NotEmpty(t, bad, c.text)
		}
	}
}
