package codeobj

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Format says what kind of code a CodeObject holds.
type Format uint8

const (
	FormatELF   Format = iota + 1 // an AMDGPU HSA code object
	FormatPTX                     // NVIDIA PTX text
	FormatCubin                   // an NVIDIA cubin (ELF, EM_CUDA) for one SM
)

func (f Format) String() string {
	switch f {
	case FormatELF:
		return "amdgpu-elf"
	case FormatPTX:
		return "ptx"
	case FormatCubin:
		return "cubin"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Spec is everything parsed from one blob: one or more code objects.
type Spec struct {
	Container string // "elf", "bundle", "ccob", "hip-fatbin", "host-elf", "ptx", "cubin", "nv-fatbin"
	Objects   []*CodeObject
}

// CodeObject is one loadable unit: an AMDGPU ELF for one target, a PTX
// module, or a cubin for one SM.
type CodeObject struct {
	Format Format
	// Target is "gfx90a:sramecc+:xnack-" (AMDGPU, short target ID) or
	// "sm_90" (PTX, cubin).
	Target string
	// ID is the decoded target of an AMDGPU code object (zero for PTX).
	ID TargetID
	// BundleEntry is the offload bundle entry ID this object came from
	// ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), or the NVIDIA fat
	// binary entry ("cubin sm_90"); empty if it was bare.
	BundleEntry string
	// Image is the code object's bytes (ELF or PTX text), ready for a
	// loader. It aliases the input to Parse unless the input was
	// compressed.
	Image []byte

	// AMDGPU ELF only.
	Version         int    // code object version: 3, 4, 5, 6
	ABIVersion      uint8  // e_ident[EI_ABIVERSION]
	Flags           uint32 // e_flags
	GenericVersion  uint8  // e_flags bits 24-31 (v6 generic targets)
	MetadataVersion [2]int // amdhsa.version
	MetadataTarget  string // amdhsa.target as written
	Symbols         []Symbol
	// Printf lists the format strings of the kernels' buffered printf
	// calls (amdhsa.printf), each with the hash its records carry.
	Printf []PrintfFormat

	// PTX only.
	PTXVersion  string // ".version 7.8" gives "7.8"
	AddressSize int    // 32 or 64 (cubin: 64)

	Kernels []Kernel
}

// Kernel is one kernel: its launch properties and argument layout.
type Kernel struct {
	Name   string // .name (PTX: the entry name)
	Symbol string // .symbol, "name.kd" (PTX: the entry name)

	KernargSize  uint32 // bytes of the kernarg segment, hidden arguments included
	KernargAlign uint32
	Args         []Arg // in offset order; hidden arguments follow explicit ones

	GroupSegmentSize   uint32 // static LDS / shared bytes
	PrivateSegmentSize uint32 // scratch bytes per work-item
	MaxFlatWorkgroup   uint32 // .max_flat_workgroup_size; PTX: product of .maxntid, 0 if none
	ReqdWorkgroupSize  [3]uint32
	WavefrontSize      uint32
	SGPRCount          uint32
	VGPRCount          uint32
	AGPRCount          uint32
	UsesDynamicStack   bool
	// UsesDynamicShared: the kernel declares memory the launch sizes
	// (extern __shared__, PTX .extern .shared, an OpenCL local pointer
	// argument), so a launch with 0 dynamic shared bytes is an error.
	// A cubin does not record it; a fat binary's PTX entry does.
	UsesDynamicShared bool

	// Descriptor is the 64-byte kernel descriptor (NAME.kd), nil if absent.
	Descriptor *KernelDescriptor

	// PTX only: performance directives (zero when absent).
	MaxNTID      [3]uint32
	ReqNTID      [3]uint32
	MinNCTAPerSM uint32
	MaxNReg      uint32

	// Cubin only: registers per thread (EIATTR_REGCOUNT).
	Registers uint32
}

// Arg is one kernel argument.
type Arg struct {
	Name     string // may be empty
	TypeName string // .type_name, e.g. "float*"; PTX: the .param type, e.g. ".u64"
	Offset   uint32
	Size     uint32
	Align    uint32 // PTX: the type's size or .align; AMDGPU (not in metadata): the largest power of two up to 8 dividing Size
	Kind     ValueKind
	KindName string // the metadata text, kept for kinds this package does not know

	AddressSpace string // "global", "constant", "local", "private", "generic", "region" or ""
	Access       string // .access: "read_only", "write_only", "read_write" or ""
	ActualAccess string
	PointeeAlign uint32
	IsConst      bool
	IsRestrict   bool
	IsVolatile   bool
	IsPipe       bool
}

// Hidden reports whether the runtime supplies this argument.
func (a *Arg) Hidden() bool {
	return a.Kind.Hidden() || (a.Kind == KindUnknown && strings.HasPrefix(a.KindName, "hidden_"))
}

// ExplicitArgs returns the arguments the caller passes (not hidden ones).
func (k *Kernel) ExplicitArgs() []Arg {
	n := 0
	for i := range k.Args {
		if !k.Args[i].Hidden() {
			n++
		}
	}
	out := make([]Arg, 0, n)
	for _, a := range k.Args {
		if !a.Hidden() {
			out = append(out, a)
		}
	}
	return out
}

// Kernel finds a kernel by name or symbol ("vector_add" or
// "vector_add.kd").
func (c *CodeObject) Kernel(name string) (*Kernel, bool) {
	for i := range c.Kernels {
		k := &c.Kernels[i]
		if k.Name == name || k.Symbol == name || strings.TrimSuffix(k.Symbol, ".kd") == name {
			return k, true
		}
	}
	return nil, false
}

// Targets lists the targets of all code objects, in order.
func (s *Spec) Targets() []string {
	out := make([]string, len(s.Objects))
	for i, o := range s.Objects {
		out[i] = o.Target
	}
	return out
}

// Parse detects the kind of blob (AMDGPU ELF, clang offload bundle,
// compressed bundle, HIP fat binary wrapper, host ELF carrying .hip_fatbin
// or .nv_fatbin, NVIDIA cubin or fat binary, or PTX text) and parses it
// into a Spec, within the default Limits. It never panics and reads only
// within b.
func Parse(b []byte) (*Spec, error) { return ParseWithLimits(b, Limits{}) }

// ParseWithLimits is Parse within lim; a limit exceeded is a
// *FormatError naming it.
func ParseWithLimits(b []byte, lim Limits) (*Spec, error) {
	p := newParser(len(b), lim)
	switch {
	case bytes.HasPrefix(b, []byte(elfMagic)):
		if isCUDA(b) {
			o, err := p.cubin(b)
			if err != nil {
				return nil, err
			}
			return &Spec{Container: "cubin", Objects: []*CodeObject{o}}, nil
		}
		if objs, err := p.hostNVFatbin(b); objs != nil || err != nil {
			if err != nil {
				return nil, err
			}
			return &Spec{Container: "host-elf", Objects: objs}, nil
		}
		if isAMDGPU(b) {
			o, err := p.elf(b)
			if err != nil {
				return nil, err
			}
			return &Spec{Container: "elf", Objects: []*CodeObject{o}}, nil
		}
		objs, err := p.hostELF(b)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "host-elf", Objects: objs}, nil
	case bytes.HasPrefix(b, []byte(bundleMagic)):
		objs, err := p.bundles(b, 0)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "bundle", Objects: objs}, nil
	case bytes.HasPrefix(b, []byte(ccobMagic)):
		objs, err := p.bundles(b, 0)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "ccob", Objects: objs}, nil
	case len(b) >= 4 && le.Uint32(b) == hipfMagic:
		objs, err := p.fatbinWrapper(b)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "hip-fatbin", Objects: objs}, nil
	case isNVFatbin(b):
		objs, err := p.nvFatbins(b, 0)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "nv-fatbin", Objects: objs}, nil
	case looksLikePTX(b):
		o, err := p.ptxShared(b)
		if err != nil {
			return nil, err
		}
		return &Spec{Container: "ptx", Objects: []*CodeObject{o}}, nil
	}
	if len(b) == 0 {
		return nil, errorf("input", 0, "empty: 0 bytes")
	}
	head := b
	if len(head) > 8 {
		head = head[:8]
	}
	return nil, errorf("input", 0, "unknown format (first bytes % x)", head)
}

