package codeobj

import (
	"fmt"
	"io"
	"math"
	"strconv"
)

// The NT_AMDGPU_METADATA note is read in place by a small MessagePack
// reader rather than decoded into generic maps: its strings are
// substrings of one copy of the note, and nothing is allocated per value
// but the kernels and arguments themselves, so hostile metadata costs no
// more than its size.

type mpKind uint8

const (
	mpNil mpKind = iota
	mpBool
	mpInt
	mpUint
	mpFloat
	mpStr // str or bin
	mpArray
	mpMap
)

// mpValue is one value's header: a scalar whole, a string as a substring
// of the note, a list or map as its count.
type mpValue struct {
	kind mpKind
	u    uint64 // mpUint, mpBool (0 or 1), mpArray and mpMap counts
	i    int64
	f    float64
	s    string
}

func (v mpValue) String() string {
	switch v.kind {
	case mpNil:
		return "nil"
	case mpBool:
		return strconv.FormatBool(v.u != 0)
	case mpInt:
		return strconv.FormatInt(v.i, 10)
	case mpUint:
		return strconv.FormatUint(v.u, 10)
	case mpFloat:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case mpStr:
		return strconv.Quote(shorten(v.s))
	case mpArray:
		return fmt.Sprintf("a list of %d", v.u)
	}
	return fmt.Sprintf("a map of %d entries", v.u)
}

// uint reads v as an unsigned integer: older writers emit 0/1 flags as
// booleans, numbers as floats, and vice versa.
func (v mpValue) uint() (uint64, bool) {
	switch v.kind {
	case mpInt:
		return uint64(v.i), v.i >= 0
	case mpUint, mpBool:
		return v.u, true
	case mpFloat:
		if v.f >= 0 && v.f <= math.MaxUint32 && v.f == math.Trunc(v.f) {
			return uint64(v.f), true
		}
	}
	return 0, false
}

type mpReader struct {
	s   string
	pos int
}

