package codeobj

import (
	"errors"
	"hash"
	"io"
)

// onePassRatio is the expansion up to which a stream is inflated straight
// into a buffer of the size its header claims. Past it a first pass only
// counts and hashes the stream, so that a claim the stream does not make
// good costs no memory of the claim's size.
const (
	onePassRatio = 8
	onePassSlack = 64 << 10
	// decodeSlack is what a decoder writing into a buffer may need past
	// the bytes it decodes (zstd over-allocates a block's worth).
	decodeSlack = 64
)

// expand inflates the streams open makes (the same bytes each time) to
// exactly raw bytes, writing them to sum when it is not nil. raw has
// passed inflate; compressed is the size of the stored stream.
func (p *parser) expand(where string, off int64, compressed int, raw uint64, sum hash.Hash, open func() (io.Reader, func(), error), decodeAll func(dst []byte) ([]byte, error)) ([]byte, error) {
	if twoPasses(compressed, raw) {
		r, done, err := open()
		if err != nil {
			return nil, errorf(where, off, "%v", err)
		}
		w := io.Discard
		if sum != nil {
			w = sum
		}
		n, err := io.Copy(w, io.LimitReader(r, int64(raw)+1))
		done()
		if err := expanded(where, off, uint64(n), raw, err); err != nil {
			return nil, err
		}
		sum = nil // the second pass reads the same bytes
	}
	if decodeAll != nil {
		// The claim is within the limits and, past onePassRatio, made
		// good: allocate it once (with the decoder's slack), and decode
		// into it.
		out, err := decodeAll(make([]byte, 0, raw+decodeSlack))
		n := uint64(len(out))
		if err != nil && n <= raw {
			n = raw + 1 // the decoder stops at its memory limit, the claim
		}
		if err := expanded(where, off, n, raw, err); err != nil {
			return nil, err
		}
		if sum != nil {
			sum.Write(out)
		}
		return out, nil
	}
	r, done, err := open()
	if err != nil {
		return nil, errorf(where, off, "%v", err)
	}
	defer done()
	// The claim is within the limits and, past onePassRatio, made good:
	// allocate it once, and read no further than it.
	out := make([]byte, raw)
	n, err := io.ReadFull(r, out)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	if err == nil && uint64(n) == raw {
		var more [1]byte
		if m, _ := io.ReadFull(r, more[:]); m != 0 {
			n++
		}
	}
	if err := expanded(where, off, uint64(n), raw, err); err != nil {
		return nil, err
	}
	if sum != nil {
		sum.Write(out)
	}
	return out, nil
}

// twoPasses reports whether expand counts a stream of compressed bytes
// claiming raw before it inflates it into a buffer of the claimed size.
func twoPasses(compressed int, raw uint64) bool {
	return raw > onePassRatio*uint64(compressed)+onePassSlack
}

// expanded says what is wrong with a stream that gave n bytes (n is raw+1
// for one giving more) where its header says raw.
func expanded(where string, off int64, n, raw uint64, err error) error {
	switch {
	case err != nil:
		return errorf(where, off, "decompress: %v", err)
	case n > raw:
		return errorf(where, off, "expands past the %d bytes its header says", raw)
	case n < raw:
		return errorf(where, off, "expanded to %d bytes, header says %d", n, raw)
	}
	return nil
}
