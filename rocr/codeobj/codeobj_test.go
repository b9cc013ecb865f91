package codeobj

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// Values below were read from llvm-readelf-19 -h --notes on the fixtures
// (TestAgainstReadelf repeats the comparison where the tool exists).
func TestELFFixtures(t *testing.T) {
	tests := []struct {
		file     string
		version  int
		flags    uint32
		target   string
		wave     uint32
		mdTarget string
		mdVer    [2]int
		kernarg  map[string]uint32
	}{
		{"gfx90a_v4.co", 4, 0xe3f, "gfx90a:sramecc+:xnack-", 64, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", [2]int{1, 1},
			map[string]uint32{"vector_add": 28, "scale": 36, "hidden": 64}},
		{"gfx1100_v5.co", 5, 0x41, "gfx1100", 32, "amdgcn-amd-amdhsa--gfx1100", [2]int{1, 2},
			map[string]uint32{"vector_add": 288, "scale": 36, "hidden": 264}},
		{"gfx942_v6.co", 6, 0x54c, "gfx942", 64, "amdgcn-amd-amdhsa--gfx942", [2]int{1, 2},
			map[string]uint32{"vector_add": 288, "scale": 36, "hidden": 264}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustParse(t, fixture(t, tt.file))
			if s.Container != "elf" || len(s.Objects) != 1 {
				t.Fatalf("container %s with %d objects", s.Container, len(s.Objects))
			}
			o := s.Objects[0]
			if o.Format != FormatELF || o.Version != tt.version || o.Flags != tt.flags || o.Target != tt.target {
				t.Errorf("got format %v v%d flags %#x target %s", o.Format, o.Version, o.Flags, o.Target)
			}
			if o.ID.Full() != tt.mdTarget || o.MetadataTarget != tt.mdTarget || o.MetadataVersion != tt.mdVer {
				t.Errorf("full %s metadata %s %v", o.ID.Full(), o.MetadataTarget, o.MetadataVersion)
			}
			if len(o.Kernels) != len(tt.kernarg) {
				t.Fatalf("%d kernels, want %d", len(o.Kernels), len(tt.kernarg))
			}
			for name, size := range tt.kernarg {
				k, ok := o.Kernel(name)
				if !ok {
					t.Fatalf("kernel %s missing", name)
				}
				if k.KernargSize != size || k.KernargAlign != 8 || k.WavefrontSize != tt.wave || k.Symbol != name+".kd" {
					t.Errorf("%s: kernarg %d/%d wave %d symbol %s", name, k.KernargSize, k.KernargAlign, k.WavefrontSize, k.Symbol)
				}
				d := k.Descriptor
				if d == nil {
					t.Fatalf("%s: no kernel descriptor", name)
				}
				// The descriptor and the metadata describe the same kernel.
				if d.KernargSize != k.KernargSize || d.GroupSegmentFixedSize != k.GroupSegmentSize ||
					d.PrivateSegmentFixedSize != k.PrivateSegmentSize || d.EnableWavefrontSize32 != (tt.wave == 32) {
					t.Errorf("%s: descriptor %+v disagrees with metadata", name, *d)
				}
				if d.ComputePgmRsrc1 == 0 || d.KernelCodeEntryByteOffset == 0 {
					t.Errorf("%s: empty descriptor %+v", name, *d)
				}
				if k2, _ := o.Kernel(name + ".kd"); k2 != k {
					t.Errorf("lookup by symbol failed")
				}
			}
			va, _ := o.Kernel("vector_add")
			ex := va.ExplicitArgs()
			if len(ex) != 4 || ex[0].Kind != KindGlobalBuffer || ex[0].AddressSpace != "global" ||
				ex[3].Kind != KindByValue || ex[3].Offset != 24 || ex[3].Size != 4 {
				t.Errorf("vector_add explicit args: %+v", ex)
			}
			sc, _ := o.Kernel("scale")
			if sc.MaxFlatWorkgroup != 256 || len(sc.Args) != 3 || sc.Args[1].Size != 24 || sc.Args[2].Offset != 32 {
				t.Errorf("scale: %+v", sc)
			}
			var kdSyms int
			for _, sym := range o.Symbols {
				if strings.HasSuffix(sym.Name, ".kd") && sym.Type == SymObject && sym.Size == 64 && sym.Global {
					kdSyms++
				}
			}
			if kdSyms != 3 {
				t.Errorf("%d .kd symbols, want 3: %+v", kdSyms, o.Symbols)
			}
		})
	}
}

