package rand

import "github.com/hipgo/hipgo/rocr/kernel"

// The cpu agent's kernels: each work-item fills its span of Philox blocks
// with a plain loop over Philox4x32-10, four words a block and the ten
// rounds written out, the round keys computed once per span. Only the
// span's first and last block, where the call's words start or end inside
// a block, go word by word. They give the values fillF32 ... fillU64 give
// (TestSpanMatchesKernel). GPUs never launch them: there a work-item
// takes one block at a time (the grid-stride loop of fillF32 ...), and
// twenty round keys would only take registers.

// roundKeys is one half of the key of each of Philox4x32-10's ten rounds:
// k, bumped by the Weyl constant w between rounds.
func roundKeys(k, w uint32) [10]uint32 {
	var r [10]uint32
	for i := 0; i < 10; i++ {
		r[i] = k
		k += w
	}
	return r
}

// philoxAt is block b of the stream under the round keys ka, kb.
func philoxAt(b uint64, ka, kb [10]uint32) (uint32, uint32, uint32, uint32) {
	c0, c1, c2, c3 := philoxRound(uint32(b), uint32(b>>32), 0, 0, ka[0], kb[0])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
	return philoxRound(c0, c1, c2, c3, ka[9], kb[9])
}

// spanBlocks is work-item t's blocks [lo, hi) of a call of words [start,
// end), span blocks a work-item, and the whole blocks among them [wlo,
// whi): all but a first or last block the call starts or ends inside.
// Where one block is all there is and it is partial, wlo = whi = hi.
func spanBlocks(t kernel.Thread, start, end uint64, span int) (uint64, uint64, uint64, uint64) {
	first := start / 4
	nb := (end-1)/4 - first + 1
	lo := min(uint64(t.GlobalX())*uint64(span), nb)
	hi := min(lo+uint64(span), nb)
	lo, hi = first+lo, first+hi
	wlo, whi := lo, hi
	if wlo < whi {
		if _, ok := fullAt(wlo, start, end, 1); !ok {
			wlo++
		}
	}
	if wlo < whi {
		if _, ok := fullAt(whi-1, start, end, 1); !ok {
			whi--
		}
	}
	return lo, hi, wlo, whi
}

// spanU32 writes the words [start, start+n) of the stream under {k0, k1}
// to out: Bits of uint32.
//
//hipgo:kernel
func spanU32(t kernel.Thread, out []uint32, k0, k1 uint32, start uint64, n int, span int) {
	end := start + uint64(n)
	lo, hi, wlo, whi := spanBlocks(t, start, end, span)
	ka, kb := roundKeys(k0, philoxW0), roundKeys(k1, philoxW1)
	if wlo > lo {
		edgeU32(out, lo, ka, kb, start, end)
	}
	if whi < hi {
		edgeU32(out, hi-1, ka, kb, start, end)
	}
	if wlo >= whi {
		return
	}
	o := out[int(wlo*4-start):int(whi*4-start)]
	b := wlo
	for len(o) >= 4 {
		c0, c1, c2, c3 := philoxRound(uint32(b), uint32(b>>32), 0, 0, ka[0], kb[0])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[9], kb[9])
		o[0] = c0
		o[1] = c1
		o[2] = c2
		o[3] = c3
		o = o[4:]
		b++
	}
}

// edgeU32 writes the values of block b that lie in the call's words
// [start, end).
func edgeU32(out []uint32, b uint64, ka, kb [10]uint32, start, end uint64) {
	c0, c1, c2, c3 := philoxAt(b, ka, kb)
	for j := 0; j < 4; j++ {
		if w := b*4 + uint64(j); w >= start && w-start < end-start {
			v, _ := wordsAt(c0, c1, c2, c3, j)
			out[int(w-start)] = v
		}
	}
}

