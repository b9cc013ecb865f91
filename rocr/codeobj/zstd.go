package codeobj

import (
	"bytes"
	"fmt"
	"hash"
	"io"

	"github.com/klauspost/compress/zstd"
)

// zstdDecoderCost bounds the buffers a zstd decoder holds of its own,
// beyond its window and its output: a block's literals and sequences,
// its tables, and the copy buffer of the pass that streams it.
// TestZstdDecoderCost measures it.
const zstdDecoderCost = 256 << 10

// zstdMaxMemory is the most a decoder of a frame claiming raw bytes may
// decode, and so the largest window it accepts.
func zstdMaxMemory(raw uint64) uint64 { return max(raw, 1<<20) }

// newZstd makes a decoder of one frame claiming raw bytes: one
// goroutine, low memory, and no window or output past what was charged
// for it (zstdStreamCost).
func newZstd(r io.Reader, raw uint64) (*zstd.Decoder, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(zstdMaxMemory(raw)), zstd.WithDecoderMaxWindow(zstdMaxMemory(raw)))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return zr, nil
}

// zstdStreamCost is what a decoder streaming the zstd frame at the start
// of payload allocates besides what it writes out: its history ring (the
// frame's window, up to what the decoder accepts, and room for two
// blocks past it) and its own buffers.
func zstdStreamCost(payload []byte, raw uint64) uint64 {
	w := zstdWindow(payload, zstdMaxMemory(raw))
	block := min(w, 128<<10) + 32 // the decoder's largest block and the overrun of its copies
	return w + 2*block + zstdDecoderCost
}

// zstdWindow is the window a streaming decoder of the zstd frame at the
// start of payload holds, up to limit (the decoder's memory limit).
func zstdWindow(payload []byte, limit uint64) uint64 {
	var h zstd.Header
	if err := h.Decode(payload); err != nil {
		return 0 // the decoder fails on it before it allocates a window
	}
	w := h.WindowSize
	if h.SingleSegment {
		w = h.FrameContentSize
	}
	return min(w, limit)
}

// unzstd expands the zstd frame payload to exactly raw bytes (raw has
// passed inflate), writing them to sum when it is not nil. What its
// decoders allocate besides the output is charged first: for a claim
// past onePassRatio, the ring and buffers of the pass that counts; then
// the buffers of the decoder that decodes at once into a buffer of the
// claimed size, which is its history too.
func (p *parser) unzstd(where string, off int64, payload []byte, raw uint64, sum hash.Hash) ([]byte, error) {
	cost := uint64(zstdDecoderCost)
	if twoPasses(len(payload), raw) {
		cost += zstdStreamCost(payload, raw)
	}
	if err := p.inflateWindow(where, off, cost); err != nil {
		return nil, err
	}
	open := func() (io.Reader, func(), error) {
		zr, err := newZstd(bytes.NewReader(payload), raw)
		if err != nil {
			return nil, nil, err
		}
		return zr, zr.Close, nil
	}
	decodeAll := func(dst []byte) ([]byte, error) {
		zr, err := newZstd(nil, raw)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return zr.DecodeAll(payload, dst)
	}
	return p.expand(where, off, len(payload), raw, sum, open, decodeAll)
}
