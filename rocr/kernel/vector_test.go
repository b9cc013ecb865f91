package kernel_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr/kernel"
)

func TestVectorLoadsAndStores(t *testing.T) {
	mem := make([]float32, 20)
	off := int(uintptr(unsafe.Pointer(&mem[0])) % 16 / 4)
	if off != 0 {
		off = 4 - off
	}
	s := mem[off : off+10]
	for i := range s {
		s[i] = float32(i)
	}
	assert.Equal(t, [4]float32{4, 5, 6, 7}, kernel.Load4(s, 1))
	kernel.Store4(s, 0, [4]float32{9, 8, 7, 6})
	assert.Equal(t, []float32{9, 8, 7, 6, 4}, s[:5])
	assert.PanicsWithError(t, "runtime error: index out of range [11] with length 10", func() { kernel.Load4(s, 2) })
	assert.PanicsWithError(t, "runtime error: index out of range [-1]", func() { kernel.Store4(s, -1, [4]float32{}) })
	assert.Panics(t, func() { kernel.Load4(s[1:], 0) }, "a slice 4 bytes past a 16-byte boundary")

	d := unsafe.Slice((*int64)(unsafe.Pointer(&mem[off])), 5)
	kernel.Store2(d, 1, [2]int64{-1, 7})
	assert.Equal(t, [2]int64{-1, 7}, kernel.Load2(d, 1))
	assert.PanicsWithError(t, "runtime error: index out of range [5] with length 5", func() { kernel.Load2(d, 2) })
}
