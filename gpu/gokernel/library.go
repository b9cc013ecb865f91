package gokernel

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/rtc"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Spec is what hipgo-gen -go writes for one package of kernels.
type Spec struct {
	Name    string      // the library's name, for errors and the compile cache
	Set     *kernel.Set // the Go kernels, for the cpu agent
	Source  string      // the C++ translation, for NVRTC and hipRTC
	Kernels []string    // the kernels' C names, in launcher order
	Files   []string    // the Go files a fault record's file field indexes
	// Objects are the code objects clang built: AMDGPU offload bundles
	// ([]byte) and PTX (string), or either stored compressed
	// (*Compressed, expanded at the first load that reaches it), in the
	// order module.Load should try them.
	Objects []any
}

// Library is a package's kernels, loaded on each device on first use.
type Library struct {
	spec    Spec
	checked atomic.Int32 // modeDefault, modeOn or modeOff
	// last is the library as last loaded (Load), the common case of one
	// device launching: it spares each launch the device-value lookup.
	last atomic.Pointer[Loaded]
}

const (
	modeDefault int32 = iota
	modeOn
	modeOff
)

// New makes the library of a generated package.
func New(spec Spec) *Library {
	return &Library{spec: spec}
}

// SetChecked switches checked mode on or off for this library's launches
// on GPUs, whatever the default.
func (l *Library) SetChecked(on bool) {
	if on {
		l.checked.Store(modeOn)
	} else {
		l.checked.Store(modeOff)
	}
}

// Checked reports whether the library's GPU launches are checked.
func (l *Library) Checked() bool {
	switch l.checked.Load() {
	case modeOn:
		return true
	case modeOff:
		return false
	}
	return defaultChecked
}

// defaultChecked: on in tests, HIPGO_CHECKED over both.
var defaultChecked = func() bool {
	if v, err := strconv.ParseBool(strings.TrimSpace(os.Getenv("HIPGO_CHECKED"))); err == nil {
		return v
	}
	return testing.Testing()
}()

// Loaded is a library on one device: its module and functions.
type Loaded struct {
	Module  *module.Module
	lib     *Library
	fns     []*module.Function
	checked []*module.Function // nil where the device runs Go (the cpu agent)
	faults  []*buffer.Host[uint32]
	// mu orders the checks' reads of the fault records (and their
	// clearing) before release frees them: a stream destroyed after the
	// library (gpu.Shutdown releases per-device values first) still runs
	// its checks.
	mu       sync.Mutex
	released bool
	checks   []func() error

	dev  *gpu.Device // the device (or test's view) it was loaded for
	gone atomic.Bool // released: Library.last no longer names it
}

// Function is the kernel named name (its C name) on this device.
func (ld *Loaded) Function(name string) (*module.Function, error) { return ld.Module.Function(name) }

// Function is the kernel named name (its C name: the Go name in snake
// case, vectorAdd → vector_add) of the library as loaded on dev (Load),
// for what takes a *module.Function rather than a typed launcher: a
// graph node (graph.Kernel), module.LaunchKernelGGL, LaunchKernelEx or
// LaunchCooperative. The library owns the module; do not unload it.
func (l *Library) Function(dev *gpu.Device, name string) (*module.Function, error) {
	ld, err := l.Load(dev)
	if err != nil {
		return nil, err
	}
	return ld.Function(name)
}

// Code is the library's code in every form it was built in (the Go
// kernels and the code objects), for module.Load: a module the caller
// owns and unloads, where Load shares one per device. It does not compile
// the C++ at run time where no form fits; Load does.
func (l *Library) Code() module.Library {
	if l == nil {
		return nil
	}
	return append(module.Library{l.spec.Set}, l.spec.Objects...)
}

// Load returns the library loaded on dev, loading it on first use: the
// code object that fits dev, or else the C++ compiled at run time.
func (l *Library) Load(dev *gpu.Device) (*Loaded, error) {
	if l == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, "module load", "nil library")
	}
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("module load", err)
	}
	if ld := l.last.Load(); ld != nil && ld.dev == dev && !ld.gone.Load() {
		return ld, nil
	}
	if v, ok := core.LookupValue(dev, l); ok {
		ld := v.(*Loaded)
		l.remember(ld)
		return ld, nil
	}
	// The closure allocates only here, on a device's first load.
	v, err := core.DeviceValue(dev, l, func() (any, func() error, error) { return l.setup(dev) })
	if err != nil {
		return nil, err
	}
	ld := v.(*Loaded)
	l.remember(ld)
	return ld, nil
}

// remember makes ld the library's last load unless it was released
// meanwhile: release marks it gone before it clears last, so a load
// remembered after that is seen gone.
func (l *Library) remember(ld *Loaded) {
	if !ld.gone.Load() {
		l.last.Store(ld)
	}
}

// release frees what setup made, when the device (or a test's view of
// it) is released: the fault records, then the module.
func (ld *Loaded) release() error {
	ld.gone.Store(true)
	ld.lib.last.CompareAndSwap(ld, nil)
	ld.mu.Lock()
	defer ld.mu.Unlock()
	ld.released = true
	var errs []error
	for _, h := range ld.faults {
		if h != nil {
			errs = append(errs, h.Free())
		}
	}
	errs = append(errs, ld.Module.Unload())
	return errors.Join(errs...)
}

