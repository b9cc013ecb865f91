package codeobj

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// A cubin is an ELF for EM_CUDA. What a launch needs of each kernel lives
// in its .nv.info.NAME section as a list of EIATTR records; per-function
// resource counts live in the shared .nv.info section.

const (
	emCUDA       = 190
	shtCUDAInfo  = 0x70000000 // SHT_LOPROC: .nv.info sections
	abiCUDASMBit = 8          // EI_ABIVERSION from which e_flags keeps the SM in bits 8-15
)

// EIATTR record formats.
const (
	eifmtNVAL = 1 // no value
	eifmtBVAL = 2 // a byte in the 16-bit field
	eifmtHVAL = 3 // a 16-bit value
	eifmtSVAL = 4 // a 16-bit size, then that many bytes
)

// EIATTR attributes this package reads (the numbering of the CUDA
// toolkit's own listings, e.g. cuobjdump -elf).
const (
	eiattrMaxThreads     = 0x05 // SVAL: x, y, z of __launch_bounds__ / .maxntid
	eiattrParamCBank     = 0x0a // SVAL: symbol index, offset<<0 | size<<16 of the parameter window
	eiattrReqNTID        = 0x10 // SVAL: x, y, z of .reqntid
	eiattrFrameSize      = 0x11 // SVAL: symbol index, bytes
	eiattrKParamInfo     = 0x17 // SVAL: index, ordinal, offset, packed size and space
	eiattrCBankParamSize = 0x19 // HVAL: bytes of parameters
	eiattrKParamInfoV2   = 0x45 // SVAL: as KPARAM_INFO, with the size a plain 16-bit field (parameters past 16 KiB)
	eiattrMaxRegCount    = 0x1b // HVAL: .maxnreg
	eiattrRegCount       = 0x2f // SVAL: symbol index, registers
)

// isCUDA reports whether an ELF header names EM_CUDA.
func isCUDA(b []byte) bool {
	return len(b) >= 20 && b[4] == 2 && b[5] == 1 && le.Uint16(b[18:]) == emCUDA
}

// nvAttr is one EIATTR record; val is the 16-bit field of a non-SVAL one.
type nvAttr struct {
	attr uint8
	val  uint16
	data []byte // SVAL only
	off  int64  // within the section
}

// nvAttrs splits an .nv.info section into records. Each record costs at
// least four bytes of input, so the slice is bounded by the section size.
func nvAttrs(d []byte, where string) ([]nvAttr, error) {
	var out []nvAttr
	for off := 0; off < len(d); {
		if len(d)-off < 4 {
			return nil, errorf(where, int64(off), "truncated EIATTR record (%d bytes left)", len(d)-off)
		}
		a := nvAttr{attr: d[off+1], val: le.Uint16(d[off+2:]), off: int64(off)}
		switch d[off] {
		case eifmtNVAL, eifmtBVAL, eifmtHVAL:
			off += 4
		case eifmtSVAL:
			n := int(a.val)
			if n > len(d)-off-4 {
				return nil, errorf(where, int64(off), "EIATTR %#x: %d bytes of value run past the section's %d", a.attr, n, len(d))
			}
			a.data = d[off+4 : off+4+n]
			off += 4 + n
		default:
			return nil, errorf(where, int64(off), "EIATTR %#x: unknown format %d", a.attr, d[off])
		}
		out = append(out, a)
	}
	return out, nil
}

// cubin reads an NVIDIA cubin: its SM from e_flags and every kernel
// (each .nv.info.NAME section) with its parameter layout.
func (p *parser) cubin(b []byte) (*CodeObject, error) {
	f, err := p.openELF(b)
	if err != nil {
		return nil, err
	}
	if f.machine != emCUDA {
		return nil, errorf("ELF header", 18, "e_machine %d, want EM_CUDA (%d)", f.machine, emCUDA)
	}
	sm := f.flags & 0xff
	if f.abiver >= abiCUDASMBit {
		sm = (f.flags >> 8) & 0xff
	}
	if sm == 0 {
		return nil, errorf("ELF header", 48, "e_flags %#x name no SM architecture", f.flags)
	}
	o := &CodeObject{Format: FormatCubin, Target: fmt.Sprintf("sm_%d", sm), Image: b, ABIVersion: f.abiver, Flags: f.flags, AddressSize: 64}
	regs, frames, err := f.cubinFunctionInfo()
	if err != nil {
		return nil, err
	}
	for i := range f.sections {
		s := &f.sections[i]
		name, ok := strings.CutPrefix(s.name, ".nv.info.")
		if !ok || s.typ != shtCUDAInfo || name == "" {
			continue
		}
		k, err := f.cubinKernel(s, name)
		if err != nil {
			return nil, err
		}
		k.Registers = regs[name]
		k.PrivateSegmentSize = frames[name]
		if sh := f.section(".nv.shared." + name); sh != nil && sh.typ == shtNobits {
			k.GroupSegmentSize = uint32(min(sh.size, 1<<31))
		}
		o.Kernels = append(o.Kernels, *k)
	}
	return o, nil
}

