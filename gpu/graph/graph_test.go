package graph_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

// The tests run on the cpu agent unless HIPGO_DRIVER names another; the
// kernels come from the library, which every driver loads.
func TestMain(m *testing.M) { testenv.Main(m, testenv.DefaultEnv("HIPGO_DRIVER", "cpu")) }

const n = 1024

func setup(t testing.TB) (*gpu.Device, *kernels.Set) {
	t.Helper()
	dev, err := gpu.Default()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.Shutdown() })
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	return dev, ks
}

func newBuf(t testing.TB, dev *gpu.Device, v float32) *buffer.Buffer[float32] {
	t.Helper()
	b, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	in := make([]float32, n)
	for i := range in {
		in[i] = v
	}
	require.NoError(t, b.CopyFrom(in))
	return b
}

func read(t testing.TB, b *buffer.Buffer[float32]) []float32 {
	t.Helper()
	out := make([]float32, b.Len())
	require.NoError(t, b.CopyTo(out))
	return out
}

func saxpy(ks *kernels.Set, alpha float32, x, y *buffer.Buffer[float32]) graph.Kernel {
	return graph.Kernel{Func: ks.Saxpy, Grid: gpu.D1(gpu.Blocks(n, 256)), Block: gpu.D1(256), Args: []any{alpha, x, y, int32(n)}}
}

func codeOf(err error) gpu.ErrorCode { return gpu.CodeOf(err) }

// A graph of a fill, a chain of kernels, a copy and a host node gives what
// the same operations launched directly give, at every replay.
func TestReplayMatchesDirect(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	z := newBuf(t, dev, 0)
	g := graph.New()
	fill, err := graph.AddFill(g, y, float32(10))
	require.NoError(t, err)
	prev := fill
	for i := 0; i < 10; i++ {
		prev, err = g.AddKernel(saxpy(ks, float32(i), x, y), prev)
		require.NoError(t, err)
	}
	cp, err := g.AddCopy(z, 0, y, 0, n, prev)
	require.NoError(t, err)
	var hosts atomic.Int32
	_, err = g.AddHost(func() error { hosts.Add(1); return nil }, cp)
	require.NoError(t, err)
	_, err = g.AddEmpty(cp)
	require.NoError(t, err)
	assert.Equal(t, 14, g.Len())

	// Direct: the same work on a stream.
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	dy := newBuf(t, dev, 0)
	require.NoError(t, stream.Fill(s, dy, float32(10)))
	for i := 0; i < 10; i++ {
		require.NoError(t, kernels.LaunchSaxpy(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, float32(i), x, dy, n))
	}
	require.NoError(t, s.Synchronize())
	want := read(t, dy)
	assert.InDelta(t, 55.0, want[0], 1e-6)

	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, g.Destroy(), "an executable graph outlives its graph")
	for r := 0; r < 3; r++ {
		require.NoError(t, z.CopyFrom(make([]float32, n)))
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, want, read(t, y), "replay %d", r)
		assert.Equal(t, want, read(t, z), "replay %d", r)
	}
	assert.Equal(t, int32(3), hosts.Load())
	require.NoError(t, e.Launch(nil), "the default stream")
	require.NoError(t, dev.Synchronize())
	assert.Equal(t, want, read(t, z))
}

