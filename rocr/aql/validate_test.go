package aql_test

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
)

// slotOf views a packet as its queue slot.
func slotOf[T aql.KernelDispatch | aql.AgentDispatch | aql.BarrierAnd | aql.AMDBarrierValue](p *T) *aql.Slot {
	return (*aql.Slot)(unsafe.Pointer(p))
}

func dispatch(dims int, wg [3]uint16, grid [3]uint32) *aql.KernelDispatch {
	return &aql.KernelDispatch{
		Header:         aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeAgent, aql.ScopeSystem),
		Setup:          uint16(dims) << aql.DispatchSetupDimsShift,
		WorkgroupSizeX: wg[0], WorkgroupSizeY: wg[1], WorkgroupSizeZ: wg[2],
		GridSizeX: grid[0], GridSizeY: grid[1], GridSizeZ: grid[2],
		KernelObject:   0x7f0000001000,
		KernargAddress: 0x7f0000002000,
	}
}

func TestValidateValid(t *testing.T) {
	t.Parallel()
	valid := map[string]*aql.Slot{
		"1d":                 slotOf(dispatch(1, [3]uint16{64, 1, 1}, [3]uint32{1 << 20, 1, 1})),
		"1d partial group":   slotOf(dispatch(1, [3]uint16{256, 1, 1}, [3]uint32{1000, 1, 1})),
		"2d":                 slotOf(dispatch(2, [3]uint16{16, 16, 1}, [3]uint32{1920, 1080, 1})),
		"3d partial groups":  slotOf(dispatch(3, [3]uint16{8, 8, 4}, [3]uint32{100, 9, 5})),
		"grid equals group":  slotOf(dispatch(1, [3]uint16{1024, 1, 1}, [3]uint32{1024, 1, 1})),
		"reserved ignored":   slotOf(&aql.KernelDispatch{Header: aql.MakeHeader(aql.TypeKernelDispatch, false, 0, 0), Setup: 0xfffd, WorkgroupSizeX: 1, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, Reserved0: 7, GridSizeX: 1, GridSizeY: 1, GridSizeZ: 1, KernelObject: 1, Reserved2: 42}),
		"barrier and":        slotOf(&aql.BarrierAnd{Header: aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem), DepSignal: [5]uint64{1, 0, 3}}),
		"barrier or no deps": slotOf(&aql.BarrierOr{Header: aql.MakeHeader(aql.TypeBarrierOr, false, aql.ScopeNone, aql.ScopeNone)}),
		"agent dispatch":     slotOf(&aql.AgentDispatch{Header: aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem), Type: 0x8001, Arg: [4]uint64{1, 2, 3, 4}}),
		"amd barrier value":  slotOf(&aql.AMDBarrierValue{Header: aql.MakeHeader(aql.TypeVendorSpecific, true, aql.ScopeAgent, aql.ScopeAgent), AMDFormat: aql.AMDBarrierValueType, Signal: 0x1000, Value: 0, Mask: -1, Cond: aql.CondEQ}),
	}
	for name, s := range valid {
		h, err := aql.Decode(s)
		if err != nil {
			t.Errorf("%s: Decode: %v", name, err)
		}
		if h != s.Header() || h != aql.Header(s[0])|aql.Header(s[1])<<8 {
			t.Errorf("%s: Decode header %#x, slot starts %x", name, h, s[:2])
		}
		if err := aql.Validate(s); err != nil {
			t.Errorf("%s: Validate: %v", name, err)
		}
		if str := s.String(); strings.Contains(str, "aql:") || !strings.HasPrefix(str, h.Type().String()) {
			t.Errorf("%s: String() = %q", name, str)
		}
	}
}

