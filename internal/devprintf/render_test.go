package devprintf

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// ptr is a C void* argument.
type ptr uint64

// renderCases are formats with arguments of C's types (int32: int,
// uint32: unsigned, int64 and uint64: long, float64: double, string:
// char*, ptr: void*) and what glibc's printf prints for them
// (TestRenderMatchesC checks the table against the C library).
var renderCases = []struct {
	format string
	args   []any
	want   string
}{
	{"%d|%i|%u|%d", []any{int32(-42), int32(7), uint32(4294967295), int32(math.MinInt32)}, "-42|7|4294967295|-2147483648"},
	{"%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|%8.3d|%-+6d|%+05d", []any{int32(42), int32(42), int32(-42), int32(42), int32(42), int32(-7), int32(0), int32(-12), int32(3), int32(-3)}, "   42|42   |-0042|+42| 42|-007||    -012|+3    |-0003"},
	{"%x|%X|%#x|%#X|%o|%#o|%#.0o|%08x|%#08x|%#x|%.0x|%#.3x", []any{uint32(255), uint32(3054), uint32(255), uint32(255), uint32(8), uint32(8), uint32(0), uint32(48879), uint32(48879), uint32(0), uint32(0), uint32(1)}, "ff|BEE|0xff|0XFF|10|010|0|0000beef|0x00beef|0||0x001"},
	{"%hhd|%hd|%hhu|%hu|%hhx", []any{int32(300), int32(-1), int32(-1), int32(70000), int32(511)}, "44|-1|255|4464|ff"},
	{"%ld|%lld|%llu|%llx|%lX|%lu|%lli", []any{int64(-5000000000), int64(math.MaxInt64), uint64(math.MaxUint64), uint64(0xdeadbeef), uint64(255), uint64(1), int64(-1)}, "-5000000000|9223372036854775807|18446744073709551615|deadbeef|FF|1|-1"},
	{"%c|%3c|%-3c|%c", []any{int32('A'), int32('b'), int32('c'), int32(321)}, "A|  b|c  |A"},
	{"%s|%10s|%-10s|%.2s|%5.1s|%s|", []any{"hipgo", "right", "left", "cut", "xyz", ""}, "hipgo|     right|left      |cu|    x||"},
	{"%f|%.2f|%10.3f|%-10.1f|%010.2f|%+f|% f|%.0f|%#.0f|%.0f|%.0f|%f", []any{3.14159, -2.5, 2.0 / 3, 1.25, -3.14159, 1.0, 1.0, 2.5, 2.0, 3.5, -0.4, math.Copysign(0, -1)}, "3.141590|-2.50|     0.667|1.2       |-000003.14|+1.000000| 1.000000|2|2.|4|-0|-0.000000"},
	{"%e|%E|%.3e|%12.4e|%.0e|%#.0e|%e|%+e", []any{12345.678, 0.000123, -9.99951, 1e100, 5e-300, 3.0, 0.0, 1.5}, "1.234568e+04|1.230000E-04|-1.000e+01| 1.0000e+100|5e-300|3.e+00|0.000000e+00|+1.500000e+00"},
	{"%g|%G|%.3g|%.10g|%g|%g|%#g|%g|%g|%g|%.0g|%#.3g|%-8g|%08g|%g", []any{0.0001, 1e-5, 123456.0, 1234567.0, 100.0, 0.5, 1.0, 1234567.0, 1e-4, 123456.5, 25.0, 1.0, 2.5, -2.5, 0.0}, "0.0001|1E-05|1.23e+05|1234567|100|0.5|1.00000|1.23457e+06|0.0001|123456|2e+01|1.00|2.5     |-00002.5|0"},
	{"%a|%A|%.2a|%a|%.0a|%a", []any{1.5, -0.1, 3.0, 0.0, 1.0, 1024.0}, "0x1.8p+0|-0X1.999999999999AP-4|0x1.80p+1|0x0p+0|0x1p+0|0x1p+10"},
	{"%f|%F|%e|%g|%5.1f|%-6f|%05f|%+f|%E", []any{math.Inf(1), math.Inf(-1), math.NaN(), math.Inf(-1), math.Inf(1), math.NaN(), math.Inf(1), math.Inf(1), math.Inf(1)}, "inf|-INF|nan|-inf|  inf|nan   |  inf|+inf|INF"},
	{"%p|%p|%20p|%-20p|", []any{ptr(0x7f0012345000), ptr(0), ptr(0xbeef), ptr(0xbeef)}, "0x7f0012345000|(nil)|              0xbeef|0xbeef              |"},
	{"%*d|%-*d|%.*f|%*.*f|%*d", []any{int32(6), int32(42), int32(4), int32(7), int32(2), 3.14159, int32(9), int32(3), 2.71828, int32(-5), int32(1)}, "    42|7   |3.14|    2.718|1    "},
	{"100%% done, %d%%\n", []any{int32(50)}, "100% done, 50%\n"},
	{"%.20f|%.17g|%.3f|%.1f|%.2e", []any{0.1, 0.1, 1.0005, 0.25, 1.125}, "0.10000000000000000555|0.10000000000000001|1.000|0.2|1.12e+00"},
	{"plain text, no conversions", nil, "plain text, no conversions"},
}

