package codeobj

import (
	"bytes"
	"fmt"
)

// An NVIDIA fat binary (what nvcc -fatbin writes, and the .nv_fatbin
// section of nvcc -c output) is a 16-byte header followed by entries,
// each a header and a payload: a cubin for one SM or PTX text for one
// virtual architecture, either possibly zstd-compressed. Several fat
// binaries may lie end to end.

const (
	nvFatbinMagic   = 0xBA55ED50
	nvFatbinHdrSize = 16
	nvEntryMinSize  = 64

	nvKindPTX   = 1
	nvKindCubin = 2

	nvFlag64Bit = 0x1
	nvFlagLZ4   = 0x2000 // older toolkits' own LZ-style compression
	nvFlagZstd  = 0x8000
)

// isNVFatbin reports whether b starts with a fat binary header.
func isNVFatbin(b []byte) bool { return len(b) >= 4 && le.Uint32(b) == nvFatbinMagic }

// FatbinEntry describes one entry of an NVIDIA fat binary, whether or not
// it became a CodeObject.
type FatbinEntry struct {
	Kind       string // "cubin", "ptx" or "kind N"
	Arch       string // "sm_90"
	Compressed string // "", "zstd" or "lz4"
	Size       int    // payload bytes as stored
}

// nvFatbins reads every fat binary laid end to end in b; zero padding
// between and after them is allowed.
func (p *parser) nvFatbins(b []byte, base int64) ([]*CodeObject, error) {
	var objs []*CodeObject
	for off := 0; off < len(b); {
		if allZero(b[off:]) {
			break
		}
		rest := b[off:]
		if !isNVFatbin(rest) {
			return nil, errorf("fat binary", base+int64(off), "bad magic % x, want 50 ed 55 ba", rest[:min(4, len(rest))])
		}
		o, n, err := p.nvFatbin(rest, base+int64(off))
		if err != nil {
			return nil, err
		}
		objs = append(objs, o...)
		off += n
	}
	if len(objs) == 0 {
		return nil, errorf("fat binary", base, "no cubin or PTX entries")
	}
	linkPTX(objs)
	return objs, nil
}

// nvFatbin reads one fat binary and returns its objects and length.
func (p *parser) nvFatbin(b []byte, base int64) ([]*CodeObject, int, error) {
	const where = "fat binary header"
	if len(b) < nvFatbinHdrSize {
		return nil, 0, errorf(where, base, "truncated: %d bytes, need %d", len(b), nvFatbinHdrSize)
	}
	if v := le.Uint16(b[4:]); v != 1 {
		return nil, 0, errorf(where, base+4, "version %d, want 1", v)
	}
	hdr := uint64(le.Uint16(b[6:]))
	size := le.Uint64(b[8:])
	if hdr < nvFatbinHdrSize || hdr > uint64(len(b)) || size > uint64(len(b))-hdr {
		return nil, 0, errorf(where, base+6, "header %d and %d bytes of entries run past the %d bytes given", hdr, size, len(b))
	}
	body := b[hdr : hdr+size]
	var objs []*CodeObject
	for off := uint64(0); off < size; {
		o, n, err := p.nvEntry(body[off:], base+int64(hdr+off))
		if err != nil {
			return nil, 0, err
		}
		if o != nil {
			objs = append(objs, o)
		}
		off += n
	}
	return objs, int(hdr + size), nil
}

// parseNVEntry reads one entry; it returns nil for kinds this package does
// not load, and the entry's length.
func (p *parser) nvEntry(b []byte, base int64) (*CodeObject, uint64, error) {
	where := fmt.Sprintf("fat binary entry at %#x", base)
	if len(b) < nvEntryMinSize {
		return nil, 0, errorf(where, base, "truncated: %d bytes, need %d", len(b), nvEntryMinSize)
	}
	kind := le.Uint16(b)
	hdr := uint64(le.Uint32(b[4:]))
	size := le.Uint64(b[8:])
	if hdr < nvEntryMinSize || hdr > uint64(len(b)) || size > uint64(len(b))-hdr {
		return nil, 0, errorf(where, base+4, "header %d and payload %d bytes run past the %d bytes left", hdr, size, len(b))
	}
	arch := le.Uint32(b[28:])
	flags := le.Uint64(b[40:])
	payload := b[hdr : hdr+size]
	n := hdr + size
	if kind != nvKindPTX && kind != nvKindCubin {
		return nil, n, nil
	}
	switch {
	case flags&nvFlagZstd != 0:
		var err error
		if payload, err = p.unzstdEntry(payload, le.Uint32(b[16:]), le.Uint64(b[56:]), where, base+int64(hdr)); err != nil {
			return nil, 0, err
		}
	case flags&nvFlagLZ4 != 0:
		return nil, 0, errorf(where, base+40, "sm_%d entry uses the pre-zstd compression, which this package does not expand; rebuild with a newer nvcc or without -Xfatbin -compress-all", arch)
	}
	entry := fmt.Sprintf("%s sm_%d", map[uint16]string{nvKindPTX: "ptx", nvKindCubin: "cubin"}[kind], arch)
	if kind == nvKindPTX {
		// PTX payloads are NUL-padded text.
		payload = bytes.TrimRight(payload, "\x00")
		o, err := p.ptxShared(payload)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", where, err)
		}
		o.BundleEntry = entry
		return o, n, nil
	}
	o, err := p.cubin(payload)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", where, err)
	}
	o.BundleEntry = entry
	return o, n, nil
}

