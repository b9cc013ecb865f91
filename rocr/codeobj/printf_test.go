package codeobj

import (
	"crypto/md5"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The buffered printf fixture lists its format strings with the hash its
// records carry (the low 64 bits of the format's MD5), and its printing
// kernel takes the printf buffer as a hidden argument, which FillHidden
// writes at the metadata's offset.
func TestPrintfFormats(t *testing.T) {
	s := mustParse(t, fixture(t, "printf_gfx90a.co"))
	require.Len(t, s.Objects, 1)
	o := s.Objects[0]
	want := []string{"hello %d from %s\n", "%5.2f|%-4d|%c|%s|%llx|%e|%g\n"}
	require.Len(t, o.Printf, len(want))
	for i, f := range o.Printf {
		assert.Equal(t, want[i], f.Format)
		sum := md5.Sum([]byte(f.Format))
		assert.Equal(t, binary.LittleEndian.Uint64(sum[:8]), f.Hash, "hash of %q", f.Format)
	}
	_, hostcall := o.HostcallPrintf()
	assert.False(t, hostcall)

	var hello, quiet *Kernel
	for i := range o.Kernels {
		switch o.Kernels[i].Name {
		case "hello":
			hello = &o.Kernels[i]
		case "quiet":
			quiet = &o.Kernels[i]
		}
	}
	require.NotNil(t, hello)
	require.NotNil(t, quiet)
	assert.True(t, hello.UsesPrintfBuffer())
	assert.False(t, quiet.UsesPrintfBuffer())

	var off uint32
	for _, a := range hello.Args {
		if a.Kind == KindHiddenPrintfBuffer {
			off = a.Offset
			assert.Equal(t, uint32(8), a.Size)
		}
	}
	// Four explicit arguments (32 bytes), then the v5 implicit block,
	// where the printf buffer is implicit argument 9 (byte 72), as the
	// fixture's __printf_alloc reads it.
	assert.Equal(t, uint32(32+72), off)
	ka := make([]byte, hello.KernargSize)
	require.NoError(t, hello.FillHidden(ka, &Launch{Grid: [3]uint32{64, 1, 1}, Block: [3]uint32{64, 1, 1}, PrintfBuffer: 0x7f00_1234_5000}))
	assert.Equal(t, uint64(0x7f00_1234_5000), binary.LittleEndian.Uint64(ka[off:]))
}

// HIP's default printf kind calls the device library's hostcall printf.
func TestHostcallPrintf(t *testing.T) {
	s := mustParse(t, fixture(t, "hostcall_gfx90a.co"))
	require.Len(t, s.Objects, 1)
	name, ok := s.Objects[0].HostcallPrintf()
	assert.True(t, ok)
	assert.Equal(t, "__ockl_printf_begin", name)
	assert.Empty(t, s.Objects[0].Printf)
}

func TestPrintfEntry(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		hash uint64
		fmt  string
	}{
		{"0:0:48888f1c5db85516,hello %d\n", true, 0x48888f1c5db85516, "hello %d\n"},
		{"0:0:1,a,b", true, 1, "a,b"},
		{"0:0:ffffffff,\"Non const format string\"", true, 0xffffffff, `"Non const format string"`},
		{"1:4:4:%d", false, 0, ""},                // OpenCL's ID:SIZES:FORMAT
		{"0:0:zz,x", false, 0, ""},                // not hex
		{"0:0:11112222333344445,x", false, 0, ""}, // past 64 bits
		{"", false, 0, ""},
	} {
		f, ok := parsePrintfEntry(tc.in)
		assert.Equal(t, tc.ok, ok, "%q", tc.in)
		if ok {
			assert.Equal(t, tc.hash, f.Hash, "%q", tc.in)
			assert.Equal(t, tc.fmt, f.Format, "%q", tc.in)
		}
	}
}
