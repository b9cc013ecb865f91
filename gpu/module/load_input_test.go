package module_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// A Library holding itself, directly or through another, is refused
// instead of recursing until the stack runs out.
func TestLoadLibraryCycle(t *testing.T) {
	dev := setup(t)

	self := module.Library{nil}
	self[0] = self
	_, err := module.Load(dev, self)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "library contains itself")

	a := module.Library{nil, set}
	b := module.Library{a}
	a[0] = b
	_, err = module.Load(dev, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "library contains itself")

	// Deep but finite nesting is bounded too.
	deep := module.Library{set}
	for range 100 {
		deep = module.Library{deep}
	}
	_, err = module.Load(dev, deep)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "nested more than")

	// The same Library twice side by side is no cycle.
	inner := module.Library{set}
	m, err := module.Load(dev, module.Library{inner, inner})
	require.NoError(t, err)
	assert.NoError(t, m.Unload())
}

// A spec with a nil object is an error naming the object, not a panic.
func TestLoadSpecNilObject(t *testing.T) {
	dev := setup(t)
	for _, src := range []any{
		&codeobj.Spec{Objects: []*codeobj.CodeObject{nil}},
		module.Library{&codeobj.Spec{Objects: []*codeobj.CodeObject{{Format: codeobj.FormatPTX, Target: "sm_90"}, nil}}},
	} {
		_, err := module.Load(dev, src)
		require.Error(t, err)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue)
		assert.Contains(t, err.Error(), "is nil")
	}
}

// A nil kernel.Set, or one holding a nil kernel, is an error, not a panic.
func TestLoadNilSet(t *testing.T) {
	dev := setup(t)
	var none *kernel.Set
	for _, src := range []any{none, kernel.NewSet("holes", nil), module.Library{kernel.NewSet("holes", set.Kernels[0], nil)}} {
		var err error
		require.NotPanics(t, func() { _, err = module.Load(dev, src) })
		require.Error(t, err)
		assert.Contains(t, err.Error(), "nil")
	}
}

// Garbage given as code names "code object" once, and its status once.
func TestLoadGarbageMessage(t *testing.T) {
	dev := setup(t)
	for name, src := range map[string]any{
		"bytes":         []byte("garbage"),
		"string":        "garbage",
		"truncated ELF": []byte("\x7fELF garbage garbage garbage garbage garbage garbage garbage"),
		"in a library":  module.Library{[]byte("garbage")},
	} {
		_, err := module.Load(dev, src)
		require.Error(t, err, name)
		assert.ErrorIs(t, err, gpu.ErrInvalidImage, name)
		assert.ErrorIs(t, err, codeobj.ErrFormat, name)
		msg := err.Error()
		assert.True(t, strings.HasPrefix(msg, "module load: code object: "), "%s: %s", name, msg)
		assert.Equal(t, 1, strings.Count(msg, "code object"), "%s: %s", name, msg)
		assert.Equal(t, 1, strings.Count(msg, "hipErrorInvalidImage"), "%s: %s", name, msg)
	}
}
