package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/buffer"
)

// Under HIPGO_STRICT_PTR=1 a kernel given a view may touch only the
// view's elements: one that runs past a 10-element view, though inside
// its buffer, fails naming the kernel, the argument and the elements, and
// the buffer's other elements are untouched.
func TestStrictPtrViewBounds(t *testing.T) {
	t.Setenv("HIPGO_STRICT_PTR", "1")
	dev := setup(t)
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 100))
	require.NoError(t, b.Fill(0))
	v := b.Sub(20, 10)
	require.NoError(t, launchAddOne(dev, v, 10), "within the view")
	err := launchAddOne(dev, v, 64)
	require.Error(t, err)
	for _, want := range []string{"buffer_test_add_one", "argument 0", "elements [0, 64) are outside the view of 10 elements", "HIPGO_STRICT_PTR"} {
		assert.Contains(t, err.Error(), want)
	}
	got := must[[]int32](t)(b.ToSlice())
	assert.Equal(t, int32(0), got[19])
	assert.Equal(t, int32(1), got[20])
	assert.Equal(t, int32(1), got[29])
	assert.Equal(t, int32(0), got[30], "no element past the view changed")
}
