package cuda

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// The structs passed to libcuda by pointer must match cuda.h's layout on
// 64-bit Linux: field offsets as the header's declaration order, size_t
// and pointers 8 bytes, enums 4 bytes padded to the next 8-byte field.
func TestMemcpy3DLayout(t *testing.T) {
	var d memcpy3D
	assert.Equal(t, uintptr(200), unsafe.Sizeof(d))
	want := map[string][2]uintptr{
		"srcXInBytes":   {unsafe.Offsetof(d.srcXInBytes), 0},
		"srcY":          {unsafe.Offsetof(d.srcY), 8},
		"srcZ":          {unsafe.Offsetof(d.srcZ), 16},
		"srcLOD":        {unsafe.Offsetof(d.srcLOD), 24},
		"srcMemoryType": {unsafe.Offsetof(d.srcMemoryType), 32},
		"srcHost":       {unsafe.Offsetof(d.srcHost), 40},
		"srcDevice":     {unsafe.Offsetof(d.srcDevice), 48},
		"srcArray":      {unsafe.Offsetof(d.srcArray), 56},
		"reserved0":     {unsafe.Offsetof(d.reserved0), 64},
		"srcPitch":      {unsafe.Offsetof(d.srcPitch), 72},
		"srcHeight":     {unsafe.Offsetof(d.srcHeight), 80},
		"dstXInBytes":   {unsafe.Offsetof(d.dstXInBytes), 88},
		"dstY":          {unsafe.Offsetof(d.dstY), 96},
		"dstZ":          {unsafe.Offsetof(d.dstZ), 104},
		"dstLOD":        {unsafe.Offsetof(d.dstLOD), 112},
		"dstMemoryType": {unsafe.Offsetof(d.dstMemoryType), 120},
		"dstHost":       {unsafe.Offsetof(d.dstHost), 128},
		"dstDevice":     {unsafe.Offsetof(d.dstDevice), 136},
		"dstArray":      {unsafe.Offsetof(d.dstArray), 144},
		"reserved1":     {unsafe.Offsetof(d.reserved1), 152},
		"dstPitch":      {unsafe.Offsetof(d.dstPitch), 160},
		"dstHeight":     {unsafe.Offsetof(d.dstHeight), 168},
		"WidthInBytes":  {unsafe.Offsetof(d.widthInBytes), 176},
		"Height":        {unsafe.Offsetof(d.height), 184},
		"Depth":         {unsafe.Offsetof(d.depth), 192},
	}
	for name, o := range want {
		assert.Equal(t, o[1], o[0], "CUDA_MEMCPY3D.%s", name)
	}
}

func TestMemcpy2DLayout(t *testing.T) {
	var d memcpy2D
	assert.Equal(t, uintptr(128), unsafe.Sizeof(d))
	assert.Equal(t, uintptr(16), unsafe.Offsetof(d.srcMemoryType))
	assert.Equal(t, uintptr(24), unsafe.Offsetof(d.srcHost))
	assert.Equal(t, uintptr(48), unsafe.Offsetof(d.srcPitch))
	assert.Equal(t, uintptr(56), unsafe.Offsetof(d.dstXInBytes))
	assert.Equal(t, uintptr(104), unsafe.Offsetof(d.dstPitch))
	assert.Equal(t, uintptr(112), unsafe.Offsetof(d.widthInBytes))
	assert.Equal(t, uintptr(120), unsafe.Offsetof(d.height))
}

func TestLaunchConfigLayout(t *testing.T) {
	var c launchConfig
	assert.Equal(t, uintptr(56), unsafe.Sizeof(c), "CUlaunchConfig")
	assert.Equal(t, uintptr(24), unsafe.Offsetof(c.sharedMemBytes))
	assert.Equal(t, uintptr(32), unsafe.Offsetof(c.hStream))
	assert.Equal(t, uintptr(40), unsafe.Offsetof(c.attrs))
	assert.Equal(t, uintptr(48), unsafe.Offsetof(c.numAttrs))
	var a launchAttribute
	assert.Equal(t, uintptr(72), unsafe.Sizeof(a), "CUlaunchAttribute")
	assert.Equal(t, uintptr(8), unsafe.Offsetof(a.value))
}
