package collective

import (
	"strconv"
	"unsafe"
)

// Element is the element types a collective moves, one per NCCL data type.
// (hipgo has no half-precision type; float16 and bfloat16 are not offered.)
type Element interface {
	int8 | uint8 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// dataType is an ncclDataType_t (RCCL's values are the same).
type dataType int

const (
	ncclInt8    dataType = 0
	ncclUint8   dataType = 1
	ncclInt32   dataType = 2
	ncclUint32  dataType = 3
	ncclInt64   dataType = 4
	ncclUint64  dataType = 5
	ncclFloat32 dataType = 7
	ncclFloat64 dataType = 8
)

var dataTypeNames = map[dataType]string{
	ncclInt8: "int8", ncclUint8: "uint8", ncclInt32: "int32", ncclUint32: "uint32",
	ncclInt64: "int64", ncclUint64: "uint64", ncclFloat32: "float32", ncclFloat64: "float64",
}

func (d dataType) String() string {
	if s, ok := dataTypeNames[d]; ok {
		return s
	}
	return "dataType(" + strconv.Itoa(int(d)) + ")"
}

// size is the bytes of one element, 0 for a type NCCL does not have.
func (d dataType) size() int {
	switch d {
	case ncclInt8, ncclUint8:
		return 1
	case ncclInt32, ncclUint32, ncclFloat32:
		return 4
	case ncclInt64, ncclUint64, ncclFloat64:
		return 8
	}
	return 0
}

func dataTypeOf[T Element]() dataType {
	var zero T
	switch any(zero).(type) {
	case int8:
		return ncclInt8
	case uint8:
		return ncclUint8
	case int32:
		return ncclInt32
	case uint32:
		return ncclUint32
	case int64:
		return ncclInt64
	case uint64:
		return ncclUint64
	case float32:
		return ncclFloat32
	}
	return ncclFloat64
}

// Op is a reduction (ncclRedOp_t; RCCL's values are the same).
type Op int

// Reductions. Avg divides the sum by the number of ranks (integer
// division for integer types), as ncclAvg does.
const (
	Sum Op = iota
	Prod
	Max
	Min
	Avg
)

func (o Op) String() string {
	switch o {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Max:
		return "max"
	case Min:
		return "min"
	case Avg:
		return "avg"
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// reducer combines raw element bytes of one type; the cpu backend uses it.
type reducer struct {
	// combine sets dst[i] = dst[i] op src[i].
	combine func(dst, src []byte, op Op)
	// divide sets dst[i] /= n (the second half of Avg).
	divide func(dst []byte, n int)
}

func reducerOf[T Element]() reducer {
	return reducer{
		combine: func(dst, src []byte, op Op) {
			d, s := elems[T](dst), elems[T](src)
			switch op {
			case Sum, Avg:
				for i := range d {
					d[i] += s[i]
				}
			case Prod:
				for i := range d {
					d[i] *= s[i]
				}
			case Max:
				for i := range d {
					d[i] = max(d[i], s[i])
				}
			case Min:
				for i := range d {
					d[i] = min(d[i], s[i])
				}
			}
		},
		divide: func(dst []byte, n int) {
			d, k := elems[T](dst), T(n)
			for i := range d {
				d[i] /= k
			}
		},
	}
}

// elems views b (8-byte aligned: device memory or alignedBytes) as T.
func elems[T Element](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// alignedBytes returns n zero bytes aligned for every element type.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}
