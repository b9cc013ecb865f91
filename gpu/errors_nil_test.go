package gpu_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// A typed-nil error (a nil pointer in a non-nil interface) has methods that
// panic when called: Wrap and CodeOf must not call them.
func TestWrapTypedNil(t *testing.T) {
	var pe *fs.PathError
	var ge *gpu.Error
	for _, err := range []error{pe, ge} {
		var got error
		require.NotPanics(t, func() { got = errs.Wrap("launch host func", err) })
		require.Error(t, got)
		assert.ErrorIs(t, got, gpu.ErrLaunchFailure)
		assert.NotPanics(t, func() { _ = got.Error() })
		assert.Contains(t, got.Error(), "nil *")
		assert.Equal(t, gpu.ErrLaunchFailure, gpu.CodeOf(err))
	}
}