// Typed arguments (module.Args) work as LaunchKernelGGL's do, and a
// kernel node's launch is replaced between replays without instantiating
// again; a bad update is refused and leaves the node as it was.
func TestSetKernelParams(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	var args module.Args
	args.Float32(2).ConstPtr(x).Ptr(y).Int32(n)
	g := graph.New()
	k, err := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: gpu.D1(gpu.Blocks(n, 256)), Block: gpu.D1(256), Typed: &args})
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()

	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 2.0, read(t, y)[n-1], 1e-6)

	require.NoError(t, e.SetKernelParams(k, saxpy(ks, 5, x, y)))
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 7.0, read(t, y)[n-1], 1e-6)

	bad := saxpy(ks, 5, x, y)
	bad.Grid = gpu.D1(0)
	err = e.SetKernelParams(k, bad)
	assert.Equal(t, gpu.ErrInvalidConfiguration, codeOf(err), "%v", err)
	bad = saxpy(ks, 5, x, y)
	bad.Args[0] = int32(5)
	err = e.SetKernelParams(k, bad)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "%v", err)
	assert.ErrorContains(t, err, "saxpy")

	other := graph.New()
	k2, err := other.AddKernel(saxpy(ks, 1, x, y))
	require.NoError(t, err)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.SetKernelParams(k2, saxpy(ks, 1, x, y))))

	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 12.0, read(t, y)[n-1], 1e-6, "the refused updates changed nothing")
}

// Instantiate checks every node as a direct launch, copy or fill is
// checked, and names the node.
func TestInstantiateErrors(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	cases := map[string]struct {
		build func(g *graph.Graph) error
		code  gpu.ErrorCode
	}{
		"zero grid": {func(g *graph.Graph) error {
			k := saxpy(ks, 1, x, y)
			k.Grid = gpu.D1(0)
			_, err := g.AddKernel(k)
			return err
		}, gpu.ErrInvalidConfiguration},
		"huge block": {func(g *graph.Graph) error {
			k := saxpy(ks, 1, x, y)
			k.Block = gpu.D1(1 << 20)
			_, err := g.AddKernel(k)
			return err
		}, gpu.ErrInvalidConfiguration},
		"argument count": {func(g *graph.Graph) error {
			_, err := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: gpu.D1(1), Block: gpu.D1(1), Args: []any{float32(1)}})
			return err
		}, gpu.ErrInvalidValue},
		"argument type": {func(g *graph.Graph) error {
			_, err := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: gpu.D1(1), Block: gpu.D1(1), Args: []any{x, x, y, int32(n)}})
			return err
		}, gpu.ErrInvalidValue},
		"copy of a freed buffer": {func(g *graph.Graph) error {
			b := newBuf(t, dev, 0)
			_, err := g.AddCopy(y, 0, b, 0, n)
			require.NoError(t, err)
			return b.Free()
		}, gpu.ErrInvalidValue},
		"freed buffer": {func(g *graph.Graph) error {
			b := newBuf(t, dev, 0)
			_, err := graph.AddFill(g, b, float32(1))
			require.NoError(t, err)
			return b.Free()
		}, gpu.ErrInvalidValue},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g := graph.New()
			_, err := g.AddEmpty()
			require.NoError(t, err)
			require.NoError(t, c.build(g))
			e, err := g.Instantiate(dev)
			assert.Nil(t, e)
			require.Error(t, err)
			assert.Equal(t, c.code, codeOf(err), "%v", err)
			assert.ErrorContains(t, err, "node 1")
			assert.Equal(t, 1, strings.Count(err.Error(), "(hipError"), "the code once: %v", err)
		})
	}
}

// A copy node's range is checked when it is added: offsets and counts
// that are negative, too large, or overflow when added are refused there.
func TestAddCopyRange(t *testing.T) {
	dev, _ := setup(t)
	x, y := newBuf(t, dev, 1), newBuf(t, dev, 2)
	const huge = int(^uint(0) >> 1)
	for name, c := range map[string]struct {
		dstOff, srcOff, n int
		end               string
	}{
		"past the end":         {1, 0, n, "destination"},
		"negative dst offset":  {-1, 0, 1, "destination"},
		"negative src offset":  {0, -1, 1, "source"},
		"negative count":       {0, 0, -1, "destination"},
		"overflowing offset":   {0, huge, 2, "source"},
		"overflowing count":    {1, 1, huge, "destination"},
		"offset past the end":  {n + 1, 0, 0, "destination"},
		"huge negative offset": {-huge - 1, 0, 1, "destination"},
	} {
		t.Run(name, func(t *testing.T) {
			g := graph.New()
			node, err := g.AddCopy(y, c.dstOff, x, c.srcOff, c.n)
			assert.Nil(t, node)
			require.Error(t, err)
			assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
			assert.ErrorContains(t, err, "graph add memcpy node: "+c.end+": ")
			assert.ErrorContains(t, err, "are outside")
			assert.Zero(t, g.Len(), "nothing was added")
		})
	}
	g := graph.New()
	_, err := g.AddCopy(y, n-1, x, 0, 1)
	require.NoError(t, err, "the last element")
	_, err = g.AddCopy(y, n, x, n, 0)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "a copy of nothing, as hipGraphAddMemcpyNode1D of 0 bytes")
}

