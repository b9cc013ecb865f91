package codeobj

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
)

const (
	bundleMagic = "__CLANG_OFFLOAD_BUNDLE__"
	ccobMagic   = "CCOB"
	hipfMagic   = 0x48495046 // "HIPF" read little-endian
	// maxDecompressed caps what one compressed bundle may expand to.
	maxDecompressed = 1 << 31
	maxRatio        = 10000
	// maxNesting bounds bundles inside compressed bundles inside host ELFs.
	maxNesting = 4
)

// parseBundles parses one or more offload bundles, compressed or not,
// laid end to end (as a linked .hip_fatbin may hold them).
func parseBundles(b []byte, depth int) ([]*CodeObject, error) {
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
			got, n, err = parseBundle(rest, int64(pos))
		case bytes.HasPrefix(rest, []byte(ccobMagic)):
			var inner []byte
			inner, n, err = decompressBundle(rest, int64(pos))
			if err == nil {
				if !bytes.HasPrefix(inner, []byte(bundleMagic)) {
					return nil, errorf("compressed bundle", int64(pos), "does not hold an offload bundle")
				}
				got, _, err = parseBundle(inner, 0)
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

// parseBundle parses an uncompressed bundle at the start of b and returns
// its code objects and the number of bytes it spans.
func parseBundle(b []byte, base int64) ([]*CodeObject, int, error) {
	const hdr = len(bundleMagic) + 8
	if len(b) < hdr {
		return nil, 0, errorf("bundle header", base, "truncated")
	}
	count := le.Uint64(b[len(bundleMagic):])
	// Every entry header takes at least 24 bytes: this bounds count.
	if count > uint64(len(b)-hdr)/24 {
		return nil, 0, errorf("bundle header", base+int64(len(bundleMagic)), "%d entries cannot fit in %d bytes", count, len(b))
	}
	end := uint64(hdr)
	pos := uint64(hdr)
	var objs []*CodeObject
	for i := uint64(0); i < count; i++ {
		where := fmt.Sprintf("bundle entry %d", i)
		h, ok := sub(b, pos, 24)
		if !ok {
			return nil, 0, errorf(where, base+int64(pos), "truncated entry header")
		}
		off, size, idLen := le.Uint64(h), le.Uint64(h[8:]), le.Uint64(h[16:])
		idb, ok := sub(b, pos+24, idLen)
		if !ok {
			return nil, 0, errorf(where, base+int64(pos)+24, "ID of %d bytes runs past the end", idLen)
		}
		id := string(idb)
		where += " " + id
		pos += 24 + idLen
		end = max(end, pos)
		data, ok := sub(b, off, size)
		if !ok {
			return nil, 0, errorf(where, base+int64(pos), "code object at %#x, %d bytes, runs past the end (%d bytes)", off, size, len(b))
		}
		end = max(end, off+size)
		if size == 0 || strings.HasPrefix(id, "host-") {
			continue
		}
		o, err := parseEntry(data, id, base+int64(off))
		if err != nil {
			return nil, 0, err
		}
		if o != nil {
			objs = append(objs, o)
		}
	}
	return objs, int(end), nil
}

// parseEntry parses one bundle entry; entries for other offload kinds or
// devices are skipped (nil, nil).
func parseEntry(data []byte, id string, off int64) (*CodeObject, error) {
	kind, triple, _ := strings.Cut(id, "-")
	switch {
	case strings.HasPrefix(triple, Triple) && bytes.HasPrefix(data, []byte(elfMagic)):
		o, err := parseELF(data)
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s at offset %#x: %w", id, off, err)
		}
		o.BundleEntry = id
		return o, nil
	case (kind == "cuda" || kind == "hip" || kind == "hipv4") && looksLikePTX(data):
		o, err := parsePTX(data)
		if err != nil {
			return nil, fmt.Errorf("bundle entry %s at offset %#x: %w", id, off, err)
		}
		o.BundleEntry = id
		return o, nil
	}
	return nil, nil
}

// decompressBundle expands a CCOB compressed bundle (header versions 1-3)
// and returns the inner bytes and the bytes the compressed bundle spans.
func decompressBundle(b []byte, base int64) ([]byte, int, error) {
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
	if rawSize > maxDecompressed {
		return nil, 0, errorf(where, base+8, "uncompressed size %d over the %d limit", rawSize, maxDecompressed)
	}
	payload := b[hdr:fileSize]
	// Code objects compress by tens, not thousands: a bigger claim is a
	// bomb, refused before any work.
	if rawSize > 1<<20 && rawSize/uint64(max(len(payload), 1)) > maxRatio {
		return nil, 0, errorf(where, base+8, "uncompressed size %d from %d bytes exceeds a %d:1 ratio", rawSize, len(payload), maxRatio)
	}
	var r io.Reader
	switch method {
	case 0:
		zr, err := zlib.NewReader(bytes.NewReader(payload))
		if err != nil {
			return nil, 0, errorf("compressed bundle (zlib)", base+int64(hdr), "%v", err)
		}
		r = zr
	case 1:
		zr, err := zstd.NewReader(bytes.NewReader(payload), zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(max(rawSize, 1<<20)))
		if err != nil {
			return nil, 0, errorf("compressed bundle (zstd)", base+int64(hdr), "%v", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, 0, errorf(where, base+6, "compression method %d, want 0 (zlib) or 1 (zstd)", method)
	}
	// Grow with the data actually produced, never by the header's claim.
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(r, int64(rawSize)+1))
	if err != nil {
		return nil, 0, errorf("compressed bundle", base+int64(hdr), "decompress: %v", err)
	}
	if uint64(n) != rawSize {
		return nil, 0, errorf("compressed bundle", base+int64(hdr), "expanded to %d bytes, header says %d", n, rawSize)
	}
	sum := md5.Sum(out.Bytes())
	if got := le.Uint64(sum[:8]); got != hash {
		return nil, 0, errorf(where, base+int64(hdr)-8, "hash %#016x, contents hash to %#016x", hash, got)
	}
	return out.Bytes(), int(fileSize), nil
}

// parseHostELF finds the device code in a host object or executable: the
// .hip_fatbin section, or what .hipFatBinSegment's wrapper points at.
func parseHostELF(b []byte) ([]*CodeObject, error) {
	f, err := openELF(b)
	if err != nil {
		return nil, err
	}
	if s := f.section(".hip_fatbin"); s != nil {
		d, err := f.data(s)
		if err != nil {
			return nil, err
		}
		objs, err := parseBundles(d, 1)
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
			return parseBundles(td[ptr-t.addr:], 1)
		}
		return nil, errorf("section .hipFatBinSegment", int64(s.off)+8, "wrapper points at %#x, inside no section", ptr)
	}
	return nil, errorf("ELF header", 18, "host ELF (e_machine %d) has no .hip_fatbin or .hipFatBinSegment section", f.machine)
}

// parseFatbinWrapper handles a bare __hipFatBinaryWrapper: magic "HIPF",
// version, pointer to the bundle, reserved. Without the host image the
// pointer can only be followed when it is an offset into b, as in a
// section dump whose addresses start at zero.
func parseFatbinWrapper(b []byte) ([]*CodeObject, error) {
	if len(b) < 24 {
		return nil, errorf("HIP fat binary wrapper", 0, "truncated: %d bytes, need 24", len(b))
	}
	if v := le.Uint32(b[4:]); v != 1 {
		return nil, errorf("HIP fat binary wrapper", 4, "version %d, want 1", v)
	}
	ptr := le.Uint64(b[8:])
	if ptr >= 24 && ptr < uint64(len(b)) {
		return parseBundles(b[ptr:], 1)
	}
	return nil, errorf("HIP fat binary wrapper", 8, "points at address %#x outside the %d bytes given; parse the host ELF or its .hip_fatbin section instead", ptr, len(b))
}
