package rocr

import (
	"os"
	"sort"
	"sync"

	"github.com/hipgo/hipgo/rocr/spi"
)

func inlineEnabled() bool { return os.Getenv("HIPGO_INLINE_SUBMIT") != "0" }

var registry struct {
	sync.Mutex
	drivers []spi.Driver
}

// Register makes a driver (the interface of package spi) available to
// Init. It is meant for init functions.
// As database/sql.Register does, it panics if d is nil or if a driver of
// the same name is registered already: two drivers of one name are a
// program's mistake, which no later call could report.
func Register(d spi.Driver) {
	if d == nil {
		panic("rocr: Register driver is nil")
	}
	registry.Lock()
	defer registry.Unlock()
	for _, x := range registry.drivers {
		if x.Name() == d.Name() {
			panic("rocr: Register called twice for driver " + d.Name())
		}
	}
	registry.drivers = append(registry.drivers, d)
	sort.SliceStable(registry.drivers, func(i, j int) bool {
		return registry.drivers[i].Priority() > registry.drivers[j].Priority()
	})
}

// Drivers lists the registered drivers' names, in the order Init opens them.
func Drivers() []string {
	registry.Lock()
	defer registry.Unlock()
	var out []string
	for _, d := range registry.drivers {
		out = append(out, d.Name())
	}
	return out
}

// OwnSignals reports whether the agent's packets must carry signals made
// by NewSignalFor (its runtime's own) rather than NewSignal's.
func (a *Agent) OwnSignals() bool {
	_, ok := a.drv.(spi.SignalFactory)
	return ok
}

// NewSignalFor creates a signal that the agent's packets may carry.
func NewSignalFor(a *Agent, initial int64) (*Signal, error) {
	if err := a.check("signal create"); err != nil {
		return nil, err
	}
	if f, ok := a.drv.(spi.SignalFactory); ok {
		b, err := f.NewSignal(initial)
		if err != nil {
			return nil, err
		}
		return NewSignalWithBackend(b), nil
	}
	return newSignal(initial)
}