func TestValidateMalformed(t *testing.T) {
	t.Parallel()
	kd := func(edit func(p *aql.KernelDispatch)) *aql.Slot {
		p := dispatch(2, [3]uint16{16, 16, 1}, [3]uint32{64, 64, 1})
		edit(p)
		return slotOf(p)
	}
	cases := []struct {
		name  string
		slot  *aql.Slot
		field string
		value uint64
	}{
		{"unknown type", kd(func(p *aql.KernelDispatch) { p.Header = p.Header&^0xff | 6 }), "header.type", 6},
		{"type 255", kd(func(p *aql.KernelDispatch) { p.Header |= 0xff }), "header.type", 255},
		{"invalid type", kd(func(p *aql.KernelDispatch) { p.Header = aql.MakeHeader(aql.TypeInvalid, false, 0, 0) }), "header.type", 1},
		{"acquire scope 3", kd(func(p *aql.KernelDispatch) { p.Header |= 3 << aql.HeaderAcquireFenceShift }), "header.acquire_fence_scope", 3},
		{"release scope 3", kd(func(p *aql.KernelDispatch) { p.Header |= 3 << aql.HeaderReleaseFenceShift }), "header.release_fence_scope", 3},
		{"zero dims", kd(func(p *aql.KernelDispatch) { p.Setup = 0 }), "setup.dimensions", 0},
		{"zero workgroup x", kd(func(p *aql.KernelDispatch) { p.WorkgroupSizeX = 0 }), "workgroup_size_x", 0},
		{"zero workgroup y", kd(func(p *aql.KernelDispatch) { p.WorkgroupSizeY = 0 }), "workgroup_size_y", 0},
		{"zero grid x", kd(func(p *aql.KernelDispatch) { p.GridSizeX = 0 }), "grid_size_x", 0},
		{"zero grid y", kd(func(p *aql.KernelDispatch) { p.GridSizeY = 0 }), "grid_size_y", 0},
		{"grid smaller than group", kd(func(p *aql.KernelDispatch) { p.GridSizeY = 8 }), "grid_size_y", 8},
		{"unused workgroup z", kd(func(p *aql.KernelDispatch) { p.WorkgroupSizeZ = 2 }), "workgroup_size_z", 2},
		{"unused grid z", kd(func(p *aql.KernelDispatch) { p.GridSizeZ = 0 }), "grid_size_z", 0},
		{"unused grid y in 1d", kd(func(p *aql.KernelDispatch) { p.Setup = 1; p.WorkgroupSizeY = 1 }), "grid_size_y", 64},
		{"null kernel", kd(func(p *aql.KernelDispatch) { p.KernelObject = 0 }), "kernel_object", 0},
		{"barrier scope 3", slotOf(&aql.BarrierAnd{Header: aql.MakeHeader(aql.TypeBarrierAnd, false, 0, 0) | 3<<aql.HeaderReleaseFenceShift}), "header.release_fence_scope", 3},
		{"agent scope 3", slotOf(&aql.AgentDispatch{Header: aql.MakeHeader(aql.TypeAgentDispatch, false, 0, 0) | 3<<aql.HeaderAcquireFenceShift}), "header.acquire_fence_scope", 3},
		{"unknown vendor format", slotOf(&aql.AMDBarrierValue{Header: aql.MakeHeader(aql.TypeVendorSpecific, false, 0, 0), AMDFormat: 1}), "AmdFormat", 1},
		{"unknown condition", slotOf(&aql.AMDBarrierValue{Header: aql.MakeHeader(aql.TypeVendorSpecific, false, 0, 0), AMDFormat: aql.AMDBarrierValueType, Cond: 4}), "cond", 4},
	}
	for _, c := range cases {
		_, err := aql.Decode(c.slot)
		var fe *aql.FieldError
		if !errors.As(err, &fe) || !errors.Is(err, aql.ErrMalformed) {
			t.Errorf("%s: Decode error %v, want a *FieldError wrapping ErrMalformed", c.name, err)
			continue
		}
		if fe.Field != c.field || fe.Value != c.value {
			t.Errorf("%s: error names %s = %d, want %s = %d (%v)", c.name, fe.Field, fe.Value, c.field, c.value, err)
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: message %q does not name %s", c.name, err, c.field)
		}
		if c.slot.Header().Type() != aql.TypeInvalid && !strings.Contains(c.slot.String(), c.field) {
			t.Errorf("%s: String() = %q does not mention the problem", c.name, c.slot.String())
		}
	}
}

// TestValidateTypedMismatch checks a typed Validate against a header of
// another type.
func TestValidateTypedMismatch(t *testing.T) {
	t.Parallel()
	p := aql.KernelDispatch{Header: aql.MakeHeader(aql.TypeBarrierAnd, false, 0, 0)}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "not a KERNEL_DISPATCH") {
		t.Errorf("KernelDispatch.Validate on a BARRIER_AND header: %v", err)
	}
}

