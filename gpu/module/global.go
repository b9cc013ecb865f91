package module

import (
	"context"
	"reflect"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Global is a variable of a loaded module, seen as elements of T: a
// `__device__` or `__constant__` variable of PTX, a cubin, a fat binary
// or an AMDGPU code object, or a variable a Go kernel set declares
// (kernel.Var). It is memory like a buffer.Buffer of the module's
// device: stream copies and fills take it, and so do kernel launches,
// where it passes its address (hipGetSymbolAddress), and dependencies
// track it as they track a buffer.
//
// Its memory belongs to the module: a Global cannot be freed and fails
// every call once its module is unloaded. A kernel that reads or writes
// the variable by its name, not through a pointer argument, is ordered
// with copies to and from it by its stream alone, as in CUDA and HIP.
type Global[T any] struct {
	m core.Mem
	//lint:ignore U1000 embedded for its method, which makes a Global a buffer.Object
	sealed
	mod *Module
}

// sealed makes a Global a buffer.Object, under a name that keeps the
// field unexported.
//
//lint:ignore U1000 used by embedding (Global)
type sealed = core.Sealed

var _ buffer.Object = (*Global[byte])(nil)

// GetGlobal finds the variable name of m (hipModuleGetGlobal) as
// elements of T; the variable's size must be a whole number of T. Each
// call for one variable gives the same Global, so its dependencies are
// one; a later call with another T is an error. A name m does not define
// is gpu.ErrNotFound.
func GetGlobal[T any](m *Module, name string) (*Global[T], error) {
	const op = "module get global"
	if err := m.check(op); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.gone(op); err != nil {
		return nil, err
	}
	if err := core.Valid(m.dev, m.gen); err != nil {
		return nil, errs.Wrap(op, err)
	}
	if g, ok := m.globals[name]; ok {
		if t, ok := g.(*Global[T]); ok {
			return t, nil
		}
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%q was taken as %s elements, not as %s", name, globalMem(g).Elem(), reflect.TypeFor[T]())
	}
	if name == "" {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "empty variable name")
	}
	al, err := rocr.Global(m.exe, name)
	if err != nil {
		if hsa.StatusOf(err) == hsa.StatusErrorInvalidSymbolName {
			return nil, &gpu.Error{Code: gpu.ErrNotFound, Op: op, Msg: "in module for " + m.code.Target, Err: err}
		}
		return nil, errs.Wrap(op, err)
	}
	g := &Global[T]{mod: m}
	if err := core.InitGlobal[T](&g.m, m.dev, m.gen, al, name); err != nil {
		return nil, err
	}
	if m.globals == nil {
		m.globals = map[string]any{}
	}
	m.globals[name] = g
	m.leak.globals = append(m.leak.globals, g.m.Uses())
	return g, nil
}

// globalMem is the memory of a *Global of any element type.
func globalMem(g any) *core.Mem {
	mem, _ := core.MemOf(g)
	return mem
}

// base is the Mem of g, nil for a nil g.
func (g *Global[T]) base() *core.Mem {
	if g == nil {
		return nil
	}
	return &g.m
}

// Name is the variable's name; "" for a nil Global.
func (g *Global[T]) Name() string {
	if g == nil || g.mod == nil {
		return ""
	}
	return g.m.GlobalName()
}

// Module is the module the variable belongs to.
func (g *Global[T]) Module() *Module {
	if g == nil {
		return nil
	}
	return g.mod
}

// Len is the number of elements; 0 for a nil Global.
func (g *Global[T]) Len() int { return g.base().Len() }

// Bytes is the variable's size in bytes (hipModuleGetGlobal's size); 0
// for a nil Global.
func (g *Global[T]) Bytes() int { return g.base().Size() }

// Device is the module's device; nil for a nil Global.
func (g *Global[T]) Device() *gpu.Device { return g.base().Device() }

// Ptr is the variable's device address as a kernel argument
// (hipGetSymbolAddress); 0 for a nil Global.
func (g *Global[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](g.base().Addr()) }

func (g *Global[T]) String() string { return g.base().String() }

// CopyFrom copies src into the variable's first len(src) elements
// (hipMemcpyToSymbol); src must fit.
func (g *Global[T]) CopyFrom(src []T) error { return g.CopyFromAt(0, src) }

// CopyFromAt copies src into elements [off, off+len(src))
// (hipMemcpyToSymbol with an offset of off elements).
func (g *Global[T]) CopyFromAt(off int, src []T) error {
	return g.CopyFromAtContext(context.Background(), off, src)
}

// CopyFromContext is CopyFrom that gives up when ctx is done before the
// copy starts, while it waits for the variable's pending work: then it
// returns an error wrapping gpu.ErrNotReady and ctx's error, and has
// copied nothing. Once the copy has started it completes.
func (g *Global[T]) CopyFromContext(ctx context.Context, src []T) error {
	return g.CopyFromAtContext(ctx, 0, src)
}

// CopyFromAtContext is CopyFromAt with CopyFromContext's context.
func (g *Global[T]) CopyFromAtContext(ctx context.Context, off int, src []T) error {
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy to symbol", "nil global")
	}
	return core.CopyHostContext(ctx, "memcpy to symbol", &g.m, off, core.AsBytes(src), true)
}

// CopyTo copies the variable's first len(dst) elements into dst
// (hipMemcpyFromSymbol).
func (g *Global[T]) CopyTo(dst []T) error { return g.CopyToAt(0, dst) }

// CopyToAt copies elements [off, off+len(dst)) into dst
// (hipMemcpyFromSymbol with an offset).
func (g *Global[T]) CopyToAt(off int, dst []T) error {
	return g.CopyToAtContext(context.Background(), off, dst)
}

// CopyToContext is CopyTo that gives up when ctx is done before the copy
// starts, while it waits for the work that writes the variable: then dst
// is untouched. Once the copy has started it completes.
func (g *Global[T]) CopyToContext(ctx context.Context, dst []T) error {
	return g.CopyToAtContext(ctx, 0, dst)
}

// CopyToAtContext is CopyToAt with CopyToContext's context.
func (g *Global[T]) CopyToAtContext(ctx context.Context, off int, dst []T) error {
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy from symbol", "nil global")
	}
	return core.CopyHostContext(ctx, "memcpy from symbol", &g.m, off, core.AsBytes(dst), false)
}

// ToSlice copies the whole variable into a new slice.
func (g *Global[T]) ToSlice() ([]T, error) {
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "memcpy from symbol", "nil global")
	}
	out := make([]T, g.m.Len())
	if err := g.CopyTo(out); err != nil {
		return nil, err
	}
	return out, nil
}
