package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
)

// A memory object that New did not make (a zero value) holds no memory:
// its accessors answer zero values and its operations an error; none
// panics.
func TestZeroValues(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	real, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	defer real.Free()

	b := &buffer.Buffer[float32]{}
	h := &buffer.Host[float32]{}
	value := map[string]func() any{
		"Buffer.Len":           func() any { return b.Len() },
		"Buffer.Bytes":         func() any { return b.Bytes() },
		"Buffer.Device":        func() any { return b.Device() },
		"Buffer.Ptr":           func() any { return b.Ptr() },
		"Buffer.SetManualDeps": func() any { b.SetManualDeps(true); return nil },
		"Host.Len":             func() any { return h.Len() },
		"Host.Bytes":           func() any { return h.Bytes() },
		"Host.Device":          func() any { return h.Device() },
		"Host.Ptr":             func() any { return h.Ptr() },
		"Host.Slice":           func() any { return h.Slice() },
		"Host.SetManualDeps":   func() any { h.SetManualDeps(true); return nil },
	}
	want := map[string]any{
		"Buffer.Device": (*gpu.Device)(nil), "Host.Device": (*gpu.Device)(nil),
		"Buffer.Ptr": rocr.Ptr[float32](0), "Host.Ptr": rocr.Ptr[float32](0),
		"Host.Slice": []float32(nil), "Buffer.Len": 0, "Buffer.Bytes": 0,
		"Host.Len": 0, "Host.Bytes": 0,
	}
	for name, f := range value {
		var got any
		if assert.NotPanics(t, func() { got = f() }, name) {
			assert.Equal(t, want[name], got, name)
		}
	}
	for name, o := range map[string]interface{ String() string }{"Buffer": b, "Host": h} {
		assert.NotPanics(t, func() { assert.Contains(t, o.String(), "(nil)", name) }, name+".String")
	}

	ops := map[string]func() error{
		"Buffer.Free":              b.Free,
		"Buffer.FreeAsync":         func() error { return b.FreeAsync(s) },
		"Buffer.CopyFrom":          func() error { return b.CopyFrom([]float32{1}) },
		"Buffer.CopyFromAt":        func() error { return b.CopyFromAt(0, []float32{1}) },
		"Buffer.CopyTo":            func() error { return b.CopyTo(make([]float32, 1)) },
		"Buffer.CopyToAt":          func() error { return b.CopyToAt(0, make([]float32, 1)) },
		"Buffer.ToSlice":           func() error { _, err := b.ToSlice(); return err },
		"Buffer.CopyFromBuffer":    func() error { return b.CopyFromBuffer(real) },
		"Buffer.CopyFromBuffer(b)": func() error { return real.CopyFromBuffer(b) },
		"Buffer.Fill":              func() error { return b.Fill(1) },
		"Buffer.Memset":            func() error { return b.Memset(1) },
		"Buffer.Transfer":          func() error { return b.Transfer(dev) },
		"Host.Free":                h.Free,
		"stream.Memset":            func() error { return s.Memset(b, 0) },
		"stream.Copy":              func() error { return s.Copy(real, 0, h, 0, 0) },
		"stream.CopyToHost":        func() error { return stream.CopyToHost(s, []float32{1}, h, 0) },
		"stream.Fill":              func() error { return stream.Fill(s, b, float32(1)) },
		"stream.CopyToDevice":      func() error { return stream.CopyToDevice(s, b, 0, []float32{1}) },
	}
	for name, f := range ops {
		var err error
		if assert.NotPanics(t, func() { err = f() }, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
			assert.ErrorContains(t, err, "nil buffer", name)
		}
	}
}
