package codeobj

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// addFixtures seeds a fuzz target with the committed fixtures; the
// hand-made seeds live in testdata/fuzz/<Name>/.
func addFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// exercise runs everything a caller does with a spec, checking the
// invariants Parse promises.
func exercise(t *testing.T, s *Spec) {
	_ = Describe(s)
	_, _ = s.Select("gfx90a:sramecc+:xnack-")
	_, _ = s.Select("sm_90")
	for _, o := range s.Objects {
		for i := range o.Kernels {
			k := &o.Kernels[i]
			if k.KernargSize > 1<<16 {
				continue
			}
			img := make([]byte, k.KernargSize)
			_ = k.FillHidden(img, &Launch{Grid: [3]uint32{100, 3, 2}, Block: [3]uint32{7, 2, 1}})
			_ = k.ExplicitArgs()
			if o.Format == FormatPTX {
				var end uint32
				for _, a := range k.Args {
					if a.Offset < end || a.Align == 0 || a.Offset%a.Align != 0 {
						t.Fatalf("PTX kernel %s: arg %s at %d (align %d) after %d", k.Name, a.Name, a.Offset, a.Align, end)
					}
					end = a.Offset + a.Size
				}
				if end != k.KernargSize {
					t.Fatalf("PTX kernel %s: size %d, args end at %d", k.Name, k.KernargSize, end)
				}
			}
		}
	}
}

// fuzzLimits keeps what a fuzzed compressed bundle may inflate small, so
// the cost check below stays tight.
var fuzzLimits = Limits{MaxDecompressed: 1 << 20}

// checkCost runs parse and fails when it allocates more than ten times
// its input, plus a fixed allowance (and what decompression may take),
// as a hostile input would make it.
func checkCost[T any](t *testing.T, b []byte, parse func() (T, error)) (T, error) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v, err := parse()
	runtime.ReadMemStats(&after)
	limit := 10*uint64(len(b)) + 256<<10
	if bytes.Contains(b, []byte(ccobMagic)) {
		limit += 4*uint64(fuzzLimits.MaxDecompressed) + 8<<20
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Fatalf("%d bytes of input allocated %d bytes (limit %d); err %v", len(b), got, limit, err)
	}
	return v, err
}

func FuzzParse(f *testing.F) {
	addFixtures(f, "gfx90a_v4.co", "compressed.hipfb", "k.ptx")
	for _, b := range seedELFs(f) {
		f.Add(b)
	}
	for _, b := range seedBundles(f) {
		f.Add(b)
	}
	for _, b := range seedPTX() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := checkCost(t, b, func() (*Spec, error) { return ParseWithLimits(b, fuzzLimits) })
		if err != nil {
			return
		}
		exercise(t, s)
	})
}

func FuzzParseELF(f *testing.F) {
	addFixtures(f, "gfx90a_v4.co", "gfx1100_v5.co")
	for _, b := range seedELFs(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := checkCost(t, b, func() (*CodeObject, error) { return parseELF(b) })
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

func FuzzBundle(f *testing.F) {
	addFixtures(f, "compressed.hipfb")
	for _, b := range seedBundles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		objs, err := checkCost(t, b, func() ([]*CodeObject, error) { return newParser(len(b), fuzzLimits).bundles(b, 0) })
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: objs})
	})
}

