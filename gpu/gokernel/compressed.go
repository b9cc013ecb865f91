package gokernel

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Compressed is a code object hipgo-gen stored zstd-compressed (those
// past 1 MiB: gpu/prim's PTX and offload bundle): it stands in
// Spec.Objects for the bytes clang wrote, which module.Load gets from
// Expand when it first reaches it. A load that picks the Go kernels (the
// cpu agent) or an earlier code object never expands it.
type Compressed struct {
	Name   string // the file clang wrote, relative to the package: gen/prim_sm90.ptx
	Size   int    // its size in bytes
	SHA256 string // its SHA-256, in hex, as the generator read it

	frame string // the zstd frame embedded from Name + ".zst"

	once sync.Once
	code []byte
	err  error
}

// Zstd is a code object of size bytes that hipgo-gen compressed into
// frame, one zstd frame; generated code calls it.
func Zstd(name, frame string, size int, sha256 string) *Compressed {
	return &Compressed{Name: name, Size: size, SHA256: sha256, frame: frame}
}

// Expand returns the code object, decompressed on the first call (once per
// process, whatever the devices) and kept. A frame that does not decode,
// fails its checksum or is not Size bytes long is an error naming the
// file.
func (c *Compressed) Expand() (any, error) {
	c.once.Do(func() { c.code, c.err = c.decode() })
	if c.err != nil {
		return nil, c.err
	}
	return c.code, nil
}

func (c *Compressed) decode() ([]byte, error) {
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("code object %s.zst: %s; regenerate the package (go generate)", c.Name, fmt.Sprintf(format, args...))
	}
	if c.Size <= 0 {
		return fail("recorded size %d", c.Size)
	}
	var h zstd.Header
	if err := h.Decode([]byte(c.frame[:min(len(c.frame), zstd.HeaderMaxSize)])); err != nil {
		return fail("not a zstd frame: %v", err)
	}
	if !h.HasFCS || h.FrameContentSize != uint64(c.Size) {
		return fail("the frame holds %d bytes, the generated code says %d", h.FrameContentSize, c.Size)
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(c.Size)))
	if err != nil {
		return fail("zstd: %v", err)
	}
	defer d.Close()
	out, err := d.DecodeAll([]byte(c.frame), make([]byte, 0, c.Size))
	if err != nil {
		return fail("zstd: %v", err)
	}
	if len(out) != c.Size {
		return fail("%d bytes decompressed, the generated code says %d", len(out), c.Size)
	}
	return out, nil
}