func TestHiddenKindsV4V5(t *testing.T) {
	v4 := mustParse(t, fixture(t, "gfx90a_v4.co")).Objects[0]
	k, _ := v4.Kernel("hidden")
	var kinds []string
	for _, a := range k.Args {
		if a.Hidden() {
			kinds = append(kinds, a.Kind.String())
		}
	}
	want := "hidden_global_offset_x hidden_global_offset_y hidden_global_offset_z hidden_hostcall_buffer hidden_default_queue hidden_completion_action hidden_multigrid_sync_arg"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("v4 hidden kinds:\n got %s\nwant %s", got, want)
	}
	v5 := mustParse(t, fixture(t, "gfx1100_v5.co")).Objects[0]
	k, _ = v5.Kernel("hidden")
	if a := k.Args[len(k.Args)-1]; a.Kind != KindHiddenQueuePtr || a.Offset != 208 || a.Size != 8 {
		t.Errorf("v5 last hidden arg: %+v", a)
	}
}

func TestBundles(t *testing.T) {
	b := mustParse(t, fixture(t, "bundle.hipfb"))
	if b.Container != "bundle" || strings.Join(b.Targets(), " ") != "gfx1100 gfx90a:xnack-" {
		t.Errorf("bundle: %s %v", b.Container, b.Targets())
	}
	for _, o := range b.Objects {
		if !strings.HasPrefix(o.BundleEntry, "hipv4-amdgcn-amd-amdhsa--") || !strings.HasSuffix(o.BundleEntry, o.Target) {
			t.Errorf("entry %q for target %s", o.BundleEntry, o.Target)
		}
	}
	c := mustParse(t, fixture(t, "compressed.hipfb"))
	if c.Container != "ccob" || strings.Join(c.Targets(), " ") != "gfx1100 gfx90a:xnack+ gfx90a:xnack-" {
		t.Errorf("compressed: %s %v", c.Container, c.Targets())
	}
	h := mustParse(t, fixture(t, "host.o"))
	if h.Container != "host-elf" || strings.Join(h.Targets(), " ") != "gfx90a" {
		t.Errorf("host: %s %v", h.Container, h.Targets())
	}
	// The same gfx90a:xnack- code object sits in both bundles.
	o1, _ := b.Select("gfx90a:xnack-")
	o2, _ := c.Select("gfx90a:xnack-")
	if o1 == nil || o2 == nil || !bytes.Equal(o1.Image[:64], o2.Image[:64]) {
		t.Errorf("gfx90a:xnack- objects differ")
	}
}

// ccobInner returns the uncompressed bundle inside compressed.hipfb.
func ccobInner(t *testing.T) []byte {
	inner, _, err := decompressBundle(fixture(t, "compressed.hipfb"), 0)
	if err != nil {
		t.Fatal(err)
	}
	return inner
}