// word is an argument as the device stores it: 8 bytes, integers
// zero-extended, floats as doubles.
func word(a any) uint64 {
	switch v := a.(type) {
	case int32:
		return uint64(uint32(v))
	case uint32:
		return uint64(v)
	case int64:
		return uint64(v)
	case uint64:
		return v
	case float64:
		return math.Float64bits(v)
	case ptr:
		return uint64(v)
	}
	panic(fmt.Sprintf("no C type for %T", a))
}

// record lays out one buffered printf record as the device writes it:
// control dword, format hash (constant) or the format itself, arguments.
func record(hash uint64, format string, constant bool, args ...any) []byte {
	b := []byte{0, 0, 0, 0}
	if constant {
		b = binary.LittleEndian.AppendUint64(b, hash)
	} else {
		b = appendString(b, format)
	}
	for _, a := range args {
		if s, ok := a.(string); ok && constant {
			b = appendString(b, s)
			continue
		}
		b = binary.LittleEndian.AppendUint64(b, word(a))
	}
	ctrl := uint32(len(b)) << 2
	if constant {
		ctrl |= 2
	}
	binary.LittleEndian.PutUint32(b, ctrl)
	return b
}

func appendString(b []byte, s string) []byte {
	b = append(b, s...)
	b = append(b, 0)
	for len(b)%8 != 4 { // records start 8-aligned after the 4-byte control dword
		b = append(b, 0)
	}
	return b
}

// Each case rendered from a record laid out as the device writes it.
func TestRender(t *testing.T) {
	formats := map[uint64]string{}
	var buf []byte
	var want strings.Builder
	for i, tc := range renderCases {
		formats[uint64(i+1)] = tc.format
		buf = append(buf, record(uint64(i+1), tc.format, true, tc.args...)...)
		want.WriteString(tc.want)
		var out Output
		Decode(record(uint64(i+1), tc.format, true, tc.args...), lookup(formats), &out)
		assert.Equal(t, tc.want, string(out.Stdout), "%q", tc.format)
		assert.Zero(t, out.Malformed)
	}
	var out Output
	Decode(buf, lookup(formats), &out)
	assert.Equal(t, want.String(), string(out.Stdout), "every record of one buffer in order")
}

func lookup(m map[uint64]string) func(uint64) (string, bool) {
	return func(h uint64) (string, bool) { s, ok := m[h]; return s, ok }
}

// A format that is not a constant travels in the record; its %s
// arguments are device addresses, which the host cannot read.
func TestDecodeNonConstantFormat(t *testing.T) {
	var out Output
	Decode(record(0, "n=%d s=%s\n", false, int32(-3), ptr(0x1000)), lookup(nil), &out)
	assert.Equal(t, "n=-3 s=(string at 0x1000)\n", string(out.Stdout))
	assert.Zero(t, out.Malformed)
}

// Stream bit 1 is stderr; a null %s is no bytes, which the last
// argument can be.
func TestDecodeStderrAndNull(t *testing.T) {
	r := record(7, "x %s", true)
	binary.LittleEndian.PutUint32(r, binary.LittleEndian.Uint32(r)|1)
	var out Output
	Decode(r, lookup(map[uint64]string{7: "x %s"}), &out)
	assert.Equal(t, "x (null)", string(out.Stderr))
	assert.Empty(t, out.Stdout)
}

// Bad bytes are counted, never read past, and end the decoding only
// where the next record cannot be found.
func TestDecodeMalformed(t *testing.T) {
	fs := lookup(map[uint64]string{1: "ok %d\n", 2: "%s|%s\n"})
	good := record(1, "", true, int32(5))
	for _, tc := range []struct {
		name      string
		buf       []byte
		want      string
		malformed int
	}{
		{"unknown hash", append(record(99, "", true, int32(1)), good...), "ok 5\n", 1},
		{"size past the end", append(good, 0xff, 0xff, 0, 0, 1, 2), "ok 5\n", 1},
		{"size below the control dword", append(good, 4, 0, 0, 0), "ok 5\n", 1},
		{"short tail", append(good, 1, 2), "ok 5\n", 1},
		{"no hash", append([]byte{4<<2 | 2, 0, 0, 0}, good...), "ok 5\n", 1},
		{"missing argument", record(1, "", true), "ok (missing)\n", 0},
		{"unterminated string", func() []byte {
			r := record(2, "", true, "abcdefg")
			r[len(r)-1] = 'x' // its NUL gone
			return r
		}(), "(missing)|(missing)\n", 0},
	} {
		var out Output
		Decode(tc.buf, fs, &out)
		assert.Equal(t, tc.want, string(out.Stdout), tc.name)
		assert.Equal(t, tc.malformed, out.Malformed, tc.name)
	}
}

