package codeobj

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// maxDepth bounds the nesting of metadata values; real metadata nests 4 deep.
const maxDepth = 16

type metadata struct {
	version [2]int
	target  string
	kernels []Kernel
}

// mpReader decodes MessagePack values generically, refusing nesting
// deeper than maxDepth and lengths longer than the bytes left, so hostile
// input costs no more than its own size.
type mpReader struct {
	buf []byte
	r   *bytes.Reader
	d   *msgpack.Decoder
}

// checkLen verifies, before the decoder allocates for it, that the string
// or binary value starting at the current position fits in the input.
func (m *mpReader) checkLen() error {
	p := len(m.buf) - m.r.Len()
	b := m.buf[p:]
	if len(b) == 0 {
		return io.ErrUnexpectedEOF
	}
	var hdr, n int
	switch c := b[0]; {
	case c >= 0xa0 && c <= 0xbf: // fixstr
		hdr, n = 1, int(c&0x1f)
	case c == msgpcode.Str8 || c == msgpcode.Bin8:
		hdr = 2
	case c == msgpcode.Str16 || c == msgpcode.Bin16:
		hdr = 3
	case c == msgpcode.Str32 || c == msgpcode.Bin32:
		hdr = 5
	}
	if len(b) < hdr {
		return io.ErrUnexpectedEOF
	}
	for i := 1; i < hdr; i++ {
		n = n<<8 | int(b[i])
	}
	if n > len(b)-hdr {
		return fmt.Errorf("string of %d bytes in %d", n, len(b)-hdr)
	}
	return nil
}

func (m *mpReader) pos(total int) int64 { return int64(total - m.r.Len()) }

func (m *mpReader) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	c, err := m.d.PeekCode()
	if err != nil {
		return nil, err
	}
	switch {
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		n, err := m.d.DecodeMapLen()
		if err != nil {
			return nil, err
		}
		if n > m.r.Len() {
			return nil, fmt.Errorf("map of %d entries in %d bytes", n, m.r.Len())
		}
		out := make(map[string]any, min(n, 64))
		for range n {
			k, err := m.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v, err := m.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if ks, ok := k.(string); ok {
				out[ks] = v
			}
		}
		return out, nil
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		n, err := m.d.DecodeArrayLen()
		if err != nil {
			return nil, err
		}
		if n > m.r.Len() {
			return nil, fmt.Errorf("array of %d elements in %d bytes", n, m.r.Len())
		}
		out := make([]any, 0, min(n, 64))
		for range n {
			v, err := m.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case msgpcode.IsString(c) || c == msgpcode.Bin8 || c == msgpcode.Bin16 || c == msgpcode.Bin32:
		if err := m.checkLen(); err != nil {
			return nil, err
		}
		if msgpcode.IsString(c) {
			return m.d.DecodeString()
		}
		b, err := m.d.DecodeBytes()
		return string(b), err
	case c == msgpcode.Nil:
		return nil, m.d.DecodeNil()
	case c == msgpcode.True || c == msgpcode.False:
		return m.d.DecodeBool()
	case c == msgpcode.Float || c == msgpcode.Double:
		return m.d.DecodeFloat64()
	case msgpcode.IsFixedNum(c) || c == msgpcode.Int8 || c == msgpcode.Int16 || c == msgpcode.Int32 || c == msgpcode.Int64:
		return m.d.DecodeInt64()
	case c == msgpcode.Uint8 || c == msgpcode.Uint16 || c == msgpcode.Uint32 || c == msgpcode.Uint64:
		return m.d.DecodeUint64()
	case msgpcode.IsExt(c):
		return nil, fmt.Errorf("extension type %#x, which AMDGPU metadata never uses", c)
	}
	return nil, fmt.Errorf("unknown MessagePack code %#x", c)
}

// decodeMetadata decodes the NT_AMDGPU_METADATA MessagePack map.
func decodeMetadata(desc []byte) (*metadata, error) {
	r := bytes.NewReader(desc)
	mr := &mpReader{buf: desc, r: r, d: msgpack.NewDecoder(r)}
	v, err := mr.value(0)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("MessagePack at byte %d: %w", mr.pos(len(desc)), err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("root is %T, want a map", v)
	}
	md := &metadata{}
	if ver, ok := root["amdhsa.version"].([]any); ok {
		for i := 0; i < len(ver) && i < 2; i++ {
			n, _ := toUint(ver[i])
			md.version[i] = int(n)
		}
	}
	md.target, _ = root["amdhsa.target"].(string)
	ks, _ := root["amdhsa.kernels"].([]any)
	for i, kv := range ks {
		km, ok := kv.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("amdhsa.kernels[%d] is %T, want a map", i, kv)
		}
		k, err := decodeKernel(km)
		if err != nil {
			return nil, fmt.Errorf("amdhsa.kernels[%d] (%s): %w", i, k.Name, err)
		}
		md.kernels = append(md.kernels, k)
	}
	return md, nil
}

