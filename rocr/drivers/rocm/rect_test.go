package rocm

import (
	"testing"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
)

var _ spi.RectCopier = (*agent)(nil)

// A 3-D box from host memory to device memory and back is one
// hsa_amd_memory_async_copy_rect each way, with the pitches, slices and
// direction ROCR wants; copies the engine cannot take are ErrNotSupported,
// which the runtime turns into row-by-row copies.
func TestCopyRect(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	cp := ag.Driver().(spi.RectCopier)
	alloc := func(flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
		p, err := ag.Pool(hsa.SegmentGlobal, flags)
		require.NoError(t, err)
		al, err := p.Allocate(n)
		require.NoError(t, err)
		t.Cleanup(func() { _ = al.Free() })
		return al
	}
	host, dev, back := alloc(hsa.FlagFineGrained, 4096), alloc(hsa.FlagCoarseGrained, 4096), alloc(hsa.FlagFineGrained, 4096)
	src := hostmem.Bytes(host.Base, 4096)
	for i := range src {
		src[i] = byte(i)
	}
	// 3 slices of 4 rows of 12 bytes: host rows 32 bytes apart, 5 rows a
	// slice; device rows 16 apart, 4 a slice.
	up := &spi.Rect{Dst: uint64(dev.Base), Src: uint64(host.Base) + 32 + 4, DstPitch: 16, SrcPitch: 32,
		Width: 12, Height: 4, Depth: 3, DstHeight: 4, SrcHeight: 5}
	require.NoError(t, cp.CopyRectAsync(up, nil, nil))
	down := &spi.Rect{Dst: uint64(back.Base), Src: uint64(dev.Base), DstPitch: 12, SrcPitch: 16,
		Width: 12, Height: 4, Depth: 3, DstHeight: 4, SrcHeight: 4}
	require.NoError(t, cp.CopyRectAsync(down, nil, nil))
	got := hostmem.Bytes(back.Base, 12*4*3)
	for z := range 3 {
		for y := range 4 {
			for x := range 12 {
				require.Equal(t, src[z*160+(y+1)*32+4+x], got[(z*4+y)*12+x], "slice %d row %d byte %d", z, y, x)
			}
		}
	}
	f.mu.Lock()
	rects := append([]fakeRect(nil), f.rects...)
	f.mu.Unlock()
	require.Len(t, rects, 2)
	assert.Equal(t, uint32(copyHostToDevice), rects[0].dir)
	assert.Equal(t, uint32(copyDeviceToHost), rects[1].dir)
	assert.Equal(t, pitchedPtr{host.Base + 36, 32, 160}, rects[0].src)
	assert.Equal(t, pitchedPtr{dev.Base, 16, 64}, rects[0].dst)
	assert.Equal(t, dim3{12, 4, 3}, rects[0].rng)
	assert.Equal(t, f.agents[1].h, rects[0].agent, "the GPU's engine copies")

	odd := *up
	odd.SrcPitch = 30
	err := cp.CopyRectAsync(&odd, nil, nil)
	assert.ErrorIs(t, err, hsa.ErrNotSupported, "unaligned pitch")
	hh := &spi.Rect{Dst: uint64(back.Base), Src: uint64(host.Base), DstPitch: 16, SrcPitch: 16, Width: 8, Height: 2}
	assert.ErrorIs(t, cp.CopyRectAsync(hh, nil, nil), hsa.ErrNotSupported, "host to host")
	f.mu.Lock()
	f.fail["copy_rect"] = hsaStatus(hsa.StatusErrorInvalidArgument)
	f.mu.Unlock()
	err = cp.CopyRectAsync(up, nil, nil)
	require.ErrorIs(t, err, hsa.ErrNotSupported, "an engine limit falls back to rows")
	assert.Contains(t, err.Error(), "hsa_amd_memory_async_copy_rect")
	past := *up
	past.Height, past.SrcHeight = 40, 40
	assert.ErrorIs(t, cp.CopyRectAsync(&past, nil, nil), hsa.ErrInvalidArgument, "past the allocation")
}
