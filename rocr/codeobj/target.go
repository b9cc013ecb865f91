package codeobj

import (
	"fmt"
	"strings"
)

// Feature is the setting of a target feature (xnack, sramecc) in a code
// object or a device.
type Feature uint8

const (
	FeatureUnsupported Feature = iota // the processor has no such feature
	FeatureAny                        // code runs with the feature on or off
	FeatureOff
	FeatureOn
)

func (f Feature) String() string {
	switch f {
	case FeatureUnsupported:
		return "unsupported"
	case FeatureAny:
		return "any"
	case FeatureOff:
		return "off"
	case FeatureOn:
		return "on"
	}
	return fmt.Sprintf("Feature(%d)", uint8(f))
}

// specified reports whether the feature is pinned to on or off.
func (f Feature) specified() bool { return f == FeatureOn || f == FeatureOff }

// TargetID is an AMDGPU target ID: a processor and its xnack and sramecc
// settings, as in "gfx90a:sramecc+:xnack-".
type TargetID struct {
	Processor string // "gfx90a"
	SRAMECC   Feature
	XNACK     Feature
}

// Triple is the target triple of every HSA code object.
const Triple = "amdgcn-amd-amdhsa"

// String returns the short form, "gfx90a:sramecc+:xnack-". Features that
// are any or unsupported are left out, as clang does.
func (t TargetID) String() string {
	s := t.Processor
	for _, f := range [...]struct {
		name string
		v    Feature
	}{{"sramecc", t.SRAMECC}, {"xnack", t.XNACK}} {
		switch f.v {
		case FeatureOn:
			s += ":" + f.name + "+"
		case FeatureOff:
			s += ":" + f.name + "-"
		}
	}
	return s
}

// Full returns the long form, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-".
func (t TargetID) Full() string { return Triple + "--" + t.String() }

// ParseTargetID parses a target ID in short ("gfx90a:xnack-") or long
// ("amdgcn-amd-amdhsa--gfx90a:xnack-") form. A feature not named is
// FeatureAny.
func ParseTargetID(s string) (TargetID, error) {
	orig := s
	if rest, ok := strings.CutPrefix(s, Triple+"--"); ok {
		s = rest
	} else if rest, ok := strings.CutPrefix(s, Triple+"-"); ok {
		s = rest
	}
	parts := strings.Split(s, ":")
	t := TargetID{Processor: parts[0], SRAMECC: FeatureAny, XNACK: FeatureAny}
	if !validProcessor(t.Processor) {
		return TargetID{}, fmt.Errorf("target ID %q: bad processor %q", orig, t.Processor)
	}
	seen := map[string]bool{}
	for _, p := range parts[1:] {
		if len(p) < 2 {
			return TargetID{}, fmt.Errorf("target ID %q: bad feature %q", orig, p)
		}
		name, sign := p[:len(p)-1], p[len(p)-1]
		var v Feature
		switch sign {
		case '+':
			v = FeatureOn
		case '-':
			v = FeatureOff
		default:
			return TargetID{}, fmt.Errorf("target ID %q: feature %q lacks + or -", orig, p)
		}
		if seen[name] {
			return TargetID{}, fmt.Errorf("target ID %q: feature %q given twice", orig, name)
		}
		seen[name] = true
		switch name {
		case "sramecc":
			t.SRAMECC = v
		case "xnack":
			t.XNACK = v
		default:
			return TargetID{}, fmt.Errorf("target ID %q: unknown feature %q", orig, name)
		}
	}
	return t, nil
}

func validProcessor(p string) bool {
	if !strings.HasPrefix(p, "gfx") || len(p) < 4 {
		return false
	}
	for _, c := range p[3:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// Compatible reports whether code compiled for target id code runs on a
// device whose target ID is dev, by clang's and HIP's rules: the
// processors are equal; a feature the code leaves unspecified matches any
// device setting; a feature the code specifies must be specified the same
// way by the device.
func Compatible(code, dev TargetID) bool {
	if code.Processor != dev.Processor {
		return false
	}
	return featureOK(code.SRAMECC, dev.SRAMECC) && featureOK(code.XNACK, dev.XNACK)
}

func featureOK(code, dev Feature) bool {
	return !code.specified() || code == dev
}

// specificity counts the features a code object pins; Select prefers more.
func (t TargetID) specificity() int {
	n := 0
	if t.SRAMECC.specified() {
		n++
	}
	if t.XNACK.specified() {
		n++
	}
	return n
}

// e_flags of AMDGPU ELF files.
const (
	efMach           = 0x0ff
	efXNACKV3        = 0x100
	efSRAMECCV3      = 0x200
	efXNACKV4        = 0x300
	efSRAMECCV4      = 0xc00
	efGenericVersion = 0xff000000
)

// machNames maps EF_AMDGPU_MACH_* values to processor names (LLVM's
// AMDGPUUsage table).
var machNames = map[uint32]string{
	0x020: "gfx600", 0x021: "gfx601", 0x022: "gfx700", 0x023: "gfx701",
	0x024: "gfx702", 0x025: "gfx703", 0x026: "gfx704", 0x028: "gfx801",
	0x029: "gfx802", 0x02a: "gfx803", 0x02b: "gfx810", 0x02c: "gfx900",
	0x02d: "gfx902", 0x02e: "gfx904", 0x02f: "gfx906", 0x030: "gfx908",
	0x031: "gfx909", 0x032: "gfx90c", 0x033: "gfx1010", 0x034: "gfx1011",
	0x035: "gfx1012", 0x036: "gfx1030", 0x037: "gfx1031", 0x038: "gfx1032",
	0x039: "gfx1033", 0x03a: "gfx602", 0x03b: "gfx705", 0x03c: "gfx805",
	0x03d: "gfx1035", 0x03e: "gfx1034", 0x03f: "gfx90a", 0x040: "gfx940",
	0x041: "gfx1100", 0x042: "gfx1013", 0x043: "gfx1150", 0x044: "gfx1103",
	0x045: "gfx1036", 0x046: "gfx1101", 0x047: "gfx1102", 0x048: "gfx1200",
	0x049: "gfx1250", 0x04a: "gfx1151", 0x04b: "gfx941", 0x04c: "gfx942",
	0x04e: "gfx1201", 0x04f: "gfx950", 0x051: "gfx9-generic",
	0x052: "gfx10-1-generic", 0x053: "gfx10-3-generic", 0x054: "gfx11-generic",
	0x055: "gfx1152", 0x058: "gfx1153", 0x059: "gfx12-generic",
	0x05f: "gfx9-4-generic",
}

// targetFromFlags decodes e_flags for the given code object version.
func targetFromFlags(flags uint32, version int) (TargetID, error) {
	mach := flags & efMach
	name, ok := machNames[mach]
	if !ok {
		return TargetID{}, fmt.Errorf("unknown EF_AMDGPU_MACH %#x in e_flags %#x", mach, flags)
	}
	t := TargetID{Processor: name}
	if version == 3 {
		// v3 has one bit per feature: on, or unspecified.
		t.XNACK, t.SRAMECC = FeatureAny, FeatureAny
		if flags&efXNACKV3 != 0 {
			t.XNACK = FeatureOn
		}
		if flags&efSRAMECCV3 != 0 {
			t.SRAMECC = FeatureOn
		}
		return t, nil
	}
	t.XNACK = Feature((flags & efXNACKV4) >> 8)
	t.SRAMECC = Feature((flags & efSRAMECCV4) >> 10)
	return t, nil
}
