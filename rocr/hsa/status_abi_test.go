package hsa

import (
	"slices"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/internal/cabitest"
)

// TestStatusABI checks every Status against the value hsa.h or
// hsa_ext_amd.h gives its enumerator, and that every HSA_STATUS_ enumerator
// of the installed headers has a Status. Codes newer than the installed
// headers are logged as unchecked.
func TestStatusABI(t *testing.T) {
	t.Parallel()
	headers := []string{"hsa/hsa.h", "hsa/hsa_ext_amd.h"}
	statuses := Statuses()
	slices.Sort(statuses)
	byName := make(map[string]Status, len(statuses))
	names := make([]string, 0, len(statuses))
	for _, s := range statuses {
		n := s.Name()
		if !strings.HasPrefix(n, "HSA_STATUS_") || strings.HasPrefix(n, "HSA_STATUS(") {
			t.Errorf("Status %#x has no enumerator name: %q", uint32(s), n)
			continue
		}
		if prev, dup := byName[n]; dup {
			t.Errorf("%s names both %#x and %#x", n, uint32(prev), uint32(s))
		}
		byName[n] = s
		names = append(names, n)
	}
	vals, missing := cabitest.EvalDeclared(t, headers, names)
	for _, n := range names {
		v, ok := vals[n]
		if !ok {
			continue
		}
		if s := byName[n]; uint32(v) != uint32(s) {
			t.Errorf("%s: status.go has %#x, the headers say %#x (%d)", n, uint32(s), uint32(v), v)
		}
	}
	for _, n := range missing {
		t.Logf("%s (%#x in status.go) is not declared by the installed headers; unchecked", n, uint32(byName[n]))
	}

	var absent []string
	for _, n := range cabitest.Enumerators(t, headers, "HSA_STATUS_") {
		if _, ok := byName[n]; !ok {
			absent = append(absent, n)
		}
	}
	if len(absent) > 0 {
		v := cabitest.Eval(t, headers, absent)
		for _, n := range absent {
			t.Errorf("status.go lacks %s = %#x", n, uint32(v[n]))
		}
	}
	t.Logf("checked %d of %d status codes", len(vals), len(names))
}
