package hostmem

import (
	"sync/atomic"
	"unsafe"
)

// At converts a device address (pool memory, a ring) into a pointer. Under
// -race the cpu agent's pool memory is Go heap memory kept alive by its
// pool; nocheckptr lets checkptr accept a pointer made from its address.
//
//go:nocheckptr
func At(addr uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), addr) }

// Bytes views raw memory as a byte slice. The caller guarantees the range is
// mapped for as long as the slice is used.
func Bytes(addr, size uintptr) []byte {
	if size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(At(addr)), size)
}

// mapped is the bytes spi.MapAnonymous holds mapped now.
var mapped atomic.Int64

// AddMapped counts n bytes mapped (negative: unmapped).
func AddMapped(n int64) { mapped.Add(n) }

// Mapped is the bytes spi.MapAnonymous holds mapped now: a process's
// address space includes threads' stacks and the C allocator's arenas,
// which grow with the processor count; this is the runtime's own share.
func Mapped() int64 { return mapped.Load() }