// Misuse of graphs and nodes is an error, never a panic.
func TestGraphMisuse(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	g, other := graph.New(), graph.New()
	a, err := other.AddEmpty()
	require.NoError(t, err)
	_, err = g.AddEmpty(a)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "a node of another graph")
	_, err = g.AddEmpty(nil)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	_, err = g.AddKernel(graph.Kernel{})
	assert.Equal(t, gpu.ErrInvalidDeviceFunction, codeOf(err))
	_, err = g.AddHost(nil)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	_, err = graph.AddFill(g, x, int32(1))
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "the element type")
	_, err = g.AddCopy(x, 0, nil, 0, 1)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	_, err = g.Instantiate(nil)
	assert.Equal(t, gpu.ErrInvalidDevice, codeOf(err))
	var nilGraph *graph.Graph
	_, err = nilGraph.AddEmpty()
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	var nilExec *graph.Exec
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(nilExec.Launch(nil)))

	e, err := g.Instantiate(dev)
	require.NoError(t, err, "an empty graph")
	require.NoError(t, e.Launch(nil))
	require.NoError(t, e.Destroy())
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.Launch(nil)))
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(e.Destroy()))
	require.NoError(t, g.Destroy())
	_, err = g.AddEmpty()
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	_, err = g.Instantiate(dev)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(g.Destroy()))
	_ = ks
}

// A replay waits for the earlier writer of a buffer it reads on another
// stream, and a later reader on another stream waits for the replay.
func TestDependenciesAroundReplay(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	s1, err := stream.New(dev)
	require.NoError(t, err)
	defer s1.Destroy()
	s2, err := stream.New(dev)
	require.NoError(t, err)
	defer s2.Destroy()

	gate := make(chan struct{})
	g := graph.New()
	wait, err := g.AddHost(func() error { <-gate; return nil })
	require.NoError(t, err)
	_, err = g.AddKernel(saxpy(ks, 3, x, y), wait)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()

	// Before: s1 writes x behind a gate; the replay on s2 must see x = 2.
	before := make(chan struct{})
	require.NoError(t, s1.LaunchHostFunc(func() error { <-before; return nil }))
	require.NoError(t, stream.Fill(s1, x, float32(2)))
	require.NoError(t, e.Launch(s2))
	// After: s1 copies y once the replay wrote it.
	z := newBuf(t, dev, -1)
	require.NoError(t, s1.Copy(z, 0, y, 0, n))
	close(before)
	close(gate)
	require.NoError(t, s1.Synchronize())
	require.NoError(t, s2.Synchronize())
	assert.InDelta(t, 6.0, read(t, z)[0], 1e-6)
	assert.InDelta(t, 6.0, read(t, y)[n-1], 1e-6)
}

