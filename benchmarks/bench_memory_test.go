package benchmarks

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
)

// Memory: allocation and free, and copies in every direction. The peers are
// the Go heap (make, with the garbage collector's cost amortized over the
// run as it is in any Go program) and memmove (the built-in copy).

var alloc = &family{
	name:  "Alloc",
	sizes: allocSizes,
	label: byteLabel,
	small: 4 << 10,
	impls: []impl{
		{"hipgo", func(e *env, size int) (*workload, error) {
			return &workload{step: func() error {
				m, err := buffer.New[byte](e.dev, size)
				if err != nil {
					return err
				}
				return m.Free()
			}}, nil
		}},
		{"goheap", func(_ *env, size int) (*workload, error) {
			return &workload{step: func() error {
				sink = make([]byte, size)
				return nil
			}}, nil
		}},
	},
}

// sink keeps the Go heap peer's allocations from being optimized away.
var sink []byte

// BenchmarkAlloc is hipMalloc + hipFree of device memory (buffer.New then
// Free) at 4 KiB, 1 MiB and 256 MiB (not under -short).
func BenchmarkAlloc(b *testing.B) { runFamily(b, alloc) }

// copies are the workloads of the copy families; each moves size bytes.
type copyDir int

const (
	hostToDevice copyDir = iota
	deviceToHost
	deviceToDevice
)

// newCopy sets up a copy in direction d from pageable Go memory (pinned
// false: a []byte of the Go heap) or from pinned buffer.Host memory.
func newCopy(d copyDir, pinned bool) func(e *env, size int) (*workload, error) {
	return func(e *env, size int) (*workload, error) {
		dev, err := buffer.New[byte](e.dev, size)
		if err != nil {
			return nil, err
		}
		w := &workload{bytes: int64(size)}
		w.close = dev.Free
		switch {
		case d == deviceToDevice:
			dst, err := buffer.New[byte](e.dev, size)
			if err != nil {
				return nil, errors.Join(err, dev.Free())
			}
			w.step = func() error { return dst.CopyFromBuffer(dev) }
			w.close = func() error { return errors.Join(dev.Free(), dst.Free()) }
		case pinned:
			h, err := buffer.NewHost[byte](e.dev, size)
			if err != nil {
				return nil, errors.Join(err, dev.Free())
			}
			fillBytes(h.Slice())
			if d == hostToDevice {
				w.step = func() error { return buffer.Copy(dev, 0, h, 0, size) }
			} else {
				w.step = func() error { return buffer.Copy(h, 0, dev, 0, size) }
			}
			w.check = func() error { return checkBytes(h.Slice()) }
			w.close = func() error { return errors.Join(dev.Free(), h.Free()) }
		default:
			host := make([]byte, size)
			fillBytes(host)
			if d == hostToDevice {
				w.step = func() error { return dev.CopyFrom(host) }
			} else {
				w.step = func() error { return dev.CopyTo(host) }
			}
			w.check = func() error { return checkBytes(host) }
		}
		if d == deviceToHost {
			// Give the device buffer the pattern the host side is checked for.
			src := make([]byte, size)
			fillBytes(src)
			if err := dev.CopyFrom(src); err != nil {
				return nil, errors.Join(err, w.release())
			}
		}
		return w, nil
	}
}

// newMemmove is the peer of every copy: the built-in copy between two Go
// slices, on one goroutine as memmove runs.
func newMemmove(_ *env, size int) (*workload, error) {
	src, dst := make([]byte, size), make([]byte, size)
	fillBytes(src)
	return &workload{
		bytes: int64(size),
		step:  func() error { copy(dst, src); return nil },
		check: func() error { return checkBytes(dst) },
	}, nil
}

func fillBytes(p []byte) {
	for i := range p {
		p[i] = byte(i * 7)
	}
}

func checkBytes(p []byte) error {
	for _, i := range []int{0, 1, len(p) / 2, len(p) - 1} {
		if p[i] != byte(i*7) {
			return fmt.Errorf("copy: byte %d = %d, want %d", i, p[i], byte(i*7))
		}
	}
	return nil
}

func copyFamily(name string, d copyDir) *family {
	f := &family{name: name, sizes: transferSizes, label: byteLabel, small: 4 << 10}
	f.impls = append(f.impls, impl{"hipgo", newCopy(d, false)})
	if d != deviceToDevice {
		f.impls = append(f.impls, impl{"hipgo-pinned", newCopy(d, true)})
	}
	f.impls = append(f.impls, impl{"memmove", newMemmove})
	return f
}

var (
	copyH2D = copyFamily("CopyH2D", hostToDevice)
	copyD2H = copyFamily("CopyD2H", deviceToHost)
	copyD2D = copyFamily("CopyD2D", deviceToDevice)
)

// BenchmarkCopyH2D is hipMemcpy host to device: impl=hipgo from a Go slice
// (pageable), impl=hipgo-pinned from buffer.Host memory.
func BenchmarkCopyH2D(b *testing.B) { runFamily(b, copyH2D) }

// BenchmarkCopyD2H is hipMemcpy device to host, to a Go slice or to
// buffer.Host memory.
func BenchmarkCopyD2H(b *testing.B) { runFamily(b, copyD2H) }

// BenchmarkCopyD2D is hipMemcpy device to device between two buffers.
func BenchmarkCopyD2D(b *testing.B) { runFamily(b, copyD2D) }
