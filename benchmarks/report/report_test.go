package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cpuSample = `hipgo-driver: cpu
hipgo-device: hipgo software agent (2 workers)
hipgo-date: 2026-11-29T15:00:00Z
hipgo-flags: -test.bench=. -test.count=2 -test.cpu=1,2
goos: linux
goarch: amd64
pkg: github.com/hipgo/hipgo/benchmarks
cpu: AMD EPYC
BenchmarkVectorAdd/impl=hipgo/n=16777216         	     100	   4000000 ns/op	50331.65 MB/s	     112 B/op	       1 allocs/op
BenchmarkVectorAdd/impl=hipgo/n=16777216         	     100	   6000000 ns/op	33554.43 MB/s	     112 B/op	       1 allocs/op
BenchmarkVectorAdd/impl=hipgo/n=16777216-2       	     100	   3000000 ns/op	67108.86 MB/s	     112 B/op	       1 allocs/op
BenchmarkVectorAdd/impl=goloop/n=16777216        	     100	   4500000 ns/op	44739.24 MB/s	     240 B/op	       6 allocs/op
BenchmarkVectorAdd/impl=goloop/n=16777216-2      	     100	   2000000 ns/op	100663.30 MB/s	     240 B/op	       6 allocs/op
BenchmarkLaunchSync/impl=hipgo-2                 	 1000000	      1634 ns/op	       0 B/op	       0 allocs/op
BenchmarkLaunchSync/impl=goroutine-2             	 3000000	       368.4 ns/op	      24 B/op	       1 allocs/op
BenchmarkSgemm/impl=hipgo/n=1024-2               	       2	 545501549 ns/op	         3.937 GFLOP/s	     149 B/op	       1 allocs/op
BenchmarkSgemm/impl=gonum/n=1024-2               	      12	  97655219 ns/op	        21.99 GFLOP/s	   53376 B/op	     514 allocs/op
BenchmarkCopyH2D/impl=hipgo-pinned/size=4KiB-2   	 1000000	       852.3 ns/op	4806.07 MB/s	       0 B/op	       0 allocs/op
BenchmarkCopyH2D/impl=memmove/size=4KiB-2        	30000000	        34.29 ns/op	119467.01 MB/s	       0 B/op	       0 allocs/op
BenchmarkAlloc/impl=hipgo/size=4KiB-2            	 1000000	       781.3 ns/op	     256 B/op	       6 allocs/op
--- BENCH: BenchmarkSomething
    a log line
PASS
ok  	github.com/hipgo/hipgo/benchmarks	161.240s
`

// The H200's files: the suite under HIPGO_DRIVER=cuda, and benchmarks/peers'
// native C and CuPy lines, which have no configuration or -N suffix.
const cudaSuite = `hipgo-driver: cuda
hipgo-device: NVIDIA H200
goos: linux
goarch: amd64
BenchmarkLaunchSync/impl=hipgo-16     	  100000	     10000 ns/op	       0 B/op	       0 allocs/op
BenchmarkLaunchAsync/impl=hipgo-16    	 1000000	      5000 ns/op	       0 B/op	       0 allocs/op
BenchmarkVectorAdd/impl=hipgo/n=67108864-16 	     300	    240000 ns/op	3355443.20 MB/s	       0 B/op	       0 allocs/op
BenchmarkCUDA/launch_sync-16          	  100000	     11000 ns/op	       0 B/op	       0 allocs/op
`

const nativeSample = `BenchmarkNative/launch_sync	20000	9300.0 ns/op
BenchmarkNative/launch_async	100000	4000.0 ns/op
BenchmarkNative/cross_queue	20000	19800.0 ns/op
BenchmarkNative/vector_add	300	240240.0 ns/op	3352000.00 MB/s
BenchmarkNative/unknown_metric	300	1.0 ns/op
`

