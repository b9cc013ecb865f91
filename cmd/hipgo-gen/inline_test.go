package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callee is the function a PTX call names, on the line after call.uni.
var callee = regexp.MustCompile(`call\.uni(?:\s+\(retval0\),)?\s*\n?\s*([A-Za-z_$][\w$]*)`)

// ptxFile is a committed PTX file's name, plain or zstd-compressed.
var ptxFile = regexp.MustCompile(`_sm\d+\.ptx(\.zst)?$`)

// Every committed NVIDIA code object has its device functions inlined, as
// nvcc's builds do: a call on NVPTX passes each slice through local
// memory and its callee loads through generic addresses (gpu/prim's
// transform ran at 0.74x cub::DeviceTransform with its vector loads behind
// a call). Only vprintf, which the driver provides, stays a call.
func TestCommittedPTXHasNoCalls(t *testing.T) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	require.NoError(t, err)
	defer dec.Close()
	seen := 0
	err = filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), "gpu-")) {
			return filepath.SkipDir
		}
		name := d.Name()
		if d.IsDir() || filepath.Base(filepath.Dir(path)) != "gen" || !ptxFile.MatchString(name) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".zst") {
			if b, err = dec.DecodeAll(b, nil); err != nil {
				return err
			}
		}
		seen++
		for _, m := range callee.FindAllStringSubmatch(string(b), -1) {
			assert.Equal(t, "vprintf", m[1], "%s calls a device function", path)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, seen, 10, "committed PTX files found")
}
