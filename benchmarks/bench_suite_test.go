package benchmarks

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

// The suite's shape: a family is one Benchmark function; it runs each of
// its impls (hipgo's and its peers') at each of its sizes as
// Benchmark<Family>/impl=<impl>/<label(size)>. An impl builds a workload
// once per sub-benchmark; the loop times its step.

// workload is one measured operation, set up once.
type workload struct {
	step  func() error // one operation: what the benchmark loop times
	flush func() error // if set, timed once after the b.N steps (a final Synchronize)
	check func() error // if set, verifies the result after the loop
	close func() error // if set, releases what the workload holds
	bytes int64        // bytes moved per step, for b.SetBytes; 0: none
	flops float64      // floating-point operations per step; reported as GFLOP/s
}

// run executes the workload's step n times and its flush, then checks it.
// Tests use it; benchmarks time the same calls.
func (w *workload) run(n int) error {
	for range n {
		if err := w.step(); err != nil {
			return err
		}
	}
	if w.flush != nil {
		if err := w.flush(); err != nil {
			return err
		}
	}
	if w.check != nil {
		return w.check()
	}
	return nil
}

func (w *workload) release() error {
	if w.close != nil {
		return w.close()
	}
	return nil
}

// env is what hipgo impls run on: the selected device, two streams and the
// kernel library. Peers ignore it.
type env struct {
	dev  *gpu.Device
	s, t *stream.Stream
	k    *kernels.Set
}

// newEnv opens the runtime for one top-level benchmark. go test applies
// -cpu to each leaf sub-benchmark, so the cpu agent's workers may outnumber
// GOMAXPROCS; GOMAXPROCS still bounds how many run at once.
func newEnv() (*env, error) {
	dev, err := gpu.Default()
	if err != nil {
		return nil, err
	}
	e := &env{dev: dev}
	if e.k, err = kernels.Load(dev); err != nil {
		return nil, err
	}
	if e.s, err = stream.New(dev); err != nil {
		return nil, err
	}
	if e.t, err = stream.New(dev); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *env) close() error {
	for _, s := range []*stream.Stream{e.s, e.t} {
		if s != nil {
			_ = s.Destroy()
		}
	}
	return gpu.Shutdown()
}

// isCPU reports whether the device is the software agent.
func (e *env) isCPU() bool { return e.dev.Properties().IsCPU }

// impl is one implementation of a family's operation.
type impl struct {
	name string // "hipgo", "hipgo-pinned", "goloop", "gonum", ...
	mk   func(e *env, size int) (*workload, error)
}

// isPeer reports whether the impl is a peer rather than hipgo's.
func (i impl) isPeer() bool { return len(i.name) < 5 || i.name[:5] != "hipgo" }

// family is one Benchmark function's table.
type family struct {
	name  string
	sizes func(e *env) []int    // the sizes to run, given the device and flags
	label func(size int) string // nil: one size (0), no size level in the name
	impls []impl
	small int // the size TestWorkloads runs
}

// runFamily runs every impl of f at every size as a sub-benchmark. Host
// peers run on the cpu agent only, where they share the machine with
// hipgo; HIPGO_BENCH_PEERS=1 runs them beside a GPU too.
func runFamily(b *testing.B, f *family) {
	e, err := newEnv()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := e.close(); err != nil {
			b.Error(err)
		}
	})
	peers := e.isCPU() || os.Getenv("HIPGO_BENCH_PEERS") == "1"
	for _, im := range f.impls {
		if im.isPeer() && !peers {
			continue
		}
		b.Run("impl="+im.name, func(b *testing.B) {
			if f.label == nil {
				measure(b, e, im, 0)
				return
			}
			for _, size := range f.sizes(e) {
				b.Run(f.label(size), func(b *testing.B) { measure(b, e, im, size) })
			}
		})
	}
}

