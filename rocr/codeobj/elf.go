package codeobj

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"
)

var le = binary.LittleEndian

const (
	elfMagic       = "\x7fELF"
	emAMDGPU       = 224
	osabiAMDGPUHSA = 64
	ehdrSize       = 64
	shdrSize       = 64
	phdrSize       = 56
	symSize        = 24

	shtProgbits = 1
	shtSymtab   = 2
	shtNote     = 7
	shtNobits   = 8
	shtDynsym   = 11
	ptNote      = 4

	ntAMDGPUMetadata = 32
)

// elfFile is a bounds-checked view of an ELF64 little-endian image.
type elfFile struct {
	p        *parser
	b        []byte
	machine  uint16
	osabi    uint8
	abiver   uint8
	flags    uint32
	sections []elfSection
	phoff    uint64
	phnum    int
	tabs     map[uint32]*strtab // string tables read so far, by section index
}

type elfSection struct {
	name    string
	typ     uint32
	flags   uint64
	addr    uint64
	off     uint64
	size    uint64
	link    uint32
	entsize uint64
}

// where names the section in errors, a hostile name cut short.
func (s *elfSection) where() string {
	if s.name == "" {
		return "unnamed section"
	}
	return "section " + shorten(s.name)
}

// shorten cuts a name read from the input to a length fit for a message.
func shorten(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// isAMDGPU reports whether an ELF header names EM_AMDGPU.
func isAMDGPU(b []byte) bool {
	return len(b) >= 20 && b[4] == 2 && b[5] == 1 && le.Uint16(b[18:]) == emAMDGPU
}

// sub returns b[off:off+n] or false when that leaves b.
func sub(b []byte, off, n uint64) ([]byte, bool) {
	if off > uint64(len(b)) || n > uint64(len(b))-off {
		return nil, false
	}
	return b[off : off+n], true
}

func (p *parser) openELF(b []byte) (*elfFile, error) {
	if len(b) < ehdrSize {
		return nil, errorf("ELF header", 0, "truncated: %d bytes, need %d", len(b), ehdrSize)
	}
	if string(b[:4]) != elfMagic {
		return nil, errorf("ELF header", 0, "bad magic % x", b[:4])
	}
	if b[4] != 2 {
		return nil, errorf("ELF header", 4, "class %d, want ELFCLASS64 (2)", b[4])
	}
	if b[5] != 1 {
		return nil, errorf("ELF header", 5, "data encoding %d, want little-endian (1)", b[5])
	}
	f := &elfFile{
		p:       p,
		b:       b,
		osabi:   b[7],
		abiver:  b[8],
		machine: le.Uint16(b[18:]),
		flags:   le.Uint32(b[48:]),
		phoff:   le.Uint64(b[32:]),
		phnum:   int(le.Uint16(b[56:])),
	}
	shoff := le.Uint64(b[40:])
	shentsize := uint64(le.Uint16(b[58:]))
	shnum := uint64(le.Uint16(b[60:]))
	shstrndx := uint64(le.Uint16(b[62:]))
	if f.phnum > 0 {
		if pe := le.Uint16(b[54:]); pe != phdrSize {
			return nil, errorf("ELF header", 54, "e_phentsize %d, want %d", pe, phdrSize)
		}
		if _, ok := sub(b, f.phoff, uint64(f.phnum)*phdrSize); !ok {
			return nil, errorf("program headers", int64(f.phoff), "%d entries run past the end (%d bytes)", f.phnum, len(b))
		}
	}
	if shoff == 0 {
		return f, nil
	}
	if shentsize != shdrSize {
		return nil, errorf("ELF header", 58, "e_shentsize %d, want %d", shentsize, shdrSize)
	}
	if shnum == 0 || shstrndx == 0xffff {
		// Extended numbering: the real values live in section header 0.
		h0, ok := sub(b, shoff, shdrSize)
		if !ok {
			return nil, errorf("section header 0", int64(shoff), "past the end (%d bytes)", len(b))
		}
		if shnum == 0 {
			shnum = le.Uint64(h0[32:])
		}
		if shstrndx == 0xffff {
			shstrndx = uint64(le.Uint32(h0[40:]))
		}
	}
	// Bounding the table by the file size bounds the allocation below.
	tab, ok := sub(b, shoff, shnum*shdrSize)
	if shnum > uint64(len(b))/shdrSize || !ok {
		return nil, errorf("section headers", int64(shoff), "%d entries run past the end (%d bytes)", shnum, len(b))
	}
	if err := p.spend("section headers", int64(shoff), int(shnum)*int(unsafe.Sizeof(elfSection{}))); err != nil {
		return nil, err
	}
	f.sections = make([]elfSection, shnum)
	for i := range f.sections {
		h := tab[i*shdrSize:]
		f.sections[i] = elfSection{
			typ:     le.Uint32(h[4:]),
			flags:   le.Uint64(h[8:]),
			addr:    le.Uint64(h[16:]),
			off:     le.Uint64(h[24:]),
			size:    le.Uint64(h[32:]),
			link:    le.Uint32(h[40:]),
			entsize: le.Uint64(h[56:]),
		}
	}
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, errorf("ELF header", 62, "e_shstrndx %d out of range (%d sections)", shstrndx, shnum)
		}
		names, err := f.strtab(uint32(shstrndx))
		if err != nil {
			return nil, err
		}
		for i := range f.sections {
			where, off := "section headers", int64(shoff)+int64(i)*shdrSize
			nameOff := le.Uint32(tab[i*shdrSize:])
			name, _, ok, err := names.name(p, nameOff, where, off)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errorf(fmt.Sprintf("section header %d", i), off, "name offset %#x outside the section name table", nameOff)
			}
			f.sections[i].name = name
		}
	}
	return f, nil
}

