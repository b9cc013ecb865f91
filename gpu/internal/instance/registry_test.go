package instance

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

type key[F, T any] struct{}

type (
	opA struct{}
	opB struct{}
)

// Keys of one generic type with different type arguments are different
// entries; the same type arguments find the same one.
func TestRegistryKeys(t *testing.T) {
	var r Registry
	_, ok := r.Lookup(any((*key[opA, float32])(nil)))
	assert.False(t, ok, "empty registry")
	r.Add(any((*key[opA, float32])(nil)), 1)
	r.Add(any((*key[opA, float64])(nil)), 2)
	r.Add(any((*key[opB, float32])(nil)), 3)
	for want, k := range map[int]any{1: (*key[opA, float32])(nil), 2: (*key[opA, float64])(nil), 3: (*key[opB, float32])(nil)} {
		v, ok := r.Lookup(k)
		require.True(t, ok, "%T", k)
		assert.Equal(t, want, v, "%T", k)
	}
	_, ok = r.Lookup(any((*key[opB, float64])(nil)))
	assert.False(t, ok)
	assert.Panics(t, func() { r.Add(any((*key[opA, float32])(nil)), 4) }, "a second registration")
	assert.Equal(t, 3, r.LoadOrAdd(any((*key[opB, float32])(nil)), 5), "LoadOrAdd keeps what is there")
	assert.Equal(t, 6, r.LoadOrAdd(any((*key[opB, int32])(nil)), 6))
}

// Lookups race additions without a data race (go test -race) and see
// every addition made before them.
func TestRegistryConcurrent(t *testing.T) {
	var r Registry
	r.Add(any((*key[opA, int8])(nil)), 0)
	var wg sync.WaitGroup
	wg.Go(func() {
		r.LoadOrAdd(any((*key[opA, int16])(nil)), 1)
		r.LoadOrAdd(any((*key[opA, int32])(nil)), 2)
		r.LoadOrAdd(any((*key[opA, int64])(nil)), 3)
	})
	wg.Go(func() {
		for range 1000 {
			v, ok := r.Lookup(any((*key[opA, int8])(nil)))
			assert.True(t, ok)
			assert.Equal(t, 0, v)
		}
	})
	wg.Wait()
	v, ok := r.Lookup(any((*key[opA, int64])(nil)))
	assert.True(t, ok)
	assert.Equal(t, 3, v)
}

// A lookup allocates nothing.
func TestLookupAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	var r Registry
	r.Add(any((*key[opA, float32])(nil)), func() {})
	assert.Zero(t, testenv.AllocsPerCall(100, func() {
		v, ok := r.Lookup(any((*key[opA, float32])(nil)))
		if !ok {
			t.Fatal("missing")
		}
		_ = v.(func())
	}))
}
