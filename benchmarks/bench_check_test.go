package benchmarks

import (
	"strings"
	"sync/atomic"
	"testing"
)

// families is every family of the suite, in the order of the report.
var families = []*family{
	launchSync, launchAsync, crossStream, alloc, copyH2D, copyD2H, copyD2D,
	vectorAdd, saxpy, reduceSum, transpose, sgemm,
}

// TestWorkloads runs every impl of every family a few steps at its
// smallest size and checks the result: what the benchmarks time, without
// their timing.
func TestWorkloads(t *testing.T) {
	e, err := newEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.close(); err != nil {
			t.Error(err)
		}
	}()
	for _, f := range families {
		for _, im := range f.impls {
			name := f.name + "/impl=" + im.name
			if f.label != nil {
				name += "/" + f.label(f.small)
			}
			t.Run(name, func(t *testing.T) {
				w, err := im.mk(e, f.small)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.run(3); err != nil {
					t.Error(err)
				}
				if err := w.release(); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

// TestFamilies checks the names the report relies on: every family has a
// hipgo impl and a peer, sizes ascend, labels are key=value without a
// trailing -digits (go test's GOMAXPROCS suffix).
func TestFamilies(t *testing.T) {
	e, err := newEnv()
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	for _, f := range families {
		var hipgo, peer bool
		for _, im := range f.impls {
			hipgo = hipgo || !im.isPeer()
			peer = peer || im.isPeer()
		}
		if !hipgo || !peer {
			t.Errorf("%s: hipgo impl %v, peer %v", f.name, hipgo, peer)
		}
		if f.label == nil {
			continue
		}
		sizes := f.sizes(e)
		for i, s := range sizes {
			if i > 0 && s <= sizes[i-1] {
				t.Errorf("%s: sizes %v not ascending", f.name, sizes)
			}
			l := f.label(s)
			if k, _, ok := strings.Cut(l, "="); !ok || k == "" || strings.ContainsAny(l, "/ -") {
				t.Errorf("%s: label %q", f.name, l)
			}
		}
	}
}

func TestByteLabel(t *testing.T) {
	for n, want := range map[int]string{
		4 << 10: "size=4KiB", 1 << 20: "size=1MiB", 256 << 20: "size=256MiB", 1 << 30: "size=1GiB", 1000: "size=1000B", 1536: "size=1536B",
	} {
		if got := byteLabel(n); got != want {
			t.Errorf("byteLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParallelFor(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		var sum, calls atomic.Int64
		parallelFor(n, func(_, lo, hi int) {
			calls.Add(1)
			for i := lo; i < hi; i++ {
				sum.Add(int64(i))
			}
		})
		if want := int64(n * (n - 1) / 2); sum.Load() != want {
			t.Errorf("parallelFor(%d): sum %d, want %d", n, sum.Load(), want)
		}
	}
}
