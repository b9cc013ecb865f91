package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

const chain = 100

// BenchmarkChain100 is a chain of 100 tiny kernels, launched directly and
// replayed as a graph, each time followed by a synchronize: us/kernel is
// the cost per kernel of the whole chain.
func BenchmarkChain100(b *testing.B) {
	dev, ks := setup(b)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	one := gpu.D1(1)
	b.Run("direct", func(b *testing.B) {
		var args module.Args
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for k := 0; k < chain; k++ {
				if err := ks.Empty.LaunchArgs(s, one, one, 0, &args); err != nil {
					b.Fatal(err)
				}
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chain)/1e3, "us/kernel")
	})
	b.Run("graph", func(b *testing.B) {
		e := emptyChain(b, dev, ks)
		defer e.Destroy()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := e.Launch(s); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*chain)/1e3, "us/kernel")
	})
}

// BenchmarkInstantiate100 is building and instantiating the chain.
func BenchmarkInstantiate100(b *testing.B) {
	dev, ks := setup(b)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		e := emptyChain(b, dev, ks)
		_ = e.Destroy()
	}
}

func emptyChain(b testing.TB, dev *gpu.Device, ks *kernels.Set) *graph.Exec {
	g := graph.New()
	var prev *graph.Node
	for k := 0; k < chain; k++ {
		var deps []*graph.Node
		if prev != nil {
			deps = append(deps, prev)
		}
		var err error
		prev, err = g.AddKernel(graph.Kernel{Func: ks.Empty, Grid: gpu.D1(1), Block: gpu.D1(1), Typed: &module.Args{}}, deps...)
		require.NoError(b, err)
	}
	e, err := g.Instantiate(dev)
	require.NoError(b, err)
	return e
}

// A replay of the recorded chain allocates nothing: on the cuda driver it
// is one cuGraphLaunch, made through a pooled argument block.
func TestChainReplayAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev, ks := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	e := emptyChain(t, dev, ks)
	defer e.Destroy()
	replay := func() {
		if err := e.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	replay()
	assert.Zero(t, testing.AllocsPerRun(100, replay))
}
