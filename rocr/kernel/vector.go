package kernel

import (
	"fmt"
	"unsafe"
)

// Word4 is what Load4 and Store4 move: 4-byte numbers, four at a time.
type Word4 interface{ ~int32 | ~uint32 | ~float32 }

// Word8 is what Load2 and Store2 move: 8-byte numbers, two at a time.
type Word8 interface {
	~int64 | ~uint64 | ~float64 | ~int | ~uint
}

// aligned panics where s does not start on a 16-byte boundary: a GPU's
// 16-byte load or store faults there.
func aligned[T any](s []T) {
	if len(s) > 0 && uintptr(unsafe.Pointer(&s[0]))%16 != 0 {
		panic(fmt.Errorf("kernel: a 16-byte vector access to a slice at %#x, which is not 16-byte aligned", uintptr(unsafe.Pointer(&s[0]))))
	}
}

// Load4 reads s[4*i], ..., s[4*i+3] as one 16-byte load (a float4 or int4
// load in CUDA: reinterpret_cast<const float4*>(s)[i]). s must start on a
// 16-byte boundary, as a buffer does (a view Sub at a multiple of 16
// bytes); an index out of range panics as s[4*i+3] does.
func Load4[T Word4](s []T, i int) [4]T {
	_ = s[4*i+3]
	aligned(s)
	return [4]T(s[4*i : 4*i+4])
}

// Store4 writes v to s[4*i], ..., s[4*i+3] as one 16-byte store.
func Store4[T Word4](s []T, i int, v [4]T) {
	_ = s[4*i+3]
	aligned(s)
	*(*[4]T)(s[4*i : 4*i+4]) = v
}

// Load2 reads s[2*i] and s[2*i+1] as one 16-byte load (double2,
// longlong2).
func Load2[T Word8](s []T, i int) [2]T {
	_ = s[2*i+1]
	aligned(s)
	return [2]T(s[2*i : 2*i+2])
}

// Store2 writes v to s[2*i] and s[2*i+1] as one 16-byte store.
func Store2[T Word8](s []T, i int, v [2]T) {
	_ = s[2*i+1]
	aligned(s)
	*(*[2]T)(s[2*i : 2*i+2]) = v
}
