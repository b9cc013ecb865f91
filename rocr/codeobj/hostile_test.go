package codeobj

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"github.com/hipgo/hipgo/internal/raceflag"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile inputs: each is built here, small, and must parse in under a
// second with total allocation within 10× its size, ending in an error
// that names the limit it hit or in a correct, bounded result.

// measure parses in and reports the result, the bytes allocated and the
// time taken. The package's tests do not run in parallel, so the
// process-wide allocation counter is this parse's.
func measure(in []byte, parse func([]byte) (*Spec, error)) (s *Spec, alloc uint64, took time.Duration, err error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, err = parse(in)
	took = time.Since(start)
	runtime.ReadMemStats(&after)
	return s, after.TotalAlloc - before.TotalAlloc, took, err
}

// parseLimit bounds a hostile input's parse time: far above an honest
// parse of the same size (milliseconds), far below a bomb's (minutes).
func parseLimit() time.Duration {
	if raceflag.Enabled {
		return 5 * time.Second // the race detector slows every memory access several times
	}
	return time.Second
}

func requireBounded(t *testing.T, in []byte) (*Spec, error) {
	t.Helper()
	s, alloc, took, err := measure(in, Parse)
	t.Logf("%d bytes in: %d bytes allocated (%.1f×), %v, err %v", len(in), alloc, float64(alloc)/float64(len(in)), took, err)
	assert.Less(t, took, parseLimit(), "parse time")
	assert.LessOrEqual(t, alloc, 10*uint64(len(in)), "bytes allocated for %d bytes of input", len(in))
	return s, err
}

// shdr is one section header of a test ELF; blob indexes the data it
// covers (-1: none), so several headers can cover the same bytes.
type shdr struct {
	name, typ, link uint32
	blob            int
	addr            uint64
}

// rawELF lays out an AMDGPU code object (gfx90a, v5) holding blobs, then
// the section headers.
func rawELF(blobs [][]byte, shstrndx uint16, hdrs []shdr) []byte {
	b := make([]byte, ehdrSize)
	copy(b, elfMagic)
	b[4], b[5], b[6], b[7], b[8] = 2, 1, 1, osabiAMDGPUHSA, 3
	le.PutUint16(b[16:], 3)
	le.PutUint16(b[18:], emAMDGPU)
	le.PutUint32(b[48:], 0x3f)
	le.PutUint16(b[52:], ehdrSize)
	le.PutUint16(b[58:], shdrSize)
	le.PutUint16(b[60:], uint16(len(hdrs)))
	le.PutUint16(b[62:], shstrndx)
	offs := make([]uint64, len(blobs))
	for i, d := range blobs {
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
		offs[i] = uint64(len(b))
		b = append(b, d...)
	}
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	le.PutUint64(b[40:], uint64(len(b)))
	for _, h := range hdrs {
		e := make([]byte, shdrSize)
		le.PutUint32(e, h.name)
		le.PutUint32(e[4:], h.typ)
		le.PutUint64(e[16:], h.addr)
		if h.blob >= 0 {
			le.PutUint64(e[24:], offs[h.blob])
			le.PutUint64(e[32:], uint64(len(blobs[h.blob])))
		}
		le.PutUint32(e[40:], h.link)
		b = append(b, e...)
	}
	return b
}

// longName is a string table holding one 256 KiB name at offset 1,
// followed by suffix.
func longName(suffix string) []byte {
	return []byte("\x00" + strings.Repeat("a", 256<<10) + suffix + "\x00")
}

// symtab returns n symbols (after the null one); name gives each one's
// name offset, and each lies at value 0 of section shndx.
func symtab(n int, shndx uint16, name func(i int) uint32) []byte {
	d := make([]byte, (n+1)*symSize)
	for i := range n {
		e := d[(i+1)*symSize:]
		le.PutUint32(e, name(i))
		e[4] = 1<<4 | byte(SymObject)
		le.PutUint16(e[6:], shndx)
		le.PutUint64(e[16:], KernelDescriptorSize)
	}
	return d
}

const shstrSym = "\x00.symtab\x00.strtab\x00.shstrtab\x00.rodata\x00"

func TestHostileSectionNames(t *testing.T) {
	// 2048 section headers all naming one 256 KiB string.
	hdrs := []shdr{{blob: -1}, {name: 1, typ: 3, blob: 0}}
	for len(hdrs) < 2048 {
		hdrs = append(hdrs, shdr{name: 1, typ: shtProgbits, blob: -1})
	}
	in := rawELF([][]byte{longName("")}, 1, hdrs)
	s, err := requireBounded(t, in)
	if err != nil {
		assert.ErrorIs(t, err, ErrFormat)
		assert.Contains(t, err.Error(), "limit")
		return
	}
	require.Len(t, s.Objects, 1)
	assert.Equal(t, "gfx90a", s.Objects[0].Target)
}

