package devstate_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/internal/devstate"
)

// dev embeds its state as gpu.Device does.
type dev struct {
	state
	name string
}

type state = devstate.State[dev]

var views = devstate.Views[dev]{
	Open: func(p *dev, name string) (*dev, error) {
		v := &dev{name: name}
		devstate.InitView(&v.state, v, &p.state, name)
		return v, nil
	},
	Close: func(v *dev) error {
		if devstate.Root(&v.state) == &v.state {
			return errors.New("not a view")
		}
		return nil
	},
}

func newDev(name string, parent *dev) *dev {
	if parent != nil {
		v, err := devstate.OpenView(&parent.state, parent, name)
		if err != nil {
			panic(err)
		}
		return v
	}
	d := &dev{name: name}
	devstate.Init(&d.state, d, &views)
	return d
}

type syncer struct{ err error }

func (s *syncer) Synchronize() error { return s.err }

func TestOfFindsTheEmbeddedState(t *testing.T) {
	d := newDev("a", nil)
	st := devstate.Of(d)
	require.NotNil(t, st)
	assert.Same(t, &d.state, st)
	assert.Same(t, d, devstate.Device(st))
	assert.Nil(t, devstate.Of[dev](nil))
	assert.Zero(t, testing.AllocsPerRun(100, func() { st = devstate.Of(d) }), "Of allocates")
}

var sinkState *state

// BenchmarkOf is the cost of finding a device's state, which every launch
// pays (core.Valid reads the reset count through it).
func BenchmarkOf(b *testing.B) {
	d := newDev("a", nil)
	for b.Loop() {
		sinkState = devstate.Of(d)
	}
}

func TestViewCountsItsRootsResets(t *testing.T) {
	root := newDev("root", nil)
	view := newDev("view", root)
	assert.Same(t, devstate.Of(root), devstate.Root(devstate.Of(view)))
	assert.Same(t, devstate.Of(root), devstate.Root(devstate.Of(root)))

	assert.Equal(t, uint64(0), devstate.Generation(devstate.Of(view)))
	ended := devstate.CountReset(devstate.Of(view))
	assert.Equal(t, uint64(1), devstate.Generation(devstate.Of(root)), "odd while a reset runs")
	ended()
	assert.Equal(t, uint64(2), devstate.Generation(devstate.Of(view)))
}

func TestViewHasAScopeOfItsOwn(t *testing.T) {
	root := newDev("root", nil)
	assert.Nil(t, devstate.Scope(devstate.Of(root)), "a device of its own records nothing")
	view := newDev("view", root)
	sc := devstate.Scope(devstate.Of(view))
	require.NotNil(t, sc)
	s := &syncer{}
	devstate.Register(devstate.Of(view), s)
	assert.Len(t, sc.Live(), 1, "a view records what is made on it")
	devstate.Unregister(devstate.Of(view), s)
	assert.Empty(t, sc.Live())

	again := newDev("again", view)
	assert.Same(t, devstate.Of(root), devstate.Root(devstate.Of(again)), "a view of a view views the root")
	assert.NoError(t, devstate.CloseView(devstate.Of(view), view))
	assert.EqualError(t, devstate.CloseView(devstate.Of(root), root), "not a view")
	_, err := devstate.OpenView[dev](nil, nil, "x")
	assert.Error(t, err, "a nil device has no views")
	assert.Error(t, devstate.CloseView[dev](nil, nil))
}

func TestRegisterAndRelease(t *testing.T) {
	st := devstate.Of(newDev("a", nil))
	a, b := &syncer{}, &syncer{}
	devstate.Register(st, a)
	devstate.Register(st, b)
	assert.ElementsMatch(t, []devstate.Synchronizer{a, b}, devstate.Syncers(st))
	devstate.Unregister(st, a)
	assert.Equal(t, []devstate.Synchronizer{b}, devstate.Syncers(st))
	assert.Equal(t, []devstate.Synchronizer{b}, devstate.Release(st))
	assert.Empty(t, devstate.Syncers(st))
}

func TestValueIsMadeOnceAndClosed(t *testing.T) {
	st := devstate.Of(newDev("a", nil))
	made, closed := 0, 0
	mk := func() (any, func() error, error) {
		made++
		return made, func() error { closed++; return nil }, nil
	}
	for range 3 {
		v, err := devstate.Value(st, "k", mk)
		require.NoError(t, err)
		assert.Equal(t, 1, v)
	}
	v, ok := devstate.Lookup(st, "k")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.Equal(t, 7, devstate.LoadOrStore(st, "other", 7))
	assert.Equal(t, 7, devstate.LoadOrStore(st, "other", 8), "the first value stays")
	assert.Len(t, devstate.Closers(st), 1, "a LoadOrStore value has no close")

	_, err := devstate.Value(st, "bad", func() (any, func() error, error) { return nil, nil, errors.New("no") })
	assert.EqualError(t, err, "no")
	_, ok = devstate.Lookup(st, "bad")
	assert.False(t, ok, "a failed constructor stores nothing")

	devstate.Clear(st)
	assert.Equal(t, 1, closed)
	_, ok = devstate.Lookup(st, "k")
	assert.False(t, ok)
	v, err = devstate.Value(st, "k", mk)
	require.NoError(t, err)
	assert.Equal(t, 2, v, "made again after Clear")
}