// cubinFunctionInfo reads register counts and frame sizes from the shared
// .nv.info section, keyed by function name.
func (f *elfFile) cubinFunctionInfo() (regs, frames map[string]uint32, err error) {
	regs, frames = map[string]uint32{}, map[string]uint32{}
	s := f.section(".nv.info")
	if s == nil {
		return regs, frames, nil
	}
	d, err := f.data(s)
	if err != nil {
		return nil, nil, err
	}
	attrs, err := nvAttrs(d, s.where())
	if err != nil {
		return nil, nil, err
	}
	for _, a := range attrs {
		if (a.attr != eiattrRegCount && a.attr != eiattrFrameSize) || len(a.data) != 8 {
			continue
		}
		name, err := f.symbolName(le.Uint32(a.data))
		if err != nil {
			return nil, nil, err
		}
		if name == "" {
			continue
		}
		if a.attr == eiattrRegCount {
			regs[name] = le.Uint32(a.data[4:])
		} else {
			frames[name] = le.Uint32(a.data[4:])
		}
	}
	return regs, frames, nil
}

// cubinKernel reads one kernel's .nv.info.NAME section.
func (f *elfFile) cubinKernel(s *elfSection, name string) (*Kernel, error) {
	d, err := f.data(s)
	if err != nil {
		return nil, err
	}
	where := s.where()
	attrs, err := nvAttrs(d, where)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Name: name, Symbol: name, KernargAlign: 1}
	paramSize, haveSize := uint32(0), false
	var ords []uint32
	for _, a := range attrs {
		switch a.attr {
		case eiattrKParamInfo, eiattrKParamInfoV2:
			if len(a.data) != 12 {
				return nil, errorf(where, a.off, "EIATTR_KPARAM_INFO of %d bytes, want 12", len(a.data))
			}
			// The first form packs a 14-bit size above the constant
			// bank; the second, which nvcc writes for kernels whose
			// parameters pass 16 KiB, keeps the size in the low half.
			info := le.Uint32(a.data[8:])
			size := info >> 18
			if a.attr == eiattrKParamInfoV2 {
				size = info & 0xffff
			}
			arg := Arg{
				Kind:   KindByValue,
				Offset: uint32(le.Uint16(a.data[6:])),
				Size:   size,
			}
			ord := uint32(le.Uint16(a.data[4:]))
			arg.Name = fmt.Sprintf("%s_param_%d", name, ord)
			arg.Align = cubinAlign(arg.Size, arg.Offset)
			k.Args = append(k.Args, arg)
			ords = append(ords, ord)
		case eiattrCBankParamSize:
			paramSize, haveSize = uint32(a.val), true
		case eiattrMaxThreads, eiattrReqNTID:
			if len(a.data) != 12 {
				return nil, errorf(where, a.off, "EIATTR %#x of %d bytes, want 12", a.attr, len(a.data))
			}
			dims := [3]uint32{le.Uint32(a.data), le.Uint32(a.data[4:]), le.Uint32(a.data[8:])}
			if a.attr == eiattrMaxThreads {
				k.MaxNTID = dims
			} else {
				k.ReqNTID = dims
			}
		case eiattrMaxRegCount:
			k.MaxNReg = uint32(a.val)
		}
	}
	if err := k.orderCubinParams(where, ords, paramSize, haveSize); err != nil {
		return nil, err
	}
	k.MaxFlatWorkgroup = product(k.ReqNTID)
	if k.MaxFlatWorkgroup == 0 {
		k.MaxFlatWorkgroup = product(k.MaxNTID)
	}
	if k.ReqNTID != [3]uint32{} {
		k.ReqdWorkgroupSize = k.ReqNTID
	}
	return k, nil
}

