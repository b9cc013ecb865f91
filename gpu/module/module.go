package module

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Module is code loaded onto one device (hipModule_t).
type Module struct {
	dev      *gpu.Device
	gen      uint64 // dev's reset count at load
	code     *hsa.Code
	exe      spi.Executable
	mu       sync.Mutex
	funcs    map[string]*Function
	globals  map[string]any // name → *Global[T], made by GetGlobal
	unloaded atomic.Bool
	// leak and backstop unload the module if it becomes unreachable
	// unloaded (backstop.go); Unload stops it.
	leak     *modLeak
	backstop runtime.Cleanup
}

// coder is implemented by Go kernel sets (the cpu agent's code).
type coder interface {
	Code() *hsa.Code
}

// expander is a code object made when a load first reaches it: the
// compressed code objects of generated packages (gokernel.Compressed).
// Its error is the load's.
type expander interface {
	Expand() (any, error)
}

// Library bundles the forms of one kernel library for different targets:
// Go kernels, AMDGPU code objects, PTX. Load picks the one for the device.
type Library []any

// Load loads src onto dev (hipModuleLoadData). src is a Go kernel set
// (anything with a Code() *hsa.Code method), the bytes of an AMDGPU ELF,
// a clang offload bundle, a compressed bundle, a HIP fat binary, PTX
// text, an NVIDIA cubin or fat binary (or a host object carrying one), a parsed *codeobj.Spec,
// a code object made on first use (an Expand() (any, error) method, as
// gokernel.Compressed has), or a Library of these; the code object
// that matches the device's target is loaded. No match is
// gpu.ErrNoBinaryForGpu listing the targets present and the one wanted.
func Load(dev *gpu.Device, src any) (*Module, error) {
	const op = "module load"
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap(op, err)
	}
	gen := core.Gen(dev) // before the load, which a reset may undo
	code, err := pick(dev, src)
	if err != nil {
		return nil, err
	}
	exe, err := dev.Agent().Load(code)
	if err != nil {
		if errors.Is(err, hsa.ErrNotSupported) {
			return nil, &gpu.Error{Code: gpu.ErrNoBinaryForGpu, Op: op, Msg: fmt.Sprintf("%s has %s code for %s, device %d wants %s", code.Name, code.Kind, code.Target, dev.Ordinal(), dev.Target()), Err: err}
		}
		return nil, errs.Wrap(op, err)
	}
	m := &Module{dev: dev, gen: gen, code: code, exe: exe, funcs: map[string]*Function{}}
	m.track()
	return m, nil
}

// LoadFile loads a code object file (hipModuleLoad).
func LoadFile(dev *gpu.Device, path string) (*Module, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("module load", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &gpu.Error{Code: gpu.ErrFileNotFound, Op: "module load", Msg: path, Err: err}
	}
	return Load(dev, b)
}

// LoadFS loads the first of the named files in fsys that holds code for
// the device (for go:embed'ed code objects).
func LoadFS(dev *gpu.Device, fsys fs.FS, names ...string) (*Module, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("module load", err)
	}
	if fsys == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "module load", "nil file system")
	}
	var lib Library
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, &gpu.Error{Code: gpu.ErrFileNotFound, Op: "module load", Msg: n, Err: err}
		}
		lib = append(lib, named{n, b})
	}
	return Load(dev, lib)
}

// Device is the module's device; nil for a nil module.
func (m *Module) Device() *gpu.Device {
	if m == nil {
		return nil
	}
	return m.dev
}

// check reports a module that holds no code: nil, or a zero Module,
// which Load did not make.
func (m *Module) check(op string) error {
	if m == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil module")
	}
	if m.code == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "module not made by module.Load (a zero Module)")
	}
	return nil
}

// Target is the target of the code loaded; "" for a nil or zero module.
func (m *Module) Target() string {
	if m == nil || m.code == nil {
		return ""
	}
	return m.code.Target
}

// Kind is the kind of code loaded; hsa.CodeNone for a nil or zero
// module (not the zero CodeKind, which is CodeGo).
func (m *Module) Kind() hsa.CodeKind {
	if m == nil || m.code == nil {
		return hsa.CodeNone
	}
	return m.code.Kind
}

// Kernels lists the kernels' names; none for a nil or zero module.
func (m *Module) Kernels() []string {
	if m == nil || m.exe == nil {
		return nil
	}
	var out []string
	for _, k := range m.exe.Kernels() {
		out = append(out, k.Name)
	}
	return out
}

// Function looks a kernel up by name (hipModuleGetFunction).
func (m *Module) Function(name string) (*Function, error) {
	const op = "module get function"
	if err := m.check(op); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.gone(op); err != nil {
		return nil, err
	}
	if f, ok := m.funcs[name]; ok {
		return f, nil
	}
	if name == "" {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "empty kernel name") // hipModuleGetFunction's answer
	}
	sym, err := rocr.FindKernel(m.exe, name)
	if err != nil {
		return nil, &gpu.Error{Code: gpu.ErrNotFound, Op: op, Msg: fmt.Sprintf("in module for %s", m.code.Target), Err: err}
	}
	f := newFunction(m, *sym)
	m.funcs[name] = f
	return f, nil
}

