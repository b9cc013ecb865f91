package main

// The report's rules, as tables: what each family measures and how it is
// shown, how the names of programs outside the suite map onto the suite's,
// and the targets of shared/DESIGN.md. Adding the H200 figures, or a new
// peer, is a row here.
//
// Pairing: a result whose impl starts with "hipgo" is hipgo's; any other is
// a peer. Each hipgo result is paired with every peer result of the same
// driver, family and parameter, at the same GOMAXPROCS; a peer from the
// foreign table (a C or Python program, which has no GOMAXPROCS) pairs at
// every GOMAXPROCS.

// metric is how a family is measured and compared.
type metric int

const (
	latency    metric = iota // ns/op, shown in µs; lower is better; ratio = hipgo ÷ peer time
	bandwidth                // MB/s, shown in GB/s; higher is better; ratio = peer time ÷ hipgo time
	throughput               // GFLOP/s; higher is better; ratio = peer time ÷ hipgo time
)

// familyInfo describes one benchmark family.
type familyInfo struct {
	Name   string
	Title  string // for tables and plots
	Metric metric
	Axis   string // the size's meaning on a plot's x axis
	Plot   string // file name of its plot ("" for none: latency families share one)
}

// families lists the suite's families in report order. A family that is not
// here (a new benchmark) is reported after them as latency.
var families = []familyInfo{
	{"LaunchSync", "empty kernel: launch + synchronize", latency, "", ""},
	{"LaunchAsync", "empty kernel: back-to-back launch (per launch)", latency, "", ""},
	{"CrossStream", "cross-stream dependency + synchronize", latency, "", ""},
	{"Alloc", "allocate + free", latency, "bytes", ""},
	{"CopyH2D", "copy host → device", bandwidth, "bytes", "copy_h2d"},
	{"CopyD2H", "copy device → host", bandwidth, "bytes", "copy_d2h"},
	{"CopyD2D", "copy device → device", bandwidth, "bytes", "copy_d2d"},
	{"VectorAdd", "vector_add (float32, 12n bytes)", bandwidth, "elements", "vector_add"},
	{"Saxpy", "saxpy (float32, 12n bytes)", bandwidth, "elements", "saxpy"},
	{"ReduceSum", "reduce_sum (float32, 4n bytes; gonum: float64, 8n)", bandwidth, "elements", "reduce_sum"},
	{"Transpose", "transpose (square float32, 8n bytes)", bandwidth, "elements", "transpose"},
	{"Sgemm", "sgemm (square, n = m = k, 2n³ FLOPs)", throughput, "n (m = n = k)", "sgemm"},
}

func familyOf(name string) familyInfo {
	for _, f := range families {
		if f.Name == name {
			return f
		}
	}
	return familyInfo{Name: name, Title: name, Metric: latency}
}

// latencyPlot is the families drawn on the launch latency plot, with the
// parameter each is drawn at ("" for one-size families).
var latencyPlot = []struct{ Family, Param string }{
	{"LaunchSync", ""}, {"LaunchAsync", ""}, {"CrossStream", ""}, {"Alloc", "size=4KiB"},
}

// foreignMetric places one benchmark of another program in the suite.
type foreignMetric struct{ Family, Param string }

// foreignProgram maps the Benchmark<Prefix><metric> lines of a program
// outside this suite onto families, as results of Impl on Driver.
type foreignProgram struct {
	Prefix  string
	Impl    string
	Driver  string
	Metrics map[string]foreignMetric
}

// cudaMetrics are the four measurements of rocr/drivers/cuda's
// BenchmarkCUDA and of its native C and CuPy peers (benchmarks/peers):
// the empty kernel, and vector_add of 2^26 float32.
var cudaMetrics = map[string]foreignMetric{
	"launch_sync":  {"LaunchSync", ""},
	"launch_async": {"LaunchAsync", ""},
	"cross_queue":  {"CrossStream", ""},
	"vector_add":   {"VectorAdd", "n=67108864"},
}

var foreign = []foreignProgram{
	{"Native/", "native", "cuda", cudaMetrics},   // benchmarks/peers/native_cuda.c
	{"CuPy/", "cupy", "cuda", cudaMetrics},       // benchmarks/peers/cupy_peer.py
	{"CUDA/", "hipgo-rocr", "cuda", cudaMetrics}, // rocr/drivers/cuda: hipgo's core without gpu/*
}

// targetKind is how a target compares.
type targetKind int

const (
	atMost       targetKind = iota // hipgo's median ≤ Limit (ns)
	ratioAtLeast                   // hipgo ÷ peer in the family's metric ≥ Limit
	ratioAtMost                    // hipgo ÷ peer time ≤ Limit
)

// target is one performance target of shared/DESIGN.md ("Performance
// targets") or of issue 7.
type target struct {
	Text   string
	Driver string
	Family string
	Param  string
	Impl   string // hipgo's impl
	Peer   string // for ratio targets
	Kind   targetKind
	Limit  float64
}

var targets = []target{
	{"empty dispatch + wait ≤ 1 µs median", "cpu", "LaunchSync", "", "hipgo", "", atMost, 1000},
	{"cross-queue barrier-AND resolved ≤ 1.5 µs (measured: two launches, the barrier and a synchronize)", "cpu", "CrossStream", "", "hipgo", "", atMost, 1500},
	{"vector_add of 2^24 float32 ≥ 0.9× a parallel Go loop", "cpu", "VectorAdd", "n=16777216", "hipgo", "goloop", ratioAtLeast, 0.9},
	{"small buffer allocate + free ≤ 1 µs", "cpu", "Alloc", "size=4KiB", "hipgo", "", atMost, 1000},
	{"sgemm 1024×1024 ≥ 1.0× gonum blas32.Gemm", "cpu", "Sgemm", "n=1024", "hipgo", "gonum", ratioAtLeast, 1.0},
	{"vector_add of 2^26 bandwidth ≥ 0.98× native C", "cuda", "VectorAdd", "n=67108864", "hipgo", "native", ratioAtLeast, 0.98},
	{"launch + sync ≤ 1.05× native C", "cuda", "LaunchSync", "", "hipgo", "native", ratioAtMost, 1.05},
	{"async launch ≤ 1.1× native C", "cuda", "LaunchAsync", "", "hipgo", "native", ratioAtMost, 1.1},
}
