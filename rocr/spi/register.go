package spi

import (
	"sort"
	"sync"
)

var registry struct {
	sync.Mutex
	drivers []Driver
}

// Register makes a driver available to the runtime, whose Init opens the
// registered drivers in order of priority. Drivers call it from an init
// function (the database/sql pattern).
// As database/sql.Register does, it panics if d is nil or if a driver of
// the same name is registered already: two drivers of one name are a
// program's mistake, which no later call could report.
func Register(d Driver) {
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

// Registered lists the registered drivers, highest priority first.
func Registered() []Driver {
	registry.Lock()
	defer registry.Unlock()
	return append([]Driver(nil), registry.drivers...)
}
