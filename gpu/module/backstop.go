package module

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr/spi"
)

// modLeak is what the backstop of one Module holds: what Unload
// releases, and nothing that points back to the Module (a Global does,
// so only its dependency state is kept).
type modLeak struct {
	dev  *gpu.Device
	gen  uint64
	exe  spi.Executable
	key  any // the Module's key in the live registry (a weak pointer)
	desc string
	// globals: the work recorded on the module's variables, under the
	// Module's mu until it is unreachable.
	globals []core.Uses
}

// track registers a new module with the live registry and arms its
// backstop: dropped unloaded, it is unloaded once the device's work
// queued before that completes.
func (m *Module) track() {
	live.AddWeak(core.Scope(m.dev), m)
	names := make([]string, len(m.code.Kernels))
	for i := range m.code.Kernels {
		names[i] = m.code.Kernels[i].Name
	}
	m.leak = &modLeak{dev: m.dev, gen: m.gen, exe: m.exe, key: live.Key(m),
		desc: fmt.Sprintf("module (%s code for %s, kernels %s)", m.code.Kind, m.code.Target, strings.Join(names, ", "))}
	m.backstop = runtime.AddCleanup(m, releaseModule, m.leak)
}

// releaseModule is the backstop of a module that became unreachable
// unloaded. Launches do not record which module they run, so it waits
// for the device's work (on a goroutine of its own) before unloading:
// the code of a kernel still queued stays loaded. A reset or Shutdown
// since unloaded it already.
func releaseModule(l *modLeak) {
	core.GoBackstop(func() {
		_ = l.dev.Synchronize()
		for _, u := range l.globals {
			u.Wait()
		}
		if core.Valid(l.dev, l.gen) == nil {
			_ = l.exe.Destroy()
		}
		live.Collected(l.key, l.desc)
	})
}