func FuzzPTX(f *testing.F) {
	addFixtures(f, "k.ptx")
	f.Add([]byte(trickyPTX))
	for _, b := range seedPTX() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := checkCost(t, b, func() (*CodeObject, error) { return parsePTX(b) })
		if err != nil {
			return
		}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

func FuzzMetadata(f *testing.F) {
	for _, b := range seedMetadata(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		md, err := checkCost(t, b, func() (*metadata, error) { return decodeMetadata(b) })
		if err != nil {
			return
		}
		o := &CodeObject{Format: FormatELF, Kernels: md.kernels}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

// The seeds below are small and reach every structure the parsers read,
// so that mutations start deep instead of at the magic numbers.

func seedKernels() []map[string]any {
	arg := func(name, kind string, off, size int) map[string]any {
		return map[string]any{".name": name, ".value_kind": kind, ".offset": off, ".size": size,
			".address_space": "global", ".access": "read_only", ".type_name": "float*", ".is_const": true}
	}
	return []map[string]any{
		{".name": "k", ".symbol": "k.kd", ".kernarg_segment_size": 56, ".kernarg_segment_align": 8,
			".group_segment_fixed_size": 0, ".private_segment_fixed_size": 0, ".max_flat_workgroup_size": 256,
			".wavefront_size": 64, ".sgpr_count": 8, ".vgpr_count": 4, ".reqd_workgroup_size": []int{64, 1, 1},
			".uses_dynamic_stack": false, ".args": []any{
				arg("x", "global_buffer", 0, 8), arg("n", "by_value", 8, 4),
				arg("", "hidden_block_count_x", 16, 4), arg("", "hidden_group_size_x", 28, 2),
				arg("", "hidden_remainder_x", 34, 2), arg("", "hidden_dynamic_lds_size", 40, 4),
				arg("", "hidden_grid_dims", 48, 2), arg("", "hidden_printf_buffer", 50, 4),
			}},
		{".name": "j", ".symbol": "j.kd", ".kernarg_segment_size": 0, ".args": []any{}},
	}
}

func seedMetadata(f *testing.F) [][]byte {
	return [][]byte{
		metaBlob(f, seedKernels()...),
		metaBlob(f),
		{0x80},
		{0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x91, 0x81, 0xa5, '.', 'a', 'r', 'g', 's', 0x92, 0x80, 0x80},
	}
}

func seedELFs(f *testing.F) [][]byte {
	meta := metaBlob(f, seedKernels()...)
	// A code object with symbols, descriptors, names shared by several
	// sections and a metadata note.
	strs := []byte("\x00k.kd\x00j.kd\x00lone.kd\x00")
	syms := symtab(3, 4, func(i int) uint32 { return []uint32{1, 6, 11}[i] })
	var note bytes.Buffer
	for _, v := range []uint32{7, uint32(len(meta)), ntAMDGPUMetadata} {
		binary.Write(&note, le, v)
	}
	note.WriteString("AMDGPU\x00\x00")
	note.Write(meta)
	for note.Len()%4 != 0 {
		note.WriteByte(0)
	}
	rodata := make([]byte, 3*KernelDescriptorSize)
	le.PutUint32(rodata[8:], 56)
	full := rawELF([][]byte{strs, syms, []byte(shstrSym + ".note\x00"), rodata, note.Bytes()}, 3,
		[]shdr{{blob: -1}, {name: 1, typ: shtSymtab, link: 2, blob: 1}, {name: 9, typ: 3, blob: 0},
			{name: 17, typ: 3, blob: 2}, {name: 27, typ: shtProgbits, blob: 3}, {name: 35, typ: shtNote, blob: 4},
			{name: 27, typ: shtProgbits, blob: 3}, {name: 9, typ: shtDynsym, link: 2, blob: 1}})
	shared := rawELF([][]byte{[]byte("\x00name\x00")}, 1,
		[]shdr{{blob: -1}, {name: 1, typ: 3, blob: 0}, {name: 1, typ: shtProgbits, blob: 0}, {name: 2, typ: shtNote, blob: -1}})
	return [][]byte{buildELF(0x3f, 3, meta), buildELF(0x41, 2, metaBlob(f)), full, shared}
}

func seedBundles(f *testing.F) [][]byte {
	elfs := seedELFs(f)
	ptx := seedPTX()[0]
	b := buildBundle(map[string][]byte{
		"hipv4-amdgcn-amd-amdhsa--gfx90a":        elfs[0],
		"host-x86_64-unknown-linux-gnu-":         nil,
		"cuda-nvptx64-nvidia-cuda-sm_90":         ptx,
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-": elfs[2],
	}, "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a", "cuda-nvptx64-nvidia-cuda-sm_90", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
	sum := md5.Sum(b)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	zlibCCOB := []byte(ccobMagic)
	zlibCCOB = le.AppendUint16(zlibCCOB, 2)
	zlibCCOB = le.AppendUint16(zlibCCOB, 0)
	zlibCCOB = le.AppendUint32(zlibCCOB, uint32(24+z.Len()))
	zlibCCOB = le.AppendUint32(zlibCCOB, uint32(len(b)))
	zlibCCOB = le.AppendUint64(zlibCCOB, le.Uint64(sum[:8]))
	zlibCCOB = append(zlibCCOB, z.Bytes()...)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		f.Fatal(err)
	}
	zstdCCOB := ccob(enc.EncodeAll(b, nil), uint64(len(b)), le.Uint64(sum[:8]))
	// Two entries sharing one code object.
	const id = "hipv4-amdgcn-amd-amdhsa--gfx90a"
	overlap := le.AppendUint64([]byte(bundleMagic), 2)
	for range 2 {
		overlap = le.AppendUint64(overlap, uint64(len(bundleMagic)+8+2*(24+len(id))))
		overlap = le.AppendUint64(overlap, uint64(len(elfs[1])))
		overlap = le.AppendUint64(overlap, uint64(len(id)))
		overlap = append(overlap, id...)
	}
	overlap = append(overlap, elfs[1]...)
	return [][]byte{b, zlibCCOB, zstdCCOB, append(append(append([]byte(nil), b...), make([]byte, 8)...), zstdCCOB...), overlap}
}

func seedPTX() [][]byte {
	return [][]byte{
		[]byte(ptxHead + ".entry k(.param .u64 .ptr .global .align 16 x, .param .align 8 .b8 s[24], .param .u32 n)\n" +
			".maxntid 256, 1, 1 .minnctapersm 2 .maxnreg 32\n{ ret; }\n.func f(.param .u32 a) { ret; }\n" +
			".entry d() .reqntid 32,4,2 { { } }\n.entry e();\n"),
		[]byte(ptxHead + "/* .entry x() {} */ // .entry y\n.entry q(.param .f16x2 a[2][3]) { \"}\" }\n"),
	}
}