// Launches from many goroutines on their own streams, updates and a
// destroy race; every launch either runs whole or fails cleanly.
func TestRacingLaunches(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	g := graph.New()
	k, err := g.AddKernel(saxpy(ks, 1, x, y))
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)

	const workers, each = 4, 25
	var wg sync.WaitGroup
	var ran atomic.Int32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for i := 0; i < each; i++ {
				if assert.NoError(t, e.Launch(s)) {
					ran.Add(1)
				}
			}
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			assert.NoError(t, e.SetKernelParams(k, saxpy(ks, 1, x, y)))
		}
	}()
	wg.Wait()
	require.NoError(t, dev.Synchronize())
	assert.Equal(t, int32(workers*each), ran.Load())
	assert.InDelta(t, float64(workers*each), read(t, y)[0], 1e-3, "writes on several streams were ordered")

	// Destroy racing launches: each launch runs or says the graph is gone.
	var fails atomic.Int32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for i := 0; i < each; i++ {
				if err := e.Launch(s); err != nil {
					assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "%v", err)
					fails.Add(1)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, e.Destroy())
		assert.NoError(t, g.Destroy())
	}()
	wg.Wait()
	require.NoError(t, dev.Synchronize())
	assert.True(t, errors.Is(e.Launch(nil), gpu.ErrInvalidValue))
	t.Logf("%d launches after destroy refused", fails.Load())
}

// A graph longer than a queue's ring is written in several runs, each
// ending in a fenced packet, and still runs whole and in order.
func TestLongGraph(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	g := graph.New()
	var prev []*graph.Node
	const long = 1000
	for i := 0; i < long; i++ {
		k, err := g.AddKernel(saxpy(ks, 1, x, y), prev...)
		require.NoError(t, err)
		prev = []*graph.Node{k}
	}
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	for r := 0; r < 2; r++ {
		require.NoError(t, e.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 2*long, read(t, y)[n/2], 1e-3)
}

// A buffer freed after Instantiate fails the launch, which queues nothing.
func TestLaunchAfterFree(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	g := graph.New()
	_, err := g.AddKernel(saxpy(ks, 1, x, y))
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, x.Free())
	err = e.Launch(nil)
	assert.Equal(t, gpu.ErrInvalidValue, codeOf(err), "%v", err)
	require.NoError(t, dev.Synchronize())
	assert.Equal(t, float32(0), read(t, y)[0])
}

// A chain of kernels only, which the cuda driver records as one CUDA
// graph, computes what direct launches compute, at every launch and
// after a node's update.
func TestKernelChain(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	g := graph.New()
	var nodes []*graph.Node
	var prev []*graph.Node
	for i := 0; i < 100; i++ {
		nd, err := g.AddKernel(saxpy(ks, float32(i%3), x, y), prev...)
		require.NoError(t, err)
		nodes, prev = append(nodes, nd), []*graph.Node{nd}
	}
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	if dev.Properties().Driver == "cuda" && os.Getenv("HIPGO_CUDA_GRAPHS") != "0" {
		assert.True(t, graph.Lowered(e), "recorded as a CUDA graph")
	}
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	per := float32(0)
	for i := 0; i < 100; i++ {
		per += float32(i % 3)
	}
	for r := 1; r <= 3; r++ {
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		got := read(t, y)
		assert.InDelta(t, float64(per)*float64(r), float64(got[0]), 1e-3, "launch %d", r)
		assert.InDelta(t, float64(per)*float64(r), float64(got[n-1]), 1e-3, "launch %d", r)
	}
	// Node 1 adds 1; make it add 10.
	require.NoError(t, e.SetKernelParams(nodes[1], saxpy(ks, 10, x, y)))
	require.NoError(t, e.Launch(s))
	// Work after the graph on another stream waits for it (automatic
	// dependencies around a launch).
	s2, err := stream.New(dev)
	require.NoError(t, err)
	defer s2.Destroy()
	out := make([]float32, n)
	require.NoError(t, stream.CopyToHost(s2, out, y, 0))
	require.NoError(t, s2.Synchronize())
	want := float64(per)*4 + 9
	assert.InDelta(t, want, float64(out[0]), 1e-3)
	assert.InDelta(t, want, float64(out[n/2]), 1e-3)
}
