package codeobj

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"crypto/md5"
	"fmt"
	"io"
	"slices"
	"strings"
	"unsafe"
)

const (
	bundleMagic = "__CLANG_OFFLOAD_BUNDLE__"
	ccobMagic   = "CCOB"
	hipfMagic   = 0x48495046 // "HIPF" read little-endian
	// maxNesting bounds bundles inside compressed bundles inside host ELFs.
	maxNesting = 4
)

// parseBundles parses one or more offload bundles, compressed or not,
// laid end to end (as a linked .hip_fatbin may hold them).
func (p *parser) bundles(b []byte, depth int) ([]*CodeObject, error) {
	if depth > maxNesting {
		return nil, errorf("bundle", 0, "nested more than %d deep", maxNesting)
	}
	var objs []*CodeObject
	pos := 0
	for pos < len(b) {
		rest := b[pos:]
		var n int
		var got []*CodeObject
		var err error
		switch {
		case bytes.HasPrefix(rest, []byte(bundleMagic)):
			got, n, err = p.bundle(rest, int64(pos))
		case bytes.HasPrefix(rest, []byte(ccobMagic)):
			var inner []byte
			inner, n, err = p.decompress(rest, int64(pos))
			if err == nil {
				if !bytes.HasPrefix(inner, []byte(bundleMagic)) {
					return nil, errorf("compressed bundle", int64(pos), "does not hold an offload bundle")
				}
				got, _, err = p.bundle(inner, 0)
			}
			// Each object keeps only its own bytes, not the whole
			// inflated bundle.
			for _, o := range got {
				o.Image = bytes.Clone(o.Image)
			}
		case pos > 0 && allZero(rest):
			return objs, nil // padding after the last bundle
		default:
			if pos == 0 {
				return nil, errorf("bundle", 0, "no bundle magic")
			}
			return nil, errorf("bundle", int64(pos), "unexpected bytes % x after a bundle", rest[:min(8, len(rest))])
		}
		if err != nil {
			return nil, err
		}
		if err := p.spend("bundle", int64(pos), len(got)*int(unsafe.Sizeof(objs[0]))*2); err != nil {
			return nil, err
		}
		objs = append(objs, got...)
		// Bundles in one section are padded to 4096 or 8 bytes; skip zeros.
		pos += n
		for pos < len(b) && b[pos] == 0 {
			pos++
		}
	}
	return objs, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// bundleEntry is one entry header of an offload bundle.
type bundleEntry struct {
	off, size uint64
	id        string
	at        uint64 // where its header is
}

// bundle parses an uncompressed bundle at the start of b and returns its
// code objects and the number of bytes it spans.
func (p *parser) bundle(b []byte, base int64) ([]*CodeObject, int, error) {
	const hdr = len(bundleMagic) + 8
	if len(b) < hdr {
		return nil, 0, errorf("bundle header", base, "truncated")
	}
	count := le.Uint64(b[len(bundleMagic):])
	// Every entry header takes at least 24 bytes: this bounds count.
	if count > uint64(len(b)-hdr)/24 {
		return nil, 0, errorf("bundle header", base+int64(len(bundleMagic)), "%d entries cannot fit in %d bytes", count, len(b))
	}
	entries, err := alloc[bundleEntry](p, int(count), "bundle header", base)
	if err != nil {
		return nil, 0, err
	}
	end := uint64(hdr)
	pos := uint64(hdr)
	for i := range count {
		h, ok := sub(b, pos, 24)
		if !ok {
			return nil, 0, errorf(fmt.Sprintf("bundle entry %d", i), base+int64(pos), "truncated entry header")
		}
		e := bundleEntry{off: le.Uint64(h), size: le.Uint64(h[8:]), at: pos}
		idLen := le.Uint64(h[16:])
		idb, ok := sub(b, pos+24, idLen)
		if !ok {
			return nil, 0, errorf(fmt.Sprintf("bundle entry %d", i), base+int64(pos)+24, "ID of %d bytes runs past the end", idLen)
		}
		e.id = string(idb)
		pos += 24 + idLen
		end = max(end, pos)
		if _, ok := sub(b, e.off, e.size); !ok {
			return nil, 0, errorf(fmt.Sprintf("bundle entry %d %s", i, shorten(e.id)), base+int64(pos), "code object at %#x, %d bytes, runs past the end (%d bytes)", e.off, e.size, len(b))
		}
		end = max(end, e.off+e.size)
		entries = append(entries, e)
	}
	// Entries share no bytes: one code object read for every entry
	// pointing at it would cost the input's size times their number.
	order, err := alloc[int](p, len(entries), "bundle header", base)
	if err != nil {
		return nil, 0, err
	}
	for i := range entries {
		if entries[i].size != 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(x, y int) int { return cmp.Compare(entries[x].off, entries[y].off) })
	for n := 1; n < len(order); n++ {
		a, c := &entries[order[n-1]], &entries[order[n]]
		if c.off < a.off+a.size {
			return nil, 0, errorf(fmt.Sprintf("bundle entry %d %s", order[n], shorten(c.id)), base+int64(c.at), "code object at %#x overlaps entry %d's (%#x, %d bytes)", c.off, order[n-1], a.off, a.size)
		}
	}
	var objs []*CodeObject
	for i := range entries {
		e := &entries[i]
		if e.size == 0 || strings.HasPrefix(e.id, "host-") {
			continue
		}
		o, err := p.entry(b[e.off:e.off+e.size], e.id, base+int64(e.off))
		if err != nil {
			return nil, 0, err
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, int(end), nil
}

// entry parses one bundle entry; entries for other offload kinds or
// devices are skipped (nil, nil).
func (p *parser) entry(data []byte, id string, off int64) (*CodeObject, error) {
	kind, triple, _ := strings.Cut(id, "-")
	switch {
	case strings.HasPrefix(triple, Triple) && bytes.HasPrefix(data, []byte(elfMagic)):
		o, err := p.elf(data)
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s at offset %#x: %w", shorten(id), off, err)
		}
		o.BundleEntry = id
		return o, nil
	case (kind == "cuda" || kind == "hip" || kind == "hipv4") && looksLikePTX(data):
		o, err := p.ptx(data)
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s at offset %#x: %w", shorten(id), off, err)
		}
		o.BundleEntry = id
		return o, nil
	}
	return nil, nil
}

// decompress expands a CCOB compressed bundle (header versions 1-3) and
// returns the inner bytes and the bytes the compressed bundle spans.
func (p *parser) decompress(b []byte, base int64) ([]byte, int, error) {
	const where = "compressed bundle header"
	if len(b) < 8 {
		return nil, 0, errorf(where, base, "truncated")
	}
	version, method := le.Uint16(b[4:]), le.Uint16(b[6:])
	var hdr int
	var fileSize, rawSize, hash uint64
	switch version {
	case 1:
		hdr = 20
		if len(b) >= hdr {
			fileSize, rawSize, hash = uint64(len(b)), uint64(le.Uint32(b[8:])), le.Uint64(b[12:])
		}
	case 2:
		hdr = 24
		if len(b) >= hdr {
			fileSize, rawSize, hash = uint64(le.Uint32(b[8:])), uint64(le.Uint32(b[12:])), le.Uint64(b[16:])
		}
	case 3:
		hdr = 32
		if len(b) >= hdr {
			fileSize, rawSize, hash = le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:])
		}
	default:
		return nil, 0, errorf(where, base+4, "version %d, want 1, 2 or 3", version)
	}
	if len(b) < hdr {
		return nil, 0, errorf(where, base, "truncated: %d bytes, version %d needs %d", len(b), version, hdr)
	}
	if fileSize < uint64(hdr) || fileSize > uint64(len(b)) {
		return nil, 0, errorf(where, base+8, "total size %d outside %d..%d", fileSize, hdr, len(b))
	}
	if err := p.inflate(where, base+8, rawSize); err != nil {
		return nil, 0, err
	}
	payload := b[hdr:fileSize]
	// Code objects compress by tens, not thousands: a bigger claim is a
	// bomb, refused before any work.
	if rawSize > 1<<20 && rawSize/uint64(max(len(payload), 1)) > maxRatio {
		return nil, 0, errorf(where, base+8, "uncompressed size %d from %d bytes exceeds the limit of a %d:1 ratio", rawSize, len(payload), maxRatio)
	}
	h := md5.New()
	var out []byte
	var err error
	switch method {
	case 0:
		out, err = p.expand("compressed bundle", base+int64(hdr), len(payload), rawSize, h, func() (io.Reader, func(), error) {
			zr, err := zlib.NewReader(bytes.NewReader(payload))
			if err != nil {
				return nil, nil, fmt.Errorf("zlib: %w", err)
			}
			return zr, func() { zr.Close() }, nil
		}, nil)
	case 1:
		out, err = p.unzstd("compressed bundle", base+int64(hdr), payload, rawSize, h)
	default:
		return nil, 0, errorf(where, base+6, "compression method %d, want 0 (zlib) or 1 (zstd)", method)
	}
	if err != nil {
		return nil, 0, err
	}
	if got := le.Uint64(h.Sum(nil)); got != hash {
		return nil, 0, errorf(where, base+int64(hdr)-8, "hash %#016x, contents hash to %#016x", hash, got)
	}
	return out, int(fileSize), nil
}

