package array

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// The committed code objects expand to the bytes clang wrote, are those
// of the targets the generator builds, and hold an entry point (and its
// checked twin) of every kernel instance the package launches: a GPU
// finds each one without compiling at run time.
func TestCodeObjects(t *testing.T) {
	want := map[string][]string{
		"gen/array.hipfb":    {"gfx90a", "gfx942", "gfx1030", "gfx1100"},
		"gen/array_sm90.ptx": {"sm_90"},
		"gen/array_sm80.ptx": {"sm_80"},
	}
	types := []string{"uint8", "int32", "uint32", "int64", "uint64", "float32", "float64"}
	var names []string
	for _, a := range types {
		for _, k := range []string{"compare", "where", "clip", "nonzero"} {
			names = append(names, k+"_"+a)
		}
		for _, b := range types {
			names = append(names, "cast_"+a+"_"+b)
		}
		if a != "uint8" {
			names = append(names, "arith_"+a)
		}
	}
	n := 0
	for _, x := range goKernels.Code() {
		c, ok := x.(*gokernel.Compressed)
		if !ok {
			continue
		}
		n++
		x, err := c.Expand()
		require.NoError(t, err, c.Name)
		b := x.([]byte)
		sum := sha256.Sum256(b)
		assert.Equal(t, c.SHA256, hex.EncodeToString(sum[:]), "%s does not expand to the bytes the generator read", c.Name)
		spec, err := codeobj.Parse(b)
		require.NoError(t, err, c.Name)
		var targets []string
		for _, o := range spec.Objects {
			targets = append(targets, strings.TrimPrefix(o.Target, "amdgcn-amd-amdhsa--"))
			for _, name := range names {
				for _, k := range []string{name, name + "_checked"} {
					_, ok := o.Kernel(k)
					assert.True(t, ok, "%s (%s) lacks %s", c.Name, o.Target, k)
				}
			}
		}
		assert.ElementsMatch(t, want[c.Name], targets, c.Name)
	}
	assert.Equal(t, 3, n, "the bundle and both PTX files, compressed")
}
