package testenv

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRequired(t *testing.T) {
	t.Setenv(RequireEnv, "cuda, hsa ,clang")
	for w, want := range map[string]bool{"cuda": true, "hsa": true, "clang": true, "rocm": false, "cl": false, "": false} {
		assert.Equal(t, want, Required(w), "Required(%q)", w)
	}
}

// recorder is a testing.TB that notes a skip or a failure instead of
// ending the test.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestRequire(t *testing.T) {
	missing := errors.New("clang-19 not found")

	t.Setenv(RequireEnv, "")
	r := &recorder{TB: t}
	Require(r, "clang", nil)
	assert.Empty(t, r.skipped+r.failed, "a present feature neither skips nor fails")
	Require(r, "clang", missing)
	assert.Equal(t, "clang-19 not found (HIPGO_REQUIRE=clang makes this a failure)", r.skipped)
	assert.Empty(t, r.failed)

	// A word that merely contains the feature does not require it.
	t.Setenv(RequireEnv, "hsa,clang-tools")
	r = &recorder{TB: t}
	Require(r, "clang", missing)
	assert.NotEmpty(t, r.skipped)
	assert.Empty(t, r.failed)

	t.Setenv(RequireEnv, "hsa,clang")
	r = &recorder{TB: t}
	Requiref(r, "clang", "%s not found", "clang-19")
	assert.Equal(t, `clang-19 not found, and HIPGO_REQUIRE="hsa,clang" requires clang`, r.failed)
	assert.Empty(t, r.skipped)
}

func TestOptions(t *testing.T) {
	t.Setenv("HIPGO_TESTENV_A", "")
	t.Setenv("HIPGO_TESTENV_B", "kept")
	t.Setenv("HIPGO_TESTENV_C", "gone")
	for _, o := range []Option{
		DefaultEnv("HIPGO_TESTENV_A", "default"),
		DefaultEnv("HIPGO_TESTENV_B", "default"),
		Unsetenv("HIPGO_TESTENV_C"),
		Setenv("HIPGO_TESTENV_D", "set"),
	} {
		o()
	}
	t.Cleanup(func() { os.Unsetenv("HIPGO_TESTENV_D") })
	assert.Equal(t, "default", os.Getenv("HIPGO_TESTENV_A"))
	assert.Equal(t, "kept", os.Getenv("HIPGO_TESTENV_B"))
	_, set := os.LookupEnv("HIPGO_TESTENV_C")
	assert.False(t, set)
	assert.Equal(t, "set", os.Getenv("HIPGO_TESTENV_D"))
}

func TestMain(m *testing.M) { Main(m) }

// Under go test -json the testing package makes os.Stderr os.Stdout;
// what Go code writes to os.Stderr is still captured as stderr, not as
// stdout.
func TestCaptureStderrUnderJSON(t *testing.T) {
	saved := os.Stderr
	os.Stderr = os.Stdout
	defer func() { os.Stderr = saved }()
	var out string
	errs := CaptureStderr(t, func() {
		out = CaptureStdout(t, func() {
			fmt.Fprint(os.Stdout, "to stdout")
			fmt.Fprint(os.Stderr, "to stderr")
		})
	})
	assert.Equal(t, "to stdout", out)
	assert.Equal(t, "to stderr", errs)
	assert.Same(t, os.Stdout, os.Stderr, "restored")
}
