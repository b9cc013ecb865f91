package gokernel_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/internal/cputest"
)

// frame is b as one zstd frame, as hipgo-gen stores it.
func frame(t *testing.T, b []byte) string {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	defer enc.Close()
	return string(enc.EncodeAll(b, nil))
}

// A compressed code object expands to its bytes once, however often it
// is asked for.
func TestCompressedExpand(t *testing.T) {
	raw := []byte(strings.Repeat("\tadd.s32 %r1, %r2, %r3;\n", 4096))
	c := gokernel.Zstd("gen/p_sm90.ptx", frame(t, raw), len(raw), "")
	x, err := c.Expand()
	require.NoError(t, err)
	got, ok := x.([]byte)
	require.True(t, ok, "Expand gave a %T", x)
	assert.True(t, bytes.Equal(raw, got))
	y, err := c.Expand()
	require.NoError(t, err)
	assert.Same(t, &got[0], &y.([]byte)[0], "the second Expand decompressed again")
}

// A compressed code object that does not decompress to its recorded size
// is an error naming its file, from Expand and from the load that reaches
// it; never a panic.
func TestCompressedCorrupt(t *testing.T) {
	raw := []byte(strings.Repeat("\tmov.u32 %r1, %tid.x;\n", 4096))
	good := frame(t, raw)
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 0x55
	for _, tc := range []struct {
		name  string
		frame string
		size  int
		want  string
	}{
		{"not zstd", "// plain PTX, not compressed", len(raw), "not a zstd frame"},
		{"empty", "", len(raw), "not a zstd frame"},
		{"truncated", good[:len(good)/2], len(raw), "gen/p_sm90.ptx.zst"},
		{"flipped byte", string(flipped), len(raw), "gen/p_sm90.ptx.zst"},
		{"other size", good, len(raw) + 1, "the frame holds"},
		{"no size", good, 0, "recorded size 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := gokernel.Zstd("gen/p_sm90.ptx", tc.frame, tc.size, "")
			_, err := c.Expand()
			require.Error(t, err)
			t.Log(err)
			assert.Contains(t, err.Error(), "code object gen/p_sm90.ptx.zst")
			assert.Contains(t, err.Error(), tc.want)
			_, again := c.Expand()
			assert.Equal(t, err, again, "a failed Expand is not retried")
		})
	}

	// The load that reaches it fails with it, as an invalid image.
	dev := cputest.Device(t)
	_, err := module.Load(dev, module.Library{gokernel.Zstd("gen/p_sm90.ptx", string(flipped), len(raw), "")})
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidImage)
	t.Log(err)
	assert.Contains(t, err.Error(), "gen/p_sm90.ptx.zst")
}