// Widths and precisions are capped, so a record cannot ask for
// gigabytes of padding.
func TestRenderCapsWidth(t *testing.T) {
	out := Render(nil, "%999999999d|%.999999999f", &sliceArgs{words: []uint64{1, math.Float64bits(1)}})
	assert.Less(t, len(out), 3*maxWidth)
	out = Render(nil, "%*d", &sliceArgs{words: []uint64{uint64(uint32(math.MaxInt32)), 1}})
	assert.Len(t, out, maxWidth)
}

// A buffer of records that each pad to the widest width renders no more
// than MaxOutput, and says it cut the rest.
func TestDecodeCapsOutput(t *testing.T) {
	fs := lookup(map[uint64]string{1: "%4096d%4096d"})
	r := record(1, "", true, int32(1), int32(2))
	var buf []byte
	for len(buf) < 1<<20 {
		buf = append(buf, r...)
	}
	var out Output
	Decode(buf, fs, &out)
	assert.True(t, out.Cut)
	assert.GreaterOrEqual(t, len(out.Stdout), MaxOutput)
	assert.LessOrEqual(t, len(out.Stdout), MaxOutput+2*maxWidth, "one record past the limit at most")
	out = Output{}
	Decode(r, fs, &out)
	assert.False(t, out.Cut)
	assert.Len(t, out.Stdout, 2*maxWidth)
}

// A hostile buffer never panics (a fuzz target for the decoder).
func FuzzDecode(f *testing.F) {
	f.Add(record(1, "", true, int32(1), "s", 2.5))
	f.Add(record(0, "%s %d %*.*f", false, ptr(1), int32(2)))
	fs := lookup(map[uint64]string{1: "%d %s %g %p %c %-*.*s %hhx %llo %a %n %"})
	f.Fuzz(func(t *testing.T, b []byte) {
		var out Output
		Decode(b, fs, &out)
	})
}

type sliceArgs struct {
	words []uint64
}

func (a *sliceArgs) Word() (uint64, bool) {
	if len(a.words) == 0 {
		return 0, false
	}
	w := a.words[0]
	a.words = a.words[1:]
	return w, true
}

func (a *sliceArgs) String() (string, bool) { return "", false }

// The table is what the C library prints: each case compiled into a C
// program, where a C compiler is present.
func TestRenderMatchesC(t *testing.T) {
	cc, err := exec.LookPath("clang-19")
	if err != nil {
		cc, err = exec.LookPath("cc")
	}
	testenv.Require(t, "clang", err)
	var src strings.Builder
	src.WriteString("#include <stdio.h>\nint main(void) {\n")
	for _, tc := range renderCases {
		fmt.Fprintf(&src, "  printf(%s", strconv.Quote(tc.format))
		for _, a := range tc.args {
			src.WriteString(", " + cLiteral(a))
		}
		src.WriteString("); fputs(\"\\036\", stdout);\n")
	}
	src.WriteString("  return 0;\n}\n")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.c"), []byte(src.String()), 0o600))
	bin := filepath.Join(dir, "p")
	if b, err := exec.Command(cc, "-w", "-o", bin, filepath.Join(dir, "p.c")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	b, err := exec.Command(bin).Output()
	require.NoError(t, err)
	got := strings.Split(string(b), "\036")
	require.Len(t, got, len(renderCases)+1)
	for i, tc := range renderCases {
		assert.Equal(t, tc.want, got[i], "C's printf(%q)", tc.format)
	}
}

// cLiteral is a as a C expression of its C type.
func cLiteral(a any) string {
	switch v := a.(type) {
	case int32:
		return fmt.Sprintf("(int)(%dLL)", v)
	case uint32:
		return fmt.Sprintf("(unsigned)%du", v)
	case int64:
		if v == math.MinInt64 {
			return "(long)(-9223372036854775807LL-1)"
		}
		return fmt.Sprintf("(long)(%dLL)", v)
	case uint64:
		return fmt.Sprintf("(unsigned long)%dULL", v)
	case float64:
		switch {
		case math.IsNaN(v):
			return `__builtin_nan("")`
		case math.IsInf(v, 1):
			return "__builtin_inf()"
		case math.IsInf(v, -1):
			return "-__builtin_inf()"
		}
		return "(double)" + strconv.FormatFloat(v, 'x', -1, 64)
	case string:
		return strconv.Quote(v)
	case ptr:
		return fmt.Sprintf("(void*)%#xULL", uint64(v))
	}
	panic(fmt.Sprintf("no C type for %T", a))
}
