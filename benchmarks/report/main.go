// Command report turns go test -bench output into hipgo's benchmark report:
// a Markdown table of medians with each hipgo result beside its peer and
// the ratio, the performance targets of shared/DESIGN.md marked met or
// missed, and PNG plots (rate against size per kernel, launch latency).
//
//	go -C benchmarks/report run . [-o dir] file.txt...
//
// It is a module of its own, so that a program importing hipgo does not pull
// in plotting; relative paths are therefore from benchmarks/report. With no
// files it reads every run folder of the results directory,
// benchmarks/results/*/*.txt. It writes REPORT.md and the plots into -o, by
// default the first file's directory.
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
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: report [-o dir] [file.txt ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := report(*out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func report(out string, files []string) error {
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
	if err := writeMarkdown(f, runs, stats, plots, strings.TrimSpace(command)); err != nil {
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
