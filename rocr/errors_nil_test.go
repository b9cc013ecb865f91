package rocr_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Errorf with a typed-nil cause neither panics nor keeps a cause whose
// methods panic.
func TestErrorfTypedNilCause(t *testing.T) {
	var pe *fs.PathError
	var err error
	require.NotPanics(t, func() { err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel k panicked: %w", pe) })
	require.Error(t, err)
	assert.NotPanics(t, func() { _ = err.Error(); _ = errors.Is(err, fs.ErrNotExist) })
	assert.ErrorIs(t, err, hsa.ErrKernelFailed)
	assert.True(t, errtext.IsNilValue(pe))
	assert.False(t, errtext.IsNilValue(nil))
	assert.False(t, errtext.IsNilValue(fs.ErrNotExist))
}
