package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// A nil *Buffer in a non-nil buffer.Array is an error wherever a buffer
// goes, as a nil Array is: before the fix an empty input with a typed nil
// passed as n = 0 and returned nil.
func TestTypedNilBuffer(t *testing.T) {
	dev, s := newStream(t)
	f := upload(t, dev, []float32{1, 2})
	u8 := upload(t, dev, []uint8{1, 0})
	i64 := upload(t, dev, []int64{0, 0})
	u32 := upload(t, dev, []uint32{0, 0})
	i32 := upload(t, dev, []int32{0, 0})
	var nf *buffer.Buffer[float32]
	var nu8 *buffer.Buffer[uint8]
	var ni64 *buffer.Buffer[int64]
	var nu32 *buffer.Buffer[uint32]
	var ni32 *buffer.Buffer[int32]
	var nsub *buffer.Sub[float32]
	calls := map[string]error{
		"sum in":             Sum(s, nf, f),
		"sum in (view)":      Sum(s, nsub, f),
		"sum out":            Sum(s, f, nf),
		"argmin idx":         ArgMin(s, f, f, ni64),
		"inclusive in":       InclusiveSum(s, nf, f),
		"exclusive out":      ExclusiveSum(s, f, nf),
		"by key keys":        InclusiveSumByKey(s, nf, f, f),
		"segmented offsets":  SegmentedSum(s, f, f, ni64),
		"segmented in":       SegmentedSum(s, nf, f, i64),
		"transform in":       Transform(s, nf, f, Neg, 0),
		"transform2 y":       Transform2(s, f, nf, f, Add),
		"select flags":       SelectFlagged(s, f, nu8, f, i64),
		"select num":         SelectIf(s, f, f, ni64, Less, 0),
		"unique in":          Unique(s, nf, f, i64),
		"partition in":       PartitionFlagged(s, nf, u8, f, i64),
		"rle counts":         RunLengthEncode(s, f, f, ni64, i64),
		"histogram samples":  HistogramEven(s, nf, u32, 0, 1),
		"histogram hist":     HistogramEven(s, f, nu32, 0, 1),
		"sort keys in":       SortKeys(s, nf, f, SortOrder{}),
		"sort pairs vals":    SortPairs(s, f, f, ni32, i32, SortOrder{}),
		"merge keys in":      MergeSortKeys(s, nf, f, Ascending),
		"merge keys out":     MergeSortKeys(s, f, nf, Ascending),
		"merge pairs valsIn": MergeSortPairs(s, f, f, ni32, i32, Ascending),
	}
	for name, err := range calls {
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		assert.ErrorContains(t, err, "nil buffer", name)
	}
}
