package goback

import (
	"errors"
	"fmt"
	"go/types"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// argLayout is one C parameter of a Go kernel's entry point as the Go
// side passes it.
type argLayout struct {
	name        string
	size, align uint32
	pointer     bool
}

var goSizes = types.SizesFor("gc", "amd64")

// entryLayout is the parameter list the Go side passes to k's plain
// entry point, or to its checked one: what the launchers and the cpu
// argument struct assume, to be checked against each code object.
func entryLayout(k kernelgen.Kernel, checked bool) []argLayout {
	var out []argLayout
	for _, p := range k.Params {
		switch p.Kind {
		case kernelgen.Slice:
			out = append(out, argLayout{p.Name, 8, 8, true})
			if p.Len {
				out = append(out, argLayout{p.Name + " length", 8, 8, false})
			}
		default:
			t := p.Type
			if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
				out = append(out, argLayout{p.Name, 1, 1, false})
				continue
			}
			out = append(out, argLayout{p.Name, uint32(goSizes.Sizeof(t)), uint32(goSizes.Alignof(t)), false})
		}
	}
	if k.DynamicSharedLen || (checked && k.DynamicShared) {
		out = append(out, argLayout{"hg_dyn_bytes", 4, 4, false})
	}
	if checked {
		for _, p := range k.Params {
			if p.Kind == kernelgen.Slice && !p.Len {
				out = append(out, argLayout{p.Name + " length", 8, 8, false})
			}
		}
		out = append(out, argLayout{"hg_f", 8, 8, true})
	}
	return out
}

// CheckObjects checks every code object built for res in gen: each
// holds exactly the kernels' two entry points, each with the parameters
// the Go side passes (count, offsets, sizes; pointer or value where the
// object says). A mismatch would be a GPU fault or garbage arguments on
// a machine this generator never saw.
func CheckObjects(res *kernelgen.Result, gen string, objs []string) error {
	var errs []error
	for _, name := range objs {
		b, err := readObject(gen, name)
		if err != nil {
			return err
		}
		spec, err := codeobj.Parse(b)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, o := range spec.Objects {
			where := fmt.Sprintf("%s (%s)", name, o.Target)
			want := map[string][]argLayout{}
			for _, k := range res.Kernels {
				want[k.Name] = entryLayout(k, false)
				want[k.Name+"_checked"] = entryLayout(k, true)
			}
			for i := range o.Kernels {
				if _, ok := want[o.Kernels[i].Name]; !ok {
					errs = append(errs, fmt.Errorf("%s: kernel %s is no Go kernel's entry point", where, o.Kernels[i].Name))
				}
			}
			for sym, layout := range want {
				ko, ok := o.Kernel(sym)
				if !ok {
					errs = append(errs, fmt.Errorf("%s: no entry point %s", where, sym))
					continue
				}
				errs = append(errs, compareLayout(where, sym, o.Format, layout, ko.ExplicitArgs()))
			}
		}
	}
	return errors.Join(errs...)
}

func compareLayout(where, sym string, format codeobj.Format, want []argLayout, got []codeobj.Arg) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %s takes %d parameters, the Go side passes %d", where, sym, len(got), len(want))
	}
	var errs []error
	var off uint32
	for i, w := range want {
		off = (off + w.align - 1) &^ (w.align - 1)
		a := got[i]
		if a.Offset != off || a.Size != w.size {
			errs = append(errs, fmt.Errorf("%s: %s parameter %d (%s): the Go side passes %d bytes at offset %d, the code object takes %d at %d", where, sym, i, w.name, w.size, off, a.Size, a.Offset))
		}
		if format == codeobj.FormatELF {
			if ptr := a.Kind == codeobj.KindGlobalBuffer; ptr != w.pointer {
				errs = append(errs, fmt.Errorf("%s: %s parameter %d (%s): pointer %v in the code object, %v on the Go side", where, sym, i, w.name, ptr, w.pointer))
			}
		}
		off += w.size
	}
	return errors.Join(errs...)
}