func mustParse(t *testing.T, text, name string) *run {
	t.Helper()
	rn, err := parse(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	return rn
}

func TestParse(t *testing.T) {
	rn := mustParse(t, cpuSample, "cpu.txt")
	if got := rn.Config["cpu"]; got != "AMD EPYC" {
		t.Errorf("cpu = %q", got)
	}
	if got := rn.Config["hipgo-driver"]; got != "cpu" {
		t.Errorf("hipgo-driver = %q", got)
	}
	if len(rn.Results) != 12 {
		t.Fatalf("%d results, want 12", len(rn.Results))
	}
	r := rn.Results[2]
	if r.Family != "VectorAdd" || r.Impl != "hipgo" || r.Param != "n=16777216" || r.Procs != 2 || r.Driver != "cpu" {
		t.Errorf("result 2 = %+v", r)
	}
	if r.Values["MB/s"] != 67108.86 || r.Values["allocs/op"] != 1 {
		t.Errorf("values = %v", r.Values)
	}
	if r := rn.Results[0]; r.Procs != 1 {
		t.Errorf("no suffix: procs %d, want 1", r.Procs)
	}
	if r := rn.Results[5]; r.Family != "LaunchSync" || r.Param != "" || r.Impl != "hipgo" || r.Procs != 2 {
		t.Errorf("launch = %+v", r)
	}
	if r := rn.Results[7]; r.Values["GFLOP/s"] != 3.937 {
		t.Errorf("sgemm = %v", r.Values)
	}

	nat := mustParse(t, nativeSample, "native.txt")
	if len(nat.Results) != 5 {
		t.Fatalf("native: %d results", len(nat.Results))
	}
	if r := nat.Results[3]; r.Family != "VectorAdd" || r.Impl != "native" || r.Param != "n=67108864" || r.Driver != "cuda" || r.Procs != 1 {
		t.Errorf("native vector_add = %+v", r)
	}
	if _, err := parse(strings.NewReader("BenchmarkX-2 10 abc ns/op\n"), "bad.txt"); err == nil {
		t.Error("a malformed value parsed")
	}
}

func TestParamValue(t *testing.T) {
	for p, want := range map[string]float64{"n=1024": 1024, "size=4KiB": 4096, "size=256MiB": 256 << 20, "size=1GiB": 1 << 30, "size=12B": 12} {
		if got, ok := paramValue(p); !ok || got != want {
			t.Errorf("paramValue(%q) = %v, %v", p, got, ok)
		}
	}
	if _, ok := paramValue("impl=x"); ok {
		t.Error("impl=x has a value")
	}
}

func TestMediansPairsTargets(t *testing.T) {
	runs := []*run{mustParse(t, cpuSample, "cpu.txt"), mustParse(t, cudaSuite, "h200.txt"), mustParse(t, nativeSample, "native.txt")}
	stats := collect(runs)
	h := find(stats, key{"cpu", "VectorAdd", "hipgo", "n=16777216", 1})
	if h == nil || h.N != 2 || h.Median["ns/op"] != 5e6 {
		t.Fatalf("median of two samples: %+v", h)
	}
	ps := pairs(stats)
	var vadd1, native []pair
	for _, p := range ps {
		if p.Hipgo == h {
			vadd1 = append(vadd1, p)
		}
		if p.Peer != nil && p.Peer.Impl == "native" {
			native = append(native, p)
		}
	}
	if len(vadd1) != 1 || vadd1[0].Peer.Impl != "goloop" || vadd1[0].Peer.Procs != 1 {
		t.Fatalf("vector_add pairs at GOMAXPROCS=1: %+v", vadd1)
	}
	if r := vadd1[0].ratio(); r != 0.9 {
		t.Errorf("vector_add ratio %v, want 0.9 (4.5 ms / 5 ms)", r)
	}
	// Native pairs with the suite's cuda results and BenchmarkCUDA's,
	// across GOMAXPROCS; cross_queue has no hipgo result to pair with.
	if len(native) != 4 {
		t.Errorf("%d pairs with native, want 4: %+v", len(native), native)
	}
	for _, p := range native {
		if p.Hipgo.Driver != "cuda" {
			t.Errorf("native paired with %+v", p.Hipgo.key)
		}
	}

	got := map[string]string{}
	for _, v := range evaluate(stats) {
		got[fmt.Sprintf("%s@%s/%d", v.Target.Text, v.Target.Driver, v.Procs)] = v.String()
	}
	for text, want := range map[string]string{
		"vector_add of 2^24 float32 ≥ 0.9× a parallel Go loop@cpu/1":                                              "**met**, by 0%",
		"vector_add of 2^24 float32 ≥ 0.9× a parallel Go loop@cpu/2":                                              "**missed**, by 26%",
		"sgemm 1024×1024 ≥ 1.0× gonum blas32.Gemm@cpu/2":                                                          "**missed**, by 82%",
		"empty dispatch + wait ≤ 1 µs median@cpu/2":                                                               "**missed**, by 63%",
		"small buffer allocate + free ≤ 1 µs@cpu/2":                                                               "**met**, by 22%",
		"launch + sync ≤ 1.05× native C@cuda/16":                                                                  "**missed**, by 2%",
		"async launch ≤ 1.1× native C@cuda/16":                                                                    "**missed**, by 14%",
		"vector_add of 2^26 bandwidth ≥ 0.98× native C@cuda/16":                                                   "**met**, by 2%",
		"cross-queue barrier-AND resolved ≤ 1.5 µs (measured: two launches, the barrier and a synchronize)@cpu/0": "not measured",
	} {
		if got[text] != want {
			t.Errorf("%s: %q, want %q", text, got[text], want)
		}
	}
}

func TestWriteReport(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"cpu.txt": cpuSample, "h200.txt": cudaSuite, "native.txt": nativeSample} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{filepath.Join(dir, "cpu.txt"), filepath.Join(dir, "h200.txt"), filepath.Join(dir, "native.txt")}
	if err := report(dir, files); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| VectorAdd | n=16777216 | 2 | hipgo | 67.1 GB/s | ∞ ¹ | goloop | 101 GB/s | ∞ ¹ | 0.67× | p=1.000 n=1 ² |",
		"| LaunchSync | — | 16 | hipgo | 10.0 µs | ∞ ¹ | native | 9.30 µs | ∞ ¹ | 1.08× | p=1.000 n=1 ² |",
		"¹ need >= 6 samples for confidence interval at level 0.95",
		"² need >= 4 samples to detect a difference at alpha level 0.05",
		"| cpu.txt | 2026-11-29T15:00:00Z | cpu | hipgo software agent (2 workers) | linux/amd64, AMD EPYC |",
		"![cpu-vector_add](cpu-vector_add.png)",
		"![cuda-latency](cuda-latency.png)",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("REPORT.md lacks %q:\n%s", want, md)
		}
	}
	for _, png := range []string{"cpu-vector_add.png", "cpu-latency.png", "cuda-vector_add.png", "cpu-sgemm.png"} {
		if fi, err := os.Stat(filepath.Join(dir, png)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", png, err)
		}
	}
}
