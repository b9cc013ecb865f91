package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// RequireEnv names the environment variable that lists, comma-separated,
// the features whose absence fails a test instead of skipping it.
const RequireEnv = "HIPGO_REQUIRE"

// Required reports whether feature is one of the words of $HIPGO_REQUIRE.
func Required(feature string) bool {
	for w := range strings.SplitSeq(os.Getenv(RequireEnv), ",") {
		if strings.TrimSpace(w) == feature {
			return true
		}
	}
	return false
}

// Require does nothing when missing is nil. Otherwise the feature is absent
// here, for the reason missing gives: tb fails where HIPGO_REQUIRE lists
// feature, and skips otherwise.
func Require(tb testing.TB, feature string, missing error) {
	tb.Helper()
	if missing == nil {
		return
	}
	if Required(feature) {
		tb.Fatalf("%v, and %s=%q requires %s", missing, RequireEnv, os.Getenv(RequireEnv), feature)
		return
	}
	tb.Skipf("%v (%s=%s makes this a failure)", missing, RequireEnv, feature)
}

// Requiref is Require with the reason formatted from format and args.
func Requiref(tb testing.TB, feature, format string, args ...any) {
	tb.Helper()
	Require(tb, feature, fmt.Errorf(format, args...))
}

// An Option prepares the process for its tests, before any runs.
type Option func()

// Setenv sets the environment variable key to value.
func Setenv(key, value string) Option {
	return func() { os.Setenv(key, value) }
}

// DefaultEnv sets key to value where the caller left it empty, so that a
// test binary run with another value (HIPGO_DRIVER=cuda on a GPU machine)
// keeps it.
func DefaultEnv(key, value string) Option {
	return func() {
		if os.Getenv(key) == "" {
			os.Setenv(key, value)
		}
	}
}

// Unsetenv removes key from the environment, so that a setting meant for
// programs (HSA_ENABLE_DEBUG, say) does not change what tests see.
func Unsetenv(key string) Option {
	return func() { os.Unsetenv(key) }
}

// Main is a package's TestMain: it applies opts, runs the tests, and fails
// the binary if any goroutine outlives them.
func Main(m *testing.M, opts ...Option) {
	for _, o := range opts {
		o()
	}
	goleak.VerifyTestMain(m)
}

// GoTool skips tb, or fails it where HIPGO_REQUIRE lists "go", when the go
// command is not on PATH: go/packages runs it to read a package (a test
// binary copied to a machine without Go has none).
func GoTool(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		Requiref(tb, "go", "the go command, which loading a package runs, is not on PATH: %v", err)
	}
}