// orderCubinParams sorts the parameters by ordinal (the toolchain lists
// them last to first) and checks that they are 0..n-1, do not overlap and
// fit the parameter size the cubin declares.
func (k *Kernel) orderCubinParams(where string, ords []uint32, size uint32, haveSize bool) error {
	idx := make([]int, len(k.Args))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(ords[a]) - int(ords[b]) })
	args := make([]Arg, len(k.Args))
	var end uint32
	for i, j := range idx {
		a := k.Args[j]
		if ords[j] != uint32(i) {
			return errorf(where, -1, "kernel %s: parameter ordinals are not 0..%d (found %d at position %d)", k.Name, len(idx)-1, ords[j], i)
		}
		if a.Offset < end {
			return errorf(where, -1, "kernel %s: parameter %d at offset %d overlaps the one before (ends at %d)", k.Name, i, a.Offset, end)
		}
		end = a.Offset + a.Size
		args[i] = a
		k.KernargAlign = max(k.KernargAlign, a.Align)
	}
	k.Args = args
	if haveSize && size > 0 && len(args) == 0 {
		// A record form this reader does not know: launching with no
		// parameters would hand the kernel garbage.
		return errorf(where, -1, "kernel %s: %d bytes of parameters that no EIATTR_KPARAM_INFO record describes", k.Name, size)
	}
	if haveSize {
		if end > size {
			return errorf(where, -1, "kernel %s: parameters end at %d, past the declared %d bytes", k.Name, end, size)
		}
		end = size
	}
	k.KernargSize = end
	return nil
}

// cubinAlign is naturalAlign reduced until it divides the offset too: a
// cubin does not record parameter alignment.
func cubinAlign(size, off uint32) uint32 {
	a := naturalAlign(size)
	for a > 1 && off%a != 0 {
		a /= 2
	}
	return a
}

// refineFromPTX completes a cubin kernel from the PTX of the same source
// (a fat binary often carries both): PTX names parameter types, marks
// global pointers and says whether dynamic shared memory is used, which
// the cubin does not. Only kernels whose layouts agree are refined.
func refineFromPTX(cubin, ptx *CodeObject) {
	for i := range cubin.Kernels {
		k := &cubin.Kernels[i]
		p, ok := ptx.Kernel(k.Name)
		if !ok || len(p.Args) != len(k.Args) {
			continue
		}
		same := true
		for j := range k.Args {
			if k.Args[j].Offset != p.Args[j].Offset || k.Args[j].Size != p.Args[j].Size {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		for j := range k.Args {
			a, pa := &k.Args[j], &p.Args[j]
			a.Name, a.TypeName, a.Kind, a.AddressSpace, a.Align = pa.Name, pa.TypeName, pa.Kind, pa.AddressSpace, pa.Align
		}
		k.UsesDynamicShared = k.UsesDynamicShared || p.UsesDynamicShared
	}
}

// symbolName returns the name of .symtab entry i ("" where there is none).
func (f *elfFile) symbolName(i uint32) (string, error) {
	for j := range f.sections {
		s := &f.sections[j]
		if s.typ != shtSymtab {
			continue
		}
		d, err := f.data(s)
		if err != nil {
			return "", err
		}
		e, ok := sub(d, uint64(i)*symSize, symSize)
		if !ok || i == 0 || int(s.link) >= len(f.sections) {
			return "", nil
		}
		strtab, err := f.data(&f.sections[s.link])
		if err != nil {
			return "", err
		}
		name, _ := cstring(strtab, uint64(le.Uint32(e)))
		return name, nil
	}
	return "", nil
}

// cstring reads the NUL-terminated string at off in a string table.
func cstring(b []byte, off uint64) (string, bool) {
	if off >= uint64(len(b)) {
		return "", off == 0 && len(b) == 0
	}
	rest := b[off:]
	if i := bytes.IndexByte(rest, 0); i >= 0 {
		return string(rest[:i]), true
	}
	return "", false
}