// unzstdEntry expands a zstd payload of csize stored bytes to exactly raw
// bytes, refusing claims no code object makes before doing any work.
func (p *parser) unzstdEntry(payload []byte, csize uint32, raw uint64, where string, off int64) ([]byte, error) {
	if uint64(csize) > uint64(len(payload)) {
		return nil, errorf(where, off, "compressed size %d over the %d bytes stored", csize, len(payload))
	}
	payload = payload[:csize]
	if raw > 1<<20 && raw/uint64(max(len(payload), 1)) > maxRatio {
		return nil, errorf(where, off, "uncompressed size %d from %d bytes refused", raw, len(payload))
	}
	if err := p.inflate(where, off, raw); err != nil {
		return nil, err
	}
	return p.unzstd(where, off, payload, raw, nil)
}

// linkPTX refines each cubin from a PTX entry of the same fat binary.
func linkPTX(objs []*CodeObject) {
	for _, c := range objs {
		if c.Format != FormatCubin {
			continue
		}
		for _, p := range objs {
			if p.Format == FormatPTX {
				refineFromPTX(c, p)
			}
		}
	}
}

// hostNVFatbin finds the fat binary nvcc -c puts into .nv_fatbin;
// nil when the object has none.
func (p *parser) hostNVFatbin(b []byte) ([]*CodeObject, error) {
	f, err := p.openELF(b)
	if err != nil {
		return nil, err
	}
	s := f.section(".nv_fatbin")
	if s == nil {
		return nil, nil
	}
	d, err := f.data(s)
	if err != nil {
		return nil, err
	}
	objs, err := p.nvFatbins(d, int64(s.off))
	if err != nil {
		return nil, fmt.Errorf("section .nv_fatbin: %w", err)
	}
	return objs, nil
}

// FatbinEntries lists the entries of an NVIDIA fat binary (or of a host
// object's .nv_fatbin) without expanding or parsing them: what
// hipErrorNoBinaryForGpu reports and gpuinfo prints.
func FatbinEntries(b []byte) ([]FatbinEntry, error) {
	if !isNVFatbin(b) {
		if !bytes.HasPrefix(b, []byte(elfMagic)) {
			return nil, errorf("fat binary", 0, "no fat binary header")
		}
		f, err := newParser(len(b), Limits{}).openELF(b)
		if err != nil {
			return nil, err
		}
		s := f.section(".nv_fatbin")
		if s == nil {
			return nil, errorf("ELF header", 0, "no .nv_fatbin section")
		}
		if b, err = f.data(s); err != nil {
			return nil, err
		}
	}
	var out []FatbinEntry
	for off := 0; off+nvFatbinHdrSize <= len(b) && isNVFatbin(b[off:]); {
		hdr, size := uint64(le.Uint16(b[off+6:])), le.Uint64(b[off+8:])
		if hdr < nvFatbinHdrSize || hdr > uint64(len(b)-off) || size > uint64(len(b)-off)-hdr {
			return nil, errorf("fat binary header", int64(off), "runs past the end")
		}
		body := b[uint64(off)+hdr : uint64(off)+hdr+size]
		for e := uint64(0); e+nvEntryMinSize <= size; {
			eh, es := uint64(le.Uint32(body[e+4:])), le.Uint64(body[e+8:])
			if eh < nvEntryMinSize || eh > size-e || es > size-e-eh {
				return nil, errorf("fat binary entry", int64(e), "runs past the end")
			}
			fe := FatbinEntry{Arch: fmt.Sprintf("sm_%d", le.Uint32(body[e+28:])), Size: int(es)}
			switch k := le.Uint16(body[e:]); k {
			case nvKindPTX:
				fe.Kind = "ptx"
			case nvKindCubin:
				fe.Kind = "cubin"
			default:
				fe.Kind = fmt.Sprintf("kind %d", k)
			}
			switch fl := le.Uint64(body[e+40:]); {
			case fl&nvFlagZstd != 0:
				fe.Compressed = "zstd"
			case fl&nvFlagLZ4 != 0:
				fe.Compressed = "lz4"
			}
			out = append(out, fe)
			e += eh + es
		}
		off += int(hdr + size)
	}
	return out, nil
}