// parseHostELF finds the device code in a host object or executable: the
// .hip_fatbin section, or what .hipFatBinSegment's wrapper points at.
func (p *parser) hostELF(b []byte) ([]*CodeObject, error) {
	f, err := p.openELF(b)
	if err != nil {
		return nil, err
	}
	if s := f.section(".hip_fatbin"); s != nil {
		d, err := f.data(s)
		if err != nil {
			return nil, err
		}
		objs, err := p.bundles(d, 1)
		if err != nil {
			return nil, fmt.Errorf("section .hip_fatbin at offset %#x: %w", s.off, err)
		}
		return objs, nil
	}
	if s := f.section(".hipFatBinSegment"); s != nil {
		d, err := f.data(s)
		if err != nil {
			return nil, err
		}
		if len(d) < 24 || le.Uint32(d) != hipfMagic {
			return nil, errorf("section .hipFatBinSegment", int64(s.off), "no HIPF wrapper")
		}
		ptr := le.Uint64(d[8:])
		for i := range f.sections {
			t := &f.sections[i]
			if t.addr == 0 || t.typ == shtNobits || ptr < t.addr || ptr-t.addr >= t.size {
				continue
			}
			td, err := f.data(t)
			if err != nil {
				return nil, err
			}
			return p.bundles(td[ptr-t.addr:], 1)
		}
		return nil, errorf("section .hipFatBinSegment", int64(s.off)+8, "wrapper points at %#x, inside no section", ptr)
	}
	return nil, errorf("ELF header", 18, "host ELF (e_machine %d) has no .hip_fatbin or .hipFatBinSegment section", f.machine)
}

// parseFatbinWrapper handles a bare __hipFatBinaryWrapper: magic "HIPF",
// version, pointer to the bundle, reserved. Without the host image the
// pointer can only be followed when it is an offset into b, as in a
// section dump whose addresses start at zero.
func (p *parser) fatbinWrapper(b []byte) ([]*CodeObject, error) {
	if len(b) < 24 {
		return nil, errorf("HIP fat binary wrapper", 0, "truncated: %d bytes, need 24", len(b))
	}
	if v := le.Uint32(b[4:]); v != 1 {
		return nil, errorf("HIP fat binary wrapper", 4, "version %d, want 1", v)
	}
	ptr := le.Uint64(b[8:])
	if ptr >= 24 && ptr < uint64(len(b)) {
		return p.bundles(b[ptr:], 1)
	}
	return nil, errorf("HIP fat binary wrapper", 8, "points at address %#x outside the %d bytes given; parse the host ELF or its .hip_fatbin section instead", ptr, len(b))
}
