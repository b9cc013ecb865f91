package codeobj

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildCubin assembles a minimal EM_CUDA ELF (ABI 8, sm in e_flags bits
// 8-15) with one .nv.info.NAME section per kernel holding info.
func buildCubin(sm uint32, kernels map[string][]byte) []byte {
	names := make([]string, 0, len(kernels))
	for n := range kernels {
		names = append(names, n)
	}
	var shstr bytes.Buffer
	shstr.WriteByte(0)
	type sec struct {
		name uint32
		data []byte
	}
	var secs []sec
	for _, n := range names {
		secs = append(secs, sec{uint32(shstr.Len()), kernels[n]})
		shstr.WriteString(".nv.info." + n + "\x00")
	}
	strName := uint32(shstr.Len())
	shstr.WriteString(".shstrtab\x00")
	var body bytes.Buffer
	offs := make([]uint64, len(secs))
	for i, s := range secs {
		offs[i] = ehdrSize + uint64(body.Len())
		body.Write(s.data)
	}
	strOff := ehdrSize + uint64(body.Len())
	body.Write(shstr.Bytes())
	shOff := (ehdrSize + uint64(body.Len()) + 7) &^ 7
	n := len(secs) + 2
	b := make([]byte, shOff+uint64(n)*shdrSize)
	copy(b, elfMagic)
	b[4], b[5], b[6], b[7], b[8] = 2, 1, 1, 0x41, 8
	le.PutUint16(b[16:], 2)
	le.PutUint16(b[18:], emCUDA)
	le.PutUint64(b[40:], shOff)
	le.PutUint32(b[48:], sm<<8|4)
	le.PutUint16(b[52:], ehdrSize)
	le.PutUint16(b[58:], shdrSize)
	le.PutUint16(b[60:], uint16(n))
	le.PutUint16(b[62:], uint16(n-1))
	copy(b[ehdrSize:], body.Bytes())
	sh := func(i int, name, typ uint32, off, size uint64) {
		h := b[shOff+uint64(i)*shdrSize:]
		le.PutUint32(h, name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
	}
	for i, s := range secs {
		sh(i+1, s.name, shtCUDAInfo, offs[i], uint64(len(s.data)))
	}
	sh(n-1, strName, 3, strOff, uint64(shstr.Len()))
	return b
}

// kparam is an EIATTR_KPARAM_INFO record.
func kparam(ord, off, size uint16) []byte {
	r := []byte{eifmtSVAL, eiattrKParamInfo, 12, 0, 0, 0, 0, 0}
	r = le.AppendUint16(r, ord)
	r = le.AppendUint16(r, off)
	return le.AppendUint32(r, uint32(size)<<18|0x1f<<12)
}

func hval(attr uint8, v uint16) []byte { return le.AppendUint16([]byte{eifmtHVAL, attr}, v) }

// buildNVFatbin lays entries out as nvcc does: kind, arch, payload; a
// compressed entry stores zstd bytes and the expanded size.
func buildNVFatbin(t testing.TB, entries ...nvEntry) []byte {
	var body bytes.Buffer
	for _, e := range entries {
		payload, raw := e.payload, uint64(0)
		var flags uint64 = nvFlag64Bit | 0x10
		csize := uint32(0)
		if e.zstd {
			enc, err := zstd.NewWriter(nil)
			require.NoError(t, err)
			payload = enc.EncodeAll(e.payload, nil)
			raw, csize, flags = uint64(len(e.payload)), uint32(len(payload)), flags|nvFlagZstd
		}
		padded := (len(payload) + 7) &^ 7
		h := make([]byte, 64)
		le.PutUint16(h, e.kind)
		le.PutUint16(h[2:], 0x101)
		le.PutUint32(h[4:], 64)
		le.PutUint64(h[8:], uint64(padded))
		le.PutUint32(h[16:], csize)
		le.PutUint32(h[28:], e.arch)
		le.PutUint64(h[40:], flags)
		le.PutUint64(h[56:], raw)
		body.Write(h)
		body.Write(payload)
		body.Write(make([]byte, padded-len(payload)))
	}
	hdr := make([]byte, 16)
	le.PutUint32(hdr, nvFatbinMagic)
	le.PutUint16(hdr[4:], 1)
	le.PutUint16(hdr[6:], 16)
	le.PutUint64(hdr[8:], uint64(body.Len()))
	return append(hdr, body.Bytes()...)
}

type nvEntry struct {
	kind    uint16
	arch    uint32
	payload []byte
	zstd    bool
}

const dynPTX = `.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.func (.param .b32 r) helper(.param .b32 a) { ld.shared.f32 %f1, [smem]; ret; }
.func plain() { ret; }
.visible .entry direct(.param .u64 p, .param .u32 n) { mov.u32 %r1, smem; ret; }
.visible .entry viaCall(.param .u64 p) { call.uni (%r1), helper, (%r2); ret; }
.visible .entry none(.param .u64 p) { call.uni plain, (); ret; }
`

func smallCubin() []byte {
	info := bytes.Join([][]byte{kparam(1, 8, 4), kparam(0, 0, 8), hval(eiattrCBankParamSize, 12), hval(eiattrMaxRegCount, 32)}, nil)
	return buildCubin(90, map[string][]byte{"k": info})
}

func TestCubinBuilt(t *testing.T) {
	s := mustParse(t, smallCubin())
	require.Equal(t, "cubin", s.Container)
	o := s.Objects[0]
	assert.Equal(t, FormatCubin, o.Format)
	assert.Equal(t, "sm_90", o.Target)
	k, ok := o.Kernel("k")
	require.True(t, ok)
	require.Len(t, k.Args, 2)
	assert.Equal(t, [2]uint32{0, 8}, [2]uint32{k.Args[0].Offset, k.Args[0].Size})
	assert.Equal(t, [2]uint32{8, 4}, [2]uint32{k.Args[1].Offset, k.Args[1].Size})
	assert.Equal(t, uint32(12), k.KernargSize)
	assert.Equal(t, uint32(32), k.MaxNReg)
}

func TestCubinBad(t *testing.T) {
	for name, info := range map[string][]byte{
		"ordinal gap":    kparam(1, 0, 8),
		"overlap":        append(kparam(0, 0, 8), kparam(1, 4, 4)...),
		"past size":      append(kparam(0, 0, 8), hval(eiattrCBankParamSize, 4)...),
		"undescribed":    hval(eiattrCBankParamSize, 16),
		"short kparam":   {eifmtSVAL, eiattrKParamInfo, 4, 0, 1, 2, 3, 4},
		"sval too long":  {eifmtSVAL, eiattrKParamInfo, 0xff, 0xff, 1},
		"unknown format": {9, 1, 0, 0},
		"truncated":      {eifmtHVAL, 1},
	} {
		_, err := Parse(buildCubin(90, map[string][]byte{"k": info}))
		assert.ErrorIs(t, err, ErrFormat, name)
	}
}

// TestCubinMatchesCuobjdump compares the reading of nvcc's cubin with
// cuobjdump -elf's listing of it (testdata/nv/gen.sh made both).
func TestCubinMatchesCuobjdump(t *testing.T) {
	o := matchCuobjdump(t, "nv/k.cubin")
	k, _ := o.Kernel("bounded")
	assert.Equal(t, uint32(256), k.MaxFlatWorkgroup)
}

// TestHugeCubinMatchesCuobjdump reads kernels whose parameters pass
// 16 KiB (20,016 and 32,008 bytes, as CUDA 12.1 allows), which nvcc
// describes with EIATTR_KPARAM_INFO_V2, beside one of 4,008 bytes in the
// first form.
func TestHugeCubinMatchesCuobjdump(t *testing.T) {
	o := matchCuobjdump(t, "nv/big.cubin")
	for name, want := range map[string][]uint32{"echo_small": {4000, 8}, "echo_mid": {4, 20000, 8}, "echo_blob": {32000, 8}} {
		k, ok := o.Kernel(name)
		require.True(t, ok, name)
		var sizes []uint32
		for _, a := range k.Args {
			sizes = append(sizes, a.Size)
		}
		assert.Equal(t, want, sizes, name)
	}
}

func matchCuobjdump(t *testing.T, name string) *CodeObject {
	s := mustParse(t, fixture(t, name))
	o := s.Objects[0]
	assert.Equal(t, "sm_90", o.Target)
	want := cuobjdumpInfo(t, "testdata/"+name+".nvinfo.txt")
	require.Len(t, o.Kernels, len(want))
	for name, w := range want {
		k, ok := o.Kernel(name)
		require.True(t, ok, name)
		require.Len(t, k.Args, len(w.params), name)
		for _, p := range w.params {
			a := k.Args[p[0]]
			assert.Equal(t, [2]uint32{p[1], p[2]}, [2]uint32{a.Offset, a.Size}, "%s param %d", name, p[0])
		}
		assert.Equal(t, w.paramSize, k.KernargSize, name)
		assert.Equal(t, w.maxThreads, k.MaxNTID, name)
		assert.Equal(t, w.regs, k.Registers, name)
	}
	return o
}

type objdumpKernel struct {
	params     [][3]uint32 // ordinal, offset, size
	paramSize  uint32
	maxThreads [3]uint32
	regs       uint32
}

func cuobjdumpInfo(t *testing.T, path string) map[string]*objdumpKernel {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	num := func(s string) uint32 {
		v, err := strconv.ParseUint(s, 0, 32)
		require.NoError(t, err, s)
		return uint32(v)
	}
	kp := regexp.MustCompile(`Ordinal : (0x[0-9a-f]+)\s+Offset\s*: (0x[0-9a-f]+)\s+Size\s*: (0x[0-9a-f]+)`)
	rc := regexp.MustCompile(`function: (\S+)\(0x[0-9a-f]+\)\s+register count: (\d+)`)
	out := map[string]*objdumpKernel{}
	var cur *objdumpKernel
	var attr string
	regs := map[string]uint32{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, ".nv.info."); ok {
			cur = &objdumpKernel{}
			out[name] = cur
			continue
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(line), "Attribute:"); ok {
			attr = strings.TrimSpace(a)
			continue
		}
		if m := rc.FindStringSubmatch(line); m != nil {
			regs[m[1]] = num(m[2])
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "Value:")
		if cur == nil || !ok {
			continue
		}
		switch attr {
		case "EIATTR_KPARAM_INFO", "EIATTR_KPARAM_INFO_V2":
			m := kp.FindStringSubmatch(line)
			require.NotNil(t, m, line)
			cur.params = append(cur.params, [3]uint32{num(m[1]), num(m[2]), num(m[3])})
		case "EIATTR_CBANK_PARAM_SIZE":
			cur.paramSize = num(strings.TrimSpace(v))
		case "EIATTR_MAX_THREADS":
			fs := strings.Fields(v)
			cur.maxThreads = [3]uint32{num(fs[0]), num(fs[1]), num(fs[2])}
		}
	}
	require.NoError(t, sc.Err())
	for name, k := range out {
		k.regs = regs[name]
	}
	require.NotEmpty(t, out)
	return out
}

func TestNVFatbinSelect(t *testing.T) {
	s := mustParse(t, fixture(t, "nv/k.fatbin"))
	assert.Equal(t, "nv-fatbin", s.Container)
	assert.Equal(t, []string{"sm_90", "sm_80"}, s.Targets())
	for target, want := range map[string]Format{"sm_90": FormatCubin, "sm_80": FormatPTX, "sm_86": FormatPTX, "sm_100": FormatPTX} {
		o, err := s.Select(target)
		require.NoError(t, err, target)
		assert.Equal(t, want, o.Format, target)
	}
	_, err := s.Select("sm_75")
	var nm *NoMatchError
	require.ErrorAs(t, err, &nm)
	assert.Equal(t, []string{"sm_90", "sm_80"}, nm.Have)

	// The SASS takes types and dynamic shared use from the PTX beside it.
	o, _ := s.Select("sm_90")
	k, _ := o.Kernel("axpy")
	assert.Equal(t, ".f32", k.Args[0].TypeName)
	rd, _ := o.Kernel("reverse_dyn")
	assert.True(t, rd.UsesDynamicShared)
	assert.False(t, k.UsesDynamicShared)

	// An sm_80 cubin runs on sm_86, not on sm_90 (which JITs the PTX).
	s80 := mustParse(t, fixture(t, "nv/k80.fatbin"))
	o, err = s80.Select("sm_86")
	require.NoError(t, err)
	assert.Equal(t, FormatCubin, o.Format)
	o, err = s80.Select("sm_90")
	require.NoError(t, err)
	assert.Equal(t, FormatPTX, o.Format)

	_, err = mustParse(t, fixture(t, "nv/k100.fatbin")).Select("sm_90")
	require.ErrorAs(t, err, &nm)
	assert.Equal(t, []string{"sm_100"}, nm.Have)
}

func TestNVFatbinCompressedAndHost(t *testing.T) {
	plain := mustParse(t, fixture(t, "nv/k.fatbin"))
	for _, name := range []string{"nv/kz.fatbin", "nv/k.o"} {
		s := mustParse(t, fixture(t, name))
		o, err := s.Select("sm_90")
		require.NoError(t, err, name)
		assert.Equal(t, FormatCubin, o.Format, name)
		want, _ := plain.Select("sm_90")
		require.Len(t, o.Kernels, len(want.Kernels), name)
		for i := range o.Kernels {
			assert.Equal(t, want.Kernels[i].Args, o.Kernels[i].Args, name)
		}
	}
	entries, err := FatbinEntries(fixture(t, "nv/kz.fatbin"))
	require.NoError(t, err)
	require.Len(t, entries, 2)
	assert.Equal(t, FatbinEntry{Kind: "ptx", Arch: "sm_90", Compressed: "zstd", Size: entries[0].Size}, entries[0])
	assert.Equal(t, "host-elf", mustParse(t, fixture(t, "nv/k.o")).Container)
}

func TestNVFatbinBuilt(t *testing.T) {
	b := buildNVFatbin(t, nvEntry{kind: nvKindCubin, arch: 90, payload: smallCubin(), zstd: true}, nvEntry{kind: nvKindPTX, arch: 80, payload: []byte(dynPTX)})
	s := mustParse(t, b)
	require.Len(t, s.Objects, 2)
	assert.Equal(t, FormatCubin, s.Objects[0].Format)
	assert.Equal(t, "cubin sm_90", s.Objects[0].BundleEntry)

	for name, mut := range map[string]func(b []byte){
		"version":       func(b []byte) { le.PutUint16(b[4:], 2) },
		"size":          func(b []byte) { le.PutUint64(b[8:], 1<<40) },
		"entry header":  func(b []byte) { le.PutUint32(b[16+4:], 1<<30) },
		"entry payload": func(b []byte) { le.PutUint64(b[16+8:], 1<<60) },
		"bomb":          func(b []byte) { le.PutUint64(b[16+56:], 1<<40) },
		"csize":         func(b []byte) { le.PutUint32(b[16+16:], 1<<30) },
		"lz4":           func(b []byte) { le.PutUint64(b[16+40:], nvFlagLZ4) },
		"trailing junk": nil,
	} {
		c := append([]byte(nil), b...)
		if mut != nil {
			mut(c)
		} else {
			c = append(c, 1, 2, 3)
		}
		_, err := Parse(c)
		assert.ErrorIs(t, err, ErrFormat, name)
	}
	for n := 0; n < len(b); n += 7 {
		_, err := Parse(b[:n])
		if n >= 4 {
			assert.Error(t, err, "truncated to %d", n)
		}
	}
}

func TestPTXDynamicShared(t *testing.T) {
	o := mustParse(t, []byte(dynPTX)).Objects[0]
	got := map[string]bool{}
	for _, k := range o.Kernels {
		got[k.Name] = k.UsesDynamicShared
	}
	assert.Equal(t, map[string]bool{"direct": true, "viaCall": true, "none": false}, got)

	o = mustParse(t, fixture(t, "nv/k.ptx")).Objects[0]
	for _, k := range o.Kernels {
		assert.Equal(t, k.Name == "reverse_dyn", k.UsesDynamicShared, k.Name)
	}
}

func TestDemangle(t *testing.T) {
	assert.Equal(t, "void scale<float>(float*, float, int)", Demangle("_Z5scaleIfEvPT_S0_i"))
	assert.Equal(t, "axpy", Demangle("axpy"))
	assert.Contains(t, Describe(mustParse(t, fixture(t, "nv/k.cubin"))), "[void scale<double>(double*, double, int)]")
}

func FuzzCubin(f *testing.F) {
	f.Add(smallCubin())
	f.Add(buildCubin(80, map[string][]byte{"a": append(kparam(0, 0, 8), hval(eiattrMaxRegCount, 1)...), "b": nil}))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := newParser(len(b), Limits{}).cubin(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not match ErrFormat: %v", err)
			}
			return
		}
		exercise(t, &Spec{Objects: []*CodeObject{o}})
	})
}

func FuzzNVFatbin(f *testing.F) {
	f.Add(buildNVFatbin(f, nvEntry{kind: nvKindCubin, arch: 90, payload: smallCubin()}))
	f.Add(buildNVFatbin(f, nvEntry{kind: nvKindPTX, arch: 80, payload: []byte(dynPTX), zstd: true}, nvEntry{kind: 7, arch: 1, payload: []byte("x")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		exercise(t, s)
		_, _ = FatbinEntries(b)
	})
}
