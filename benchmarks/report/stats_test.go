package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchLines writes one result line of name per time in ns/op, with the
// rate of bytes per operation when bytes is not zero.
func benchLines(name string, bytes float64, ns ...float64) string {
	var b strings.Builder
	for _, t := range ns {
		fmt.Fprintf(&b, "Benchmark%s \t 1000\t %.1f ns/op", name, t)
		if bytes != 0 {
			fmt.Fprintf(&b, "\t%.2f MB/s", bytes/t*1e3)
		}
		b.WriteString("\t0 B/op\t0 allocs/op\n")
	}
	return b.String()
}

const cpuHeader = "hipgo-driver: cpu\nhipgo-date: 2026-12-02T08:00:00Z\ngoos: linux\ngoarch: amd64\n"

// TestParseResultsFile reads a file of the results folder as written by
// the suite: its configuration, names, units and GOMAXPROCS suffixes, and
// three samples a benchmark, too few for a confidence interval.
func TestParseResultsFile(t *testing.T) {
	rn, err := readRun(filepath.Join("..", "results", "cpu-20261129", "sgemm.txt"))
	require.NoError(t, err)
	assert.Equal(t, "cpu", rn.Config["hipgo-driver"])
	assert.Equal(t, "2", rn.Config["hipgo-cores"])
	assert.Equal(t, "AMD EPYC", rn.Config["cpu"])
	require.Len(t, rn.Results, 60)
	r := rn.Results[0]
	assert.Equal(t, result{Name: "Sgemm/impl=hipgo/n=64", Family: "Sgemm", Impl: "hipgo", Param: "n=64", Procs: 1, Driver: "cpu", Iters: 10000,
		Values: map[string]float64{"ns/op": 54957, "GFLOP/s": 9.54, "B/op": 45, "allocs/op": 0}, Key: r.Key}, r)
	assert.Equal(t, 2, rn.Results[3].Procs, "the -2 suffix")
	assert.Equal(t, r.Key, rn.Results[1].Key, "samples of one benchmark share a key")
	assert.NotEqual(t, r.Key, rn.Results[3].Key, "GOMAXPROCS 1 and 2 are two benchmarks")

	stats := collect([]*run{rn})
	h := find(stats, key{"cpu", "Sgemm", "hipgo", "n=64", 1})
	require.NotNil(t, h)
	assert.Equal(t, 3, h.N)
	assert.InDelta(t, 43538, h.Median["ns/op"], 1e-9)
	sum, ok := h.interval(throughput)
	require.True(t, ok)
	assert.InDelta(t, 12.04, sum.Center, 1e-9)
	assert.True(t, math.IsInf(sum.Lo, -1) && math.IsInf(sum.Hi, 1), "three samples bound no 95%% interval: %+v", sum)
	require.Len(t, sum.Warnings, 1)
	assert.EqualError(t, sum.Warnings[0], "need >= 6 samples for confidence interval at level 0.95")
}

// TestParseSkipsLogLines keeps go test's own lines out of the results and
// fails on a result line whose measurement is not a number.
func TestParseSkipsLogLines(t *testing.T) {
	rn, err := parse(strings.NewReader(cpuHeader+
		"BenchmarkLaunchSync/impl=hipgo\n"+ // go test -v's start line
		"BenchmarkLaunchSync/impl=hipgo some log output\n"+
		benchLines("LaunchSync/impl=hipgo-2", 0, 900)+
		"--- BENCH: BenchmarkLaunchSync\nPASS\nok  \tgithub.com/hipgo/hipgo/benchmarks\t1.0s\n"), "log.txt")
	require.NoError(t, err)
	require.Len(t, rn.Results, 1)
	assert.Equal(t, 2, rn.Results[0].Procs)

	_, err = parse(strings.NewReader(cpuHeader+"BenchmarkLaunchSync/impl=hipgo 10 abc ns/op\n"), "bad.txt")
	assert.ErrorContains(t, err, "bad.txt:5")
	_, err = parse(strings.NewReader(cpuHeader+"BenchmarkLaunchSync/impl=hipgo 10 5 MB/s\n"), "rate.txt")
	assert.ErrorContains(t, err, "no ns/op")
}

