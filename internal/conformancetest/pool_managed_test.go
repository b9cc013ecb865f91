package conformancetest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hip-tests catch/unit/memory/hipMallocAsync.cc: Unit_hipMallocAsync_Negative_Parameters
func TestMallocAsyncNegativeParameters(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev)
	t.Run("invalid stream handle", func(t *testing.T) {
		_, err := buffer.NewAsync[byte]((*stream.Stream)(nil), 1024)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
	t.Run("Size is max size_t", func(t *testing.T) {
		_, err := buffer.NewAsync[byte](s, math.MaxInt)
		assert.Equal(t, gpu.ErrOutOfMemory, code(err), "%v", err)
	})
}

// hip-tests catch/unit/memory/hipMallocAsync.cc: Unit_hipMallocAsync_Positive_Basic (checkMallocAsync)
func TestMallocAsyncPositive(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev)
	b, err := buffer.NewAsync[int32](s, 1024)
	require.NoError(t, err)
	require.NoError(t, stream.Fill(s, b, int32(4)))
	out := make([]int32, 1024)
	require.NoError(t, stream.CopyToHost(s, out, b, 0))
	require.NoError(t, b.FreeAsync(s))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, int32(4), out[1023])
}

// hip-tests catch/unit/memory/hipFreeAsync.cc: Unit_hipFreeAsync_Negative_Parameters
func TestFreeAsyncNegativeParameters(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev)
	t.Run("dev_ptr is nullptr", func(t *testing.T) {
		var b *buffer.Buffer[int32]
		assert.Equal(t, gpu.ErrInvalidValue, code(b.FreeAsync(s)))
	})
	t.Run("Invalid stream handle", func(t *testing.T) {
		b, err := buffer.NewAsync[int32](s, 16)
		require.NoError(t, err)
		assert.Equal(t, gpu.ErrInvalidHandle, code(b.FreeAsync((*stream.Stream)(nil))))
		require.NoError(t, b.FreeAsync(s))
	})
	t.Run("Double free", func(t *testing.T) {
		b, err := buffer.NewAsync[int32](s, 16)
		require.NoError(t, err)
		require.NoError(t, b.FreeAsync(s))
		assert.Equal(t, gpu.ErrInvalidValue, code(b.FreeAsync(s)))
	})
	require.NoError(t, s.Synchronize())
}

// hip-tests catch/unit/memory/hipMemPoolTrimTo.cc
func TestMemPoolTrimTo(t *testing.T) {
	dev := device(t)
	// Unit_hipMemPoolTrimTo_Negative_Parameter: a nil pool is no pool, and
	// hipgo's Trim of one does nothing (documented: "A nil or zero MemPool
	// is no pool").
	t.Run("Passing nullptr to mem_pool", func(t *testing.T) {
		var p *buffer.MemPool
		assert.NotPanics(t, func() { p.Trim(0) })
		assert.Zero(t, p.Stats())
	})
	// Unit_hipMemPoolTrimTo_Positive_Basic
	t.Run("Positive_Basic", func(t *testing.T) {
		p, err := buffer.NewMemPool(dev)
		require.NoError(t, err)
		s := newStream(t, dev)
		b, err := buffer.NewFromPoolAsync[byte](p, s, 1<<20)
		require.NoError(t, err)
		require.NoError(t, b.FreeAsync(s))
		require.NoError(t, s.Synchronize())
		p.Trim(0)
		assert.Zero(t, p.Stats().Reserved)
	})
}

// hip-tests catch/unit/memory/hipMallocManaged.cc: Unit_hipMallocManaged_Basic
func TestMallocManagedBasic(t *testing.T) {
	dev := device(t)
	_, _, fill := functions(t, dev)
	m, err := buffer.NewManaged[int32](dev, 256)
	require.NoError(t, err)
	defer m.Free()
	host, err := m.Slice()
	require.NoError(t, err)
	host[0] = 1
	s := newStream(t, dev)
	require.NoError(t, fill.Launch(s, gpu.D1(4), gpu.D1(64), 0, m, int32(6), int32(256)))
	host, err = m.Slice() // waits for the kernel
	require.NoError(t, err)
	assert.Equal(t, int32(6), host[0])
	assert.Equal(t, int32(6), host[255])
}

// hip-tests catch/unit/memory/hipMallocManaged.cc: Unit_hipMallocManaged_Large
func TestMallocManagedLarge(t *testing.T) {
	dev := device(t)
	_, err := buffer.NewManaged[byte](dev, math.MaxInt)
	assert.Equal(t, gpu.ErrOutOfMemory, code(err), "%v", err)
}

// hip-tests catch/unit/memory/hipMemAdvise.cc: Unit_hipMemAdvise_Set_Unset_Basic
// hip-tests catch/unit/memory/hipMemPrefetchAsync.cc: Unit_hipMemPrefetchAsync_Basic
func TestMemAdviseAndPrefetch(t *testing.T) {
	dev := device(t)
	m, err := buffer.NewManaged[float32](dev, 1024)
	require.NoError(t, err)
	defer m.Free()
	for name, a := range map[string]buffer.Advice{
		"hipMemAdviseSetReadMostly":   buffer.AdviseSetReadMostly,
		"hipMemAdviseUnsetReadMostly": buffer.AdviseUnsetReadMostly,
		"hipMemAdviseSetAccessedBy":   buffer.AdviseSetAccessedBy,
	} {
		t.Run(name, func(t *testing.T) { assert.NoError(t, m.Advise(a, dev)) })
	}
	t.Run("hipMemPrefetchAsync", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, stream.Prefetch(s, m, dev))
		require.NoError(t, stream.Prefetch(s, m, nil))
		assert.NoError(t, s.Synchronize())
	})
}

// hip-tests catch/unit/memory/hipMemPoolSetGetAttribute.cc: Unit_hipMemPoolSetGetAttribute_Positive_ReleaseThreshold
// (hipMemPoolAttrReleaseThreshold 0: freed memory goes back to the system at
// every synchronization, the stream's, the event's and the device's).
func TestMemPoolReleaseThresholdZero(t *testing.T) {
	dev := device(t)
	freed := func(t *testing.T) (*buffer.MemPool, *stream.Stream) {
		p, err := buffer.NewMemPool(dev)
		require.NoError(t, err)
		require.Zero(t, p.ReleaseThreshold())
		s := newStream(t, dev)
		b, err := buffer.NewFromPoolAsync[byte](p, s, 1<<16)
		require.NoError(t, err)
		require.NoError(t, b.FreeAsync(s))
		return p, s
	}
	t.Run("hipStreamSynchronize", func(t *testing.T) {
		p, s := freed(t)
		require.NoError(t, s.Synchronize())
		assert.Zero(t, p.Stats().Reserved)
	})
	t.Run("hipEventSynchronize", func(t *testing.T) {
		p, s := freed(t)
		ev := newEvent(t, dev, stream.EventDefault)
		require.NoError(t, s.Record(ev))
		require.NoError(t, ev.Synchronize())
		assert.Zero(t, p.Stats().Reserved)
	})
	t.Run("hipDeviceSynchronize", func(t *testing.T) {
		p, _ := freed(t)
		require.NoError(t, dev.Synchronize())
		assert.Zero(t, p.Stats().Reserved)
	})
	t.Run("threshold kept", func(t *testing.T) {
		p, s := freed(t)
		p.SetReleaseThreshold(1 << 20)
		require.NoError(t, s.Synchronize())
		assert.Equal(t, uint64(1<<16), p.Stats().Reserved, "a threshold above what the pool holds keeps it")
	})
}
