package gputest

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Number is what Differential compares: integers exactly, floats within
// a ULP bound.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64
}

// DiffOption configures Differential.
type DiffOption func(*diffConfig)

type diffConfig struct {
	ulps int64
	abs  float64
}

// ULPs bounds how far apart, in units in the last place, a GPU's float
// result may be from the cpu agent's (default 0: exact). NaN matches NaN.
func ULPs(n int64) DiffOption { return func(c *diffConfig) { c.ulps = n } }

// Abs also accepts float results at most eps apart, whatever their ULP
// distance: where a sum cancels, one FMA moves a result near zero by many
// ULPs but by less than the terms' own rounding.
func Abs(eps float64) DiffOption { return func(c *diffConfig) { c.abs = eps } }

// Differential runs run on the cpu agent and on every GPU present, each
// seen through a view of tb's own, and compares what each GPU returns with
// what the cpu agent returns: integers exactly, floats within the ULPs
// bound. It is how one Go kernel is proved on the GPU by the test that CI
// runs on its cpu agent. run must be deterministic up to float rounding:
// the same inputs and launches on every device.
//
// Without a GPU it runs run on the cpu agent alone, so the test still
// checks what it asserts there, and says so in the test's log; where HIPGO_REQUIRE names cuda or rocm and
// no such GPU is present, it fails.
func Differential[T Number](tb testing.TB, run func(dev *gpu.Device) ([]T, error), opts ...DiffOption) {
	tb.Helper()
	var cfg diffConfig
	for _, o := range opts {
		o(&cfg)
	}
	all, err := gpu.Devices()
	if err != nil {
		tb.Fatalf("gputest: %v", err)
	}
	var ref []T
	haveRef := false
	for _, d := range all {
		if d.Properties().Driver == "cpu" {
			dev := open(tb, d)
			if ref, err = run(dev); err != nil {
				tb.Fatalf("gputest: on the cpu agent: %v", err)
			}
			haveRef = true
			break
		}
	}
	if !haveRef {
		unavailable(tb, "cpu", "no cpu agent to compare with (HIPGO_DRIVER=%s leaves it out)", os.Getenv("HIPGO_DRIVER"))
		return
	}
	ran := map[string]bool{}
	for _, d := range all {
		drv := d.Properties().Driver
		if drv == "cpu" {
			continue
		}
		ran[drv] = true
		dev := open(tb, d)
		got, err := run(dev)
		if err != nil {
			tb.Errorf("gputest: on %s: %v", d, err)
			continue
		}
		if msg := compare(ref, got, cfg); msg != "" {
			tb.Errorf("gputest: %s differs from the cpu agent: %s", d, msg)
		}
	}
	if len(ran) == 0 {
		tb.Logf("gputest: no GPU present: %s ran on the cpu agent only, and nothing was compared with it", tb.Name())
	}
	for _, drv := range []string{"cuda", "rocm"} {
		if !ran[drv] && testenv.Required(drv) {
			tb.Errorf("gputest: HIPGO_REQUIRE names %s, but no %s device ran the differential check", drv, drv)
		}
	}
}

// compare describes how got differs from want; "" when it does not.
func compare[T Number](want, got []T, cfg diffConfig) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d results, the cpu agent gave %d", len(got), len(want))
	}
	var b strings.Builder
	bad := 0
	for i := range want {
		if !near(want[i], got[i], cfg) {
			if bad < 5 {
				fmt.Fprintf(&b, "\n\t[%d] = %v, the cpu agent's %v", i, got[i], want[i])
			}
			bad++
		}
	}
	if bad == 0 {
		return ""
	}
	bound := "exactly"
	if cfg.ulps > 0 {
		bound = fmt.Sprintf("within %d ULPs", cfg.ulps)
	}
	if cfg.abs > 0 {
		bound += fmt.Sprintf(" or %g", cfg.abs)
	}
	return fmt.Sprintf("%d of %d results do not match %s:%s", bad, len(want), bound, b.String())
}

func near[T Number](a, b T, cfg diffConfig) bool {
	ulps := cfg.ulps
	switch x := any(a).(type) {
	case float32:
		y := any(b).(float32)
		return ulpDiff32(x, y) <= ulps || math.Abs(float64(x)-float64(y)) <= cfg.abs
	case float64:
		y := any(b).(float64)
		return ulpDiff64(x, y) <= ulps || math.Abs(x-y) <= cfg.abs
	}
	// Named float types and integers.
	fa, fb := float64(a), float64(b)
	if fa != math.Trunc(fa) || fb != math.Trunc(fb) {
		return ulpDiff64(fa, fb) <= ulps || math.Abs(fa-fb) <= cfg.abs
	}
	return a == b
}

// ulpDiff32 is the distance between a and b in float32 steps; NaN is 0
// from NaN and far from everything else.
func ulpDiff32(a, b float32) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	return absDiff(ordered32(a), ordered32(b))
}

func ulpDiff64(a, b float64) int64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxInt64
	}
	d := ordered64(a) - ordered64(b)
	if d < 0 {
		d = -d
	}
	if d < 0 { // overflowed: opposite extremes
		return math.MaxInt64
	}
	return d
}

// ordered32 maps a float's bits onto integers in the floats' order.
func ordered32(f float32) int64 {
	u := int64(int32(math.Float32bits(f)))
	if u < 0 {
		u = math.MinInt32 - u
	}
	return u
}

func ordered64(f float64) int64 {
	u := int64(math.Float64bits(f))
	if u < 0 {
		u = math.MinInt64 - u
	}
	return u
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