// makeCCOB compresses a bundle with zlib under a header of the given version.
func makeCCOB(inner []byte, version uint16, badHash bool) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(inner)
	zw.Close()
	sum := md5.Sum(inner)
	hash := binary.LittleEndian.Uint64(sum[:8])
	if badHash {
		hash ^= 1
	}
	var h bytes.Buffer
	h.WriteString(ccobMagic)
	w := func(v any) { binary.Write(&h, binary.LittleEndian, v) }
	w(version)
	w(uint16(0)) // zlib
	hdr := map[uint16]int{1: 20, 2: 24, 3: 32}[version]
	total := hdr + z.Len()
	switch version {
	case 1:
		w(uint32(len(inner)))
	case 2:
		w(uint32(total))
		w(uint32(len(inner)))
	case 3:
		w(uint64(total))
		w(uint64(len(inner)))
	}
	w(hash)
	return append(h.Bytes(), z.Bytes()...)
}

func TestCCOBVersions(t *testing.T) {
	inner := ccobInner(t)
	want := strings.Join(mustParse(t, inner).Targets(), " ")
	for _, v := range []uint16{1, 2, 3} {
		s, err := Parse(makeCCOB(inner, v, false))
		if err != nil {
			t.Fatalf("v%d zlib: %v", v, err)
		}
		if got := strings.Join(s.Targets(), " "); got != want {
			t.Errorf("v%d: targets %s, want %s", v, got, want)
		}
		if _, err := Parse(makeCCOB(inner, v, true)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "hash") {
			t.Errorf("v%d bad hash: %v", v, err)
		}
	}
	// Two compressed bundles end to end, as a linked .hip_fatbin holds them.
	two := append(makeCCOB(inner, 2, false), 0, 0, 0, 0)
	two = append(two, makeCCOB(inner, 3, false)...)
	s := mustParse(t, two)
	if len(s.Objects) != 6 {
		t.Errorf("concatenated: %d objects, want 6", len(s.Objects))
	}
}

func TestFatbinWrapper(t *testing.T) {
	bundle := fixture(t, "bundle.hipfb")
	w := make([]byte, 32, 32+len(bundle))
	le.PutUint32(w, hipfMagic)
	le.PutUint32(w[4:], 1)
	le.PutUint64(w[8:], 32)
	s := mustParse(t, append(w, bundle...))
	if s.Container != "hip-fatbin" || len(s.Objects) != 2 {
		t.Errorf("wrapper: %s %v", s.Container, s.Targets())
	}
	le.PutUint64(w[8:], 0x401000)
	_, err := Parse(w)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "0x401000") {
		t.Errorf("unresolvable wrapper: %v", err)
	}
}

func TestSelect(t *testing.T) {
	inner := ccobInner(t)
	// A bundle with gfx90a:xnack- (v5), gfx90a:sramecc+:xnack- (v4) and gfx1100.
	spec := mustParse(t, inner)
	x, _ := spec.Select("gfx90a:xnack-")
	g1100, _ := spec.Select("gfx1100")
	v4 := fixture(t, "gfx90a_v4.co")
	mixed := mustParse(t, buildBundle(map[string][]byte{
		"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-":          x.Image,
		"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-": v4,
		"hipv4-amdgcn-amd-amdhsa--gfx1100":                g1100.Image,
		"host-x86_64-unknown-linux-gnu-":                  nil,
	}, "host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
		"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx1100"))
	if len(mixed.Objects) != 3 {
		t.Fatalf("mixed bundle: %v", mixed.Targets())
	}
	tests := []struct{ dev, want string }{
		{"gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-"}, // most specific wins
		{"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-"},
		{"gfx90a:sramecc-:xnack-", "gfx90a:xnack-"}, // sramecc pinned + in the v4 object
		{"gfx90a:xnack-", "gfx90a:xnack-"},
		{"gfx90a:sramecc+:xnack+", ""},
		{"gfx90a", ""}, // a device that does not say its xnack mode matches no pinned object
		{"gfx1100", "gfx1100"},
		{"gfx1101", ""},
		{"gfx942:sramecc+:xnack-", ""},
	}
	for _, tt := range tests {
		o, err := mixed.Select(tt.dev)
		if tt.want == "" {
			var nm *NoMatchError
			if !errors.Is(err, ErrNoMatch) || !errors.As(err, &nm) || len(nm.Have) != 3 ||
				!strings.Contains(err.Error(), "gfx90a:sramecc+:xnack-, gfx1100") {
				t.Errorf("Select(%s) = %v, %v; want no match listing the targets", tt.dev, o, err)
			}
			continue
		}
		if err != nil || o.Target != tt.want {
			t.Errorf("Select(%s) = %v, %v; want %s", tt.dev, o, err, tt.want)
		}
	}
	// A feature-free code object runs anywhere its processor matches.
	host := mustParse(t, fixture(t, "host.o"))
	for _, dev := range []string{"gfx90a", "gfx90a:xnack+", "gfx90a:sramecc-:xnack-"} {
		if o, err := host.Select(dev); err != nil || o.Target != "gfx90a" {
			t.Errorf("Select(%s) on feature-free object: %v", dev, err)
		}
	}
	if _, err := mixed.Select("not-a-gpu"); err == nil {
		t.Error("Select accepted a bad target")
	}
}

