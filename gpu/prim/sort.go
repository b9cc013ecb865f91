package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// SortOrder is a radix sort's order: ascending unless Descending, by the
// key bits [BeginBit, EndBit) of the order-preserving unsigned form of
// the keys (an EndBit of 0 is the key's width). Keys equal in those bits
// keep their input order (the sort is stable), descending too.
//
// Floats sort as -NaN < -Inf < ... < -0 = +0 < ... < +Inf < +NaN: a NaN
// sorts by its sign bit, and -0 and +0 are equal keys, so they keep their
// input order. The bits of a float key's unsigned form are those of its
// IEEE encoding with negative numbers complemented and the sign bit of
// others set.
type SortOrder struct {
	Descending       bool
	BeginBit, EndBit int
}

// SortKeys queues a stable LSD radix sort of keysIn into keysOut
// (cub::DeviceRadixSort::SortKeys). keysOut may be keysIn. Temporary
// storage (a copy of the keys and per-block digit counts) comes from the
// stream's pool. On a GPU the sort is Onesweep: one pass counts every
// digit, then one launch per 8 bits of key moves the keys, for inputs
// below 2^30 keys; larger ones sort in three launches per 8 bits.
func SortKeys[K Key](s *stream.Stream, keysIn, keysOut buffer.Array[K], o SortOrder) error {
	return radixSort[K, uint32](s, keysIn, keysOut, nil, nil, o, false)
}

// SortPairs is SortKeys moving values with their keys
// (cub::DeviceRadixSort::SortPairs): valsOut[i] is the value of the key
// that lands in keysOut[i]. valsOut may be valsIn. Keys of 8 and 16 bits
// sort alone (SortKeys); pairs take 32- and 64-bit keys.
func SortPairs[K Number, V Value](s *stream.Stream, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], o SortOrder) error {
	return radixSort(s, keysIn, keysOut, valsIn, valsOut, o, true)
}

func radixSort[K Key, V Value](s *stream.Stream, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], o SortOrder, pairs bool) error {
	const name = "prim radix sort"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "keysIn", keysIn); err != nil {
		return err
	}
	n := keysIn.Len()
	if err := checkOut(name, "keysOut", keysOut, n); err != nil {
		return err
	}
	kl := keyFor[K]()
	var pl sortPairsLaunch[K, V]
	if pairs {
		if err := checkOut(name, "valsIn", valsIn, n); err != nil {
			return err
		}
		if err := checkOut(name, "valsOut", valsOut, n); err != nil {
			return err
		}
		if pl = pairsFor[K, V](); pl == nil {
			return gpu.Errorf(gpu.ErrNotSupported, name, "pairs of %d-bit keys", kl.size)
		}
	}
	begin, end := o.BeginBit, o.EndBit
	if end == 0 {
		end = kl.size
	}
	if begin < 0 || begin > end || end > kl.size {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "bits [%d, %d) of %d-bit keys", o.BeginBit, o.EndBit, kl.size)
	}
	if n == 0 {
		return nil
	}
	passes := ceilDiv(end-begin, radixBits)
	if passes == 0 {
		if err := copyIfApart(s, keysOut, keysIn, n); err != nil || !pairs {
			return err
		}
		return copyIfApart(s, valsOut, valsIn, n)
	}
	g := shapeOf(s)
	if !g.cpu && !sortLSD && n <= sweepMax {
		return onesweepSort(s, g, keysIn, keysOut, valsIn, valsOut, o.Descending, begin, end, pairs)
	}
	return radixLSD(s, g, kl, pl, keysIn, keysOut, valsIn, valsOut, o.Descending, begin, end, pairs)
}

