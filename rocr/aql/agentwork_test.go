package aql_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr/aql"
)

// The function codes and flags are a wire format between producers and
// agents: their values must not change.
func TestAgentCodes(t *testing.T) {
	t.Parallel()
	assert.Equal(t, uint16(0x8001), aql.AgentCopy)
	assert.Equal(t, uint16(0x8002), aql.AgentFill)
	assert.Equal(t, uint16(0x8003), aql.AgentCallback)
	assert.Equal(t, uint16(0x8004), aql.AgentNative)
	assert.Equal(t, uint16(0x8005), aql.AgentRect)
	assert.Equal(t, uint64(1), uint64(aql.CopySrcHost))
	assert.Equal(t, uint64(2), uint64(aql.CopyDstHost))
	assert.Equal(t, uint64(1), uint64(aql.NativeQueuesOnly))
}

// Each kind encodes to the words the packets have always carried, and
// decodes back to itself.
func TestAgentWorkEncoding(t *testing.T) {
	t.Parallel()
	const a, b, c, d = 0x1122334455667788, 0x99aabbccddeeff00, 0x0123456789abcdef, 0xfedcba9876543210
	for _, tc := range []struct {
		name   string
		call   aql.AgentCall
		fn     uint16
		words  [4]uint64
		decode func([4]uint64) aql.AgentCall
	}{
		{"copy", aql.CopyWork{Dst: a, Src: b, Bytes: c, Flags: aql.CopyDstHost}.Call(), 0x8001, [4]uint64{a, b, c, 2},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeCopy(w).Call() }},
		{"copy from host", aql.CopyWork{Dst: a, Src: b, Bytes: c, Flags: aql.CopySrcHost}.Call(), 0x8001, [4]uint64{a, b, c, 1},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeCopy(w).Call() }},
		{"copy of pool memory", aql.CopyWork{Dst: a, Src: b, Bytes: c}.Call(), 0x8001, [4]uint64{a, b, c, 0},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeCopy(w).Call() }},
		{"copy, unknown flags kept", aql.CopyWork{Dst: a, Src: b, Bytes: c, Flags: aql.CopyFlags(d)}.Call(), 0x8001, [4]uint64{a, b, c, d},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeCopy(w).Call() }},
		{"fill", aql.FillWork{Dst: a, Pattern: b, Count: c, ElemSize: 4}.Call(), 0x8002, [4]uint64{a, b, c, 4},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeFill(w).Call() }},
		{"callback", aql.CallbackWork{ID: a}.Call(), 0x8003, [4]uint64{a, 0, 0, 0},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeCallback(w).Call() }},
		{"native", aql.NativeWork{ID: a}.Call(), 0x8004, [4]uint64{a, 0, 0, 0},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeNative(w).Call() }},
		{"native, queues only", aql.NativeWork{ID: a, Flags: aql.NativeQueuesOnly}.Call(), 0x8004, [4]uint64{a, 1, 0, 0},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeNative(w).Call() }},
		{"rect", aql.RectWork{ID: a}.Call(), 0x8005, [4]uint64{a, 0, 0, 0},
			func(w [4]uint64) aql.AgentCall { return aql.DecodeRect(w).Call() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.fn, tc.call.Func, "function code")
			assert.Equal(t, tc.words, tc.call.Arg, "argument words")
			assert.Equal(t, tc.call, tc.decode(tc.call.Arg), "decode undoes encode")

			// In the slot: the function code at byte 2, the words from byte 16.
			p := tc.call.Packet(d)
			p.Header = aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
			s := slotOf(&p)
			require.NoError(t, aql.Validate(s))
			assert.Equal(t, tc.fn, binary.LittleEndian.Uint16(s[2:]))
			for i, w := range tc.words {
				assert.Equal(t, w, binary.LittleEndian.Uint64(s[16+8*i:]), "word %d", i)
			}
			assert.Equal(t, uint64(d), binary.LittleEndian.Uint64(s[56:]), "completion signal")
			assert.Zero(t, binary.LittleEndian.Uint64(s[8:]), "return address")
		})
	}
}

