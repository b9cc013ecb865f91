package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// A capturing stream records its operations as nodes, each after the one
// before, and submits no packet.
func TestCaptureRecords(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	x := newMem(t, dev, 4)
	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	assert.True(t, s.IsCapturing())
	assert.Equal(t, gpu.ErrIllegalState, gpu.CodeOf(s.BeginCapture("begin capture", CaptureModeRelaxed, nil)))
	require.NoError(t, hostOp(s, func() error { return nil }, MemUse{x, Write}))
	require.NoError(t, launch(s, kernelTag, &tagArgs{Tag: 3}, MemUse{x, Read}))
	assert.Zero(t, s.Queue().LoadWriteIndex(), "packets submitted while capturing")
	nodes, _, err := s.EndCapture("end capture")
	require.NoError(t, err)
	require.Len(t, nodes, 2)
	assert.True(t, nodes[0].Packet.Agent)
	assert.Empty(t, nodes[0].Deps)
	assert.Equal(t, []MemUse{{x, Write}}, nodes[0].Uses)
	assert.Equal(t, "core_test_tag", nodes[1].Packet.Name)
	assert.Equal(t, []int{0}, nodes[1].Deps)
	assert.Equal(t, []MemUse{{x, Read}}, nodes[1].Uses)
	assert.Len(t, nodes[1].Packet.Kernarg, 8)
	assert.False(t, s.IsCapturing())
	_, _, err = s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrIllegalState, gpu.CodeOf(err), "not capturing")
}

// An operation a capture cannot record is refused and invalidates it; a
// captured event cannot be waited for on the host.
func TestCaptureRefuses(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	ev, err := s.Record("event record", false)
	require.NoError(t, err)
	assert.Equal(t, gpu.ErrCapturedEvent, gpu.CodeOf(RefuseCaptured("event synchronize", ev)))
	ev.Release()
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, gpu.CodeOf(s.Synchronize()))
	_, _, err = s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, gpu.CodeOf(err))

	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, gpu.CodeOf(s.Drain("drain")))
	_, _, err = s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, gpu.CodeOf(err))
}

// Work forked onto another stream by an event must be joined back; an
// event recorded outside the capture and pending cannot be waited for.
func TestCaptureForkJoin(t *testing.T) {
	dev := device(t)
	s, side := newStream(t, dev, 16), newStream(t, dev, 16)
	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	fork, err := s.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, side.WaitFences("wait event", []*Fence{fork}))
	require.NoError(t, hostOp(side, func() error { return nil }))
	_, _, err = side.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureUnmatched, gpu.CodeOf(err))
	_, _, err = s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureUnjoined, gpu.CodeOf(err))

	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	fork, err = s.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, side.WaitFences("wait event", []*Fence{fork}))
	require.NoError(t, hostOp(side, func() error { return nil }))
	join, err := side.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, s.WaitFences("wait event", []*Fence{join}))
	nodes, _, err := s.EndCapture("end capture")
	require.NoError(t, err)
	assert.Len(t, nodes, 1)
	assert.False(t, side.IsCapturing())

	g := newGate(t)
	other := newStream(t, dev, 16)
	gated(t, other, g, func() {})
	outside, err := other.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	assert.Equal(t, gpu.ErrStreamCaptureIsolation, gpu.CodeOf(s.WaitFences("wait event", []*Fence{outside})))
	_, _, err = s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, gpu.CodeOf(err))
	g.open()
}

// Destroying a capturing stream ends its capture and says so.
func TestCaptureDestroy(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	require.NoError(t, s.BeginCapture("begin capture", CaptureModeRelaxed, nil))
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, gpu.CodeOf(s.Destroy()))
	_, _, err := s.EndCapture("end capture")
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, gpu.CodeOf(err))
	assert.ErrorContains(t, err, "destroyed")
}
