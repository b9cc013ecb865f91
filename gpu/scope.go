package gpu

import (
	"errors"

	"github.com/hipgo/hipgo/gpu/internal/devstate"
)

// A test's view of a device (gpu/gputest) is a Device on the same agent
// with its own streams, per-device values and closed flag, and a live
// scope that records what is made on it. Closing it releases only what it
// holds, so a test ends without shutting down the runtime other tests use.

var views = devstate.Views[Device]{Open: openView, Close: closeView}

func openView(p *Device, name string) (*Device, error) {
	const op = "test device"
	if err := p.Valid(); err != nil {
		return nil, wrap(op, err)
	}
	p = p.root()
	v := &Device{agent: p.agent, ordinal: p.ordinal, props: p.props, prio: p.prio}
	devstate.InitView(&v.state, v, &p.state, name)
	return v, nil
}

func closeView(v *Device) error {
	if v == nil || v.root() == v {
		return Errorf(ErrInvalidDevice, "test device close", "not a test device")
	}
	// After Shutdown, what the view held was released with the runtime:
	// a closer finding its object gone says so, and that is no failure.
	shut := v.root().closed.Load()
	var errs []error
	for _, f := range devstate.Closers(&v.state) {
		if err := f(); !shut || !errors.Is(err, ErrContextIsDestroyed) {
			errs = append(errs, err)
		}
	}
	v.closed.Store(true)
	return errors.Join(errs...)
}