func TestCompatible(t *testing.T) {
	tests := []struct {
		code, dev string
		want      bool
	}{
		{"gfx90a", "gfx90a:sramecc+:xnack+", true},
		{"gfx90a:xnack-", "gfx90a:sramecc+:xnack-", true},
		{"gfx90a:xnack-", "gfx90a:sramecc+:xnack+", false},
		{"gfx90a:xnack-", "gfx90a", false},
		{"gfx90a:sramecc+", "gfx90a:sramecc+:xnack+", true},
		{"gfx906", "gfx90a", false},
		{"gfx1100", "gfx1100", true},
	}
	for _, tt := range tests {
		c, err1 := ParseTargetID(tt.code)
		d, err2 := ParseTargetID(tt.dev)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := Compatible(c, d); got != tt.want {
			t.Errorf("Compatible(%s, %s) = %v", tt.code, tt.dev, got)
		}
	}
}

func TestTargetID(t *testing.T) {
	for _, s := range []string{"gfx90a:sramecc+:xnack-", "gfx1100", "gfx942:xnack+", "gfx908:sramecc-"} {
		id, err := ParseTargetID(s)
		if err != nil || id.String() != s || id.Full() != "amdgcn-amd-amdhsa--"+s {
			t.Errorf("round trip %s: %v %v", s, id, err)
		}
	}
	// Features print in canonical (alphabetical) order.
	if id, _ := ParseTargetID("gfx90a:xnack-:sramecc+"); id.String() != "gfx90a:sramecc+:xnack-" {
		t.Errorf("canonical order: %s", id)
	}
	for _, bad := range []string{"", "gfx", "sm_90", "gfx90a:xnack", "gfx90a:foo+", "gfx90a:xnack+:xnack-", "GFX90A"} {
		if _, err := ParseTargetID(bad); err == nil {
			t.Errorf("ParseTargetID(%q) accepted", bad)
		}
	}
}

func TestTargetFromFlags(t *testing.T) {
	mach := map[string]uint32{
		"gfx900": 0x2c, "gfx906": 0x2f, "gfx908": 0x30, "gfx90a": 0x3f, "gfx940": 0x40,
		"gfx941": 0x4b, "gfx942": 0x4c, "gfx1030": 0x36, "gfx1100": 0x41, "gfx1101": 0x46,
		"gfx1102": 0x47, "gfx1200": 0x48, "gfx1201": 0x4e,
	}
	for name, m := range mach {
		for xn := uint32(0); xn < 4; xn++ {
			for sr := uint32(0); sr < 4; sr++ {
				id, err := targetFromFlags(m|xn<<8|sr<<10, 5)
				if err != nil || id.Processor != name || id.XNACK != Feature(xn) || id.SRAMECC != Feature(sr) {
					t.Errorf("%s xnack %d sramecc %d: %+v %v", name, xn, sr, id, err)
				}
			}
		}
	}
	id, _ := targetFromFlags(0x3f|0xe00, 4)
	if id.String() != "gfx90a:sramecc+:xnack-" {
		t.Errorf("0xe3f: %s", id)
	}
	if _, err := targetFromFlags(0xfe, 4); err == nil {
		t.Error("unknown mach accepted")
	}
	// Synthetic ELFs carry the same flags through Parse.
	s := mustParse(t, buildELF(0x4e|0x100, 3, nil))
	if o := s.Objects[0]; o.Target != "gfx1201" || o.ID.XNACK != FeatureAny || len(o.Kernels) != 0 {
		t.Errorf("synthetic gfx1201: %+v", o)
	}
}

