package goback

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// compressOver is the size past which a code object is stored
// zstd-compressed (gen/<file>.zst) and expanded at its first load
// (gokernel.Compressed): gpu/prim's PTX and bundle, about 14 MB each,
// compress about 17 times; the small ones stay as clang wrote them, text
// a diff can show.
const compressOver = 1 << 20

// zstdSuffix marks a compressed code object.
const zstdSuffix = ".zst"

// StoreObjects finds the code objects names in gen as clang left them or
// as an earlier run stored them, and returns the files to embed: a file
// past compressOver is replaced by its compressed form, and a compressed
// form whose file is now small (or compressed anew) is replaced by it.
// With no clang it compresses the files already there, byte for byte the
// ones a clang run would have stored.
func StoreObjects(gen string, names []string) ([]string, error) {
	var objs []string
	for _, name := range names {
		raw := filepath.Join(gen, name)
		b, err := os.ReadFile(raw)
		switch {
		case err == nil && len(b) > compressOver:
			z, err := compressObject(b)
			if err != nil {
				return nil, err
			}
			if err := WriteIfChanged(raw+zstdSuffix, z); err != nil {
				return nil, err
			}
			if err := os.Remove(raw); err != nil {
				return nil, err
			}
			objs = append(objs, name+zstdSuffix)
		case err == nil:
			if err := os.Remove(raw + zstdSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			objs = append(objs, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		default:
			if _, err := os.Stat(raw + zstdSuffix); err == nil {
				objs = append(objs, name+zstdSuffix)
			}
		}
	}
	return objs, nil
}

// compressObject is b as one zstd frame, the same bytes for the same b
// (a fixed level, one goroutine, the frame's size and checksum, no
// dictionary ID), so that go generate leaves the tree as it was.
func compressObject(b []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(true), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(b, make([]byte, 0, len(b)/8)), nil
}

// readObject is the code object gen/name as clang wrote it, decompressing
// a stored one.
func readObject(gen, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(gen, name))
	if err != nil || !strings.HasSuffix(name, zstdSuffix) {
		return b, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return raw, nil
}

// objectSum is the SHA-256 of b in hex, which the generated code records
// for a compressed code object.
func objectSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// WriteIfChanged writes b to name unless name holds b already, so that a
// rerun leaves file times alone.
func WriteIfChanged(name string, b []byte) error {
	if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, b) {
		return nil
	}
	return os.WriteFile(name, b, 0o666)
}
