package codeobj

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture: %v (regenerate with testdata/gen.sh)", err)
	}
	return b
}

func mustParse(t testing.TB, b []byte) *Spec {
	t.Helper()
	s, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// buildELF assembles a minimal AMDGPU code object: ELF header, a .note
// section holding meta as NT_AMDGPU_METADATA (when non-nil), .shstrtab.
func buildELF(flags uint32, abi uint8, meta []byte) []byte {
	var note bytes.Buffer
	if meta != nil {
		w := func(v uint32) { binary.Write(&note, binary.LittleEndian, v) }
		w(7)
		w(uint32(len(meta)))
		w(ntAMDGPUMetadata)
		note.WriteString("AMDGPU\x00\x00")
		note.Write(meta)
		for note.Len()%4 != 0 {
			note.WriteByte(0)
		}
	}
	shstr := []byte("\x00.note\x00.shstrtab\x00")
	noteOff := uint64(ehdrSize)
	strOff := noteOff + uint64(note.Len())
	shOff := (strOff + uint64(len(shstr)) + 7) &^ 7

	b := make([]byte, shOff+3*shdrSize)
	copy(b, elfMagic)
	b[4], b[5], b[6], b[7], b[8] = 2, 1, 1, osabiAMDGPUHSA, abi
	le.PutUint16(b[16:], 3) // ET_DYN
	le.PutUint16(b[18:], emAMDGPU)
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[40:], shOff)
	le.PutUint32(b[48:], flags)
	le.PutUint16(b[52:], ehdrSize)
	le.PutUint16(b[58:], shdrSize)
	le.PutUint16(b[60:], 3)
	le.PutUint16(b[62:], 2)
	copy(b[noteOff:], note.Bytes())
	copy(b[strOff:], shstr)
	sh := func(i int, name, typ uint32, off, size uint64) {
		h := b[shOff+uint64(i)*shdrSize:]
		le.PutUint32(h, name)
		le.PutUint32(h[4:], typ)
		le.PutUint64(h[24:], off)
		le.PutUint64(h[32:], size)
	}
	sh(1, 1, shtNote, noteOff, uint64(note.Len()))
	sh(2, 7, 3, strOff, uint64(len(shstr)))
	return b
}

// metaBlob encodes metadata as MessagePack, as LLVM does.
func metaBlob(t testing.TB, kernels ...map[string]any) []byte {
	t.Helper()
	ks := make([]any, len(kernels))
	for i, k := range kernels {
		ks[i] = k
	}
	b, err := msgpack.Marshal(map[string]any{
		"amdhsa.version": []int{1, 2},
		"amdhsa.target":  "amdgcn-amd-amdhsa--gfx90a:xnack-",
		"amdhsa.kernels": ks,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// buildBundle assembles an uncompressed offload bundle.
func buildBundle(entries map[string][]byte, order ...string) []byte {
	var hdr bytes.Buffer
	hdr.WriteString(bundleMagic)
	binary.Write(&hdr, binary.LittleEndian, uint64(len(order)))
	size := hdr.Len()
	for _, id := range order {
		size += 24 + len(id)
	}
	off := uint64((size + 7) &^ 7)
	var body bytes.Buffer
	for _, id := range order {
		d := entries[id]
		binary.Write(&hdr, binary.LittleEndian, off)
		binary.Write(&hdr, binary.LittleEndian, uint64(len(d)))
		binary.Write(&hdr, binary.LittleEndian, uint64(len(id)))
		hdr.WriteString(id)
		body.Write(d)
		for body.Len()%8 != 0 {
			body.WriteByte(0)
		}
		off = uint64((size+7)&^7) + uint64(body.Len())
	}
	for hdr.Len() < (size+7)&^7 {
		hdr.WriteByte(0)
	}
	return append(hdr.Bytes(), body.Bytes()...)
}

// The parsers of each structure, on their own, within the default limits.
func parseELF(b []byte) (*CodeObject, error)     { return newParser(len(b), Limits{}).elf(b) }
func parsePTX(b []byte) (*CodeObject, error)     { return newParser(len(b), Limits{}).ptx(b) }
func decodeMetadata(b []byte) (*metadata, error) { return newParser(len(b), Limits{}).metadata(b) }
func openELF(b []byte) (*elfFile, error)         { return newParser(len(b), Limits{}).openELF(b) }
func decompressBundle(b []byte, base int64) ([]byte, int, error) {
	return newParser(len(b), Limits{}).decompress(b, base)
}
