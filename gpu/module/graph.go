package module

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// PrepareNode checks a graph's kernel launch of f exactly as launch checks
// a direct one (the device's default stream stands for the stream the
// graph is launched on, which must be of the same device) and encodes its
// kernarg image into k. args is a *Args or a []any in LaunchKernelGGL's
// form. It is gpu/graph's: k is a type of the gpu layer's core, which no
// package outside hipgo's gpu tree can name.
func (f *Function) PrepareNode(dev *gpu.Device, grid, block gpu.Dim3, shared int, args any, k *core.KernelNode) error {
	const op = "graph kernel node"
	if f == nil {
		return gpu.Errorf(gpu.ErrInvalidDeviceFunction, op, "want a *module.Function, got a nil one")
	}
	if err := f.valid(op); err != nil {
		return err
	}
	var a Args
	switch x := args.(type) {
	case *Args:
		if x == nil {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: nil Args", f.sym.Name)
		}
		if x.over {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: more than %d arguments", f.sym.Name, MaxArgs)
		}
		a = *x
	case []any:
		if len(x) > MaxArgs {
			return f.countErr(len(x))
		}
		for _, v := range x {
			if m, ok := core.MemOf(v); ok {
				a.add(argVal{mem: m, buf: true})
				continue
			}
			a.Value(v) // as Launch does: checked against the kernel below
		}
	default:
		return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: arguments are a *module.Args or a []any, got %T", f.sym.Name, args)
	}
	s, err := stream.DefaultStream(dev)
	if err != nil {
		return err
	}
	d, err := f.check(s, grid, block, shared, entry{runtime: true})
	if err != nil {
		return err
	}
	vals := a.list()
	if len(vals) != len(f.visible) {
		return f.countErr(len(vals))
	}
	for i := range vals {
		if err := f.checkArg(dev, i, &vals[i]); err != nil {
			return err
		}
	}
	ka := make([]byte, d.KernargSize)
	uses := k.Uses[:0]
	_ = f.pack(ka, vals, &a, func(m *core.Mem, acc core.Access) error {
		uses = append(uses, core.MemUse{M: m, Acc: acc})
		return nil
	})
	if _, own := args.([]any); own {
		a.Release() // ka holds the bytes
	}
	if f.hidden != nil {
		hl := codeobj.Launch{Grid: d.Grid, Block: [3]uint32{uint32(d.Block[0]), uint32(d.Block[1]), uint32(d.Block[2])}, Dims: d.Dims, DynamicShared: uint32(shared)}
		if err := f.hidden.FillHidden(ka, &hl); err != nil {
			return errs.Wrap(op, err)
		}
	}
	*k = core.KernelNode{Dispatch: d, Kernarg: ka, Uses: uses, Name: f.sym.Name, Live: f.live, LiveKey: f}
	return nil
}

// live says whether the kernel can still be dispatched.
func (f *Function) live() error {
	if err := f.mod.dev.Valid(); err != nil {
		return errs.Wrap("graph launch", err)
	}
	return f.gone("graph launch")
}
