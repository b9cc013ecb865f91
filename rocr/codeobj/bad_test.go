package codeobj

import (
	"errors"
	"strings"
	"testing"
)

// Every prefix of every fixture either parses or fails with ErrFormat;
// none panics.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"gfx90a_v4.co", "gfx1100_v5.co", "compressed.hipfb", "host.o", "k.ptx"} {
		b := fixture(t, name)
		step := 1
		if testing.Short() {
			step = 61
		}
		for n := 0; n < len(b); n += step {
			s, err := Parse(b[:n:n])
			if err == nil {
				Describe(s)
				continue
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("%s[:%d]: error %v does not match ErrFormat", name, n, err)
			}
		}
	}
}

func TestCorrupt(t *testing.T) {
	co := fixture(t, "gfx1100_v5.co")
	patch := func(b []byte, off int, v ...byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[off:], v)
		return c
	}
	shoff := int(le.Uint64(co[40:]))
	bundle := fixture(t, "bundle.hipfb")
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "empty: 0 bytes"},
		{"garbage", []byte("hello world"), "unknown format"},
		{"elf32", patch(co, 4, 1), "ELFCLASS64"},
		{"big endian", patch(co, 5, 2), "little-endian"},
		{"osabi", patch(co, 7, 0), "ELFOSABI_AMDGPU_HSA"},
		{"abi version", patch(co, 8, 9), "ABI version 9"},
		{"mach", patch(co, 48, 0xfe), "unknown EF_AMDGPU_MACH"},
		{"shentsize", patch(co, 58, 40), "e_shentsize"},
		{"shnum", patch(co, 60, 0xff, 0x7f), "run past the end"},
		{"shstrndx", patch(co, 62, 0xfe, 0x00), "e_shstrndx"},
		{"section offset", patch(co, shoff+1*shdrSize+24, 0xff, 0xff, 0xff, 0xff), "section .note"},
		{"note size", patch(co, int(le.Uint64(co[shoff+shdrSize+24:]))+4, 0xff, 0xff, 0xff, 0x7f), "runs past the section end"},
		{"msgpack", patch(co, int(le.Uint64(co[shoff+shdrSize+24:]))+20, 0xc1), "MessagePack"},
		{"bundle count", patch(bundle, 24, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), "entries cannot fit"},
		{"bundle entry offset", patch(bundle, 32, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0), "runs past the end"},
		{"bundle id length", patch(bundle, 48, 0xff, 0xff, 0xff, 0xff), "ID of"},
		{"ccob version", []byte("CCOB\x07\x00\x01\x00xxxxxxxxxxxxxxxxxxxxxxxx"), "version 7"},
		{"ccob method", []byte("CCOB\x02\x00\x05\x00\x20\x00\x00\x00\x04\x00\x00\x00xxxxxxxxxxxxxxxx"), "compression method 5"},
		{"ccob size", []byte("CCOB\x03\x00\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\x04\x00\x00\x00\x00\x00\x00\x00xxxxxxxx"), "total size"},
		{"ccob huge", []byte("CCOB\x03\x00\x01\x00\x20\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xffxxxxxxxx"), "over the"},
		{"ccob data", []byte("CCOB\x02\x00\x01\x00\x20\x00\x00\x00\x04\x00\x00\x00xxxxxxxxyyyyyyyy"), "decompress"},
		{"hipf short", []byte("FPIH\x01\x00\x00\x00"), "truncated"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %q", tt.name, err, tt.want)
		}
	}
	// Deep MessagePack nesting is refused, not recursed into.
	deep := make([]byte, 10000)
	for i := range deep {
		deep[i] = 0x91 // fixarray of one
	}
	if _, err := decodeMetadata(deep); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep nesting: %v", err)
	}
	// A huge declared array in few bytes is refused before allocating.
	if _, err := decodeMetadata([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}); err == nil || !strings.Contains(err.Error(), "array of") {
		t.Errorf("huge array: %v", err)
	}
	// Metadata arguments outside the kernarg segment are an error.
	meta := metaBlob(t, map[string]any{".name": "k", ".kernarg_segment_size": 8,
		".args": []any{map[string]any{".offset": 4, ".size": 8, ".value_kind": "by_value"}}})
	if _, err := Parse(buildELF(0x3f, 3, meta)); err == nil || !strings.Contains(err.Error(), "exceed .kernarg_segment_size") {
		t.Errorf("arg outside segment: %v", err)
	}
	meta = metaBlob(t, map[string]any{".name": "k", ".kernarg_segment_size": "eight"})
	if _, err := Parse(buildELF(0x3f, 3, meta)); err == nil || !strings.Contains(err.Error(), "not a 32-bit unsigned integer") {
		t.Errorf("string size: %v", err)
	}
}