// spanF32 is spanU32 for Uniform of float32: uniform32 of each word.
//
//hipgo:kernel
func spanF32(t kernel.Thread, out []float32, k0, k1 uint32, start uint64, n int, span int) {
	end := start + uint64(n)
	lo, hi, wlo, whi := spanBlocks(t, start, end, span)
	ka, kb := roundKeys(k0, philoxW0), roundKeys(k1, philoxW1)
	if wlo > lo {
		edgeF32(out, lo, ka, kb, start, end)
	}
	if whi < hi {
		edgeF32(out, hi-1, ka, kb, start, end)
	}
	if wlo >= whi {
		return
	}
	o := out[int(wlo*4-start):int(whi*4-start)]
	b := wlo
	for len(o) >= 4 {
		c0, c1, c2, c3 := philoxRound(uint32(b), uint32(b>>32), 0, 0, ka[0], kb[0])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[9], kb[9])
		o[0] = uniform32(c0)
		o[1] = uniform32(c1)
		o[2] = uniform32(c2)
		o[3] = uniform32(c3)
		o = o[4:]
		b++
	}
}

// edgeF32 writes the values of block b that lie in the call's words
// [start, end).
func edgeF32(out []float32, b uint64, ka, kb [10]uint32, start, end uint64) {
	c0, c1, c2, c3 := philoxAt(b, ka, kb)
	for j := 0; j < 4; j++ {
		if w := b*4 + uint64(j); w >= start && w-start < end-start {
			v, _ := wordsAt(c0, c1, c2, c3, j)
			out[int(w-start)] = uniform32(v)
		}
	}
}

// spanU64 is spanU32 for Bits of uint64: two words a value, from an even
// start (so a block is partial by whole values).
//
//hipgo:kernel
func spanU64(t kernel.Thread, out []uint64, k0, k1 uint32, start uint64, n int, span int) {
	end := start + 2*uint64(n)
	lo, hi, wlo, whi := spanBlocks(t, start, end, span)
	ka, kb := roundKeys(k0, philoxW0), roundKeys(k1, philoxW1)
	if wlo > lo {
		edgeU64(out, lo, ka, kb, start, end)
	}
	if whi < hi {
		edgeU64(out, hi-1, ka, kb, start, end)
	}
	if wlo >= whi {
		return
	}
	o := out[int((wlo*4-start)/2):int((whi*4-start)/2)]
	b := wlo
	for len(o) >= 2 {
		c0, c1, c2, c3 := philoxRound(uint32(b), uint32(b>>32), 0, 0, ka[0], kb[0])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[9], kb[9])
		o[0] = uint64(c1)<<32 | uint64(c0)
		o[1] = uint64(c3)<<32 | uint64(c2)
		o = o[2:]
		b++
	}
}

// edgeU64 writes the values of block b that lie in the call's words
// [start, end).
func edgeU64(out []uint64, b uint64, ka, kb [10]uint32, start, end uint64) {
	c0, c1, c2, c3 := philoxAt(b, ka, kb)
	if w := b * 4; w >= start && w-start < end-start {
		out[int((w-start)/2)] = uint64(c1)<<32 | uint64(c0)
	}
	if w := b*4 + 2; w >= start && w-start < end-start {
		out[int((w-start)/2)] = uint64(c3)<<32 | uint64(c2)
	}
}

// spanF64 is spanU64 for Uniform of float64.
//
//hipgo:kernel
func spanF64(t kernel.Thread, out []float64, k0, k1 uint32, start uint64, n int, span int) {
	end := start + 2*uint64(n)
	lo, hi, wlo, whi := spanBlocks(t, start, end, span)
	ka, kb := roundKeys(k0, philoxW0), roundKeys(k1, philoxW1)
	if wlo > lo {
		edgeF64(out, lo, ka, kb, start, end)
	}
	if whi < hi {
		edgeF64(out, hi-1, ka, kb, start, end)
	}
	if wlo >= whi {
		return
	}
	o := out[int((wlo*4-start)/2):int((whi*4-start)/2)]
	b := wlo
	for len(o) >= 2 {
		c0, c1, c2, c3 := philoxRound(uint32(b), uint32(b>>32), 0, 0, ka[0], kb[0])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[9], kb[9])
		o[0] = uniform64(c0, c1)
		o[1] = uniform64(c2, c3)
		o = o[2:]
		b++
	}
}

