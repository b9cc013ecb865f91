package core

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Object is implemented by every kind of device-visible memory: a
// pointer to a struct that holds a Mem, at any depth of its fields, and
// embeds Sealed (buffer.Buffer[T], buffer.Host[T], module.Global[T]). Only
// a type that embeds Sealed has its method, so nothing outside the API
// can pass for memory.
type Object interface{ sealedMem() }

// Sealed marks a memory type; embed it (under an unexported alias).
type Sealed struct{}

func (Sealed) sealedMem() {}

// MemOf returns the Mem of an Object held in an interface without calling
// a method on it, so a launch's ...any arguments do not escape (an
// interface method call would make the compiler box every argument on the
// heap). Where the Mem lies in the struct is found once per type, by
// reflection, and kept (memOffsets); a value that is not a pointer to
// a struct holding one is no Object.
func MemOf(a any) (*Mem, bool) {
	if _, ok := a.(Object); !ok {
		return nil, false
	}
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&a))
	// The type word as a number, for the same reason: type descriptors
	// are never freed or moved.
	off, ok := memOffset(uintptr(w[0]), a)
	if !ok {
		return nil, false
	}
	// The data word goes through a uintptr so that escape analysis does
	// not tie the result to a; the object is a heap object that a keeps
	// alive for the caller.
	u := uintptr(w[1])
	if u == 0 {
		return nil, true // a nil *Buffer: the caller reports it
	}
	u += off
	return *(**Mem)(unsafe.Pointer(&u)), true
}

// memOffsets maps an Object type's type word to the offset of its Mem;
// copied on write, read without a lock. There is one entry per buffer
// kind and element type a program uses.
var (
	memOffsets   atomic.Pointer[map[uintptr]*memSlot]
	memOffsetsMu sync.Mutex
)

var memType = reflect.TypeFor[Mem]()

// memOffset is where the Mem of a value of type word t (a's) starts.
// memSlots, in front of the table, holds one type per slot, picked
// by the type word's bits: a launch's lookup is one load and a compare.
func memOffset(t uintptr, a any) (uintptr, bool) {
	slot := &memSlots[(t>>5)%uintptr(len(memSlots))]
	if e := slot.Load(); e != nil && e.t == t {
		return e.off, e.off != ^uintptr(0)
	}
	if m := memOffsets.Load(); m != nil {
		if e, ok := (*m)[t]; ok {
			// The map's own entry: two types that share a slot take turns
			// in it without allocating.
			slot.Store(e)
			return e.off, e.off != ^uintptr(0)
		}
	}
	e := learnMemOffset(t, reflect.TypeOf(a))
	slot.Store(e)
	return e.off, e.off != ^uintptr(0)
}

type memSlot struct{ t, off uintptr }

var memSlots [64]atomic.Pointer[memSlot]

// learnMemOffset finds the Mem in pointer type rt's struct and records
// its offset; a type without one is recorded as none (^0) so the search
// runs once.
func learnMemOffset(t uintptr, rt reflect.Type) *memSlot {
	off, found := uintptr(0), false
	if rt.Kind() == reflect.Pointer && rt.Elem().Kind() == reflect.Struct {
		off, found = findMem(rt.Elem())
	}
	if !found {
		off = ^uintptr(0)
	}
	e := &memSlot{t, off}
	memOffsetsMu.Lock()
	next := map[uintptr]*memSlot{t: e}
	if m := memOffsets.Load(); m != nil {
		for k, v := range *m {
			next[k] = v
		}
	}
	memOffsets.Store(&next)
	memOffsetsMu.Unlock()
	return e
}

// findMem is the offset of the first Mem in struct type st, searched
// depth first through its struct fields (not through pointers).
func findMem(st reflect.Type) (uintptr, bool) {
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type == memType {
			return f.Offset, true
		}
		if f.Type.Kind() == reflect.Struct {
			if off, ok := findMem(f.Type); ok {
				return f.Offset + off, true
			}
		}
	}
	return 0, false
}
