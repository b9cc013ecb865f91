package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// A run is one input file: its configuration and its results.
type run struct {
	File    string
	Config  map[string]string // "goos", "goarch", "cpu", "pkg", "hipgo-driver", "hipgo-date", ...
	Results []result
	Units   benchfmt.UnitMetadataMap // the file's "Unit" lines (better=, assume=)
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
	Values map[string]float64 // unit as written -> value: "ns/op", "MB/s", "GFLOP/s", "B/op", ...
	// Key is the result's group, projected by benchproc: results with
	// equal keys are samples of one benchmark, whichever file they are in.
	Key benchproc.Key
}

// The internal configuration keys canonical sets on each result, and the
// projection that groups results by them.
const (
	cfgDriver = ".driver"
	cfgFamily = ".family"
	cfgImpl   = ".impl"
	cfgParam  = ".param"
)

// grouping is the benchproc projection of a result onto the report's key.
type grouping struct {
	proj                               *benchproc.Projection
	driver, family, impl, param, procs *benchproc.Field
}

// groups is parsed once: keys of one projection compare equal across files.
var groups = sync.OnceValues(func() (*grouping, error) {
	var pp benchproc.ProjectionParser
	filter, err := benchproc.NewFilter("*")
	if err != nil {
		return nil, err
	}
	proj, err := pp.Parse(strings.Join([]string{cfgDriver, cfgFamily, cfgImpl, cfgParam, "/gomaxprocs"}, ","), filter)
	if err != nil {
		return nil, fmt.Errorf("projection: %w", err)
	}
	f := proj.Fields()
	return &grouping{proj, f[0], f[1], f[2], f[3], f[4]}, nil
})

// parse reads go test -bench output (or any file of Go benchmark lines, such
// as benchmarks/peers' native and CuPy programs write) with benchfmt. Lines
// that are neither configuration nor results (PASS, ok, logs) are skipped,
// and so is a line that starts with Benchmark but has no iteration count (a
// benchmark's log output); a result line with a malformed measurement, or
// without ns/op, is an error.
func parse(r io.Reader, file string) (*run, error) {
	g, err := groups()
	if err != nil {
		return nil, err
	}
	rn := &run{File: file, Config: map[string]string{}}
	br := benchfmt.NewReader(r, file)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			if strings.Contains(rec.Msg, "iteration count") {
				continue
			}
			return nil, rec
		case *benchfmt.Result:
			res, err := fromBenchfmt(rec, g)
			if err != nil {
				_, line := rec.Pos()
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			for _, c := range rec.Config {
				if c.File {
					rn.Config[c.Key] = string(c.Value)
				}
			}
			rn.Results = append(rn.Results, res)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	rn.Units = maps.Clone(br.Units())
	return rn, nil
}

// fromBenchfmt copies what the report keeps of r (which the reader reuses)
// and projects it onto its group.
func fromBenchfmt(r *benchfmt.Result, g *grouping) (result, error) {
	base, parts := r.Name.Parts()
	res := result{Procs: 1, Iters: r.Iters, Values: map[string]float64{}}
	name := string(base)
	for _, p := range parts {
		if p[0] == '-' {
			continue // the GOMAXPROCS suffix, projected as /gomaxprocs
		}
		name += string(p)
	}
	res.Name = name
	for _, v := range r.Values {
		// benchfmt tidies units (ns/op to sec/op, MB/s to B/s); the
		// report speaks in the units as written.
		if v.OrigUnit != "" {
			res.Values[v.OrigUnit] = v.OrigValue
		} else {
			res.Values[v.Unit] = v.Value
		}
	}
	if _, ok := res.Values["ns/op"]; !ok {
		return res, fmt.Errorf("benchmark %s: no ns/op", name)
	}
	res.Driver = r.GetConfig("hipgo-driver")
	canonical(&res)
	r.SetConfig(cfgDriver, res.Driver)
	r.SetConfig(cfgFamily, res.Family)
	r.SetConfig(cfgImpl, res.Impl)
	r.SetConfig(cfgParam, res.Param)
	res.Key = g.proj.Project(r)
	if p := res.Key.Get(g.procs); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return res, errors.New("benchmark " + name + ": bad GOMAXPROCS " + strconv.Quote(p))
		}
		res.Procs = n
	}
	return res, nil
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