// radixLSD is the radix sort pass by pass: per pass a count of each
// block's digits, a scan of the counts and a stable scatter. The cpu
// agent's sort; a GPU's with sortLSD or more than sweepMax keys.
func radixLSD[K Key, V Value](s *stream.Stream, g shape, kl *keyLaunchers[K], pl sortPairsLaunch[K, V], keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], desc bool, begin, end int, pairs bool) (err error) {
	n := keysIn.Len()
	passes := ceilDiv(end-begin, radixBits)
	tile, block := sortTile, blockSize
	if g.cpu {
		_, tile = g.split(n, 1<<16)
		block = 1
	}
	blocks := ceilDiv(n, tile)
	counts, err := scratch[uint32](s, 256*blocks)
	if err != nil {
		return err
	}
	defer free(s, counts, &err)
	offs, err := scratch[uint32](s, 256*blocks)
	if err != nil {
		return err
	}
	defer free(s, offs, &err)
	sp := planScan(g, 256*blocks, 4)
	var sums, soffs *buffer.Buffer[uint32]
	if sp.tmp > 0 {
		if sums, err = scratch[uint32](s, sp.tmp); err != nil {
			return err
		}
		defer free(s, sums, &err)
		if soffs, err = scratch[uint32](s, sp.tmp); err != nil {
			return err
		}
		defer free(s, soffs, &err)
	}
	tmpK, err := scratch[K](s, n)
	if err != nil {
		return err
	}
	defer free(s, tmpK, &err)
	var tmpV *buffer.Buffer[V]
	srcV := valsIn
	if pairs {
		if tmpV, err = scratch[V](s, n); err != nil {
			return err
		}
		defer free(s, tmpV, &err)
	} else {
		srcV, valsOut = nil, nil
	}
	// Pass j writes keysOut where passes-1-j is even, else the temporary,
	// so the last pass lands in keysOut. An input that is its output and
	// an odd number of passes start from a copy.
	srcK := buffer.Array[K](keysIn)
	if passes%2 == 1 && same(keysIn, keysOut) {
		if err = s.Copy(tmpK, 0, keysIn, 0, n); err != nil {
			return err
		}
		srcK = tmpK
	}
	if pairs && passes%2 == 1 && same(valsIn, valsOut) {
		if err = s.Copy(tmpV, 0, valsIn, 0, n); err != nil {
			return err
		}
		srcV = tmpV
	}
	sl := numFor[uint32]()
	for j := range passes {
		dstK, dstV := buffer.Array[K](tmpK), buffer.Array[V](tmpV)
		if (passes-1-j)%2 == 0 {
			dstK, dstV = keysOut, valsOut
		}
		shift := begin + j*radixBits
		bits := min(radixBits, end-shift)
		grid, blk := gpu.D1(uint32(blocks)), gpu.D1(uint32(block))
		if err = kl.count(s, grid, blk, 0, srcK, counts, shift, bits, desc, tile); err != nil {
			return err
		}
		var su, so buffer.Array[uint32]
		if sums != nil {
			su, so = sums, soffs
		}
		if err = scanRun(s, sl, sp, counts, offs, su, so, true); err != nil {
			return err
		}
		if pairs {
			err = pl(s, grid, blk, 0, srcK, dstK, srcV, dstV, offs, shift, bits, desc, tile)
		} else {
			err = kl.keys(s, grid, blk, 0, srcK, dstK, offs, shift, bits, desc, tile)
		}
		if err != nil {
			return err
		}
		srcK, srcV = dstK, dstV
	}
	return nil
}

// sortLSD makes a GPU sort pass by pass (radixLSD) instead of by
// Onesweep: the sort of old, kept to compare the two on a GPU. On until
// Onesweep's register-resident digit pass has run on a GPU (the cpu agent
// runs it in the GPU's launch shapes in the tests); the pass-by-pass
// sort is the GPU path the H100 has verified.
var sortLSD = true

// sweepMax is the most keys a GPU sorts by Onesweep (its look-back
// counts have 30 bits); more take radixLSD. A variable for the tests.
var sweepMax = 1<<30 - 1

// same says whether a and b are the same memory.
func same[T any](a, b buffer.Array[T]) bool { return a.Ptr() == b.Ptr() }

func copyIfApart[T any](s *stream.Stream, dst, src buffer.Array[T], n int) error {
	if same(dst, src) {
		return nil
	}
	return s.Copy(dst, 0, src, 0, n)
}