func TestHostileSymbolNames(t *testing.T) {
	// 20000 symbols all naming one 256 KiB string: one symbol.
	in := rawELF([][]byte{longName(""), symtab(20000, 0, func(int) uint32 { return 1 }), []byte(shstrSym)}, 3,
		[]shdr{{blob: -1}, {name: 1, typ: shtSymtab, link: 2, blob: 1}, {name: 9, typ: 3, blob: 0}, {name: 17, typ: 3, blob: 2}})
	s, err := requireBounded(t, in)
	if err != nil {
		assert.ErrorIs(t, err, ErrFormat)
		assert.Contains(t, err.Error(), "limit")
		return
	}
	require.Len(t, s.Objects, 1)
	require.Len(t, s.Objects[0].Symbols, 1)
	assert.Len(t, s.Objects[0].Symbols[0].Name, 256<<10)
}

func TestHostileKernelSymbols(t *testing.T) {
	// 20000 distinct kernel symbols, suffixes of one 256 KiB name ending
	// in ".kd", sharing one descriptor.
	rodata := make([]byte, KernelDescriptorSize)
	in := rawELF([][]byte{longName(".kd"), symtab(20000, 4, func(i int) uint32 { return uint32(1 + i) }), []byte(shstrSym), rodata}, 3,
		[]shdr{{blob: -1}, {name: 1, typ: shtSymtab, link: 2, blob: 1}, {name: 9, typ: 3, blob: 0}, {name: 17, typ: 3, blob: 2}, {name: 27, typ: shtProgbits, blob: 3}})
	_, err := requireBounded(t, in)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "limit")
}

func TestHostileOverlappingBundleEntries(t *testing.T) {
	// Over a thousand bundle entries all pointing at one code object.
	co := fixture(t, "gfx90a_v4.co")
	const id = "hipv4-amdgcn-amd-amdhsa--gfx90a"
	const n = 1100
	var b bytes.Buffer
	b.WriteString(bundleMagic)
	binary.Write(&b, le, uint64(n))
	off := uint64(b.Len() + n*(24+len(id)))
	for range n {
		binary.Write(&b, le, off)
		binary.Write(&b, le, uint64(len(co)))
		binary.Write(&b, le, uint64(len(id)))
		b.WriteString(id)
	}
	b.Write(co)
	in := b.Bytes()
	s, err := requireBounded(t, in)
	if err != nil {
		assert.ErrorIs(t, err, ErrFormat)
		assert.Contains(t, err.Error(), "overlap")
		return
	}
	assert.LessOrEqual(t, len(s.Objects), 1)
}

func TestHostileMetadataArgs(t *testing.T) {
	// A million empty .args maps in a megabyte of MessagePack.
	const n = 1_000_000
	var m bytes.Buffer
	m.Write([]byte{0x81, 0xae})
	m.WriteString("amdhsa.kernels")
	m.Write([]byte{0x91, 0x82, 0xa5})
	m.WriteString(".name")
	m.Write([]byte{0xa1, 'k', 0xa5})
	m.WriteString(".args")
	m.WriteByte(0xdd)
	binary.Write(&m, binary.BigEndian, uint32(n))
	m.Write(bytes.Repeat([]byte{0x80}, n))
	in := buildELF(0x3f, 3, m.Bytes())
	_, err := requireBounded(t, in)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "limit")
}

// zstdRLE is a zstd frame of n bytes of c made of RLE blocks of block
// bytes each: a few bytes that expand to n.
func zstdRLE(n, block int, c byte) []byte {
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x80, 7 << 3} // magic, 4-byte content size, 128 KiB window
	f = le.AppendUint32(f, uint32(n))
	for left := n; left > 0; left -= block {
		sz := min(block, left)
		h := uint32(sz)<<3 | 1<<1 // RLE
		if left == sz {
			h |= 1
		}
		f = append(f, byte(h), byte(h>>8), byte(h>>16), c)
	}
	return f
}

// ccob wraps a zstd payload in a version 3 compressed bundle header.
func ccob(payload []byte, raw uint64, hash uint64) []byte {
	b := []byte(ccobMagic)
	b = le.AppendUint16(b, 3)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint64(b, uint64(32+len(payload)))
	b = le.AppendUint64(b, raw)
	b = le.AppendUint64(b, hash)
	return append(b, payload...)
}

func TestHostileCompressedBomb(t *testing.T) {
	// 128 KiB claiming, and inflating to, 1 GiB: over the default limit.
	const raw = 1 << 30
	in := ccob(zstdRLE(raw, 32<<10, 0), raw, 0)
	_, err := requireBounded(t, in)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "limit")
	assert.Contains(t, err.Error(), "MaxDecompressed")

	// A stream inflating past what its header claims stops at the claim:
	// the 1 MiB claimed is allocated once, the 64 MiB never.
	in = ccob(zstdRLE(64<<20, 32<<10, 0), 1<<20, 0)
	_, alloc, took, err := measure(in, Parse)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "expands past")
	assert.Less(t, took, parseLimit())
	assert.LessOrEqual(t, alloc, uint64(2<<20))
}

