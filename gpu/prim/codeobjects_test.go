package prim

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// compressed is the package's code objects that hipgo-gen stored
// compressed, and their frames (the files it embedded, read from gen/ so
// that the test compiles whichever objects a branch has rebuilt).
func compressed(tb testing.TB) ([]*gokernel.Compressed, []string) {
	var cs []*gokernel.Compressed
	var frames []string
	for _, x := range goKernels.Code() {
		if c, ok := x.(*gokernel.Compressed); ok {
			b, err := os.ReadFile(c.Name + ".zst")
			require.NoError(tb, err)
			cs, frames = append(cs, c), append(frames, string(b))
		}
	}
	require.Len(tb, cs, 3, "the bundle and both PTX files are past the generator's threshold")
	return cs, frames
}

// The compressed code objects expand to the bytes clang wrote (the size
// and SHA-256 the generator recorded), and those are the code objects of
// the targets the generator builds.
func TestCodeObjectsExpand(t *testing.T) {
	cs, _ := compressed(t)
	want := map[string][]string{
		"gen/prim.hipfb":    {"gfx90a", "gfx942", "gfx1030", "gfx1100"},
		"gen/prim_sm90.ptx": {"sm_90"},
		"gen/prim_sm80.ptx": {"sm_80"},
	}
	for _, c := range cs {
		x, err := c.Expand()
		require.NoError(t, err, c.Name)
		b := x.([]byte)
		assert.Len(t, b, c.Size, c.Name)
		sum := sha256.Sum256(b)
		assert.Equal(t, c.SHA256, hex.EncodeToString(sum[:]), "%s does not expand to the bytes the generator read", c.Name)
		spec, err := codeobj.Parse(b)
		require.NoError(t, err, c.Name)
		var targets []string
		for _, o := range spec.Objects {
			targets = append(targets, strings.TrimPrefix(o.Target, "amdgcn-amd-amdhsa--"))
			_, ok := o.Kernel("sort_pairs_f64_f64")
			assert.True(t, ok, "%s (%s) lacks sort_pairs_f64_f64", c.Name, o.Target)
		}
		assert.ElementsMatch(t, want[c.Name], targets, c.Name)
	}
}

// BenchmarkCodeObjectExpand is the first load's decompression of each
// compressed code object (a fresh one each time: Expand keeps its result).
func BenchmarkCodeObjectExpand(b *testing.B) {
	cs, frames := compressed(b)
	for i, c := range cs {
		b.Run(strings.TrimPrefix(c.Name, "gen/"), func(b *testing.B) {
			b.SetBytes(int64(c.Size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gokernel.Zstd(c.Name, frames[i], c.Size, c.SHA256).Expand(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
