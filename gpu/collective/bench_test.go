package collective_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// BenchmarkAllReduce is an in-place float32 sum over every device of the
// driver (HIPGO_BENCH_RANKS caps the count), queued back to back from one
// goroutine in a group, as nccl-tests and torch.distributed loops do;
// ns/op is the time per all-reduce once every stream has finished.
// busbw is NCCL's bus bandwidth, algbw × 2(n−1)/n, comparable across
// rank counts. benchmarks/peers/nccl_torch.py measures the same with
// torch.distributed.
func BenchmarkAllReduce(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"8B", 8}, {"1MiB", 1 << 20}, {"256MiB", 256 << 20}} {
		b.Run(size.name, func(b *testing.B) { benchAllReduce(b, size.bytes) })
	}
}

func benchAllReduce(b *testing.B, bytes int) {
	all, err := gpu.Devices()
	require.NoError(b, err)
	var devs []*gpu.Device
	for _, d := range all {
		if d.Properties().Driver == driver() {
			devs = append(devs, d)
		}
	}
	if v := os.Getenv("HIPGO_BENCH_RANKS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err, "HIPGO_BENCH_RANKS")
		devs = devs[:max(0, min(n, len(devs)))]
	}
	if len(devs) < 2 {
		b.Skipf("%d %s device(s): an all-reduce needs two", len(devs), driver())
	}
	if driver() == "cpu" && bytes > 16<<20 {
		b.Skip("256 MiB on cpu agents takes minutes: run it on GPUs")
	}
	comms, err := collective.NewAll(devs...)
	require.NoError(b, err)
	n := bytes / 4
	streams := make([]*stream.Stream, len(devs))
	bufs := make([]*buffer.Buffer[float32], len(devs))
	for i, d := range devs {
		streams[i], err = stream.New(d)
		require.NoError(b, err)
		bufs[i], err = buffer.New[float32](d, n)
		require.NoError(b, err)
		require.NoError(b, bufs[i].Fill(1))
	}
	defer func() {
		for i := range devs {
			_ = comms[i].Destroy()
			_ = bufs[i].Free()
			_ = streams[i].Destroy()
		}
	}()
	step := func() {
		g, err := collective.GroupStart(comms...)
		require.NoError(b, err)
		for i, c := range comms {
			require.NoError(b, collective.AllReduce(c, streams[i], bufs[i], bufs[i], collective.Sum))
		}
		require.NoError(b, g.End())
	}
	wait := func() {
		for _, s := range streams {
			require.NoError(b, s.Synchronize())
		}
	}
	for range 5 { // warm up: connections, first launches
		step()
	}
	wait()
	b.ReportAllocs()
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	for range b.N {
		step()
	}
	wait()
	b.StopTimer()
	sec := b.Elapsed().Seconds() / float64(b.N)
	ranks := float64(len(devs))
	algbw := float64(bytes) / sec / 1e9
	b.ReportMetric(algbw, "algbw_GB/s")
	b.ReportMetric(algbw*2*(ranks-1)/ranks, "busbw_GB/s")
	b.ReportMetric(ranks, "ranks")
}
