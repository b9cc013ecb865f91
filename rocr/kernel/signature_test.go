package kernel_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// A field of Go's int, whose size is the platform's, is refused with the
// fixed-size type to write and where the mistake is caught earlier.
func TestSignatureRefusesInt(t *testing.T) {
	type box3Args struct {
		In rocr.ConstPtr[float32]
		W  int
	}
	_, err := kernel.Signature("box3", reflect.TypeFor[box3Args]())
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `"box3": field W has type int, whose size is the platform's`)
		assert.Contains(t, err.Error(), "int32 for a C int")
		assert.Contains(t, err.Error(), "hipgo-gen -cpu")
	}
}
