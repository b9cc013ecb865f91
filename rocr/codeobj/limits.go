package codeobj

import (
	"slices"
	"unsafe"
)

// Limits bounds what one Parse may cost. Zero fields take the defaults.
type Limits struct {
	// MaxDecompressed is the most bytes the compressed bundles of one
	// input may expand to, together (default DefaultMaxDecompressed).
	// Below it they may expand to at most 10 times the input's size, or
	// 64 MiB where that is more. A header claiming more is refused before
	// anything is inflated.
	MaxDecompressed int64
	// MaxExpansion is the bytes of work and of result Parse may spend per
	// byte of input, decompressed bytes included (default
	// DefaultMaxExpansion), plus a fixed 64 KiB. Code objects that
	// compilers write use well under one.
	MaxExpansion int
}

// Defaults of Limits.
const (
	DefaultMaxDecompressed = 256 << 20
	DefaultMaxExpansion    = 4
	// expansionSlack lets tiny inputs (a hand-written PTX kernel) through.
	expansionSlack = 64 << 10
	// inflateRatio and inflateFloor bound what the compressed bundles
	// of one input may expand to together: inflateRatio times the
	// input, or inflateFloor where that is more.
	inflateRatio = 10
	inflateFloor = 64 << 20
	// maxRatio bounds how far a compressed bundle may expand per byte:
	// code objects compress by tens, not thousands.
	maxRatio = 10000
)

func (l Limits) withDefaults() Limits {
	if l.MaxDecompressed <= 0 {
		l.MaxDecompressed = DefaultMaxDecompressed
	}
	if l.MaxExpansion <= 0 {
		l.MaxExpansion = DefaultMaxExpansion
	}
	return l
}

// parser carries one Parse's limits and what is left of them down to
// every nested structure, so that overlapping or repeated structures
// share one budget.
type parser struct {
	lim      Limits
	given    int64 // bytes of input as given
	input    int64 // bytes of input, decompressed bytes included
	left     int64 // bytes of work and result still allowed
	inflated int64 // bytes decompressed so far
}

func newParser(n int, lim Limits) *parser {
	lim = lim.withDefaults()
	return &parser{lim: lim, given: int64(n), input: int64(n), left: int64(lim.MaxExpansion)*int64(n) + expansionSlack}
}

// spend charges n bytes of work or result to the budget: every
// allocation that grows with the input, and every re-reading of bytes
// that several structures may share, passes through here first.
func (p *parser) spend(where string, off int64, n int) error {
	p.left -= int64(n)
	if p.left < 0 {
		return errorf(where, off, "over the limit of %d bytes of work and result for %d bytes of input (Limits.MaxExpansion %d per byte)",
			int64(p.lim.MaxExpansion)*p.input+expansionSlack, p.input, p.lim.MaxExpansion)
	}
	return nil
}

// inflate admits n more decompressed bytes, which also raise the budget.
func (p *parser) inflate(where string, off int64, n uint64) error {
	if n > uint64(p.lim.MaxDecompressed-p.inflated) {
		return errorf(where, off, "uncompressed size %d over the limit of %d bytes (Limits.MaxDecompressed, %d already inflated)", n, p.lim.MaxDecompressed, p.inflated)
	}
	if lim := max(inflateRatio*p.given, inflateFloor); n > uint64(lim-p.inflated) {
		return errorf(where, off, "uncompressed size %d over the limit of %d bytes (%d times the %d bytes of input, at least %d MiB; %d already inflated; Limits.MaxDecompressed %d)",
			n, lim, inflateRatio, p.given, inflateFloor>>20, p.inflated, p.lim.MaxDecompressed)
	}
	p.inflated += int64(n)
	p.input += int64(n)
	p.left += int64(p.lim.MaxExpansion) * int64(n)
	return nil
}

// inflateWindow admits a decoder's window and buffers of n bytes, which count
// against the limits on decompressed bytes as n decompressed bytes do,
// without raising the budget of work: a streaming pass holds one as
// large as what it inflates.
func (p *parser) inflateWindow(where string, off int64, n uint64) error {
	if n > uint64(p.lim.MaxDecompressed-p.inflated) {
		return errorf(where, off, "decoder window and buffers of %d bytes over the limit of %d bytes (Limits.MaxDecompressed, %d already inflated)", n, p.lim.MaxDecompressed, p.inflated)
	}
	if lim := max(inflateRatio*p.given, inflateFloor); n > uint64(lim-p.inflated) {
		return errorf(where, off, "decoder window and buffers of %d bytes over the limit of %d bytes (%d times the %d bytes of input, at least %d MiB; %d already inflated; Limits.MaxDecompressed %d)",
			n, lim, inflateRatio, p.given, inflateFloor>>20, p.inflated, p.lim.MaxDecompressed)
	}
	p.inflated += int64(n)
	return nil
}

// grow makes room for one more element, charging what growing allocates.
func grow[T any](p *parser, s []T, where string, off int64) ([]T, error) {
	if len(s) < cap(s) {
		return s, nil
	}
	n := max(2*cap(s), 4)
	var zero T
	if err := p.spend(where, off, n*int(unsafe.Sizeof(zero))); err != nil {
		return s, err
	}
	return slices.Grow(s, n-len(s)), nil
}

// alloc makes a slice of n elements after charging for it.
func alloc[T any](p *parser, n int, where string, off int64) ([]T, error) {
	var zero T
	if err := p.spend(where, off, n*int(unsafe.Sizeof(zero))); err != nil {
		return nil, err
	}
	return make([]T, 0, n), nil
}