// data returns a section's bytes, checked against the file.
func (f *elfFile) data(s *elfSection) ([]byte, error) {
	if s.typ == shtNobits {
		return nil, nil
	}
	d, ok := sub(f.b, s.off, s.size)
	if !ok {
		return nil, errorf(s.where(), int64(s.off), "%d bytes run past the end of the file (%d bytes)", s.size, len(f.b))
	}
	return d, nil
}

func (f *elfFile) section(name string) *elfSection {
	for i := range f.sections {
		if f.sections[i].name == name {
			return &f.sections[i]
		}
	}
	return nil
}

// notes calls fn for every note in SHT_NOTE sections, or in PT_NOTE
// segments when the file has no section headers.
func (f *elfFile) notes(fn func(owner string, typ uint32, desc []byte, where string, off int64) error) error {
	for i := range f.sections {
		s := &f.sections[i]
		if s.typ == shtNote {
			d, err := f.data(s)
			if err != nil {
				return err
			}
			if err := f.noteRegion(d, s.where(), s.off, fn); err != nil {
				return err
			}
		}
	}
	if len(f.sections) != 0 {
		return nil
	}
	for i := 0; i < f.phnum; i++ {
		p := f.b[f.phoff+uint64(i)*phdrSize:]
		if le.Uint32(p) != ptNote {
			continue
		}
		off, size := le.Uint64(p[8:]), le.Uint64(p[32:])
		d, ok := sub(f.b, off, size)
		if !ok {
			return errorf(fmt.Sprintf("program header %d (PT_NOTE)", i), int64(off), "%d bytes run past the end of the file", size)
		}
		if err := f.noteRegion(d, fmt.Sprintf("PT_NOTE segment %d", i), off, fn); err != nil {
			return err
		}
	}
	return nil
}

// noteHeaderCost is charged per note read: sections may overlap, so a
// note can be read many times.
const noteHeaderCost = 16

func (f *elfFile) noteRegion(d []byte, where string, base uint64, fn func(owner string, typ uint32, desc []byte, where string, off int64) error) error {
	for pos := uint64(0); pos < uint64(len(d)); {
		if err := f.p.spend(where, int64(base+pos), noteHeaderCost); err != nil {
			return err
		}
		if uint64(len(d))-pos < 12 {
			return errorf(where, int64(base+pos), "truncated note header")
		}
		namesz, descsz, typ := uint64(le.Uint32(d[pos:])), uint64(le.Uint32(d[pos+4:])), le.Uint32(d[pos+8:])
		nameOff := pos + 12
		descOff := nameOff + align4(namesz)
		name, ok1 := sub(d, nameOff, namesz)
		desc, ok2 := sub(d, descOff, descsz)
		if !ok1 || !ok2 {
			return errorf(where, int64(base+pos), "note (name %d bytes, desc %d bytes) runs past the section end", namesz, descsz)
		}
		if err := fn(noteOwner(name), typ, desc, where, int64(base+descOff)); err != nil {
			return err
		}
		pos = descOff + align4(descsz)
	}
	return nil
}

