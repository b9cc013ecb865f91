package cabitest

import (
	"slices"
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

func TestEvalStandard(t *testing.T) {
	t.Parallel()
	v := Eval(t, nil, []string{
		"sizeof(int64_t)",
		"offsetof(struct { int8_t a; int64_t b; }, b)",
		"-1",
		"0x1001",
		"sizeof(int64_t)", // repeats are allowed
	})
	want := map[string]int64{
		"sizeof(int64_t)": 8,
		"offsetof(struct { int8_t a; int64_t b; }, b)": 8,
		"-1":     -1,
		"0x1001": 0x1001,
	}
	for e, w := range want {
		if v[e] != w {
			t.Errorf("%s = %d, want %d", e, v[e], w)
		}
	}
}

func TestEvalDeclared(t *testing.T) {
	t.Parallel()
	v, missing := EvalDeclared(t, []string{"stdlib.h"}, []string{
		"EXIT_FAILURE", "NO_SUCH_ENUMERATOR_1", "sizeof(struct no_such_struct)", "EXIT_SUCCESS",
	})
	if v["EXIT_FAILURE"] != 1 || v["EXIT_SUCCESS"] != 0 || len(v) != 2 {
		t.Errorf("values = %v", v)
	}
	if want := []string{"NO_SUCH_ENUMERATOR_1", "sizeof(struct no_such_struct)"}; !slices.Equal(missing, want) {
		t.Errorf("missing = %q, want %q", missing, want)
	}
}

func TestEnumerators(t *testing.T) {
	t.Parallel()
	got := Enumerators(t, []string{"hsa/hsa.h"}, "HSA_FENCE_SCOPE_")
	want := []string{"HSA_FENCE_SCOPE_AGENT", "HSA_FENCE_SCOPE_NONE", "HSA_FENCE_SCOPE_SYSTEM"}
	if !slices.Equal(got, want) {
		t.Errorf("Enumerators = %q, want %q", got, want)
	}
}

// TestMissingHeaderSkips checks that absent headers skip, not fail, when the
// feature is not required.
func TestMissingHeaderSkips(t *testing.T) {
	t.Setenv(testenv.RequireEnv, "")
	var skipped bool
	t.Run("inner", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Program{Headers: []string{"hipgo/no_such_header.h"}, Feature: "nosuch"}.Eval(t, []string{"1"})
	})
	if !skipped {
		t.Error("a missing header did not skip the test")
	}
}
