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

// Every exported method of a nil memory object or pool, or of a zero one
// that New did not make (which holds no memory), answers a zero value or
// an error; none panics.
func TestNilReceivers(t *testing.T) {
	t.Run("nil", func(t *testing.T) { testReceivers(t, nil, nil, nil, nil, nil) })
	t.Run("zero", func(t *testing.T) {
		testReceivers(t, &buffer.Buffer[float32]{}, &buffer.Host[float32]{}, &buffer.Managed[float32]{}, &buffer.Pitched[float32]{}, &buffer.Pitched3D[float32]{})
	})
}

func testReceivers(t *testing.T, b *buffer.Buffer[float32], h *buffer.Host[float32], m *buffer.Managed[float32], p *buffer.Pitched[float32], p3 *buffer.Pitched3D[float32]) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	real, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	defer real.Free()
	// value: called for a zero result; op: called for an error.
	value := map[string]func() any{
		"Buffer.Len":             func() any { return b.Len() },
		"Buffer.Bytes":           func() any { return b.Bytes() },
		"Buffer.Device":          func() any { return b.Device() },
		"Buffer.Ptr":             func() any { return b.Ptr() },
		"Buffer.SetManualDeps":   func() any { b.SetManualDeps(true); return nil },
		"Host.Len":               func() any { return h.Len() },
		"Host.Bytes":             func() any { return h.Bytes() },
		"Host.Device":            func() any { return h.Device() },
		"Host.Ptr":               func() any { return h.Ptr() },
		"Host.Slice":             func() any { return h.Slice() },
		"Host.SetManualDeps":     func() any { h.SetManualDeps(true); return nil },
		"Managed.Len":            func() any { return m.Len() },
		"Managed.Bytes":          func() any { return m.Bytes() },
		"Managed.Device":         func() any { return m.Device() },
		"Managed.Ptr":            func() any { return m.Ptr() },
		"Managed.SetManualDeps":  func() any { m.SetManualDeps(true); return nil },
		"Pitched.Len":            func() any { return p.Len() },
		"Pitched.Bytes":          func() any { return p.Bytes() },
		"Pitched.Device":         func() any { return p.Device() },
		"Pitched.Ptr":            func() any { return p.Ptr() },
		"Pitched.Width":          func() any { return p.Width() },
		"Pitched.Height":         func() any { return p.Height() },
		"Pitched.Pitch":          func() any { return p.Pitch() },
		"Pitched.View":           func() any { return p.View() },
		"Pitched3D.Len":          func() any { return p3.Len() },
		"Pitched3D.Bytes":        func() any { return p3.Bytes() },
		"Pitched3D.Device":       func() any { return p3.Device() },
		"Pitched3D.Ptr":          func() any { return p3.Ptr() },
		"Pitched3D.Extent":       func() any { return p3.Extent() },
		"Pitched3D.Pitch":        func() any { return p3.Pitch() },
		"Pitched3D.SlicePitch":   func() any { return p3.SlicePitch() },
		"Pitched3D.Volume":       func() any { return p3.Volume() },
		"MemPool.SetReuse":       func() any { (*buffer.MemPool)(nil).SetReuse(buffer.ReuseAllowOpportunistic); return nil },
		"MemPool.SetRelease":     func() any { (*buffer.MemPool)(nil).SetReleaseThreshold(1); return nil },
		"MemPool.ResetHighWater": func() any { (*buffer.MemPool)(nil).ResetHighWater(); return nil },
		"MemPool.Trim":           func() any { (*buffer.MemPool)(nil).Trim(0); return nil },
	}
	want := map[string]any{
		"Buffer.Device": (*gpu.Device)(nil), "Host.Device": (*gpu.Device)(nil),
		"Managed.Device": (*gpu.Device)(nil), "Pitched.Device": (*gpu.Device)(nil),
		"Pitched3D.Device": (*gpu.Device)(nil),
		"Buffer.Ptr":       rocr.Ptr[float32](0), "Host.Ptr": rocr.Ptr[float32](0),
		"Managed.Ptr": rocr.Ptr[float32](0), "Pitched.Ptr": rocr.Ptr[float32](0),
		"Pitched3D.Ptr": rocr.Ptr[float32](0),
		"Host.Slice":    []float32(nil),
		"Pitched.View":  buffer.View[float32]{}, "Pitched3D.Volume": buffer.Volume[float32]{},
		"Pitched3D.Extent": buffer.Extent{},
	}
	if p != nil {
		// A zero Pitched's view names it; a copy through the view refuses it.
		delete(value, "Pitched.View")
		delete(value, "Pitched3D.Volume")
	}
	for name, f := range value {
		var got any
		if !assert.NotPanics(t, func() { got = f() }, name) {
			continue
		}
		w, ok := want[name]
		if !ok {
			if _, isInt := got.(int); isInt {
				w = 0
			}
		}
		assert.Equal(t, w, got, name)
	}

	for name, o := range map[string]any{"Buffer": b, "Host": h, "Managed": m, "Pitched": p, "Pitched3D": p3} {
		assert.NotPanics(t, func() {
			assert.Contains(t, o.(interface{ String() string }).String(), "nil", name)
		}, name+".String")
	}

	ops := map[string]func() error{
		"Buffer.Free":                b.Free,
		"Buffer.FreeAsync":           func() error { return b.FreeAsync(s) },
		"Buffer.CopyFrom":            func() error { return b.CopyFrom([]float32{1}) },
		"Buffer.CopyFromAt":          func() error { return b.CopyFromAt(0, []float32{1}) },
		"Buffer.CopyTo":              func() error { return b.CopyTo(make([]float32, 1)) },
		"Buffer.CopyToAt":            func() error { return b.CopyToAt(0, make([]float32, 1)) },
		"Buffer.ToSlice":             func() error { _, err := b.ToSlice(); return err },
		"Buffer.CopyFromBuffer":      func() error { return b.CopyFromBuffer(b) },
		"Buffer.Fill":                func() error { return b.Fill(1) },
		"Buffer.Memset":              func() error { return b.Memset(1) },
		"Buffer.Transfer":            func() error { return b.Transfer(dev) },
		"Host.Free":                  h.Free,
		"Buffer.CopyFromBuffer(nil)": func() error { return real.CopyFromBuffer(b) },
		"stream.Memset":              func() error { return s.Memset(b, 0) },
		"stream.Copy":                func() error { return s.Copy(real, 0, h, 0, 0) },
		"stream.CopyToDevice":        func() error { return stream.CopyToDevice(s, b, 0, []float32{1}) },
		"stream.CopyToHost":          func() error { return stream.CopyToHost(s, []float32{1}, h, 0) },
		"stream.Fill":                func() error { return stream.Fill(s, b, float32(1)) },
		"Managed.Free":               m.Free,
		"Managed.Slice":              func() error { _, err := m.Slice(); return err },
		"Managed.Advise":             func() error { return m.Advise(buffer.AdviseSetReadMostly, dev) },
		"Managed.RangeAttributes":    func() error { _, err := m.RangeAttributes(); return err },
		"Managed.RangeAttribute":     func() error { _, err := m.RangeAttribute(buffer.RangeAttributeReadMostly); return err },
		"Pitched.Free":               p.Free,
		"Pitched3D.Free":             p3.Free,
		"NewFromPoolAsync(nil)": func() error {
			_, err := buffer.NewFromPoolAsync[float32](nil, s, 1)
			return err
		},
		"NewFromPoolAsync(zero)": func() error {
			_, err := buffer.NewFromPoolAsync[float32](&buffer.MemPool{}, s, 1)
			return err
		},
	}
	if p != nil {
		ops["Memset2D(Pitched.View)"] = func() error { return stream.Memset2D(s, p.View(), 0, 1, 1) }
		ops["Memset3D(Pitched3D.Volume)"] = func() error {
			return stream.Memset3D(s, p3.Volume(), 0, buffer.Extent{Width: 1, Height: 1, Depth: 1})
		}
	}
	if b == nil {
		// Freeing nil succeeds, as hipFree(nullptr) and hipHostFree(nullptr).
		for _, name := range []string{"Buffer.Free", "Host.Free", "Managed.Free", "Pitched.Free", "Pitched3D.Free"} {
			f := ops[name]
			require.NotNil(t, f, name)
			delete(ops, name)
			assert.NotPanics(t, func() { assert.NoError(t, f(), name) }, name)
		}
	}
	for name, f := range ops {
		var err error
		if assert.NotPanics(t, func() { err = f() }, name) {
			if assert.ErrorIs(t, err, gpu.ErrInvalidValue, name) {
				assert.ErrorContains(t, err, "nil", name)
				assert.NotContains(t, err.Error(), "%!", name)
			}
		}
	}
}

// A nil or zero MemPool has no device, usage or policy.
func TestNilMemPool(t *testing.T) {
	for name, p := range map[string]*buffer.MemPool{"nil": nil, "zero": {}} {
		assert.NotPanics(t, func() {
			assert.Nil(t, p.Device(), name)
			assert.Zero(t, p.ReleaseThreshold(), name)
			assert.Zero(t, p.Reuse(), name)
			assert.Zero(t, p.Stats(), name)
			p.SetReleaseThreshold(1)
			p.SetReuse(buffer.ReuseAllowOpportunistic)
			p.ResetHighWater()
			p.Trim(0)
			assert.Zero(t, p.ReleaseThreshold(), name)
		}, name)
	}
}
