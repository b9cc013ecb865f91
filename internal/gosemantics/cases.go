package gosemantics

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Inputs are the pairs, and a float each, that Ops evaluates: every edge
// of every width against every shift count that matters, and floats in
// and out of every integer range.
func Inputs() (xs, ys []int64, fs []float64) {
	edges := []int64{0, 1, -1, 2, 7, 100, 127, -128, 128, 200, 255, 256, 32767, -32768, 65535, 1 << 20,
		math.MaxInt32, math.MinInt32, math.MaxUint32, math.MaxInt64, math.MinInt64, 0x123456789abcdef, -0x5555555555555555}
	counts := []int64{0, 1, -1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 63, 64, 65, 100, 127, -128, -32768, math.MinInt32, math.MinInt64, 255}
	floats := []float64{0, 3.7, -3.7, 99.5, -99.5, 150.5, 199.9, 255.5, 300, -300, 1e10, -1e10, 1e20, -1e20, math.Inf(1), math.Inf(-1), math.NaN(), 4294967296.5, -2147483649}
	for i, x := range edges {
		for j, y := range counts {
			xs, ys = append(xs, x), append(ys, y)
			fs = append(fs, floats[(i*len(counts)+j)%len(floats)])
		}
	}
	return xs, ys, fs
}

// FloatSlots is Ops's first result slot of a float-to-integer conversion
// that may be out of range: Go and C++ leave its value to the
// implementation, so agents are compared below it only.
const FloatSlots = 56

// A FaultCase is what Faults does (Which) at index or count K, over x of
// length 5.
type FaultCase struct{ Which, K int }

// FaultCases are the cases the tests run: each kind of fault, and the
// cases next to them that do not fault.
var FaultCases = []FaultCase{{0, 4}, {0, 5}, {0, -1}, {1, 5}, {1, 9}, {2, 5}, {2, 6}, {2, -2}, {3, 0}, {3, 2}, {4, -1}, {4, 40}, {5, 0}, {6, 0}, {6, 1}, {6, -1}}

// Fault kinds, as the checked C++ records them.
const (
	FaultIndex  = 1
	FaultDivide = 2
	FaultSlice  = 3
	FaultShift  = 4
)

var faultText = regexp.MustCompile(`index out of range \[(-?\d+)\](?: with length (\d+))?|slice bounds out of range \[(-?\d+):(\d*)\]|slice bounds out of range \[:(-?\d+)\] with capacity (\d+)|integer divide by zero|negative shift amount`)

// ParseFault reads a fault from Go's panic text or a checked launch's
// error: its kind, the index (the low bound of a slice) and the length
// (-1 where the text gives none).
func ParseFault(msg string) (kind int, index, length int64, ok bool) {
	m := faultText.FindStringSubmatch(msg)
	if m == nil {
		return 0, 0, 0, false
	}
	n := func(s string) int64 {
		if s == "" {
			return -1
		}
		v, _ := strconv.ParseInt(s, 10, 64)
		return v
	}
	switch {
	case strings.HasPrefix(m[0], "index"):
		return FaultIndex, n(m[1]), n(m[2]), true
	case m[3] != "":
		return FaultSlice, n(m[3]), n(m[4]), true
	case m[5] != "":
		return FaultSlice, n(m[5]), n(m[6]), true
	case strings.HasPrefix(m[0], "integer"):
		return FaultDivide, 0, -1, true
	}
	return FaultShift, 0, -1, true
}
