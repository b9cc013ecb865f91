package collective_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The script is every operation, run by each rank of a communicator
// (in one process or across several) with inputs that depend on the rank;
// expected computes what each rank must get, in T's own arithmetic and in
// rank order, so results compare exactly.

const scriptCount = 6

func input[T collective.Element](rank, i int) T { return T((rank+1)*(i+2)%7 + 1) }

func inputs[T collective.Element](rank, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = input[T](rank, i)
	}
	return v
}

var scriptOps = []collective.Op{collective.Sum, collective.Prod, collective.Max, collective.Min, collective.Avg}

func reduceAll[T collective.Element](size, n int, op collective.Op, from func(rank, i int) T) []T {
	out := make([]T, n)
	for i := range out {
		acc := from(0, i)
		for r := 1; r < size; r++ {
			x := from(r, i)
			switch op {
			case collective.Sum, collective.Avg:
				acc += x
			case collective.Prod:
				acc *= x
			case collective.Max:
				acc = max(acc, x)
			case collective.Min:
				acc = min(acc, x)
			}
		}
		if op == collective.Avg {
			acc /= T(size)
		}
		out[i] = acc
	}
	return out
}

func expected[T collective.Element](size, rank int) map[string][]T {
	const n = scriptCount
	want := map[string][]T{}
	for _, op := range scriptOps {
		want[name("allreduce ", op)] = reduceAll(size, n, op, input[T])
	}
	want["allreduce in place"] = reduceAll(size, n, collective.Sum, input[T])
	want["broadcast"] = inputs[T](size-1, n)
	if rank == 0 {
		want["reduce"] = reduceAll(size, n, collective.Max, input[T])
	}
	var gathered []T
	for r := range size {
		gathered = append(gathered, inputs[T](r, n)...)
	}
	want["allgather"] = gathered
	scatter := reduceAll(size, size*n, collective.Sum, input[T])
	want["reducescatter"] = scatter[rank*n : (rank+1)*n]
	want["sendrecv"] = inputs[T]((rank+size-1)%size, n)
	return want
}

// script queues every operation of one rank on s, waits, and returns what
// each produced.
func script[T collective.Element](t testing.TB, c *collective.Comm, s *stream.Stream) map[string][]T {
	const n = scriptCount
	dev, rank, size := c.Device(), c.Rank(), c.Size()
	mine := upload(t, dev, inputs[T](rank, n))
	outs := map[string]*buffer.Buffer[T]{}
	out := func(key string, b *buffer.Buffer[T]) { outs[key] = b }
	for _, op := range scriptOps {
		b := zeros[T](t, dev, n)
		require.NoError(t, collective.AllReduce(c, s, mine, b, op), "allreduce %v", op)
		out(name("allreduce ", op), b)
	}
	inplace := upload(t, dev, inputs[T](rank, n))
	require.NoError(t, collective.AllReduce(c, s, inplace, inplace, collective.Sum))
	out("allreduce in place", inplace)

	bc := upload(t, dev, inputs[T](rank, n))
	if rank == size-1 {
		require.NoError(t, collective.Broadcast(c, s, bc, bc, size-1))
	} else {
		require.NoError(t, collective.Broadcast(c, s, nil, bc, size-1))
	}
	out("broadcast", bc)

	if rank == 0 {
		red := zeros[T](t, dev, n)
		require.NoError(t, collective.Reduce(c, s, mine, red, collective.Max, 0))
		out("reduce", red)
	} else {
		require.NoError(t, collective.Reduce(c, s, mine, nil, collective.Max, 0))
	}

	ag := zeros[T](t, dev, size*n)
	require.NoError(t, collective.AllGather(c, s, mine, ag))
	out("allgather", ag)

	big := upload(t, dev, inputs[T](rank, size*n))
	rs := zeros[T](t, dev, n)
	require.NoError(t, collective.ReduceScatter(c, s, big, rs, collective.Sum))
	out("reducescatter", rs)

	got := zeros[T](t, dev, n)
	g, err := collective.GroupStart(c)
	require.NoError(t, err)
	require.NoError(t, collective.Recv(c, s, got, (rank+size-1)%size)) // a receive before its send: the group pairs them
	require.NoError(t, collective.Send(c, s, mine, (rank+1)%size))
	require.NoError(t, g.End())
	out("sendrecv", got)

	require.NoError(t, s.Synchronize())
	res := map[string][]T{}
	for k, b := range outs {
		res[k] = read(t, b)
	}
	return res
}

func checkScript[T collective.Element](t testing.TB, size, rank int, got map[string][]T) {
	want := expected[T](size, rank)
	assert.Equal(t, len(want), len(got), "rank %d: results", rank)
	var zero T
	_, f32 := any(zero).(float32)
	_, f64 := any(zero).(float64)
	for k, w := range want {
		if driver() != "cpu" && (f32 || f64) {
			// NCCL averages floats by scaling each part before the sum,
			// which may round differently from a sum then a division.
			assert.InDeltaSlice(t, w, got[k], 1e-3, "rank %d of %d: %s", rank, size, k)
			continue
		}
		assert.Equal(t, w, got[k], "rank %d of %d: %s", rank, size, k)
	}
}

func runScript[T collective.Element](t *testing.T, n int) {
	r := newRanks(t, n)
	got := make([]map[string][]T, n)
	within(t, time.Minute, "the script", func() {
		parallel(n, func(i int) { got[i] = script[T](t, r.comms[i], r.streams[i]) })
	})
	for i := range n {
		checkScript(t, n, i, got[i])
	}
}

func TestScriptInOneProcess(t *testing.T) {
	all, err := gpu.Devices()
	require.NoError(t, err)
	avail := 0
	for _, d := range all {
		if d.Properties().Driver == driver() {
			avail++
		}
	}
	for n := 1; n <= min(4, avail); n++ {
		t.Run(name(n, " ranks"), func(t *testing.T) {
			runScript[float32](t, n)
			runScript[float64](t, n)
			runScript[int32](t, n)
			runScript[uint8](t, n)
			runScript[int8](t, n)
			runScript[uint32](t, n)
			runScript[int64](t, n)
			runScript[uint64](t, n)
		})
	}
}
