package gputest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type copyInArgs struct {
	Dst rocr.Ptr[float32]
	Src rocr.ConstPtr[float32]
	N   int32
	Ms  int32
}

// copyIn sleeps Ms milliseconds, then copies Src to Dst: a kernel that
// reads whatever its input holds.
var copyIn = kernel.Define("gputest_copy_in", func(g *kernel.Block, a *copyInArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	lo, hi := g.Span(0, int(a.N))
	copy(a.Dst.Slice(g, lo, hi), a.Src.Slice(g, lo, hi))
})

var sanitizeKernels = kernel.NewSet("gputest-sanitize", copyIn)

func TestSanitizeFindsUninitializedRead(t *testing.T) {
	gputest.Sanitize(t)
	const n = 1000
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, sanitizeKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	fn := m.MustFunction("gputest_copy_in")
	src, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, src.Free()) }()
	dst, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, dst.Free()) }()
	out, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, out.Free()) }()

	launch := func(s *stream.Stream, dst, src *buffer.Buffer[float32], ms int32) error {
		if err := module.LaunchKernelGGL(fn, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, s, dst, src, int32(n), ms); err != nil {
			return err
		}
		return s.Synchronize()
	}

	s, err := stream.New(dev)
	require.NoError(t, err)
	err = launch(s, dst, src, 0)
	require.Error(t, err, "src was never written")
	assert.True(t, errors.Is(err, gpu.ErrIllegalAddress), "%v", err)
	for _, w := range []string{"gputest_copy_in", src.String(), "never written since allocation", "HIPGO_SANITIZE"} {
		assert.Contains(t, err.Error(), w)
	}
	require.NoError(t, s.Destroy())

	// Written by a fill, then by a kernel: both reads are clean. (A fresh
	// buffer: src's last use failed, and later work on it sees that.)
	s, err = stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	written, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, written.Free()) }()
	require.NoError(t, written.Fill(2))
	require.NoError(t, launch(s, dst, written, 0))
	require.NoError(t, launch(s, out, dst, 0))
	got, err := out.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, 2, got[n-1], 0)

	// A copy writes its destination too.
	require.NoError(t, out.CopyFrom(make([]float32, n)))
	require.NoError(t, launch(s, dst, out, 0))
}

// With automatic dependencies off, the sanitizer reports a buffer used on
// a stream while unordered work of another stream may still use it.
func TestSanitizeFindsUnorderedStreams(t *testing.T) {
	gputest.Sanitize(t)
	const n = 256
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, sanitizeKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	fn := m.MustFunction("gputest_copy_in")
	x, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, x.Free()) }()
	y, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, y.Free()) }()
	require.NoError(t, y.Fill(1))
	a, err := stream.NewWithFlags(dev, stream.ManualDeps, stream.PriorityLow)
	require.NoError(t, err)
	defer func() { assert.NoError(t, a.Destroy()) }()
	b, err := stream.NewWithFlags(dev, stream.ManualDeps, stream.PriorityLow)
	require.NoError(t, err)
	defer func() { assert.NoError(t, b.Destroy()) }()

	require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(n), 0, a, x, y, int32(n), int32(200)))
	err = module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(n), 0, b, y, x, int32(n), int32(0))
	require.Error(t, err, "b uses x and y while a's unordered kernel may still use them")
	for _, w := range []string{"gputest_copy_in", "no event between them", "HIPGO_SANITIZE"} {
		assert.Contains(t, err.Error(), w)
	}
	assert.Regexp(t, x.String()+"|"+y.String(), err.Error(), "the buffer is named")
	require.NoError(t, a.Synchronize())
	// Ordered by the host now: no report.
	require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(n), 0, b, y, x, int32(n), int32(0)))
	require.NoError(t, b.Synchronize())
}
