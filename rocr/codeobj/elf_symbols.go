package codeobj

import (
	"fmt"
	"strings"
)

// strtab is an ELF string table copied into one string, which every name
// read from it shares; names are remembered by offset, so a name that
// many entries use is found and paid for once.
type strtab struct {
	s     string
	names map[uint32]string
}

// strtab returns section i as a string table, copied once per file.
func (f *elfFile) strtab(i uint32) (*strtab, error) {
	if t, ok := f.tabs[i]; ok {
		return t, nil
	}
	s := &f.sections[i]
	d, err := f.data(s)
	if err != nil {
		return nil, err
	}
	if err := f.p.spend(s.where(), int64(s.off), len(d)+mapEntryCost); err != nil {
		return nil, err
	}
	t := &strtab{s: string(d), names: map[uint32]string{}}
	if f.tabs == nil {
		f.tabs = map[uint32]*strtab{}
	}
	f.tabs[i] = t
	return t, nil
}

// mapEntryCost is what one map entry is charged: key, value and the
// map's own share.
const mapEntryCost = 48

// name reads the NUL-terminated name at off; first is false when an
// earlier call read the same offset. ok is false when off is outside the
// table or the name runs to its end unterminated.
func (t *strtab) name(p *parser, off uint32, where string, pos int64) (name string, first, ok bool, err error) {
	if n, seen := t.names[off]; seen {
		return n, false, true, nil
	}
	if uint64(off) >= uint64(len(t.s)) {
		return "", true, off == 0 && len(t.s) == 0, nil
	}
	n := strings.IndexByte(t.s[off:], 0)
	if n < 0 {
		return "", true, false, nil
	}
	// Charged by length: whatever hashes or compares the name pays that.
	if err := p.spend(where, pos, n+mapEntryCost); err != nil {
		return "", true, false, err
	}
	name = t.s[off : int(off)+n]
	t.names[off] = name
	return name, true, true, nil
}

// Symbol is an ELF symbol of a code object.
type Symbol struct {
	Name    string
	Value   uint64
	Size    uint64
	Type    SymbolType
	Global  bool   // STB_GLOBAL or STB_WEAK
	Section string // "" for undefined or special indexes
}

// SymbolType is STT_*.
type SymbolType uint8

const (
	SymNoType SymbolType = 0
	SymObject SymbolType = 1
	SymFunc   SymbolType = 2
	SymKernel SymbolType = 10 // STT_AMDGPU_HSA_KERNEL of code object v2
)

func (t SymbolType) String() string {
	switch t {
	case SymNoType:
		return "notype"
	case SymObject:
		return "object"
	case SymFunc:
		return "func"
	case SymKernel:
		return "kernel"
	}
	return fmt.Sprintf("stt%d", uint8(t))
}

// symbols reads .symtab, and .dynsym for names .symtab lacks, with each
// symbol's section index.
func (f *elfFile) symbols() ([]Symbol, []uint16, error) {
	var syms []Symbol
	var shndx []uint16
	seen := map[string]bool{}
	for _, typ := range []uint32{shtSymtab, shtDynsym} {
		for i := range f.sections {
			s := &f.sections[i]
			if s.typ != typ {
				continue
			}
			where := s.where()
			d, err := f.data(s)
			if err != nil {
				return nil, nil, err
			}
			if len(d)%symSize != 0 {
				return nil, nil, errorf(where, int64(s.off), "size %d is not a multiple of %d", len(d), symSize)
			}
			if int(s.link) >= len(f.sections) {
				return nil, nil, errorf(where, int64(s.off), "string table index %d out of range", s.link)
			}
			// Several symbol tables may cover the same bytes: reading
			// each is paid for.
			if err := f.p.spend(where, int64(s.off), len(d)); err != nil {
				return nil, nil, err
			}
			names, err := f.strtab(s.link)
			if err != nil {
				return nil, nil, err
			}
			for j := symSize; j+symSize <= len(d); j += symSize { // entry 0 is null
				e := d[j:]
				off := int64(s.off) + int64(j)
				name, first, ok, err := names.name(f.p, le.Uint32(e), where, off)
				if err != nil {
					return nil, nil, err
				}
				if !ok {
					return nil, nil, errorf(where, off, "symbol %d: name offset %#x outside %s", j/symSize, le.Uint32(e), f.sections[s.link].where())
				}
				// A name read before at this offset was kept or
				// skipped then.
				if !first || name == "" || seen[name] {
					continue
				}
				if err := f.p.spend(where, off, mapEntryCost); err != nil {
					return nil, nil, err
				}
				seen[name] = true
				if syms, err = grow(f.p, syms, where, off); err != nil {
					return nil, nil, err
				}
				if shndx, err = grow(f.p, shndx, where, off); err != nil {
					return nil, nil, err
				}
				sym := Symbol{
					Name:   name,
					Type:   SymbolType(e[4] & 0xf),
					Global: e[4]>>4 == 1 || e[4]>>4 == 2,
					Value:  le.Uint64(e[8:]),
					Size:   le.Uint64(e[16:]),
				}
				x := le.Uint16(e[6:])
				if int(x) > 0 && int(x) < len(f.sections) {
					sym.Section = f.sections[x].name
				}
				syms = append(syms, sym)
				shndx = append(shndx, x)
			}
		}
	}
	return syms, shndx, nil
}