// TestConfidenceInterval: six samples bound the median's 95% interval by
// the smallest and the largest, and the table shows both bounds.
func TestConfidenceInterval(t *testing.T) {
	dir := t.TempDir()
	text := cpuHeader +
		benchLines("LaunchSync/impl=hipgo-2", 0, 1300, 1000, 1500, 1200, 1100, 1400) +
		benchLines("LaunchSync/impl=goroutine-2", 0, 400, 410, 420, 430, 440, 450)
	path := filepath.Join(dir, "suite.txt")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	rn, err := readRun(path)
	require.NoError(t, err)
	stats := collect([]*run{rn})
	h := find(stats, key{"cpu", "LaunchSync", "hipgo", "", 2})
	require.NotNil(t, h)
	sum, ok := h.interval(latency)
	require.True(t, ok)
	assert.InDelta(t, 1.25, sum.Center, 1e-9)
	assert.InDelta(t, 1.0, sum.Lo, 1e-9)
	assert.InDelta(t, 1.5, sum.Hi, 1e-9)
	assert.GreaterOrEqual(t, sum.Confidence, 0.95)
	assert.Empty(t, sum.Warnings)

	require.NoError(t, report(dir, []string{path}))
	md, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	require.NoError(t, err)
	// hipgo is slower in every sample: the U test's smallest p for 6 + 6.
	assert.Contains(t, string(md), "| LaunchSync | — | 2 | hipgo | 1.25 µs | 1.00–1.50 (± 20%) | goroutine | 0.425 µs | 0.400–0.450 (± 6%) | 2.94× | p=0.002 n=6 |")
	assert.NotContains(t, string(md), "need >=", "six samples draw no warning")
	fi, err := os.Stat(filepath.Join(dir, "cpu-latency.png"))
	require.NoError(t, err)
	assert.Positive(t, fi.Size())
}

// TestTooFewSamples: with two samples each the table shows no bound and
// says why, and the comparison says how many samples a difference needs.
func TestTooFewSamples(t *testing.T) {
	stats := collect([]*run{mustParse(t, cpuHeader+
		benchLines("LaunchSync/impl=hipgo-2", 0, 1000, 1100)+
		benchLines("LaunchSync/impl=goroutine-2", 0, 400, 410), "few.txt")})
	var b strings.Builder
	require.NoError(t, writeMarkdown(&b, nil, stats, nil, nil, "report"))
	md := b.String()
	assert.Contains(t, md, "| LaunchSync | — | 2 | hipgo | 1.05 µs | ∞ ¹ | goroutine | 0.405 µs | ∞ ¹ | 2.59× | p=0.333 n=2 ² |")
	assert.Contains(t, md, "¹ need >= 6 samples for confidence interval at level 0.95\n")
	assert.Contains(t, md, "² need >= 4 samples to detect a difference at alpha level 0.05\n")
	assert.NotContains(t, md, "Changes against the base run", "no base, no comparison")
}

// TestBaseComparison compares a run with an earlier one, as benchstat
// compares old and new: a change where every sample moved, "~" where the
// samples overlap, and no row for a benchmark the base lacks.
func TestBaseComparison(t *testing.T) {
	dir := t.TempDir()
	const n = 1 << 20
	old := cpuHeader +
		benchLines("VectorAdd/impl=hipgo/n=1048576-2", 12*n, 1000e3, 1010e3, 1020e3, 1030e3, 1040e3, 1050e3) +
		benchLines("LaunchSync/impl=hipgo-2", 0, 1000, 1100, 1200, 1300, 1400, 1500)
	new := cpuHeader +
		benchLines("VectorAdd/impl=hipgo/n=1048576-2", 12*n, 800e3, 808e3, 816e3, 824e3, 832e3, 840e3) +
		benchLines("LaunchSync/impl=hipgo-2", 0, 1050, 1150, 1250, 1350, 1450, 1550) +
		benchLines("Alloc/impl=hipgo/size=4KiB-2", 0, 700, 710, 720, 730, 740, 750)
	oldPath, newPath := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	require.NoError(t, os.WriteFile(oldPath, []byte(old), 0o644))
	require.NoError(t, os.WriteFile(newPath, []byte(new), 0o644))
	require.NoError(t, report(dir, []string{newPath}, oldPath))
	mdBytes, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	require.NoError(t, err)
	md := string(mdBytes)
	_, changes, ok := strings.Cut(md, "## Changes against the base run")
	require.True(t, ok, "no changes section:\n%s", md)
	changes, _, _ = strings.Cut(changes, "## Plots")
	// Time fell by a fifth, so bandwidth rose by a quarter.
	assert.Contains(t, changes, "| VectorAdd | n=1048576 | 2 | hipgo | cpu | 12.3 GB/s | 12.0–12.6 (± 2%) | 15.3 GB/s | 15.0–15.7 (± 2%) | +25.00% | p=0.002 n=6 |")
	assert.Contains(t, changes, "| LaunchSync | — | 2 | hipgo | cpu | 1.25 µs | 1.00–1.50 (± 20%) | 1.30 µs | 1.05–1.55 (± 19%) | ~ | p=0.699 n=6 |")
	assert.NotContains(t, changes, "| Alloc |", "the base has no Alloc")

	err = report(dir, []string{newPath}, filepath.Join(dir, "missing.txt"))
	assert.ErrorContains(t, err, "missing.txt")
}