// gone says why m's code can no longer be used, nil while it can: the
// runtime shut down or the device was reset (either unloads every
// module, and is the reason whatever the order a racing call saw it in),
// or m was unloaded.
func (m *Module) gone(op string) error { return m.goneAs(op, "module was unloaded") }

// gone is the module's gone, naming the kernel.
func (f *Function) gone(op string) error {
	if !f.mod.unloaded.Load() {
		return nil // not formatting the message on the launch path
	}
	return f.mod.goneAs(op, "kernel "+f.sym.Name+": its module was unloaded")
}

func (m *Module) goneAs(op, unloaded string) error {
	if !m.unloaded.Load() {
		return nil
	}
	if err := core.Valid(m.dev, m.gen); err != nil {
		return errs.Wrap(op, err)
	}
	return gpu.Errorf(gpu.ErrInvalidHandle, op, "%s", unloaded)
}

// MustFunction is Function that panics; for examples and tests.
func (m *Module) MustFunction(name string) *Function {
	f, err := m.Function(name)
	if err != nil {
		panic(err)
	}
	return f
}

// Unload releases the module (hipModuleUnload).
func (m *Module) Unload() error {
	if err := m.check("module unload"); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.unloaded.Load() {
		return gpu.Errorf(gpu.ErrInvalidHandle, "module unload", "module already unloaded")
	}
	m.unloaded.Store(true)
	m.backstop.Stop()
	live.RemoveWeak(m)
	for _, g := range m.globals {
		globalMem(g).Release() // its work ends before its memory does
	}
	err := m.exe.Destroy()
	if stale := core.Valid(m.dev, m.gen); stale != nil && (m.dev.Valid() == nil || err != nil) {
		// A reset unloaded it; or Shutdown did, and the driver destroyed
		// the code with the runtime (the cuda driver does; the cpu driver
		// keeps it until this call).
		return errs.Wrap("module unload", stale)
	}
	return errs.Wrap("module unload", err)
}

// refinePTX completes the signatures of PTX kernels from another form of
// the same library: PTX does not say whether a .u64 parameter is a pointer
// or an integer, nor an integer's signedness, but the library's Go kernels
// (or code object metadata) do. An argument is refined only where name,
// offset and size agree, so a library whose forms differ keeps PTX's view.
func refinePTX(c *hsa.Code, lib Library) {
	decl := map[string]*hsa.KernelSymbol{}
	for _, x := range lib {
		if cd, ok := x.(coder); ok {
			if other := cd.Code(); other != nil && other.Kind != hsa.CodePTX && other.Kind != hsa.CodeCubin {
				for i := range other.Kernels {
					decl[other.Kernels[i].Name] = &other.Kernels[i]
				}
			}
		}
	}
	for i := range c.Kernels {
		k := &c.Kernels[i]
		d, ok := decl[k.Name]
		if !ok {
			continue
		}
		var dv []hsa.KernelArg
		for _, a := range d.Args {
			if a.Kind != hsa.ArgHidden {
				dv = append(dv, a)
			}
		}
		j := 0
		for n := range k.Args {
			a := &k.Args[n]
			if a.Kind == hsa.ArgHidden {
				continue
			}
			if j >= len(dv) || dv[j].Offset != a.Offset || dv[j].Size != a.Size {
				break
			}
			a.Kind, a.Elem, a.Value = dv[j].Kind, dv[j].Elem, dv[j].Value
			a.ReadOnly = a.ReadOnly || dv[j].ReadOnly
			if a.Name == "" || strings.HasPrefix(a.Name, k.Name+"_param_") {
				a.Name = dv[j].Name
			}
			j++
		}
	}
}

// entryLabel names a code object in "no binary" errors: NVIDIA fat binary
// entries say whether they are SASS or PTX ("cubin sm_100").
func entryLabel(o *codeobj.CodeObject) string {
	switch {
	case o.Format == codeobj.FormatCubin:
		return "cubin " + o.Target
	case o.Format == codeobj.FormatPTX && o.BundleEntry != "":
		return o.BundleEntry
	}
	return o.Target
}

// Shared returns the value that setup makes from a module it loads on
// dev: the first call for a device and key runs setup, later calls get the
// same value without allocating. The module is unloaded when the device is
// released (gpu.Shutdown) and must not be unloaded by hand. A package that
// ships kernels keeps its library loaded once per device this way
// (kernels.Load does); key is a value of an unexported type of its own.
func Shared[T any](dev *gpu.Device, key any, setup func(dev *gpu.Device) (*Module, T, error)) (T, error) {
	var zero T
	if err := dev.Valid(); err != nil {
		return zero, errs.Wrap("module load", err)
	}
	if v, ok := core.LookupValue(dev, key); ok {
		return v.(T), nil
	}
	v, err := core.DeviceValue(dev, key, func() (any, func() error, error) {
		m, x, err := setup(dev)
		if err != nil {
			return nil, nil, err
		}
		if m == nil {
			return nil, nil, gpu.Errorf(gpu.ErrInvalidValue, "module load", "setup returned no module")
		}
		return x, m.Unload, nil
	})
	if err != nil {
		return zero, err
	}
	return v.(T), nil
}
