// Command report turns go test -bench output into hipgo's benchmark report:
// a Markdown table of medians and their confidence intervals with each
// hipgo result beside its peer, the ratio and its p-value, the performance
// targets of shared/DESIGN.md marked met or missed, and PNG plots (rate
// against size per kernel, launch latency) with the intervals as error bars.
// Parsing, grouping and statistics are golang.org/x/perf's benchfmt,
// benchproc and benchmath, the packages benchstat is built on.
//
//	go -C benchmarks/report run . [-o dir] [-base old.txt,...] file.txt...
//
// It is a module of its own, so that a program importing hipgo does not pull
// in plotting; relative paths are therefore from benchmarks/report. With no
// files it reads every run folder of the results directory,
// benchmarks/results/*/*.txt. It writes REPORT.md and the plots into -o, by
// default the first file's directory. With -base it also compares the files
// with an earlier run, as benchstat compares old and new: each benchmark in
// both gets its change and the p-value that says whether the change is more
// than noise.
//
// Files may mix drivers: the cpu agent's suite, the suite run with
// HIPGO_DRIVER=cuda, and the native C and CuPy programs of benchmarks/peers;
// rules.go says how their names are paired.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("o", "", "output directory (default: the first file's)")
	base := flag.String("base", "", "comma-separated files of an earlier run to compare with")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: report [-o dir] [-base old.txt,...] [file.txt ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	var baseFiles []string
	if *base != "" {
		baseFiles = strings.Split(*base, ",")
	}
	if err := report(*out, flag.Args(), baseFiles...); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// report writes REPORT.md and the plots for files into out; with base
// files it compares files against them.
func report(out string, files []string, base ...string) error {
	if len(files) == 0 {
		for _, dir := range []string{filepath.Join("benchmarks", "results"), filepath.Join("..", "results")} {
			var err error
			if files, err = filepath.Glob(filepath.Join(dir, "*", "*.txt")); err != nil {
				return err
			}
			if len(files) > 0 {
				break
			}
		}
		if len(files) == 0 {
			return fmt.Errorf("no files given and none in benchmarks/results")
		}
	}
	if out == "" {
		out = filepath.Dir(files[0])
	}
	var runs []*run
	n := 0
	for _, f := range files {
		rn, err := readRun(f)
		if err != nil {
			return err
		}
		runs = append(runs, rn)
		n += len(rn.Results)
	}
	if n == 0 {
		return fmt.Errorf("no benchmark results in %s", strings.Join(files, ", "))
	}
	stats := collect(runs)
	var baseStats []*stat
	if len(base) > 0 {
		var baseRuns []*run
		for _, f := range base {
			rn, err := readRun(f)
			if err != nil {
				return err
			}
			baseRuns = append(baseRuns, rn)
		}
		if baseStats = collect(baseRuns); len(baseStats) == 0 {
			return fmt.Errorf("no benchmark results in the base %s", strings.Join(base, ", "))
		}
	}
	plots, err := writePlots(out, stats)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	path := filepath.Join(out, "REPORT.md")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	command := "go run ./benchmarks/report " + strings.Join(os.Args[1:], " ")
	if err := writeMarkdown(f, runs, stats, baseStats, plots, strings.TrimSpace(command)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("%s: %d results, %d benchmarks; plots: %s\n", path, n, len(stats), strings.Join(plots, ", "))
	return nil
}

func readRun(path string) (*run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f, path)
}
