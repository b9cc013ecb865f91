package codeobj

import (
	"errors"
	"strings"
	"testing"
)

func TestPTXFixture(t *testing.T) {
	s := mustParse(t, fixture(t, "k.ptx"))
	o := s.Objects[0]
	if s.Container != "ptx" || o.Format != FormatPTX || o.Target != "sm_90" || o.PTXVersion != "7.8" || o.AddressSize != 64 {
		t.Fatalf("header: %+v", o)
	}
	if len(o.Kernels) != 2 {
		t.Fatalf("%d kernels", len(o.Kernels))
	}
	va, _ := o.Kernel("vector_add")
	want := []struct{ off, size uint32 }{{0, 8}, {8, 8}, {16, 8}, {24, 4}}
	for i, w := range want {
		if a := va.Args[i]; a.Offset != w.off || a.Size != w.size || a.Name != "vector_add_param_"+string(rune('0'+i)) {
			t.Errorf("vector_add arg %d: %+v", i, a)
		}
	}
	if va.KernargSize != 28 || va.KernargAlign != 8 || va.MaxFlatWorkgroup != 0 {
		t.Errorf("vector_add: size %d align %d", va.KernargSize, va.KernargAlign)
	}
	sc, _ := o.Kernel("scale")
	if a := sc.Args[1]; a.Offset != 8 || a.Size != 24 || a.Align != 8 || a.TypeName != ".b8" {
		t.Errorf("scale struct arg: %+v", a)
	}
	if a := sc.Args[2]; a.Offset != 32 || a.Size != 1 || a.TypeName != ".u8" {
		t.Errorf("scale char arg: %+v", a)
	}
	if sc.KernargSize != 33 || sc.MaxNTID != [3]uint32{256, 1, 1} || sc.MaxFlatWorkgroup != 256 {
		t.Errorf("scale: %+v", sc)
	}
	if sel, err := s.Select("sm_90"); err != nil || sel != o {
		t.Errorf("Select(sm_90): %v", err)
	}
	if _, err := s.Select("sm_100"); err != nil {
		t.Errorf("PTX for sm_90 should JIT on sm_100: %v", err)
	}
	if _, err := s.Select("sm_80"); !errors.Is(err, ErrNoMatch) {
		t.Errorf("Select(sm_80): %v", err)
	}
}

const trickyPTX = `
// .entry commented_out(.param .u32 x) {}
/* .entry also_commented(
   .param .u64 y
) { } */
.version 8.0
.target sm_80, texmode_independent // trailing comment
.address_size 64

.global .align 1 .b8 msg[12] = {104, 105, 0};
.extern .func (.param .b32 retval) vprintf (.param .b64 fmt, .param .b64 args);

.func (.param .b32 r) helper(.param .b32 a) { ret; }

.visible .entry k1(
	.param .u8 c,               // offset 0
	.param .f64 d,              // aligned to 8
	.param .u16 h,              /* offset 16 */
	.param .align 16 .b8 s[3][4], // 12 bytes at 32
	.param .u64 .ptr .global .align 16 p,
	.param .pred q,
	.param .f16 f,
	.param .s32 arr[3]
)
.maxntid 128, 2
.minnctapersm 4
.maxnreg 64
{
	.pragma "nounroll; .entry fake(";
	{ // nested block with a brace in a string: "}"
		ret;
	}
}

.entry noparams
.reqntid 32, 4, 2
{
	ret;
}

.weak .entry decl_only(.param .u32 z);
`

func TestPTXTricky(t *testing.T) {
	s := mustParse(t, []byte(trickyPTX))
	o := s.Objects[0]
	if o.Target != "sm_80" || o.PTXVersion != "8.0" {
		t.Errorf("header: %s %s", o.Target, o.PTXVersion)
	}
	var names []string
	for _, k := range o.Kernels {
		names = append(names, k.Name)
	}
	if strings.Join(names, " ") != "k1 noparams" {
		t.Fatalf("kernels %v", names)
	}
	k := o.Kernels[0]
	want := []struct {
		name      string
		off, size uint32
		align     uint32
	}{
		{"c", 0, 1, 1}, {"d", 8, 8, 8}, {"h", 16, 2, 2}, {"s", 32, 12, 16},
		{"p", 48, 8, 8}, {"q", 56, 1, 1}, {"f", 58, 2, 2}, {"arr", 60, 12, 4},
	}
	if len(k.Args) != len(want) {
		t.Fatalf("args %+v", k.Args)
	}
	for i, w := range want {
		a := k.Args[i]
		if a.Name != w.name || a.Offset != w.off || a.Size != w.size || a.Align != w.align {
			t.Errorf("arg %d: %+v, want %+v", i, a, w)
		}
	}
	if p := k.Args[4]; p.Kind != KindGlobalBuffer || p.AddressSpace != "global" || p.PointeeAlign != 16 {
		t.Errorf("pointer arg: %+v", p)
	}
	if k.KernargSize != 72 || k.KernargAlign != 16 || k.MaxNTID != [3]uint32{128, 2, 1} || k.MinNCTAPerSM != 4 || k.MaxNReg != 64 || k.MaxFlatWorkgroup != 256 {
		t.Errorf("k1: size %d align %d maxntid %v", k.KernargSize, k.KernargAlign, k.MaxNTID)
	}
	n := o.Kernels[1]
	if len(n.Args) != 0 || n.KernargSize != 0 || n.ReqNTID != [3]uint32{32, 4, 2} || n.ReqdWorkgroupSize != n.ReqNTID || n.MaxFlatWorkgroup != 256 {
		t.Errorf("noparams: %+v", n)
	}
	if d := Describe(s); !strings.Contains(d, ".b8[12]") || !strings.Contains(d, "reqntid 32,4,2") {
		t.Errorf("Describe:\n%s", d)
	}
}

func TestPTXErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{".version 7.8\n.target sm_90\n.entry k(.param .u32 a", "line 3"},
		{".version 7.8\n.target sm_90\n.entry k(.param .u32 a) {", "unclosed {"},
		{".version 7.8\n.target sm_90\n.entry k(.param .u99 a) {}", `unknown parameter qualifier ".u99"`},
		{".version 7.8\n.target sm_90\n.entry k(.param .u32 a[0]) {}", "positive array size"},
		{".version 7.8\n.target sm_90\n.entry k(.param .align 3 .u32 a) {}", "power of two"},
		{".version 7.8\n.target sm_90\n.entry k(.param .b8 a[4096][4096]) {}", "over"},
		{".version 7.8\n.target sm_90\n/* open", "unterminated /* comment"},
		{".version 7.8\n.target sm_90\n.pragma \"open", "unterminated string"},
		{".version 7.8\n.entry k() {}", "no .target"},
		{".version x\n.target sm_90", ".version wants"},
		{".version 7.8\n.target sm_90\n.address_size 48", "32 or 64"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %q", tt.src, err, tt.want)
		}
	}
}