// measure times one workload. A workload with a flush (back-to-back
// launches) is timed as b.N steps plus the flush; any other with b.Loop,
// so that its setup runs once.
func measure(b *testing.B, e *env, im impl, size int) {
	w, err := im.mk(e, size)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := w.release(); err != nil {
			b.Error(err)
		}
	}()
	if w.bytes > 0 {
		b.SetBytes(w.bytes)
	}
	b.ReportAllocs()
	// One untimed step first: the first touch of fresh memory (page
	// faults) and first-use setup are not what a step costs.
	if err := w.step(); err != nil {
		b.Fatal(err)
	}
	if w.flush != nil {
		if err := w.flush(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if err := w.step(); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.flush(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
	} else {
		for b.Loop() {
			if err := w.step(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if w.flops > 0 && b.Elapsed() > 0 {
		b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	if w.check != nil {
		if err := w.check(); err != nil {
			b.Fatal(err)
		}
	}
}

// Sizes. The cpu agent here has 2 cores and 24 GiB: transfers stop at 256
// MiB there unless HIPGO_BENCH_LARGE=1; -short stops them at 16 MiB and
// the element-wise kernels at 2^24.

func large(e *env) bool { return !e.isCPU() || os.Getenv("HIPGO_BENCH_LARGE") == "1" }

// elements is the element counts of the element-wise kernels and reductions.
func elements(*env) []int {
	s := []int{1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24}
	if !testing.Short() {
		s = append(s, 1<<26)
	}
	return s
}

// transferSizes is the byte sizes of copies: 4 KiB to 1 GiB.
func transferSizes(e *env) []int {
	s := []int{4 << 10, 64 << 10, 1 << 20, 16 << 20}
	if !testing.Short() {
		s = append(s, 256<<20)
		if large(e) {
			s = append(s, 1<<30)
		}
	}
	return s
}

// allocSizes is the byte sizes of allocation and free.
func allocSizes(*env) []int {
	s := []int{4 << 10, 1 << 20}
	if !testing.Short() {
		s = append(s, 256<<20)
	}
	return s
}

// elemLabel names an element count: "n=1048576".
func elemLabel(n int) string { return "n=" + strconv.Itoa(n) }

// byteLabel names a byte size: "size=4KiB", "size=256MiB", "size=1GiB".
func byteLabel(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("size=%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("size=%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("size=%dKiB", n>>10)
	}
	return fmt.Sprintf("size=%dB", n)
}

// parallelFor splits [0, n) into GOMAXPROCS contiguous chunks and runs f
// on chunk p, [lo, hi), in a goroutine of its own: the plain parallel Go
// loop of the peers.
func parallelFor(n int, f func(p, lo, hi int)) {
	procs := runtime.GOMAXPROCS(0)
	if procs == 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range procs {
		lo, hi := p*n/procs, (p+1)*n/procs
		wg.Go(func() { f(p, lo, hi) })
	}
	wg.Wait()
}

// TestMain writes the run's device, date, Go version and flags as
// configuration lines ("key: value", as benchfmt reads them) ahead of the
// results, so the report knows which driver produced a file and how.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		// Programs launch unchecked (checked mode is a test binary's
		// default): the figures are theirs.
		kernels.SetChecked(false)
		if dev, err := gpu.Default(); err == nil {
			p := dev.Properties()
			fmt.Printf("hipgo-driver: %s\nhipgo-device: %s\n", p.Driver, p.Name)
		}
		_ = gpu.Shutdown()
		fmt.Printf("hipgo-date: %s\nhipgo-go: %s\nhipgo-cores: %d\nhipgo-flags: %s\n",
			time.Now().UTC().Format(time.RFC3339), runtime.Version(), runtime.NumCPU(), strings.Join(os.Args[1:], " "))
		// Other work on the machine skews every figure; say how busy it was.
		if b, err := os.ReadFile("/proc/loadavg"); err == nil {
			fmt.Printf("hipgo-loadavg: %s\n", strings.TrimSpace(string(b)))
		}
	}
	testenv.Main(m)
}
