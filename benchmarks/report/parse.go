package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A run is one input file: its configuration lines and its results.
type run struct {
	File    string
	Config  map[string]string // "goos", "goarch", "cpu", "pkg", "hipgo-driver", "hipgo-date", ...
	Results []result
}

// A result is one benchmark line, its name split into the suite's parts.
type result struct {
	Name   string // as written, without "Benchmark" and the -GOMAXPROCS suffix
	Family string // "VectorAdd"
	Impl   string // "hipgo", "goloop", "native", ...
	Param  string // "n=1048576", "size=4KiB", "" for one-size families
	Procs  int    // GOMAXPROCS: the -N suffix, 1 when absent
	Driver string // "cpu", "cuda", "rocm"; "" when unknown
	Iters  int
	Values map[string]float64 // unit -> value: "ns/op", "MB/s", "GFLOP/s", "B/op", ...
}

// configLine is benchfmt's "key: value" line; keys have no spaces and
// start with a lower-case letter.
var configLine = regexp.MustCompile(`^([a-z][^\s:]*):\s*(.*?)\s*$`)

// procsSuffix is go test's GOMAXPROCS suffix on a benchmark name.
var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// parse reads go test -bench output (or any file of Go benchmark lines, such
// as benchmarks/peers' native and CuPy programs write). Lines that are
// neither configuration nor results (PASS, ok, logs) are skipped.
func parse(r io.Reader, file string) (*run, error) {
	rn := &run{File: file, Config: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "Benchmark") {
			res, ok, err := parseResult(text)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			if ok {
				res.Driver = rn.Config["hipgo-driver"]
				canonical(&res)
				rn.Results = append(rn.Results, res)
			}
			continue
		}
		if m := configLine.FindStringSubmatch(text); m != nil {
			rn.Config[m[1]] = m[2]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return rn, nil
}

// parseResult reads "BenchmarkName-N  iters  v unit  v unit ...". A line
// that starts with Benchmark but has no iteration count (a benchmark's log
// output, "--- FAIL") is not a result: ok is false.
func parseResult(text string) (res result, ok bool, err error) {
	f := strings.Fields(text)
	if len(f) < 4 || len(f)%2 != 0 {
		return res, false, nil
	}
	iters, err := strconv.Atoi(f[1])
	if err != nil {
		return res, false, nil
	}
	name := strings.TrimPrefix(f[0], "Benchmark")
	res = result{Procs: 1, Iters: iters, Values: map[string]float64{}}
	if m := procsSuffix.FindStringSubmatchIndex(name); m != nil {
		res.Procs, _ = strconv.Atoi(name[m[2]:m[3]])
		name = name[:m[0]]
	}
	res.Name = name
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return res, false, fmt.Errorf("benchmark %s: value %q: %w", name, f[i], err)
		}
		res.Values[f[i+1]] = v
	}
	if _, ok := res.Values["ns/op"]; !ok {
		return res, false, fmt.Errorf("benchmark %s: no ns/op", name)
	}
	return res, true, nil
}

// canonical fills Family, Impl and Param: from the suite's
// Family/impl=X/key=value names, or through the foreign table for the
// names of other programs.
func canonical(r *result) {
	for _, f := range foreign {
		rest, ok := strings.CutPrefix(r.Name, f.Prefix)
		if !ok {
			continue
		}
		m, ok := f.Metrics[rest]
		if !ok {
			// A measurement the table does not place: its own family.
			m = foreignMetric{Family: rest}
		}
		r.Family, r.Impl, r.Param = m.Family, f.Impl, m.Param
		if f.Driver != "" {
			r.Driver = f.Driver
		}
		return
	}
	parts := strings.Split(r.Name, "/")
	r.Family = parts[0]
	var params []string
	for _, p := range parts[1:] {
		if v, ok := strings.CutPrefix(p, "impl="); ok {
			r.Impl = v
			continue
		}
		params = append(params, p)
	}
	r.Param = strings.Join(params, "/")
	if r.Impl == "" {
		// Not one of the suite's names: a benchmark of its own, shown as is.
		r.Impl = "hipgo"
	}
}

// paramValue is the numeric value of a parameter: n=1048576 gives 1048576,
// size=4KiB 4096, size=1GiB 1<<30. ok is false for anything else.
func paramValue(param string) (float64, bool) {
	_, v, ok := strings.Cut(param, "=")
	if !ok {
		return 0, false
	}
	mult := 1.0
	for _, s := range []struct {
		suffix string
		mult   float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}} {
		if t, ok := strings.CutSuffix(v, s.suffix); ok {
			v, mult = t, s.mult
			break
		}
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, false
	}
	return x * mult, true
}
