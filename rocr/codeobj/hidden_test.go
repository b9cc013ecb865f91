package codeobj

import (
	"encoding/binary"
	"strings"
	"testing"
)

func getLE(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// fill runs FillHidden on a kernarg image prefilled with 0xAA and returns
// the image and the value each hidden argument got.
func fill(t *testing.T, k *Kernel, l Launch) ([]byte, map[ValueKind]uint64) {
	t.Helper()
	img := make([]byte, k.KernargSize)
	for i := range img {
		img[i] = 0xAA
	}
	if err := k.FillHidden(img, &l); err != nil {
		t.Fatal(err)
	}
	got := map[ValueKind]uint64{}
	covered := make([]bool, len(img))
	for _, a := range k.Args {
		if a.Hidden() {
			got[a.Kind] = getLE(img[a.Offset : a.Offset+a.Size])
			for i := a.Offset; i < a.Offset+a.Size; i++ {
				covered[i] = a.Kind != KindHiddenNone
			}
		}
	}
	// Bytes outside hidden arguments (explicit args, padding) are untouched.
	for i, c := range covered {
		if !c && img[i] != 0xAA {
			t.Fatalf("byte %d outside hidden args changed to %#x", i, img[i])
		}
	}
	return img, got
}

func checkKinds(t *testing.T, label string, got, want map[ValueKind]uint64) {
	t.Helper()
	for kind, v := range want {
		if got[kind] != v {
			t.Errorf("%s: %s = %d, want %d", label, kind, got[kind], v)
		}
	}
}

func TestFillHiddenV5(t *testing.T) {
	o := mustParse(t, fixture(t, "gfx1100_v5.co")).Objects[0]
	k, _ := o.Kernel("vector_add")

	// hipLaunchKernelGGL(vector_add, dim3(4), dim3(256), 0, ...) over 1000
	// work-items rounded to a partial last block: grid 1000, block 256.
	_, got := fill(t, k, Launch{Grid: [3]uint32{1000, 1, 1}, Block: [3]uint32{256, 1, 1}})
	want := map[ValueKind]uint64{
		KindHiddenBlockCountX: 3, KindHiddenBlockCountY: 1, KindHiddenBlockCountZ: 1,
		KindHiddenGroupSizeX: 256, KindHiddenGroupSizeY: 1, KindHiddenGroupSizeZ: 1,
		KindHiddenRemainderX: 232, KindHiddenRemainderY: 0, KindHiddenRemainderZ: 0,
		KindHiddenGlobalOffsetX: 0, KindHiddenGlobalOffsetY: 0, KindHiddenGlobalOffsetZ: 0,
		KindHiddenGridDims: 1,
	}
	checkKinds(t, "1D", got, want)

	// 2D: 640x480 with 16x16 blocks; the z dimension is unused.
	_, got = fill(t, k, Launch{Grid: [3]uint32{640, 480, 7}, Block: [3]uint32{16, 16, 7}, Dims: 2})
	want = map[ValueKind]uint64{
		KindHiddenBlockCountX: 40, KindHiddenBlockCountY: 30, KindHiddenBlockCountZ: 1,
		KindHiddenGroupSizeX: 16, KindHiddenGroupSizeY: 16, KindHiddenGroupSizeZ: 1,
		KindHiddenRemainderX: 0, KindHiddenRemainderY: 0, KindHiddenRemainderZ: 0,
		KindHiddenGridDims: 2,
	}
	checkKinds(t, "2D", got, want)

	// 3D inferred from the sizes, with remainders and global offsets.
	_, got = fill(t, k, Launch{Grid: [3]uint32{10, 20, 30}, Block: [3]uint32{4, 8, 16}, GlobalOffset: [3]uint64{1, 2, 3}})
	want = map[ValueKind]uint64{
		KindHiddenBlockCountX: 2, KindHiddenBlockCountY: 2, KindHiddenBlockCountZ: 1,
		KindHiddenRemainderX: 2, KindHiddenRemainderY: 4, KindHiddenRemainderZ: 14,
		KindHiddenGlobalOffsetX: 1, KindHiddenGlobalOffsetY: 2, KindHiddenGlobalOffsetZ: 3,
		KindHiddenGridDims: 3,
	}
	checkKinds(t, "3D", got, want)

	// Runtime pointers land where the metadata says.
	h, _ := o.Kernel("hidden")
	img, got := fill(t, h, Launch{Grid: [3]uint32{64}, Block: [3]uint32{64}, HostcallBuffer: 0x1111, MultigridSync: 0x2222,
		Heap: 0x3333, DefaultQueue: 0x4444, CompletionAction: 0x5555, QueuePtr: 0x6666})
	if got[KindHiddenHostcallBuffer] != 0x1111 || got[KindHiddenMultigridSyncArg] != 0x2222 || got[KindHiddenHeapV1] != 0x3333 ||
		got[KindHiddenDefaultQueue] != 0x4444 || got[KindHiddenCompletionAction] != 0x5555 || got[KindHiddenQueuePtr] != 0x6666 {
		t.Errorf("pointers: %v", got)
	}
	if binary.LittleEndian.Uint64(img[208:]) != 0x6666 {
		t.Errorf("hidden_queue_ptr not at offset 208")
	}
}

func TestFillHiddenV4(t *testing.T) {
	o := mustParse(t, fixture(t, "gfx90a_v4.co")).Objects[0]
	k, _ := o.Kernel("hidden")
	_, got := fill(t, k, Launch{Grid: [3]uint32{128, 4}, Block: [3]uint32{64, 2}, GlobalOffset: [3]uint64{5, 6, 7}, HostcallBuffer: 0xabc})
	// 2D launch: the z global offset is left zero, as clr does.
	want := map[ValueKind]uint64{KindHiddenGlobalOffsetX: 5, KindHiddenGlobalOffsetY: 6, KindHiddenGlobalOffsetZ: 0,
		KindHiddenHostcallBuffer: 0xabc, KindHiddenDefaultQueue: 0, KindHiddenCompletionAction: 0, KindHiddenMultigridSyncArg: 0}
	if len(got) != len(want) {
		t.Errorf("v4 filled %v, want only %v", got, want)
	}
	checkKinds(t, "v4", got, want)
	// v4 vector_add has no hidden args: nothing is written.
	va, _ := o.Kernel("vector_add")
	fill(t, va, Launch{Grid: [3]uint32{256}, Block: [3]uint32{64}})
}

func TestFillHiddenSynthetic(t *testing.T) {
	arg := func(off, size int, kind string) map[string]any {
		return map[string]any{".offset": off, ".size": size, ".value_kind": kind}
	}
	meta := metaBlob(t, map[string]any{
		".name": "k", ".symbol": "k.kd", ".kernarg_segment_size": 64, ".kernarg_segment_align": 8,
		".args": []any{
			arg(0, 4, "by_value"),
			arg(8, 4, "hidden_dynamic_lds_size"),
			arg(12, 4, "hidden_private_base"),
			arg(16, 4, "hidden_shared_base"),
			arg(24, 8, "hidden_printf_buffer"),
			arg(32, 8, "hidden_none"),
			arg(40, 2, "hidden_grid_dims"),
			arg(48, 8, "hidden_unknown_future"),
		},
	})
	k, _ := mustParse(t, buildELF(0x63f, 3, meta)).Objects[0].Kernel("k")
	img, got := fill(t, k, Launch{Grid: [3]uint32{1}, Block: [3]uint32{1}, DynamicShared: 4096, PrivateBase: 0x10000, SharedBase: 0x20000, PrintfBuffer: 0x99})
	if got[KindHiddenDynamicLDSSize] != 4096 || got[KindHiddenPrivateBase] != 0x10000 || got[KindHiddenSharedBase] != 0x20000 ||
		got[KindHiddenPrintfBuffer] != 0x99 || got[KindHiddenGridDims] != 1 {
		t.Errorf("got %v", got)
	}
	if img[32] != 0xAA || img[48] != 0xAA {
		t.Error("hidden_none or an unknown hidden kind was written")
	}

	// Errors: a short image, a zero block.
	if err := k.FillHidden(make([]byte, 20), &Launch{Grid: [3]uint32{1}, Block: [3]uint32{1}}); err == nil || !strings.Contains(err.Error(), "past the 20-byte") {
		t.Errorf("short image: %v", err)
	}
	if err := k.FillHidden(make([]byte, 64), &Launch{Grid: [3]uint32{1}}); err == nil {
		t.Error("zero block accepted")
	}
	if err := k.FillHidden(make([]byte, 64), &Launch{Grid: [3]uint32{1}, Block: [3]uint32{1}, Dims: 4}); err == nil {
		t.Error("4 dimensions accepted")
	}
}

func TestFillHiddenAllocs(t *testing.T) {
	o := mustParse(t, fixture(t, "gfx1100_v5.co")).Objects[0]
	k, _ := o.Kernel("hidden")
	img := make([]byte, k.KernargSize)
	l := &Launch{Grid: [3]uint32{1 << 20}, Block: [3]uint32{256}}
	if n := testing.AllocsPerRun(100, func() { k.FillHidden(img, l) }); n != 0 {
		t.Errorf("FillHidden allocates %v times per call", n)
	}
}

func BenchmarkFillHidden(b *testing.B) {
	o := mustParse(b, fixture(b, "gfx1100_v5.co")).Objects[0]
	k, _ := o.Kernel("vector_add")
	img := make([]byte, k.KernargSize)
	l := &Launch{Grid: [3]uint32{1 << 20}, Block: [3]uint32{256}}
	b.ReportAllocs()
	for b.Loop() {
		k.FillHidden(img, l)
	}
}