// The decoders give each field its word.
func TestAgentWorkDecode(t *testing.T) {
	t.Parallel()
	w := [4]uint64{10, 20, 30, 3}
	assert.Equal(t, aql.CopyWork{Dst: 10, Src: 20, Bytes: 30, Flags: aql.CopySrcHost | aql.CopyDstHost}, aql.DecodeCopy(w))
	assert.Equal(t, aql.FillWork{Dst: 10, Pattern: 20, Count: 30, ElemSize: 3}, aql.DecodeFill(w))
	assert.Equal(t, aql.CallbackWork{ID: 10}, aql.DecodeCallback(w))
	assert.Equal(t, aql.NativeWork{ID: 10, Flags: 20}, aql.DecodeNative(w))
	assert.Equal(t, aql.RectWork{ID: 10}, aql.DecodeRect(w))
}

// Whatever the words, decoding and encoding again keeps the words a kind
// uses and clears the others.
func FuzzAgentWork(f *testing.F) {
	f.Add(uint64(0x1000), uint64(0x2000), uint64(64), uint64(aql.CopySrcHost))
	f.Add(^uint64(0), uint64(0), uint64(1)<<62, uint64(3))
	f.Fuzz(func(t *testing.T, a, b, c, d uint64) {
		w := [4]uint64{a, b, c, d}
		for _, tc := range []struct {
			fn   uint16
			call aql.AgentCall
			used int
		}{
			{aql.AgentCopy, aql.DecodeCopy(w).Call(), 4},
			{aql.AgentFill, aql.DecodeFill(w).Call(), 4},
			{aql.AgentCallback, aql.DecodeCallback(w).Call(), 1},
			{aql.AgentNative, aql.DecodeNative(w).Call(), 2},
			{aql.AgentRect, aql.DecodeRect(w).Call(), 1},
		} {
			want := w
			clear(want[tc.used:])
			if tc.call.Func != tc.fn || tc.call.Arg != want {
				t.Fatalf("%#x: words %x encode back as %#x %x", tc.fn, w, tc.call.Func, tc.call.Arg)
			}
		}
	})
}

// Every function code has its description, with a name of its own; an
// unknown code is described too, as neither inline nor free of Go memory.
func TestCodeDescriptions(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, c := range aql.Codes() {
		info, ok := aql.Code(c)
		require.True(t, ok, "code %#x", c)
		assert.NotEmpty(t, info.Name, "code %#x", c)
		assert.False(t, names[info.Name], "name %q twice", info.Name)
		names[info.Name] = true
		require.NotNil(t, info.GoMemory, "code %#x", c)
		require.NotNil(t, info.Inline, "code %#x", c)
		require.NotNil(t, info.Bytes, "code %#x", c)
	}
	assert.Equal(t, []uint16{aql.AgentCopy, aql.AgentFill, aql.AgentCallback, aql.AgentNative, aql.AgentRect}, aql.Codes())
	dev := aql.CopyWork{Dst: 1, Src: 2, Bytes: 64}.Call()
	host := aql.CopyWork{Dst: 1, Src: 2, Bytes: 64, Flags: aql.CopySrcHost}.Call()
	copyInfo, _ := aql.Code(aql.AgentCopy)
	assert.True(t, copyInfo.Inline(dev.Arg))
	assert.False(t, copyInfo.Inline(host.Arg), "a pageable copy waits for earlier work")
	assert.False(t, copyInfo.GoMemory(dev.Arg))
	assert.True(t, copyInfo.GoMemory(host.Arg))
	assert.Equal(t, uint64(64), copyInfo.Bytes(dev.Arg))
	fill, _ := aql.Code(aql.AgentFill)
	for c, transfer := range map[uint16]bool{aql.AgentCopy: true, aql.AgentFill: true, aql.AgentRect: true, aql.AgentCallback: false, aql.AgentNative: false} {
		info, _ := aql.Code(c)
		assert.Equal(t, transfer, info.Transfer, "code %#x", c)
	}
	assert.Equal(t, uint64(40), fill.Bytes(aql.FillWork{Count: 10, ElemSize: 4}.Call().Arg))
	native, _ := aql.Code(aql.AgentNative)
	assert.True(t, native.Inline(aql.NativeWork{Flags: aql.NativeQueuesOnly}.Call().Arg))
	assert.False(t, native.Inline(aql.NativeWork{}.Call().Arg))
	unknown, ok := aql.Code(0x9000)
	assert.False(t, ok)
	assert.Equal(t, "agent dispatch 0x9000", unknown.Name)
	assert.False(t, unknown.Inline([4]uint64{}))
	assert.True(t, unknown.GoMemory([4]uint64{}))
}
