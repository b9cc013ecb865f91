package core

import (
	"testing"

	"github.com/hipgo/hipgo/internal/cputest"
)

// BenchmarkTrimPools is what each stream or event Synchronize adds once
// a stream-ordered pool is open on the device and holds nothing over its
// release threshold (0): HIP's default, and the common case.
func BenchmarkTrimPools(b *testing.B) {
	dev := cputest.Device(b)
	s := new(Stream)
	if err := s.Init(dev, 16); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Destroy() }()
	p, err := NewMemPool(dev, new(byte))
	if err != nil {
		b.Fatal(err)
	}
	m := new(Mem)
	if err := p.AllocAsync(m, s, int32Type, 64); err != nil {
		b.Fatal(err)
	}
	if err := FreeAsync(m, s); err != nil {
		b.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		b.Fatal(err)
	}
	TrimPools(dev)
	b.ReportAllocs()
	for b.Loop() {
		TrimPools(dev)
	}
}
