package kernel_test

import (
	"fmt"
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
	var msg string
	func() {
		defer func() { msg = fmt.Sprint(recover()) }()
		kernel.Define("box3", func(*kernel.Block, *box3Args) {})
	}()
	assert.Contains(t, msg, `kernel.Define "box3": field W has type int, whose size is the platform's`)
	assert.Contains(t, msg, "int32 for a C int")
	assert.Contains(t, msg, "hipgo-gen -cpu")
}