func TestCompressedImagesOwnTheirBytes(t *testing.T) {
	// Each object of a compressed bundle holds only its own bytes, not
	// the whole inflated bundle.
	s := mustParse(t, fixture(t, "compressed.hipfb"))
	require.Len(t, s.Objects, 3)
	for _, o := range s.Objects {
		assert.Less(t, cap(o.Image)-len(o.Image), 4096, "%s: image of %d bytes keeps %d", o.Target, len(o.Image), cap(o.Image))
	}
}

func TestDecompressedLimit(t *testing.T) {
	b := fixture(t, "compressed.hipfb")
	_, err := ParseWithLimits(b, Limits{MaxDecompressed: 1024})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "MaxDecompressed")
	s, err := ParseWithLimits(b, Limits{MaxDecompressed: 1 << 20})
	require.NoError(t, err)
	assert.Len(t, s.Objects, 3)
}

const ptxHead = ".version 7.8\n.target sm_90\n.address_size 64\n"

func TestHostilePTX(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"entries", strings.Repeat(".entry a(.param .u8 b){}\n", 20000)},
		{"params", ".entry a(" + strings.Repeat(".param .u8 b,", 40000) + ".param .u8 c){}\n"},
		{"arrays", ".entry a(" + strings.Repeat(".param .b8 b[1],", 40000) + ".param .u8 c){}\n"},
		{"words", strings.Repeat(".func f(.param .u32 x) { ld.param.u32 %r1, [x]; add.s32 %r1, %r1, 1; }\n", 8000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := requireBounded(t, []byte(ptxHead+tc.body))
			if err != nil {
				assert.ErrorIs(t, err, ErrFormat)
				assert.Contains(t, err.Error(), "limit")
			}
		})
	}
}

func TestPTXThreadCountOverflow(t *testing.T) {
	for _, d := range []string{".reqntid 65536,65536,65536", ".maxntid 65536,65536,1"} {
		_, err := Parse([]byte(ptxHead + fmt.Sprintf(".entry k() %s { ret; }\n", d)))
		require.Error(t, err, d)
		assert.ErrorIs(t, err, ErrFormat)
		assert.Contains(t, err.Error(), "threads")
	}
	s, err := Parse([]byte(ptxHead + ".entry k() .reqntid 32,4,2 { ret; }\n"))
	require.NoError(t, err)
	assert.Equal(t, uint32(256), s.Objects[0].Kernels[0].MaxFlatWorkgroup)
}

func TestHostileCompressedRatio(t *testing.T) {
	// 26 KB honestly inflating to 200 MiB: under MaxDecompressed and the
	// 10000:1 ratio, but over ten times the input and over 64 MiB, so it
	// is refused before anything is inflated.
	const raw = 200 << 20
	in := ccob(zstdRLE(raw, 32<<10, 0), raw, 0)
	_, err := requireBounded(t, in)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "over the limit of 67108864 bytes")
}

func TestHostileCompressedClaim(t *testing.T) {
	// 64 KB claiming 63 MiB, within every limit, but inflating to 1 MiB:
	// the claim is never allocated.
	payload := zstdRLE(1<<20, 64, 0)
	in := ccob(payload, 63<<20, 0)
	_, err := requireBounded(t, in)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrFormat)
	assert.Contains(t, err.Error(), "expanded to 1048576 bytes, header says 66060288")

	// The same for a fat binary entry.
	p := newParser(len(payload), Limits{})
	_, alloc, _, err := measure(payload, func([]byte) (*Spec, error) {
		_, err := p.unzstdEntry(payload, uint32(len(payload)), 63<<20, "entry", 0)
		return nil, err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expanded to 1048576 bytes, header says 66060288")
	assert.LessOrEqual(t, alloc, 10*uint64(len(payload)))
}

func TestCompressedHonestClaim(t *testing.T) {
	// 4 MiB from 512 bytes, hashed right: inflated once, into a buffer
	// of exactly the claim (the inner bytes then hold no bundle).
	const raw = 4 << 20
	sum := md5.Sum(make([]byte, raw))
	in := ccob(zstdRLE(raw, 32<<10, 0), raw, le.Uint64(sum[:]))
	_, alloc, took, err := measure(in, Parse)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not hold an offload bundle")
	assert.Less(t, took, parseLimit())
	assert.Less(t, alloc, uint64(raw+raw/2))

	payload := zstdRLE(raw, 32<<10, 7)
	out, err := newParser(len(payload), Limits{}).unzstdEntry(payload, uint32(len(payload)), raw, "entry", 0)
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte{7}, raw), out)
}