func (r *mpReader) take(n uint64) (string, error) {
	if n > uint64(len(r.s)-r.pos) {
		return "", fmt.Errorf("%d bytes wanted, %d left: %w", n, len(r.s)-r.pos, io.ErrUnexpectedEOF)
	}
	b := r.s[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

func (r *mpReader) bigEndian(n uint64) (uint64, error) {
	b, err := r.take(n)
	var v uint64
	for i := 0; i < len(b); i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, err
}

// head reads the next value's header. Counts and lengths are checked
// against the bytes left before anything trusts them.
func (r *mpReader) head() (mpValue, error) {
	h, err := r.take(1)
	if err != nil {
		return mpValue{}, err
	}
	c := h[0]
	var v mpValue
	var n uint64 // length or count bytes to read
	switch {
	case c <= 0x7f:
		return mpValue{kind: mpInt, i: int64(c)}, nil
	case c >= 0xe0:
		return mpValue{kind: mpInt, i: int64(int8(c))}, nil
	case c <= 0x8f:
		v = mpValue{kind: mpMap, u: uint64(c & 0x0f)}
	case c <= 0x9f:
		v = mpValue{kind: mpArray, u: uint64(c & 0x0f)}
	case c <= 0xbf:
		v = mpValue{kind: mpStr, u: uint64(c & 0x1f)}
	case c == 0xc0:
		return mpValue{kind: mpNil}, nil
	case c == 0xc2 || c == 0xc3:
		return mpValue{kind: mpBool, u: uint64(c & 1)}, nil
	case c >= 0xc4 && c <= 0xc6: // bin 8/16/32
		v.kind, n = mpStr, 1<<(c-0xc4)
	case c >= 0xd9 && c <= 0xdb: // str 8/16/32
		v.kind, n = mpStr, 1<<(c-0xd9)
	case c == 0xdc || c == 0xdd:
		v.kind, n = mpArray, 2<<(c-0xdc)
	case c == 0xde || c == 0xdf:
		v.kind, n = mpMap, 2<<(c-0xde)
	case c == 0xca || c == 0xcb:
		bits, err := r.bigEndian(4 << (c - 0xca))
		if c == 0xca {
			return mpValue{kind: mpFloat, f: float64(math.Float32frombits(uint32(bits)))}, err
		}
		return mpValue{kind: mpFloat, f: math.Float64frombits(bits)}, err
	case c >= 0xcc && c <= 0xcf:
		u, err := r.bigEndian(1 << (c - 0xcc))
		return mpValue{kind: mpUint, u: u}, err
	case c >= 0xd0 && c <= 0xd3:
		size := uint64(1) << (c - 0xd0)
		u, err := r.bigEndian(size)
		shift := 64 - 8*size // sign-extend
		return mpValue{kind: mpInt, i: int64(u<<shift) >> shift}, err
	case c >= 0xc7 && c <= 0xc9 || c >= 0xd4 && c <= 0xd8:
		return v, fmt.Errorf("extension type %#x, which AMDGPU metadata never uses", c)
	default:
		return v, fmt.Errorf("unknown MessagePack code %#x", c)
	}
	if n != 0 {
		if v.u, err = r.bigEndian(n); err != nil {
			return v, err
		}
	}
	left := uint64(len(r.s) - r.pos)
	switch v.kind {
	case mpStr:
		if v.u > left {
			return v, fmt.Errorf("string of %d bytes in %d", v.u, left)
		}
		v.s, _ = r.take(v.u)
	case mpArray:
		if v.u > left {
			return v, fmt.Errorf("array of %d elements in %d bytes", v.u, left)
		}
	case mpMap:
		if v.u > left/2 {
			return v, fmt.Errorf("map of %d entries in %d bytes", v.u, left)
		}
	}
	return v, nil
}

// skip reads past the next value.
func (r *mpReader) skip(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	v, err := r.head()
	if err != nil {
		return err
	}
	return r.skipItems(v, depth)
}

// skipItems reads past what a list or map header v announced.
func (r *mpReader) skipItems(v mpValue, depth int) error {
	n := v.u
	switch v.kind {
	case mpMap:
		n *= 2
	case mpArray:
	default:
		return nil
	}
	for range n {
		if err := r.skip(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

// scalar reads the next value; a list or map is skipped and returned as
// its header.
func (r *mpReader) scalar() (mpValue, error) {
	v, err := r.head()
	if err == nil {
		err = r.skipItems(v, 0)
	}
	return v, err
}

func (r *mpReader) u32(key string) (uint32, error) {
	v, err := r.scalar()
	if err != nil {
		return 0, err
	}
	n, ok := v.uint()
	if !ok || n > math.MaxUint32 {
		return 0, fmt.Errorf("%s: %v is not a 32-bit unsigned integer", key, v)
	}
	return uint32(n), nil
}

func (r *mpReader) str(key string) (string, error) {
	v, err := r.scalar()
	if err != nil {
		return "", err
	}
	if v.kind != mpStr {
		return "", fmt.Errorf("%s: %v is not a string", key, v)
	}
	return v.s, nil
}

func (r *mpReader) flag(key string) (bool, error) {
	v, err := r.scalar()
	if err != nil {
		return false, err
	}
	n, ok := v.uint()
	if !ok {
		return false, fmt.Errorf("%s: %v is not a boolean", key, v)
	}
	return n != 0, nil
}

func (r *mpReader) dim3(key string) ([3]uint32, error) {
	var out [3]uint32
	v, err := r.head()
	if err != nil {
		return out, err
	}
	if v.kind != mpArray || v.u != 3 {
		if err := r.skipItems(v, 0); err != nil {
			return out, err
		}
		return out, fmt.Errorf("%s: %v is not a list of 3 integers", key, v)
	}
	for i := range out {
		if out[i], err = r.u32(key + "[" + strconv.Itoa(i) + "]"); err != nil {
			return out, err
		}
	}
	return out, nil
}

// fields reads a map of n entries, handing each string key to field,
// which reads its value; entries with other keys are skipped.
func (r *mpReader) fields(n uint64, field func(key string) error) error {
	for range n {
		key, err := r.scalar()
		if err != nil {
			return err
		}
		if key.kind != mpStr {
			if err := r.skip(0); err != nil {
				return err
			}
			continue
		}
		if err := field(key.s); err != nil {
			return err
		}
	}
	return nil
}
