// Package errs turns the errors of rocr and its drivers into *gpu.Error
// values, for hipgo's own gpu packages. A program makes its errors with
// gpu.Errorf and has no need of it.
package errs

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/errtext"
)

// Wrap turns a rocr error into a *gpu.Error with the HIP code that fits it
// (gpu.CodeOf), keeping it as the cause. A nil err gives nil; a *gpu.Error
// is returned as is. A typed-nil err (a nil pointer in a non-nil error,
// whose methods may panic) is a gpu.ErrLaunchFailure that names its type.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errtext.IsNilValue(err) {
		return &gpu.Error{Code: gpu.ErrLaunchFailure, Op: op, Msg: fmt.Sprintf("a nil %T was returned as an error", err)}
	}
	var ge *gpu.Error
	if errors.As(err, &ge) {
		return err
	}
	return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Err: err}
}