// Select picks the code object for a device target: an AMDGPU target ID
// ("gfx90a:sramecc+:xnack-", long form accepted) or an NVIDIA architecture
// ("sm_90"). Among compatible AMDGPU objects it prefers the one pinning
// the most features. For NVIDIA it prefers a cubin the device runs (same
// major version, minor not above the device's, the newest such), else the
// newest PTX whose sm_XY is not above the device's (PTX is JIT-compiled
// forward). No match is a *NoMatchError listing the
// targets present.
func (s *Spec) Select(target string) (*CodeObject, error) {
	if sm, ok := parseSM(target); ok {
		if best := s.selectCubin(target, sm); best != nil {
			return best, nil
		}
		var best *CodeObject
		bestSM := -1
		for _, o := range s.Objects {
			if o.Format != FormatPTX {
				continue
			}
			if v, ok := parseSM(o.Target); ok && v <= sm && v > bestSM {
				best, bestSM = o, v
			}
		}
		if best != nil {
			return best, nil
		}
		return nil, &NoMatchError{Want: target, Have: s.Targets()}
	}
	dev, err := ParseTargetID(target)
	if err != nil {
		return nil, fmt.Errorf("select code object: %w", err)
	}
	var best *CodeObject
	for _, o := range s.Objects {
		if o.Format != FormatELF || !Compatible(o.ID, dev) {
			continue
		}
		if best == nil || o.ID.specificity() > best.ID.specificity() {
			best = o
		}
	}
	if best == nil {
		return nil, &NoMatchError{Want: target, Have: s.Targets()}
	}
	return best, nil
}

// parseSM reads "sm_90" or "sm_90a" as 90.
func parseSM(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "sm_")
	if !ok {
		return 0, false
	}
	rest = strings.TrimRight(rest, "af")
	v, err := strconv.Atoi(rest)
	return v, err == nil && v > 0
}

// selectCubin picks the newest cubin a device of SM sm runs: SASS runs on
// the same major architecture at an equal or higher minor; an
// architecture-specific one ("sm_90a") only on exactly that target.
func (s *Spec) selectCubin(target string, sm int) *CodeObject {
	var best *CodeObject
	bestSM := -1
	for _, o := range s.Objects {
		if o.Format != FormatCubin {
			continue
		}
		v, ok := parseSM(o.Target)
		if !ok || v/10 != sm/10 || v > sm || v <= bestSM {
			continue
		}
		if o.Target != strings.TrimRight(o.Target, "af") && o.Target != target {
			continue
		}
		best, bestSM = o, v
	}
	return best
}