func toUint(v any) (uint64, bool) {
	switch x := v.(type) {
	case int64:
		if x >= 0 {
			return uint64(x), true
		}
	case uint64:
		return x, true
	case float64:
		if x >= 0 && x <= math.MaxUint32 && x == math.Trunc(x) {
			return uint64(x), true
		}
	case bool: // older writers emit 0/1 flags as booleans and vice versa
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// fields reads typed values out of a metadata map, remembering the first
// type error.
type fields struct {
	m   map[string]any
	err error
}

func (f *fields) u32(key string) uint32 {
	v, ok := f.m[key]
	if !ok {
		return 0
	}
	n, ok := toUint(v)
	if !ok || n > math.MaxUint32 {
		if f.err == nil {
			f.err = fmt.Errorf("%s: %v is not a 32-bit unsigned integer", key, v)
		}
		return 0
	}
	return uint32(n)
}

func (f *fields) str(key string) string {
	v, ok := f.m[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok && f.err == nil {
		f.err = fmt.Errorf("%s: %v is not a string", key, v)
	}
	return s
}

func (f *fields) flag(key string) bool {
	v, ok := f.m[key]
	if !ok {
		return false
	}
	n, ok := toUint(v)
	if !ok && f.err == nil {
		f.err = fmt.Errorf("%s: %v is not a boolean", key, v)
	}
	return n != 0
}

func (f *fields) dim3(key string) [3]uint32 {
	var out [3]uint32
	v, ok := f.m[key]
	if !ok {
		return out
	}
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		if f.err == nil {
			f.err = fmt.Errorf("%s: %v is not a list of 3 integers", key, v)
		}
		return out
	}
	for i := range out {
		n, ok := toUint(a[i])
		if !ok || n > math.MaxUint32 {
			if f.err == nil {
				f.err = fmt.Errorf("%s[%d]: %v is not a 32-bit unsigned integer", key, i, a[i])
			}
		}
		out[i] = uint32(n)
	}
	return out
}

func decodeKernel(m map[string]any) (Kernel, error) {
	f := &fields{m: m}
	k := Kernel{
		Name:               f.str(".name"),
		Symbol:             f.str(".symbol"),
		KernargSize:        f.u32(".kernarg_segment_size"),
		KernargAlign:       f.u32(".kernarg_segment_align"),
		GroupSegmentSize:   f.u32(".group_segment_fixed_size"),
		PrivateSegmentSize: f.u32(".private_segment_fixed_size"),
		MaxFlatWorkgroup:   f.u32(".max_flat_workgroup_size"),
		ReqdWorkgroupSize:  f.dim3(".reqd_workgroup_size"),
		WavefrontSize:      f.u32(".wavefront_size"),
		SGPRCount:          f.u32(".sgpr_count"),
		VGPRCount:          f.u32(".vgpr_count"),
		AGPRCount:          f.u32(".agpr_count"),
		UsesDynamicStack:   f.flag(".uses_dynamic_stack"),
	}
	if f.err != nil {
		return k, f.err
	}
	args, ok := m[".args"]
	if !ok {
		return k, nil
	}
	as, ok := args.([]any)
	if !ok {
		return k, fmt.Errorf(".args is %T, want a list", args)
	}
	k.Args = make([]Arg, 0, len(as))
	for i, av := range as {
		am, ok := av.(map[string]any)
		if !ok {
			return k, fmt.Errorf(".args[%d] is %T, want a map", i, av)
		}
		af := &fields{m: am}
		a := Arg{
			Name:         af.str(".name"),
			TypeName:     af.str(".type_name"),
			Offset:       af.u32(".offset"),
			Size:         af.u32(".size"),
			KindName:     af.str(".value_kind"),
			AddressSpace: af.str(".address_space"),
			Access:       af.str(".access"),
			ActualAccess: af.str(".actual_access"),
			PointeeAlign: af.u32(".pointee_align"),
			IsConst:      af.flag(".is_const"),
			IsRestrict:   af.flag(".is_restrict"),
			IsVolatile:   af.flag(".is_volatile"),
			IsPipe:       af.flag(".is_pipe"),
		}
		if af.err != nil {
			return k, fmt.Errorf(".args[%d]: %w", i, af.err)
		}
		a.Kind = ParseValueKind(a.KindName)
		a.Align = naturalAlign(a.Size)
		if k.KernargSize != 0 && (a.Offset > k.KernargSize || a.Size > k.KernargSize-a.Offset) {
			return k, fmt.Errorf(".args[%d] (%s): offset %d + size %d exceed .kernarg_segment_size %d", i, a.KindName, a.Offset, a.Size, k.KernargSize)
		}
		k.Args = append(k.Args, a)
	}
	return k, nil
}

// naturalAlign is the largest power of two dividing size, capped at 8:
// how AMDGPU lays out an argument of that size (an assumption for
// aggregates, whose real alignment the metadata does not give).
func naturalAlign(size uint32) uint32 {
	a := uint32(1)
	for a < 8 && size%(a*2) == 0 && size != 0 {
		a *= 2
	}
	return a
}
