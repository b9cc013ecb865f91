package codeobj

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

// readelfNotes is what llvm-readelf --notes says about a code object's
// metadata, as key/value text.
type readelfNotes struct {
	target  string
	version []string
	kernels []map[string]string
	args    [][]map[string]string
}

func parseReadelfNotes(t *testing.T, out string) readelfNotes {
	var n readelfNotes
	top := ""
	in := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case trim == "---":
			in = true
			continue
		case trim == "...":
			in = false
			continue
		case !in || trim == "":
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if indent == 0 {
			k, v, _ := strings.Cut(trim, ":")
			top = k
			if k == "amdhsa.target" {
				n.target = strings.Trim(strings.TrimSpace(v), "'\"")
			}
			continue
		}
		item := strings.HasPrefix(trim, "- ")
		trim = strings.TrimPrefix(trim, "- ")
		k, v, _ := strings.Cut(trim, ":")
		v = strings.Trim(strings.TrimSpace(v), "'\"")
		switch {
		case top == "amdhsa.version":
			n.version = append(n.version, trim)
		case top != "amdhsa.kernels":
		case indent == 2 && item:
			n.kernels = append(n.kernels, map[string]string{})
			n.args = append(n.args, nil)
			n.kernels[len(n.kernels)-1][k] = v
		case indent == 4 && len(n.kernels) > 0:
			n.kernels[len(n.kernels)-1][k] = v
		case indent == 6 && item && len(n.kernels) > 0:
			i := len(n.kernels) - 1
			n.args[i] = append(n.args[i], map[string]string{k: v})
		case indent == 8 && len(n.kernels) > 0 && len(n.args[len(n.kernels)-1]) > 0:
			as := n.args[len(n.kernels)-1]
			as[len(as)-1][k] = v
		}
	}
	if len(n.kernels) == 0 {
		t.Fatalf("no kernels in llvm-readelf output:\n%s", out)
	}
	return n
}

func kernelFields(k *Kernel) map[string]string {
	u := func(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
	return map[string]string{
		".name":                       k.Name,
		".symbol":                     k.Symbol,
		".kernarg_segment_size":       u(k.KernargSize),
		".kernarg_segment_align":      u(k.KernargAlign),
		".group_segment_fixed_size":   u(k.GroupSegmentSize),
		".private_segment_fixed_size": u(k.PrivateSegmentSize),
		".max_flat_workgroup_size":    u(k.MaxFlatWorkgroup),
		".wavefront_size":             u(k.WavefrontSize),
		".sgpr_count":                 u(k.SGPRCount),
		".vgpr_count":                 u(k.VGPRCount),
		".agpr_count":                 u(k.AGPRCount),
		".uses_dynamic_stack":         strconv.FormatBool(k.UsesDynamicStack),
	}
}

func argFields(a *Arg) map[string]string {
	u := func(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
	return map[string]string{
		".name":          a.Name,
		".type_name":     a.TypeName,
		".offset":        u(a.Offset),
		".size":          u(a.Size),
		".value_kind":    a.KindName,
		".address_space": a.AddressSpace,
		".access":        a.Access,
		".actual_access": a.ActualAccess,
		".pointee_align": u(a.PointeeAlign),
		".is_const":      strconv.FormatBool(a.IsConst),
		".is_restrict":   strconv.FormatBool(a.IsRestrict),
		".is_volatile":   strconv.FormatBool(a.IsVolatile),
	}
}

// compareWithReadelf checks one AMDGPU code object against llvm-readelf.
func compareWithReadelf(t *testing.T, readelf string, o *CodeObject) {
	path := filepath.Join(t.TempDir(), "co.elf")
	if err := os.WriteFile(path, o.Image, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(readelf, "-h", "--notes", path).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", readelf, err, out)
	}
	text := string(out)

	// Header: "Flags: 0xE3F, gfx90a, xnack-, sramecc+".
	var flagsLine string
	for _, l := range strings.Split(text, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "Flags:"); ok {
			flagsLine = strings.TrimSpace(f)
		}
	}
	parts := strings.Split(flagsLine, ", ")
	if len(parts) < 2 {
		t.Fatalf("no Flags line in llvm-readelf -h output:\n%s", text)
	}
	flags, err := strconv.ParseUint(parts[0], 0, 32)
	if err != nil || uint32(flags) != o.Flags {
		t.Errorf("e_flags: readelf %s, parsed %#x", parts[0], o.Flags)
	}
	if parts[1] != o.ID.Processor {
		t.Errorf("processor: readelf %s, parsed %s", parts[1], o.ID.Processor)
	}
	want := map[string]Feature{"xnack": FeatureUnsupported, "sramecc": FeatureUnsupported}
	for _, p := range parts[2:] {
		switch {
		case strings.HasSuffix(p, "+"):
			want[strings.TrimSuffix(p, "+")] = FeatureOn
		case strings.HasSuffix(p, "-"):
			want[strings.TrimSuffix(p, "-")] = FeatureOff
		default:
			want[p] = FeatureAny
		}
	}
	if want["xnack"] != o.ID.XNACK || want["sramecc"] != o.ID.SRAMECC {
		t.Errorf("features: readelf %v, parsed xnack %v sramecc %v", parts[2:], o.ID.XNACK, o.ID.SRAMECC)
	}

	n := parseReadelfNotes(t, text)
	if n.target != o.MetadataTarget {
		t.Errorf("amdhsa.target: readelf %q, parsed %q", n.target, o.MetadataTarget)
	}
	if got := fmt.Sprint(o.MetadataVersion[0], o.MetadataVersion[1]); strings.Join(n.version, " ") != got {
		t.Errorf("amdhsa.version: readelf %v, parsed %s", n.version, got)
	}
	if len(n.kernels) != len(o.Kernels) {
		t.Fatalf("readelf lists %d kernels, parsed %d", len(n.kernels), len(o.Kernels))
	}
	for i, rk := range n.kernels {
		k, ok := o.Kernel(rk[".name"])
		if !ok {
			t.Errorf("kernel %q missing", rk[".name"])
			continue
		}
		mine := kernelFields(k)
		for key, v := range rk {
			if m, ok := mine[key]; ok && m != v {
				t.Errorf("kernel %s %s: readelf %q, parsed %q", k.Name, key, v, m)
			}
		}
		if len(n.args[i]) != len(k.Args) {
			t.Errorf("kernel %s: readelf lists %d args, parsed %d", k.Name, len(n.args[i]), len(k.Args))
			continue
		}
		for j, ra := range n.args[i] {
			mine := argFields(&k.Args[j])
			for key, v := range ra {
				if m, ok := mine[key]; ok && m != v {
					t.Errorf("kernel %s arg %d %s: readelf %q, parsed %q", k.Name, j, key, v, m)
				}
			}
		}
	}
}

func TestAgainstReadelf(t *testing.T) {
	readelf := testenv.Tool(t, "clang", "llvm-readelf-19", "llvm-19")
	for _, name := range []string{"gfx90a_v4.co", "gfx1100_v5.co", "gfx942_v6.co", "bundle.hipfb", "compressed.hipfb", "host.o"} {
		t.Run(name, func(t *testing.T) {
			s := mustParse(t, fixture(t, name))
			for _, o := range s.Objects {
				t.Run(o.Target, func(t *testing.T) { compareWithReadelf(t, readelf, o) })
			}
		})
	}
}