func TestValidateAllocs(t *testing.T) {
	slots := []*aql.Slot{
		slotOf(dispatch(3, [3]uint16{8, 8, 4}, [3]uint32{100, 9, 5})),
		slotOf(&aql.BarrierAnd{Header: aql.MakeHeader(aql.TypeBarrierAnd, true, 1, 1)}),
		slotOf(&aql.AgentDispatch{Header: aql.MakeHeader(aql.TypeAgentDispatch, true, 1, 1)}),
		slotOf(&aql.AMDBarrierValue{Header: aql.MakeHeader(aql.TypeVendorSpecific, true, 1, 1), AMDFormat: aql.AMDBarrierValueType}),
	}
	for _, s := range slots {
		if n := testing.AllocsPerRun(100, func() {
			if _, err := aql.Decode(s); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("Decode of %v allocates %v times", s.Header().Type(), n)
		}
	}
}

// TestHeaderRoundTrip builds every header of a known type and reads it back,
// bit by bit.
func TestHeaderRoundTrip(t *testing.T) {
	t.Parallel()
	scopes := []aql.FenceScope{aql.ScopeNone, aql.ScopeAgent, aql.ScopeSystem}
	seen := map[aql.Header]bool{}
	for typ := aql.TypeVendorSpecific; typ <= aql.TypeBarrierOr; typ++ {
		for _, barrier := range []bool{false, true} {
			for _, acq := range scopes {
				for _, rel := range scopes {
					h := aql.MakeHeader(typ, barrier, acq, rel)
					if h.Type() != typ || h.Barrier() != barrier || h.Acquire() != acq || h.Release() != rel {
						t.Errorf("MakeHeader(%v, %v, %v, %v) = %#x reads back as %v", typ, barrier, acq, rel, uint16(h), h)
					}
					b := uint16(0)
					if barrier {
						b = 1
					}
					if want := uint16(typ) | b<<8 | uint16(acq)<<9 | uint16(rel)<<11; uint16(h) != want {
						t.Errorf("MakeHeader(%v, %v, %v, %v) = %#x, want %#x", typ, barrier, acq, rel, uint16(h), want)
					}
					if seen[h] {
						t.Errorf("header %#x built twice", uint16(h))
					}
					seen[h] = true
					if err := h.Validate(); (err == nil) == (typ == aql.TypeInvalid) {
						t.Errorf("%v: Validate() = %v", h, err)
					}
					if s := h.String(); !strings.HasPrefix(s, typ.String()) || strings.Contains(s, "barrier") != barrier {
						t.Errorf("%#x.String() = %q", uint16(h), s)
					}
				}
			}
		}
	}
	if len(seen) != 6*2*3*3 {
		t.Errorf("%d distinct headers, want %d", len(seen), 6*2*3*3)
	}
	// Bits outside a field never leak into it.
	if h := aql.MakeHeader(aql.TypeKernelDispatch, false, 7, 5); h.Acquire() != 3 || h.Release() != 1 || h.Type() != aql.TypeKernelDispatch || h.Barrier() {
		t.Errorf("out-of-range scopes: %v", h)
	}
}

func TestKernelDispatchDims(t *testing.T) {
	t.Parallel()
	for d := range 4 {
		p := aql.KernelDispatch{Setup: 0xfffc | uint16(d)}
		if p.Dims() != d {
			t.Errorf("Setup %#x: Dims() = %d, want %d", p.Setup, p.Dims(), d)
		}
	}
}

func TestStringers(t *testing.T) {
	t.Parallel()
	p := dispatch(1, [3]uint16{64, 1, 1}, [3]uint32{1000, 1, 1})
	want := "KERNEL_DISPATCH barrier acq=agent rel=system dims=1 wg=[64 1 1] grid=[1000 1 1] private=0 group=0 kernel=0x7f0000001000 kernarg=0x7f0000002000 signal=0x0"
	if got := p.String(); got != want {
		t.Errorf("KernelDispatch.String() =\n%q, want\n%q", got, want)
	}
	v := aql.AMDBarrierValue{Header: aql.MakeHeader(aql.TypeVendorSpecific, true, 0, 0), AMDFormat: aql.AMDBarrierValueType, Signal: 0x10, Mask: 0xff, Cond: aql.CondNE, Value: 3}
	if got := v.String(); !strings.Contains(got, "(0x10 & 0xff) NE 0x3") {
		t.Errorf("AMDBarrierValue.String() = %q", got)
	}
	if got := aql.Condition(9).String(); got != "Condition(9)" {
		t.Errorf("Condition(9).String() = %q", got)
	}
	var raw aql.Slot
	raw[0] = 0x2a
	if got := raw.String(); !strings.Contains(got, "PacketType(42)") || !strings.Contains(got, "unknown packet type") {
		t.Errorf("unknown slot String() = %q", got)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(slotOf(dispatch(1, [3]uint16{64, 1, 1}, [3]uint32{1000, 1, 1}))[:])
	f.Add(slotOf(&aql.BarrierAnd{Header: aql.MakeHeader(aql.TypeBarrierAnd, true, 1, 2), DepSignal: [5]uint64{1, 2}})[:])
	f.Fuzz(func(t *testing.T, data []byte) {
		var s aql.Slot
		copy(s[:], data)
		h, err := aql.Decode(&s)
		if h != s.Header() {
			t.Fatalf("Decode header %v, slot header %v", h, s.Header())
		}
		if (err == nil) != (aql.Validate(&s) == nil) {
			t.Fatalf("Decode and Validate disagree: %v", err)
		}
		if err != nil && !errors.Is(err, aql.ErrMalformed) {
			t.Fatalf("error %v does not wrap ErrMalformed", err)
		}
		_ = s.String()
		_ = h.String()
		if h2 := aql.MakeHeader(h.Type(), h.Barrier(), h.Acquire(), h.Release()); h2 != h&0x1fff {
			t.Fatalf("header %#x rebuilt as %#x", uint16(h), uint16(h2))
		}
		if err != nil {
			return
		}
		// What Validate accepts, a processor can run without further checks.
		switch h.Type() {
		case aql.TypeKernelDispatch:
			var p aql.KernelDispatch
			copy((*aql.Slot)(unsafe.Pointer(&p))[:], s[:])
			if p.Dims() < 1 || p.KernelObject == 0 || p.WorkgroupSizeX == 0 || p.GridSizeX < uint32(p.WorkgroupSizeX) {
				t.Fatalf("accepted %v", &p)
			}
		case aql.TypeInvalid:
			t.Fatal("accepted an INVALID packet")
		}
		if h.Acquire() > aql.ScopeSystem || h.Release() > aql.ScopeSystem {
			t.Fatalf("accepted reserved fence scope: %v", h)
		}
	})
}