func (l *Library) setup(dev *gpu.Device) (any, func() error, error) {
	m, err := module.Load(dev, l.Code())
	if errors.Is(err, gpu.ErrNoBinaryForGpu) && l.spec.Source != "" {
		rm, cerr := rtc.Compile(dev, l.spec.Source, rtc.Options{Name: l.spec.Name + ".cu", Flags: []string{"-std=c++17"}})
		if cerr != nil {
			return nil, nil, fmt.Errorf("%w; compiling its source at run time: %w", err, cerr)
		}
		m, err = rm.Module, nil
	}
	if err != nil {
		return nil, nil, err
	}
	ld := &Loaded{Module: m, lib: l, dev: dev}
	n := len(l.spec.Kernels)
	ld.fns, ld.checked = make([]*module.Function, n), make([]*module.Function, n)
	ld.faults, ld.checks = make([]*buffer.Host[uint32], n), make([]func() error, n)
	fail := func(err error) (any, func() error, error) {
		_ = ld.release()
		return nil, nil, err
	}
	for i, name := range l.spec.Kernels {
		if ld.fns[i], err = m.Function(name); err != nil {
			return fail(err)
		}
		if c, cerr := m.Function(name + "_checked"); cerr == nil {
			h, herr := buffer.NewHost[uint32](dev, faultWords)
			if herr != nil {
				return fail(herr)
			}
			ld.checked[i], ld.faults[i] = c, h
			ld.checks[i] = ld.checker(i)
		}
	}
	return ld, ld.release, nil
}

// Prepare readies a launch of kernel k (its index in Spec.Kernels) on s:
// the library on s's device, and whether the launch is checked, in which
// case the caller appends the checked entry point's own arguments
// (hg_dyn_bytes where the plain one has none, then the lengths of the
// slices passed bare) before Launch.
func (l *Library) Prepare(s *stream.Stream, k int) (*Loaded, bool, error) {
	if s == nil {
		return nil, false, gpu.Errorf(gpu.ErrInvalidHandle, "launch", "nil stream")
	}
	ld, err := l.Load(s.Device())
	if err != nil {
		return nil, false, err
	}
	if k < 0 || k >= len(ld.fns) {
		return nil, false, gpu.Errorf(gpu.ErrInvalidDeviceFunction, "launch", "%s: no kernel %d", l.spec.Name, k)
	}
	return ld, ld.checked[k] != nil && l.Checked(), nil
}

// Launch launches kernel k as Prepare readied it; a checked launch gets
// the fault record as its last argument, read once the kernel completed
// (module.Args.OnComplete): the stream's next Synchronize or Query
// returns the fault, and no host function is queued per launch. args are
// the launcher's own, declared per launch: Launch releases them
// (module.Args.Release), so a launch past their own storage allocates
// nothing either.
func (ld *Loaded) Launch(s *stream.Stream, k int, checked bool, grid, block gpu.Dim3, sharedMem int, args *module.Args) error {
	f := ld.fns[k]
	if checked {
		args.Ptr(ld.faults[k]).OnComplete(ld.checks[k])
		f = ld.checked[k]
	}
	err := module.LaunchKernel(f, grid, block, args, sharedMem, s)
	args.Release()
	return err
}

// The fault record: unsigned set, kind, line, file; long long index, len.
const faultWords = 8

// Fault kinds, as the generated C++ writes them.
const (
	faultIndex  = 1
	faultDivide = 2
	faultSlice  = 3
	faultShift  = 4
)

// checker reads kernel k's fault record after a checked launch.
func (ld *Loaded) checker(k int) func() error {
	name := ld.lib.spec.Kernels[k]
	rec := ld.faults[k].Slice()
	return func() error {
		ld.mu.Lock()
		defer ld.mu.Unlock()
		if ld.released || atomic.LoadUint32(&rec[0]) == 0 {
			return nil
		}
		kind, line, file := rec[1], rec[2], rec[3]
		idx := int64(uint64(rec[4]) | uint64(rec[5])<<32)
		n := int64(uint64(rec[6]) | uint64(rec[7])<<32)
		clear(rec)
		where := fmt.Sprintf("line %d", line)
		if files := ld.lib.spec.Files; int(file) < len(files) {
			where = fmt.Sprintf("%s:%d", files[file], line)
		}
		var what string
		switch kind {
		case faultIndex:
			what = fmt.Sprintf("index out of range [%d] with length %d", idx, n)
			if idx < 0 {
				what = fmt.Sprintf("index out of range [%d]", idx) // Go's words
			}
		case faultDivide:
			what = "integer divide by zero"
		case faultSlice:
			what = fmt.Sprintf("slice bounds out of range [:%d] with capacity %d", idx, n)
		case faultShift:
			what = fmt.Sprintf("negative shift amount %d", idx)
		default:
			what = fmt.Sprintf("fault of kind %d", kind)
		}
		return gpu.Errorf(gpu.ErrLaunchFailure, "kernel "+name, "%s: %s (checked mode)", where, what)
	}
}

// Bool is a bool kernel argument's byte, as C++ takes it.
func Bool(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}