// noteOwner is a note's name without its NUL padding; only "AMDGPU"
// matters, so other owners are not copied.
func noteOwner(b []byte) string {
	b = bytes.TrimRight(b, "\x00")
	if string(b) == "AMDGPU" {
		return "AMDGPU"
	}
	return ""
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// KernelDescriptor is the 64-byte amdhsa kernel descriptor (NAME.kd).
type KernelDescriptor struct {
	GroupSegmentFixedSize      uint32
	PrivateSegmentFixedSize    uint32
	KernargSize                uint32
	KernelCodeEntryByteOffset  int64
	ComputePgmRsrc3            uint32
	ComputePgmRsrc1            uint32
	ComputePgmRsrc2            uint32
	KernelCodeProperties       uint16
	KernargPreload             uint16 // bits 0-6 length in dwords, 7-15 offset in dwords
	KernargPreloadLength       uint16
	KernargPreloadOffset       uint16
	EnableWavefrontSize32      bool // kernel_code_properties bit 10
	UsesDynamicStackDescriptor bool // kernel_code_properties bit 11
}

// KernelDescriptorSize is the size of a kernel descriptor in bytes.
const KernelDescriptorSize = 64

func decodeKernelDescriptor(d []byte) *KernelDescriptor {
	kd := &KernelDescriptor{
		GroupSegmentFixedSize:     le.Uint32(d[0:]),
		PrivateSegmentFixedSize:   le.Uint32(d[4:]),
		KernargSize:               le.Uint32(d[8:]),
		KernelCodeEntryByteOffset: int64(le.Uint64(d[16:])),
		ComputePgmRsrc3:           le.Uint32(d[44:]),
		ComputePgmRsrc1:           le.Uint32(d[48:]),
		ComputePgmRsrc2:           le.Uint32(d[52:]),
		KernelCodeProperties:      le.Uint16(d[56:]),
		KernargPreload:            le.Uint16(d[58:]),
	}
	kd.KernargPreloadLength = kd.KernargPreload & 0x7f
	kd.KernargPreloadOffset = kd.KernargPreload >> 7
	kd.EnableWavefrontSize32 = kd.KernelCodeProperties&(1<<10) != 0
	kd.UsesDynamicStackDescriptor = kd.KernelCodeProperties&(1<<11) != 0
	return kd
}

// elf parses an AMDGPU HSA code object.
func (p *parser) elf(b []byte) (*CodeObject, error) {
	f, err := p.openELF(b)
	if err != nil {
		return nil, err
	}
	if f.machine != emAMDGPU {
		return nil, errorf("ELF header", 18, "e_machine %d, want EM_AMDGPU (%d)", f.machine, emAMDGPU)
	}
	if f.osabi != osabiAMDGPUHSA {
		return nil, errorf("ELF header", 7, "OS/ABI %d, want ELFOSABI_AMDGPU_HSA (%d)", f.osabi, osabiAMDGPUHSA)
	}
	if err := p.spend("ELF header", 0, int(unsafe.Sizeof(CodeObject{}))); err != nil {
		return nil, err
	}
	o := &CodeObject{Format: FormatELF, Image: b, ABIVersion: f.abiver, Flags: f.flags}
	switch f.abiver {
	case 1, 2, 3, 4:
		o.Version = int(f.abiver) + 2
	default:
		return nil, errorf("ELF header", 8, "ABI version %d: code object versions 3-6 (ABI 1-4) are supported", f.abiver)
	}
	o.ID, err = targetFromFlags(f.flags, o.Version)
	if err != nil {
		return nil, errorf("ELF header", 48, "%v", err)
	}
	o.Target = o.ID.String()
	o.GenericVersion = uint8(f.flags >> 24)

	syms, shndx, err := f.symbols()
	if err != nil {
		return nil, err
	}
	o.Symbols = syms

	var md *metadata
	err = f.notes(func(owner string, typ uint32, desc []byte, where string, off int64) error {
		if owner != "AMDGPU" || typ != ntAMDGPUMetadata {
			return nil
		}
		if md != nil {
			return errorf(where, off, "second NT_AMDGPU_METADATA note")
		}
		m, err := p.metadata(desc)
		if err != nil {
			return errorf(where+" (NT_AMDGPU_METADATA)", off, "%v", err)
		}
		md = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	if md != nil {
		o.MetadataVersion = md.version
		o.MetadataTarget = md.target
		o.Kernels = md.kernels
		o.Printf = md.printf
	}

	// Attach descriptors; a .kd symbol without metadata still makes a kernel.
	kernels := kernelIndex{}
	for i := range o.Kernels {
		if err := kernels.add(p, o.Kernels, i); err != nil {
			return nil, err
		}
	}
	for i := range syms {
		s := &syms[i]
		if !strings.HasSuffix(s.Name, ".kd") {
			continue
		}
		kd, err := f.descriptor(s, shndx[i])
		if err != nil {
			return nil, err
		}
		if k, ok := kernels[s.Name]; ok && o.Kernels[k].Symbol == s.Name {
			o.Kernels[k].Descriptor = kd
			continue
		}
		if _, ok := kernels[strings.TrimSuffix(s.Name, ".kd")]; ok {
			continue
		}
		if o.Kernels, err = grow(p, o.Kernels, "kernel descriptors", -1); err != nil {
			return nil, err
		}
		o.Kernels = append(o.Kernels, Kernel{
			Name:               strings.TrimSuffix(s.Name, ".kd"),
			Symbol:             s.Name,
			KernargSize:        kd.KernargSize,
			GroupSegmentSize:   kd.GroupSegmentFixedSize,
			PrivateSegmentSize: kd.PrivateSegmentFixedSize,
			UsesDynamicStack:   kd.UsesDynamicStackDescriptor,
			Descriptor:         kd,
		})
		if err := kernels.add(p, o.Kernels, len(o.Kernels)-1); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// kernelIndex finds what CodeObject.Kernel finds, in one look-up: the
// first kernel whose name, symbol or symbol without ".kd" is the key.
type kernelIndex map[string]int

func (x kernelIndex) add(p *parser, ks []Kernel, i int) error {
	k := &ks[i]
	for _, key := range [...]string{k.Name, k.Symbol, strings.TrimSuffix(k.Symbol, ".kd")} {
		if _, ok := x[key]; ok {
			continue
		}
		if err := p.spend("kernels", -1, mapEntryCost+len(key)); err != nil {
			return err
		}
		x[key] = i
	}
	return nil
}

// descriptor reads the 64 bytes a NAME.kd symbol points at.
func (f *elfFile) descriptor(s *Symbol, shndx uint16) (*KernelDescriptor, error) {
	if s.Size != 0 && s.Size < KernelDescriptorSize {
		return nil, errorf("symbol "+shorten(s.Name), -1, "size %d, a kernel descriptor is %d bytes", s.Size, KernelDescriptorSize)
	}
	if shndx == 0 || int(shndx) >= len(f.sections) {
		return nil, errorf("symbol "+shorten(s.Name), -1, "section index %d out of range", shndx)
	}
	sec := &f.sections[shndx]
	if sec.typ == shtNobits {
		return nil, errorf("symbol "+shorten(s.Name), -1, "in %s, which has no bytes", sec.where())
	}
	// In an executable the value is an address; in a relocatable object
	// it is an offset into the section.
	rel := s.Value
	if s.Value >= sec.addr && sec.addr != 0 {
		rel = s.Value - sec.addr
	}
	data, err := f.data(sec)
	if err != nil {
		return nil, err
	}
	d, ok := sub(data, rel, KernelDescriptorSize)
	if !ok {
		return nil, errorf("symbol "+shorten(s.Name), int64(s.Value), "descriptor outside %s (size %#x)", sec.where(), sec.size)
	}
	if err := f.p.spend("kernel descriptors", -1, int(unsafe.Sizeof(KernelDescriptor{}))); err != nil {
		return nil, err
	}
	return decodeKernelDescriptor(d), nil
}
