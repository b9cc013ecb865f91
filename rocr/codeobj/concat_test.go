package codeobj

import (
	"bytes"
	"crypto/md5"
	"io"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostBundle is an offload bundle of n bytes whose one entry is host
// code (skipped by the parser): zeros after the header.
func hostBundle(n int) []byte {
	b := []byte(bundleMagic)
	b = le.AppendUint64(b, 1)
	id := "host-x86_64-unknown-linux-gnu"
	off := uint64(len(b) + 24 + len(id))
	b = le.AppendUint64(b, off)
	b = le.AppendUint64(b, uint64(n)-off)
	b = le.AppendUint64(b, uint64(len(id)))
	b = append(b, id...)
	return append(b, make([]byte, n-len(b))...)
}

// Compressed bundles laid end to end, 8 KB inflating to 8 MiB each: what
// their decoding allocates, decompressed bytes and decoder windows
// together, stays within max(10 times the input, 64 MiB), the decoders'
// own buffers included, and the parse that would pass it ends with an
// error naming the limit. Streaming each through a decoder of its own,
// twice, allocated three times the limit; counting the windows but not
// the decoders' rings and buffers, 2 MiB over it.
func TestHostileConcatenatedCompressed(t *testing.T) {
	const raw = 8 << 20
	inner := hostBundle(raw)
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	payload := enc.EncodeAll(inner, nil)
	require.NoError(t, enc.Close())
	h := md5.Sum(inner)
	one := ccob(payload, raw, le.Uint64(h[:]))
	var in []byte
	for range 12 {
		in = append(in, one...)
	}
	_, alloc, took, err := measure(in, Parse)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "over the limit of 67108864 bytes")
	assert.Less(t, took, parseLimit())
	t.Logf("%d bytes of input: %d MiB allocated, %v", len(in), alloc>>20, err)
	bound := uint64(max(inflateRatio*len(in), inflateFloor))
	assert.LessOrEqual(t, alloc, bound, "allocated %d bytes for %d bytes of input, bound %d", alloc, len(in), bound)

	// Two of them, within every limit, parse.
	s, err := Parse(append(append([]byte{}, one...), one...))
	require.NoError(t, err)
	assert.Empty(t, s.Objects, "host code only")
}

// A zstd decoder's own buffers, beyond its window and its output, fit
// zstdDecoderCost, which Parse charges for each decoder: streaming a
// frame allocates no more than zstdStreamCost says, decoding one at once
// into a buffer of its size no more than zstdDecoderCost.
func TestZstdDecoderCost(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	require.NoError(t, err)
	for _, raw := range []int{1 << 10, 200 << 10, 4 << 20} {
		in := make([]byte, raw)
		for i := range in {
			in[i] = byte(i * i >> 7)
		}
		payload := enc.EncodeAll(in, nil)

		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		zr, err := newZstd(bytes.NewReader(payload), uint64(raw))
		require.NoError(t, err)
		n, err := io.Copy(io.Discard, io.LimitReader(zr, int64(raw)+1))
		zr.Close()
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.EqualValues(t, raw, n)
		stream := after.TotalAlloc - before.TotalAlloc
		assert.LessOrEqual(t, stream, zstdStreamCost(payload, uint64(raw)), "streaming %d bytes", raw)

		dst := make([]byte, 0, raw+decodeSlack)
		runtime.GC()
		runtime.ReadMemStats(&before)
		zr, err = newZstd(nil, uint64(raw))
		require.NoError(t, err)
		out, err := zr.DecodeAll(payload, dst)
		zr.Close()
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Len(t, out, raw)
		all := after.TotalAlloc - before.TotalAlloc
		assert.LessOrEqual(t, all, uint64(zstdDecoderCost), "decoding %d bytes at once", raw)
		t.Logf("%d bytes: streaming allocated %d (charged %d), decoding at once %d (charged %d)",
			raw, stream, zstdStreamCost(payload, uint64(raw)), all, zstdDecoderCost)
	}
	require.NoError(t, enc.Close())
}
