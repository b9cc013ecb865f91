package aql_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/hipgo/hipgo/internal/cabitest"
	"github.com/hipgo/hipgo/rocr/aql"
)

var hsaHeaders = []string{"hsa/hsa.h", "hsa/hsa_ext_amd.h"}

// cFieldName maps a Go field name to hsa.h's: WorkgroupSizeX → workgroup_size_x.
func cFieldName(goName string) string {
	var b strings.Builder
	for i, r := range goName {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestABIPacketLayouts checks every packet struct field by field against the
// C struct: offset and size of each field, and the struct's size. Since the
// Go fields are contiguous and cover the C struct's size, no C field is
// left out either.
func TestABIPacketLayouts(t *testing.T) {
	t.Parallel()
	amdHeader := map[string]string{"Header": "header.header", "AMDFormat": "header.AmdFormat", "Reserved": "header.reserved"}
	layouts := []struct {
		c      string
		goType reflect.Type
		rename map[string]string
	}{
		{"hsa_kernel_dispatch_packet_t", reflect.TypeFor[aql.KernelDispatch](), nil},
		{"hsa_agent_dispatch_packet_t", reflect.TypeFor[aql.AgentDispatch](), nil},
		{"hsa_barrier_and_packet_t", reflect.TypeFor[aql.BarrierAnd](), nil},
		{"hsa_barrier_or_packet_t", reflect.TypeFor[aql.BarrierOr](), nil},
		{"hsa_amd_barrier_value_packet_t", reflect.TypeFor[aql.AMDBarrierValue](), amdHeader},
	}
	type check struct {
		what string
		got  int64
	}
	checks := map[string]check{} // C expression → Go value
	for _, l := range layouts {
		checks[fmt.Sprintf("sizeof(%s)", l.c)] = check{l.goType.Name() + " size", int64(l.goType.Size())}
		end := uintptr(0)
		for i := range l.goType.NumField() {
			f := l.goType.Field(i)
			if f.Offset != end {
				t.Errorf("%s.%s at offset %d leaves a gap after %d", l.goType.Name(), f.Name, f.Offset, end)
			}
			end = f.Offset + f.Type.Size()
			cf := cFieldName(f.Name)
			if r, ok := l.rename[f.Name]; ok {
				cf = r
			}
			what := l.goType.Name() + "." + f.Name
			checks[fmt.Sprintf("offsetof(%s, %s)", l.c, cf)] = check{what + " offset", int64(f.Offset)}
			checks[fmt.Sprintf("sizeof(((%s*)0)->%s)", l.c, cf)] = check{what + " size", int64(f.Type.Size())}
		}
		if end != l.goType.Size() {
			t.Errorf("%s: fields end at %d, size %d", l.goType.Name(), end, l.goType.Size())
		}
	}
	exprs := make([]string, 0, len(checks))
	for e := range checks {
		exprs = append(exprs, e)
	}
	vals := cabitest.Eval(t, hsaHeaders, exprs)
	for e, c := range checks {
		if vals[e] != c.got {
			t.Errorf("%s = %d, but C's %s = %d", c.what, c.got, e, vals[e])
		}
	}
	t.Logf("checked %d sizes and offsets", len(checks))
}

// TestABIConstants checks every enumerator-valued constant of the package,
// and that each C enum it mirrors has no enumerator the package lacks.
func TestABIConstants(t *testing.T) {
	t.Parallel()
	want := map[string]int64{
		"HSA_PACKET_TYPE_VENDOR_SPECIFIC": int64(aql.TypeVendorSpecific),
		"HSA_PACKET_TYPE_INVALID":         int64(aql.TypeInvalid),
		"HSA_PACKET_TYPE_KERNEL_DISPATCH": int64(aql.TypeKernelDispatch),
		"HSA_PACKET_TYPE_BARRIER_AND":     int64(aql.TypeBarrierAnd),
		"HSA_PACKET_TYPE_AGENT_DISPATCH":  int64(aql.TypeAgentDispatch),
		"HSA_PACKET_TYPE_BARRIER_OR":      int64(aql.TypeBarrierOr),

		"HSA_FENCE_SCOPE_NONE":   int64(aql.ScopeNone),
		"HSA_FENCE_SCOPE_AGENT":  int64(aql.ScopeAgent),
		"HSA_FENCE_SCOPE_SYSTEM": int64(aql.ScopeSystem),

		"HSA_PACKET_HEADER_TYPE":                        aql.HeaderTypeShift,
		"HSA_PACKET_HEADER_BARRIER":                     aql.HeaderBarrierShift,
		"HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE":       aql.HeaderAcquireFenceShift,
		"HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE":         aql.HeaderAcquireFenceShift,
		"HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE":       aql.HeaderReleaseFenceShift,
		"HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE":         aql.HeaderReleaseFenceShift,
		"HSA_PACKET_HEADER_WIDTH_TYPE":                  aql.HeaderTypeWidth,
		"HSA_PACKET_HEADER_WIDTH_BARRIER":               aql.HeaderBarrierWidth,
		"HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE": aql.HeaderAcquireFenceWidth,
		"HSA_PACKET_HEADER_WIDTH_ACQUIRE_FENCE_SCOPE":   aql.HeaderAcquireFenceWidth,
		"HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE": aql.HeaderReleaseFenceWidth,
		"HSA_PACKET_HEADER_WIDTH_RELEASE_FENCE_SCOPE":   aql.HeaderReleaseFenceWidth,

		"HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS":       aql.DispatchSetupDimsShift,
		"HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS": aql.DispatchSetupDimsWidth,

		"HSA_SIGNAL_CONDITION_EQ":  int64(aql.CondEQ),
		"HSA_SIGNAL_CONDITION_NE":  int64(aql.CondNE),
		"HSA_SIGNAL_CONDITION_LT":  int64(aql.CondLT),
		"HSA_SIGNAL_CONDITION_GTE": int64(aql.CondGTE),

		"HSA_AMD_PACKET_TYPE_BARRIER_VALUE": aql.AMDBarrierValueType,

		"sizeof(hsa_signal_condition32_t)":                                          int64(reflect.TypeFor[aql.Condition]().Size()),
		"sizeof(((hsa_barrier_and_packet_t*)0)->dep_signal) / sizeof(hsa_signal_t)": aql.MaxBarrierDeps,
		"sizeof(hsa_kernel_dispatch_packet_t)":                                      aql.PacketSize,

		// A header built the C way equals MakeHeader's.
		"HSA_PACKET_TYPE_BARRIER_OR << HSA_PACKET_HEADER_TYPE | 1 << HSA_PACKET_HEADER_BARRIER | " +
			"HSA_FENCE_SCOPE_AGENT << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE | " +
			"HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE": int64(aql.MakeHeader(aql.TypeBarrierOr, true, aql.ScopeAgent, aql.ScopeSystem)),
	}
	exprs := make([]string, 0, len(want))
	for e := range want {
		exprs = append(exprs, e)
	}
	got := cabitest.Eval(t, hsaHeaders, exprs)
	for e, w := range want {
		if got[e] != w {
			t.Errorf("Go has %d for C's %s = %d", w, e, got[e])
		}
	}
	for _, prefix := range []string{
		"HSA_PACKET_TYPE_", "HSA_FENCE_SCOPE_", "HSA_PACKET_HEADER_", "HSA_KERNEL_DISPATCH_PACKET_SETUP_",
		"HSA_SIGNAL_CONDITION_", "HSA_AMD_PACKET_TYPE_",
	} {
		for _, name := range cabitest.Enumerators(t, hsaHeaders, prefix) {
			if _, ok := want[name]; !ok {
				t.Errorf("C enumerator %s has no Go counterpart in aql", name)
			}
		}
	}
}