func TestMetadataKinds(t *testing.T) {
	meta := metaBlob(t, map[string]any{
		".name": "k", ".symbol": "k.kd", ".kernarg_segment_size": 64, ".kernarg_segment_align": 8,
		".group_segment_fixed_size": 128, ".private_segment_fixed_size": 16, ".wavefront_size": 64,
		".max_flat_workgroup_size": 256, ".uses_dynamic_stack": true, ".reqd_workgroup_size": []int{64, 2, 1},
		".args": []any{
			map[string]any{".name": "in", ".type_name": "float*", ".offset": 0, ".size": 8, ".value_kind": "global_buffer",
				".address_space": "global", ".access": "read_only", ".actual_access": "read_only", ".is_const": true, ".is_restrict": true},
			map[string]any{".offset": 8, ".size": 4, ".value_kind": "dynamic_shared_pointer", ".address_space": "local", ".pointee_align": 16},
			map[string]any{".offset": 16, ".size": 8, ".value_kind": "hidden_future_thing"},
			map[string]any{".offset": 24, ".size": 8, ".value_kind": "brand_new_kind"},
		},
	})
	o := mustParse(t, buildELF(0x63f, 3, meta)).Objects[0]
	k, ok := o.Kernel("k")
	if !ok || k.GroupSegmentSize != 128 || k.PrivateSegmentSize != 16 || !k.UsesDynamicStack ||
		k.ReqdWorkgroupSize != [3]uint32{64, 2, 1} || k.MaxFlatWorkgroup != 256 {
		t.Fatalf("kernel: %+v", k)
	}
	a := k.Args
	if a[0].Name != "in" || a[0].TypeName != "float*" || !a[0].IsConst || !a[0].IsRestrict || a[0].Access != "read_only" {
		t.Errorf("arg 0: %+v", a[0])
	}
	if a[1].Kind != KindDynamicSharedPointer || a[1].PointeeAlign != 16 || a[1].AddressSpace != "local" {
		t.Errorf("arg 1: %+v", a[1])
	}
	if a[2].Kind != KindUnknown || a[2].KindName != "hidden_future_thing" || !a[2].Hidden() {
		t.Errorf("arg 2: %+v", a[2])
	}
	if a[3].Kind != KindUnknown || a[3].KindName != "brand_new_kind" || a[3].Hidden() || len(k.ExplicitArgs()) != 3 {
		t.Errorf("arg 3: %+v", a[3])
	}
	if !strings.Contains(Describe(mustParse(t, buildELF(0x63f, 3, meta))), "brand_new_kind") {
		t.Error("Describe drops unknown kind text")
	}
}

func TestValueKindNames(t *testing.T) {
	for k := ValueKind(1); k < numKinds; k++ {
		if ParseValueKind(k.String()) != k {
			t.Errorf("%d: %s does not round-trip", k, k)
		}
		if k.Hidden() != strings.HasPrefix(k.String(), "hidden_") {
			t.Errorf("%s: Hidden() = %v", k, k.Hidden())
		}
	}
	if ParseValueKind("nope") != KindUnknown || ValueKind(200).String() != "unknown" {
		t.Error("unknown kinds")
	}
}
