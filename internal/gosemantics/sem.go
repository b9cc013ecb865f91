// Package gosemantics holds Go kernels that exercise every rule of the
// kernel subset's semantics (docs/go-kernels.md): internal/kernelgen's
// TestSemanticsRun runs them as plain Go, on the cpu agent and as the
// emitted C++ compiled for the host by clang-19; this package's
// TestSemanticsDifferential runs them on every GPU present (the GPU test
// pack) against the cpu agent.
package gosemantics

//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go -var Library

import "github.com/hipgo/hipgo/rocr/kernel"

// N is how many results Eval writes per input pair.
const N = 64

// Ops evaluates the integer rules on the pair (a[i], b[i]) into
// out[i*N:].
//
//hipgo:kernel
func Ops(t kernel.Thread, a, b []int64, f []float64, out []uint64) {
	i := t.GlobalX()
	if i < len(a) {
		Eval(a[i], b[i], f[i], out[i*N:i*N+N])
	}
}

// Eval is Ops's work for one pair, a device function the test also calls
// as plain Go. Slots 56 and up hold float-to-integer conversions of f,
// which Go and C++ leave to the implementation where f is out of range.
func Eval(x, y int64, f float64, o []uint64) {
	// + - * and unary - wrap at every width.
	a8, b8 := int8(x), int8(y)
	o[0] = uint64(int64(a8+b8)) ^ uint64(int64(a8-b8))<<8 ^ uint64(int64(a8*b8))<<16 ^ uint64(int64(-a8))<<24
	a16, b16 := int16(x), int16(y)
	o[1] = uint64(int64(a16+b16)) ^ uint64(int64(a16-b16))<<16 ^ uint64(int64(a16*b16))<<32 ^ uint64(int64(-a16))<<48
	a32, b32 := int32(x), int32(y)
	o[2] = uint64(int64(a32 + b32))
	o[3] = uint64(int64(a32 - b32))
	o[4] = uint64(int64(a32 * b32))
	o[5] = uint64(int64(-a32))
	o[6] = uint64(x + y)
	o[7] = uint64(x - y)
	o[8] = uint64(x * y)
	o[9] = uint64(-x)
	n, m := int(x), int(y)
	o[10] = uint64(n*m + n - m)
	// Narrow unsigned integers wrap at their width, in every expression.
	u8, v8 := uint8(x), uint8(y)
	o[11] = uint64(u8 + v8)
	o[12] = uint64(u8 - v8)
	o[13] = uint64(u8 * v8)
	o[14] = uint64(-u8) ^ uint64(^u8)<<8 ^ uint64(u8&^v8)<<16
	u16, v16 := uint16(x), uint16(y)
	o[15] = uint64(u16 + v16)
	o[16] = uint64(u16 - v16)
	o[17] = uint64(u16 * v16)
	o[18] = uint64(-u16) ^ uint64(^u16)<<16
	if u8+v8 < u8 {
		o[19] = 1 // the sum wrapped
	}
	if u16*v16/2 > 30000 {
		o[19] |= 2
	}
	u32, v32 := uint32(x), uint32(y)
	o[20] = uint64(u32+v32) ^ uint64(u32-v32)<<32
	o[21] = uint64(u32 * v32)
	o[22] = uint64(x) * uint64(y)
	// Division truncates; MinInt / -1 is MinInt and MinInt % -1 is 0; a
	// constant divisor of -1 too.
	if b8 != 0 {
		o[23] = uint64(int64(a8/b8)) ^ uint64(int64(a8%b8))<<8
	}
	if b16 != 0 {
		o[24] = uint64(int64(a16/b16)) ^ uint64(int64(a16%b16))<<16
	}
	if b32 != 0 {
		o[25] = uint64(int64(a32 / b32))
		o[26] = uint64(int64(a32 % b32))
	}
	if y != 0 {
		o[27] = uint64(x / y)
		o[28] = uint64(x % y)
	}
	if v8 != 0 && v16 != 0 && v32 != 0 {
		o[29] = uint64(u8/v8) ^ uint64(u8%v8)<<8 ^ uint64(u16/v16)<<16 ^ uint64(u16%v16)<<32
		o[30] = uint64(u32/v32) ^ uint64(u32%v32)<<32
	}
	o[31] = uint64(int64(a8/-1)) ^ uint64(int64(a32/-1))<<8 ^ uint64(x/-1)
	o[32] = uint64(x/7) ^ uint64(x%7)<<1 ^ uint64(int64(a16%-1))
	// Shifts at and past the width: a count of the width or more gives 0,
	// or -1 for a negative value shifted right.
	s := uint(y) & 127
	o[33] = uint64(u8<<s) ^ uint64(u8>>s)<<8 ^ uint64(int64(a8<<s))<<16 ^ uint64(int64(a8>>s))<<24
	o[34] = uint64(u16<<s) ^ uint64(u16>>s)<<16 ^ uint64(int64(a16<<s))<<32 ^ uint64(int64(a16>>s))<<48
	o[35] = uint64(u32<<s) ^ uint64(u32>>s)<<32
	o[36] = uint64(int64(a32<<s)) ^ uint64(int64(a32>>s))<<32
	o[37] = uint64(x << s)
	o[38] = uint64(x >> s)
	o[39] = uint64(x) << s
	o[40] = uint64(x) >> s
	sc := int(y & 7) // a signed count, never negative here
	o[41] = uint64(x<<sc) ^ uint64(u8>>sc)
	// Constant counts below the width are plain shifts, but a signed or
	// narrow left shift (hg_shl: C++ overflow); past it go vet objects, and
	// the emitted code is the variable counts' above.
	o[42] = uint64(u8<<7) ^ uint64(u16<<15)<<8 ^ uint64(int64(a32<<31))<<24 ^ uint64(int64(a32>>31))<<40 ^ uint64(u32>>31)
	o[43] = uint64(x<<63) ^ uint64(x>>63) ^ uint64(x)>>63 ^ uint64(int64(a8<<7))<<8 ^ uint64(int64(a16<<15))<<16
	// Conversions between widths truncate and extend as Go does.
	o[44] = uint64(int64(int8(u16))) ^ uint64(uint16(a8))<<8 ^ uint64(int64(int16(u32)))<<24
	o[45] = uint64(int64(int32(uint64(x)>>3))) ^ uint64(uint32(a16))<<32
	// Bitwise operators on narrow and wide types.
	o[46] = uint64(a8&b8) ^ uint64(int64(a16|b16))<<8 ^ uint64(a32^b32)<<24 ^ uint64(x&^y)
	o[47] = uint64(^a8) ^ uint64(^a16)<<8 ^ uint64(^x)<<24
	// Compound assignment and increments wrap as well.
	c8 := a8
	c8 += 100
	c8 *= 3
	c8--
	cu := u8
	cu -= 200
	cu <<= 3
	cu++
	c32 := a32
	c32 *= 1 << 20
	c32 >>= s
	o[48] = uint64(c8) ^ uint64(cu)<<8 ^ uint64(c32)<<16
	// min and max.
	o[49] = uint64(min(x, y)) ^ uint64(max(u8, v8))<<1 ^ uint64(int64(min(a8, b8, 0)))
	// Float conversions in range are exact; out of range, the target's
	// value: slots 56 and up.
	if f > -100 && f < 100 {
		o[50] = uint64(int64(int8(f))) ^ uint64(int64(int32(f)))<<8 ^ uint64(int64(f))<<40
	}
	if f >= 0 && f < 200 {
		o[51] = uint64(uint8(f)) ^ uint64(uint32(f))<<8 ^ uint64(f)<<40
	}
	o[52] = uint64(int64(float32(a32))) ^ uint64(float64(x)/2)
	o[56] = uint64(int64(f))
	o[57] = uint64(int64(int32(f)))
	o[58] = uint64(uint32(f))
	o[59] = uint64(int64(int8(f))) ^ uint64(uint8(f))<<8
}

// Faults does, by which, each thing that panics in Go at index or count
// k: read x[k], write x[k], slice x[k:], divide by k, shift by k, take
// the remainder by k, read x[4k:4k+4] as one vector.
//
//hipgo:kernel
func Faults(t kernel.Thread, x []int32, which, k int, out []int32) {
	switch which {
	case 0:
		out[0] = x[k]
	case 1:
		x[k] = 7
	case 2:
		out[0] = int32(len(x[k:]))
	case 3:
		out[0] = x[0] / int32(k)
	case 4:
		out[0] = x[0] << k
	case 5:
		out[0] = x[0] % int32(k)
	case 6:
		v := kernel.Load4(x, k)
		out[0] = v[0] + v[3]
	}
}
