package codeobj

import (
	"crypto/md5"
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
// together, stays within max(10 times the input, 64 MiB) (plus the
// decoders' own few hundred KiB), and the parse that would pass it ends
// with an error naming the limit. Streaming each through a decoder of its
// own, twice, allocated three times the limit.
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
	assert.LessOrEqual(t, alloc, uint64(64<<20+4<<20), "allocated %d MiB for %d bytes of input", alloc>>20, len(in))

	// Two of them, within every limit, parse.
	s, err := Parse(append(append([]byte{}, one...), one...))
	require.NoError(t, err)
	assert.Empty(t, s.Objects, "host code only")
}