// edgeF64 writes the values of block b that lie in the call's words
// [start, end).
func edgeF64(out []float64, b uint64, ka, kb [10]uint32, start, end uint64) {
	c0, c1, c2, c3 := philoxAt(b, ka, kb)
	if w := b * 4; w >= start && w-start < end-start {
		out[int((w-start)/2)] = uniform64(c0, c1)
	}
	if w := b*4 + 2; w >= start && w-start < end-start {
		out[int((w-start)/2)] = uniform64(c2, c3)
	}
}

// spanN32 is spanF32 for Normal and LogNormal of float32: two words a
// unit and a value a word (boxMuller32 of each pair), mean + std*z by an
// FMA and, for a log-normal, its exponential, as fillF32 computes them.
// Where n is odd the last unit's second value lies past out and is
// dropped, so the loop of whole blocks ends at out's end and the block
// it stops in goes value by value.
//
//hipgo:kernel
func spanN32(t kernel.Thread, out []float32, k0, k1 uint32, start uint64, units int, op int32, a, b float64, span int) {
	mean, std := float32(a), float32(b)
	end := start + 2*uint64(units)
	lo, hi, wlo, whi := spanBlocks(t, start, end, span)
	ka, kb := roundKeys(k0, philoxW0), roundKeys(k1, philoxW1)
	if wlo > lo {
		edgeN32(out, lo, ka, kb, start, end, mean, std, op)
	}
	if whi < hi {
		edgeN32(out, hi-1, ka, kb, start, end, mean, std, op)
	}
	if wlo >= whi {
		return
	}
	o := out[int(wlo*4-start):min(int(whi*4-start), len(out))]
	blk := wlo
	for len(o) >= 4 {
		c0, c1, c2, c3 := philoxRound(uint32(blk), uint32(blk>>32), 0, 0, ka[0], kb[0])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[1], kb[1])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[2], kb[2])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[3], kb[3])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[4], kb[4])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[5], kb[5])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[6], kb[6])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[7], kb[7])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[8], kb[8])
		c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, ka[9], kb[9])
		z0, z1 := boxMuller32(c0, c1)
		z2, z3 := boxMuller32(c2, c3)
		o[0] = scaled32(z0, mean, std, op)
		o[1] = scaled32(z1, mean, std, op)
		o[2] = scaled32(z2, mean, std, op)
		o[3] = scaled32(z3, mean, std, op)
		o = o[4:]
		blk++
	}
	if len(o) > 0 {
		edgeN32(out, blk, ka, kb, start, end, mean, std, op)
	}
}

// edgeN32 writes the values of block b that lie in the call's words
// [start, end) and in out.
func edgeN32(out []float32, b uint64, ka, kb [10]uint32, start, end uint64, mean, std float32, op int32) {
	c0, c1, c2, c3 := philoxAt(b, ka, kb)
	z0, z1 := boxMuller32(c0, c1)
	z2, z3 := boxMuller32(c2, c3)
	for j := 0; j < 4; j++ {
		if w := b*4 + uint64(j); w >= start && w-start < end-start && w-start < uint64(len(out)) {
			out[int(w-start)] = scaled32(pick32(z0, z1, z2, z3, j), mean, std, op)
		}
	}
}

// scaled32 is fillF32's value of a float32 normal z: mean + std*z rounded
// once, or its exponential (expOf in float64, rounded once) for a
// log-normal.
func scaled32(z, mean, std float32, op int32) float32 {
	v := kernel.Fma(std, z, mean)
	if op == opLogNormal {
		v = float32(expOf(float64(v)))
	}
	return v
}
