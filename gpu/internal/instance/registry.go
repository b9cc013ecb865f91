// Package instance is the registry of the kernels hipgo-gen instantiates
// for a user's operation (array.Map1..Map4, prim.ReduceWith): the
// generated code registers each instance's launcher at init under a key
// that names its type arguments, and a call looks it up.
//
// A key is a nil pointer to a generic key type instantiated with the
// call's type arguments, converted to any: any((*map2Key[F, R, X1,
// X2])(nil)). Two such values are equal exactly when the type arguments
// are identical, the conversion of a nil pointer allocates nothing, and
// hashing it hashes the type word and a nil pointer: a lookup needs no
// reflection and no allocation.
package instance

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Registry maps keys to launchers. Lookups read an immutable map with one
// atomic load; additions copy it (they happen at init, and once per type
// combination for a cpu agent's fallback).
type Registry struct {
	mu sync.Mutex
	m  atomic.Pointer[map[any]any]
}

// Lookup is the value registered under key.
func (r *Registry) Lookup(key any) (any, bool) {
	m := r.m.Load()
	if m == nil {
		return nil, false
	}
	v, ok := (*m)[key]
	return v, ok
}

// Add registers v under key. A second registration of a key panics, as
// sql.Register does: two generated files instantiate the same operation.
func (r *Registry) Add(key, v any) {
	if _, loaded := r.add(key, v); loaded {
		panic(fmt.Sprintf("hipgo: %T registered twice (two generated instance files for one operation?)", key))
	}
}

// LoadOrAdd is the value under key, registering v there first if none
// is.
func (r *Registry) LoadOrAdd(key, v any) any {
	got, _ := r.add(key, v)
	return got
}

func (r *Registry) add(key, v any) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.m.Load()
	if old != nil {
		if have, ok := (*old)[key]; ok {
			return have, true
		}
	}
	m := map[any]any{}
	if old != nil {
		m = make(map[any]any, len(*old)+1)
		for k, x := range *old {
			m[k] = x
		}
	}
	m[key] = v
	r.m.Store(&m)
	return v, false
}
