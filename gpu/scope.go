package gpu

import (
	"errors"

	"github.com/hipgo/hipgo/gpu/internal/devstate"
	"github.com/hipgo/hipgo/gpu/internal/live"
)

// A test's view of a device (gpu/gputest) is a Device on the same agent
// with its own streams, per-device values and closed flag, and a live
// scope that records what is made on it. Closing it releases only what it
// holds, so a test ends without shutting down the runtime other tests use.

func init() {
	live.Install(live.Hooks{ScopeOf: scopeOf, Open: openView, Close: closeView})
}

func scopeOf(dev any) *live.Scope {
	if d, ok := dev.(*Device); ok && d != nil {
		return d.scope
	}
	return nil
}

func openView(dev any, name string) (any, error) {
	const op = "test device"
	p, _ := dev.(*Device)
	if err := p.Valid(); err != nil {
		return nil, wrap(op, err)
	}
	p = p.root()
	v := &Device{
		agent:   p.agent,
		ordinal: p.ordinal,
		props:   p.props,
		prio:    p.prio,
		scope:   live.NewScope(name),
	}
	devstate.Init(&v.state, v, &p.state)
	return v, nil
}

func closeView(view any) error {
	v, _ := view.(*Device)
	if v == nil || v.root() == v {
		return Errorf(ErrInvalidDevice, "test device close", "not a test device")
	}
	var errs []error
	for _, f := range devstate.Closers(&v.state) {
		errs = append(errs, f())
	}
	v.closed.Store(true)
	return errors.Join(errs...)
}
