// Package user holds kernels of the shapes users found faults in.
package user

import "github.com/hipgo/hipgo/rocr/kernel"

// popWords counts the set bits of x and the words it took, through named
// results: assigned, then returned by a bare return.
func popWords(x uint64) (bits, words int64) {
	for x != 0 {
		bits += int64(x & 1)
		x >>= 1
	}
	words = int64(bits%2 + 1)
	return
}

// scramble is a device function the grid-stride loop calls.
func scramble(x uint32) uint32 {
	x ^= x << 13
	x ^= x >> 17
	return x ^ x<<5
}

// count is the number of set bits of x, a named result the body never
// names: it returns the value.
func count(x uint64) (n int64) {
	return int64(x&1) + int64(x>>1&1)
}

// half is x / 2 through a named result it sets and never reads.
func half(x uint64) (v uint64) {
	v = x
	return x >> 1
}

// Mix calls device functions with named results from a grid-stride
// loop.
//
//hipgo:kernel
func Mix(t kernel.Thread, in []uint64, out []uint32, lo, hi, step int) {
	for i := lo; i < hi; i += step {
		b, words := popWords(in[i] | 1)
		v := uint32(b + count(half(in[i])))
		for j := 0; j < 4; j += int(words) {
			v = scramble(v + uint32(j))
		}
		out[i] = v
	}
}

// Rows goes through a 2-D shared array: each work-item fills its column
// of the block's 16 rows, adds 7 to row row, and sums its column.
//
//hipgo:kernel
func Rows(t kernel.Thread, out []uint32, row int) {
	s := kernel.Shared[[16][256]uint32](t)
	tid := t.ThreadIdx().X
	for r := 0; r < 16; r++ {
		s[r][tid] = uint32(r*1000 + tid)
	}
	s[row][tid] += 7
	var sum uint32
	for r := 0; r < 16; r++ {
		sum += s[r][tid]
	}
	out[t.GlobalX()] = sum
}
