package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Memory types whose Mem is not the first field, or is nested.
type (
	memLast struct {
		tag   [3]uint64
		label string
		m     Mem
		Sealed
	}
	memInner struct {
		pad int32
		m   Mem
	}
	memNested struct {
		x     byte
		inner memInner
		Sealed
	}
	memNone struct {
		x int
		Sealed
	}
	memByValue struct {
		m Mem
		Sealed
	}
)

// TestMemOfAnyFieldOrder: MemOf finds the Mem wherever the type holds it,
// a nil pointer of such a type gives a nil Mem, and what holds no Mem, or
// is no pointer, is no Object. Nothing allocates once a type is known.
func TestMemOfAnyFieldOrder(t *testing.T) {
	last := &memLast{tag: [3]uint64{1, 2, 3}, label: "x"}
	last.m.n = 7
	m, ok := MemOf(last)
	require.True(t, ok)
	assert.Same(t, &last.m, m)
	assert.Equal(t, 7, m.n)

	nested := &memNested{x: 1, inner: memInner{pad: 2}}
	nested.inner.m.n = 9
	m, ok = MemOf(nested)
	require.True(t, ok)
	assert.Same(t, &nested.inner.m, m)

	m, ok = MemOf((*memLast)(nil))
	assert.True(t, ok)
	assert.Nil(t, m)

	_, ok = MemOf(&memNone{x: 1})
	assert.False(t, ok, "a sealed type without a Mem")
	_, ok = MemOf(&memNone{x: 2}) // the second look comes from the table
	assert.False(t, ok)
	_, ok = MemOf(memByValue{m: Mem{n: 1}})
	assert.False(t, ok, "a struct value, not a pointer")
	_, ok = MemOf(42)
	assert.False(t, ok)

	var a any = last
	allocs := testing.AllocsPerRun(100, func() { MemOf(a) })
	assert.Zero(t, allocs)
}

// TestMemOfConcurrentTypes: goroutines learning new types at once all
// get their own type's offset (the table is copied on write).
func TestMemOfConcurrentTypes(t *testing.T) {
	done := make(chan bool)
	for range 8 {
		go func() {
			l, n := &memLast{}, &memNested{}
			ok := true
			for range 100 {
				ml, _ := MemOf(l)
				mn, _ := MemOf(n)
				ok = ok && ml == &l.m && mn == &n.inner.m
			}
			done <- ok
		}()
	}
	for range 8 {
		assert.True(t, <-done)
	}
}

// BenchmarkMemOf is the per-buffer-argument cost of a launch: the type
// check, the offset lookup and the pointer arithmetic.
func BenchmarkMemOf(b *testing.B) {
	var a any = &memLast{}
	MemOf(a)
	b.ReportAllocs()
	for b.Loop() {
		MemOf(a)
	}
}
