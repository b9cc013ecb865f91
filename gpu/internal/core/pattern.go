package core

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
)

// Pattern returns v's bytes as a fill pattern and its size.
func Pattern[T any](v T) (uint64, int, error) {
	es := int(unsafe.Sizeof(v))
	var pat uint64
	switch es {
	case 1:
		pat = uint64(*(*uint8)(unsafe.Pointer(&v)))
	case 2:
		pat = uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		pat = uint64(*(*uint32)(unsafe.Pointer(&v)))
	case 8:
		pat = *(*uint64)(unsafe.Pointer(&v))
	default:
		return 0, 0, gpu.Errorf(gpu.ErrInvalidValue, "memset", "fill of %d-byte elements: want 1, 2, 4 or 8 bytes", es)
	}
	return pat, es, nil
}

// AsBytes views a slice of T as bytes, for copies.
func AsBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}
