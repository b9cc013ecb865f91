package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hip-tests catch/unit/memory/hipMemRangeGetAttribute.cc (the _Basic, _CPU
// and Negative cases; Advise covers whole allocations, so the
// _Partial_Range cases have no equivalent).
func TestMemRangeGetAttribute(t *testing.T) {
	dev := device(t)
	managed := func(t *testing.T) *buffer.Managed[byte] {
		m, err := buffer.NewManaged[byte](dev, 4096)
		require.NoError(t, err)
		t.Cleanup(func() { _ = m.Free() })
		return m
	}
	get := func(t *testing.T, m *buffer.Managed[byte], a buffer.RangeAttribute) []int {
		v, err := m.RangeAttribute(a)
		require.NoError(t, err)
		return v
	}
	me := dev.Ordinal()
	t.Run("Unit_hipMemRangeGetAttribute_Positive_ReadMostly_Basic", func(t *testing.T) {
		m := managed(t)
		assert.Equal(t, []int{0}, get(t, m, buffer.RangeAttributeReadMostly))
		require.NoError(t, m.Advise(buffer.AdviseSetReadMostly, dev))
		assert.Equal(t, []int{1}, get(t, m, buffer.RangeAttributeReadMostly))
		require.NoError(t, m.Advise(buffer.AdviseUnsetReadMostly, dev))
		assert.Equal(t, []int{0}, get(t, m, buffer.RangeAttributeReadMostly))
	})
	t.Run("Unit_hipMemRangeGetAttribute_Positive_PreferredLocation_Basic", func(t *testing.T) {
		m := managed(t)
		assert.Equal(t, []int{buffer.InvalidDeviceID}, get(t, m, buffer.RangeAttributePreferredLocation))
		require.NoError(t, m.Advise(buffer.AdviseSetPreferredLocation, dev))
		assert.Equal(t, []int{me}, get(t, m, buffer.RangeAttributePreferredLocation))
	})
	t.Run("Unit_hipMemRangeGetAttribute_Positive_PreferredLocation_CPU", func(t *testing.T) {
		m := managed(t)
		require.NoError(t, m.Advise(buffer.AdviseSetPreferredLocation, nil))
		assert.Equal(t, []int{buffer.CPUDeviceID}, get(t, m, buffer.RangeAttributePreferredLocation))
		require.NoError(t, m.Advise(buffer.AdviseUnsetPreferredLocation, nil))
		assert.Equal(t, []int{buffer.InvalidDeviceID}, get(t, m, buffer.RangeAttributePreferredLocation))
	})
	t.Run("Unit_hipMemRangeGetAttribute_Positive_LastPrefetchLocation_Basic", func(t *testing.T) {
		m := managed(t)
		assert.Equal(t, []int{buffer.InvalidDeviceID}, get(t, m, buffer.RangeAttributeLastPrefetchLocation))
		s := newStream(t, dev)
		require.NoError(t, stream.Prefetch(s, m, dev))
		assert.Equal(t, []int{me}, get(t, m, buffer.RangeAttributeLastPrefetchLocation))
		require.NoError(t, s.Synchronize())
	})
	t.Run("Unit_hipMemRangeGetAttribute_Positive_LastPrefetchLocation_CPU", func(t *testing.T) {
		m := managed(t)
		s := newStream(t, dev)
		require.NoError(t, stream.Prefetch(s, m, nil))
		assert.Equal(t, []int{buffer.CPUDeviceID}, get(t, m, buffer.RangeAttributeLastPrefetchLocation))
		require.NoError(t, s.Synchronize())
	})
	t.Run("Unit_hipMemRangeGetAttribute_Positive_AccessedBy_Basic", func(t *testing.T) {
		m := managed(t)
		assert.Empty(t, get(t, m, buffer.RangeAttributeAccessedBy))
		require.NoError(t, m.Advise(buffer.AdviseSetAccessedBy, nil))
		require.NoError(t, m.Advise(buffer.AdviseSetAccessedBy, dev))
		require.NoError(t, m.Advise(buffer.AdviseSetAccessedBy, dev))
		assert.ElementsMatch(t, []int{buffer.CPUDeviceID, me}, get(t, m, buffer.RangeAttributeAccessedBy))
		require.NoError(t, m.Advise(buffer.AdviseUnsetAccessedBy, nil))
		assert.Equal(t, []int{me}, get(t, m, buffer.RangeAttributeAccessedBy))
	})
	// hip-tests catch/unit/memory/hipMemRangeGetAttributes.cc: Unit_hipMemRangeGetAttributes_Positive_Basic
	t.Run("Unit_hipMemRangeGetAttributes_Positive_Basic", func(t *testing.T) {
		m := managed(t)
		require.NoError(t, m.Advise(buffer.AdviseSetReadMostly, dev))
		require.NoError(t, m.Advise(buffer.AdviseSetPreferredLocation, dev))
		a, err := m.RangeAttributes()
		require.NoError(t, err)
		assert.Equal(t, buffer.RangeAttributes{ReadMostly: true, PreferredLocation: me, LastPrefetchLocation: buffer.InvalidDeviceID}, a)
	})
	t.Run("Unit_hipMemRangeGetAttribute_Negative_Parameters", func(t *testing.T) {
		var nm *buffer.Managed[byte]
		_, err := nm.RangeAttribute(buffer.RangeAttributeReadMostly)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "dev_ptr is nullptr")
		_, err = managed(t).RangeAttribute(buffer.RangeAttribute(0))
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "invalid attribute")
		m := managed(t)
		require.NoError(t, m.Free())
		_, err = m.RangeAttributes()
		assert.Error(t, err, "freed memory")
	})
}
