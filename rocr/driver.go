package rocr

import (
	"os"

	"github.com/hipgo/hipgo/rocr/spi"
)

func inlineEnabled() bool { return os.Getenv("HIPGO_INLINE_SUBMIT") != "0" }

// Drivers lists the registered drivers' names, in the order Init opens them.
func Drivers() []string {
	var out []string
	for _, d := range spi.Registered() {
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
		return newSignalWithBackend(b), nil
	}
	return newSignal(initial)
}
