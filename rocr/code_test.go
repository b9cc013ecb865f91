package rocr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// The kinds keep their values (the zero CodeKind is CodeGo); CodeNone,
// what a nil module reports, is apart from them.
func TestCodeKindString(t *testing.T) {
	for k, want := range map[hsa.CodeKind]string{
		0: "go", 1: "amdgpu", 2: "ptx", 3: "cubin",
		hsa.CodeNone: "none", 4: "CodeKind(4)",
	} {
		assert.Equal(t, want, k.String())
	}
	assert.Equal(t, hsa.CodeGo, hsa.CodeKind(0))
	assert.NotEqual(t, hsa.CodeGo, hsa.CodeNone)
}
