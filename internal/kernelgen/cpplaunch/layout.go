package cpplaunch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

// checkLayout checks that every code object of spec (read from the file
// name) has exactly the kernels of the sources, each with the argument
// layout the C declaration implies: count, offsets, sizes, and pointer or
// value where the object says which. It reports every mismatch it finds.
func checkLayout(kernels []*kernel, name string, spec *codeobj.Spec) error {
	if len(spec.Objects) == 0 {
		return fmt.Errorf("%s: no code objects", name)
	}
	var errs []error
	declared := map[string]bool{}
	for _, k := range kernels {
		declared[k.Name] = true
	}
	for _, o := range spec.Objects {
		where := fmt.Sprintf("%s (%s)", name, o.Target)
		for _, k := range kernels {
			ko, ok := o.Kernel(k.Name)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: no kernel %s, which %s declares", where, k.Name, k.where()))
				continue
			}
			errs = append(errs, checkKernel(where, o.Format, k, ko))
		}
		for i := range o.Kernels {
			if n := o.Kernels[i].Name; !declared[n] {
				errs = append(errs, fmt.Errorf("%s: kernel %s is not declared in the sources; %s", where, n, declForms))
			}
		}
	}
	return errors.Join(errs...)
}

// checkKernel compares one kernel's declaration with its code object
// metadata.
func checkKernel(where string, format codeobj.Format, k *kernel, ko *codeobj.Kernel) error {
	args := ko.ExplicitArgs()
	if len(args) != len(k.Params) {
		return fmt.Errorf("%s: kernel %s takes %d arguments, but %s declares %d: %s", where, k.Name, len(args), k.where(), len(k.Params), k.Decl())
	}
	var errs []error
	var off uint32
	for i, p := range k.Params {
		a := &args[i]
		off = (off + p.Type.Align() - 1) &^ (p.Type.Align() - 1)
		bad := func(format string, v ...any) {
			label := p.C
			if p.Name != "" {
				label = p.Name + ", " + p.C
			}
			errs = append(errs, fmt.Errorf("%s: kernel %s argument %d (%s): %s", where, k.Name, i, label, fmt.Sprintf(format, v...)))
		}
		if a.Offset != off || a.Size != p.Type.Size() {
			bad("the source gives %d bytes at offset %d, the code object %d bytes at offset %d", p.Type.Size(), off, a.Size, a.Offset)
		}
		off += p.Type.Size()
		switch format {
		case codeobj.FormatELF:
			switch a.Kind {
			case codeobj.KindGlobalBuffer:
				if !p.Type.Pointer {
					bad("the code object takes a global buffer, the source a value")
				}
			case codeobj.KindByValue:
				if p.Type.Pointer {
					bad("the code object takes a value, the source a pointer")
				}
			default:
				bad("argument kind %q is not supported", a.KindName)
			}
			if t := strings.TrimSpace(a.TypeName); t != "" && strings.HasSuffix(t, "*") != p.Type.Pointer {
				bad("the code object's type is %q", t)
			}
			if a.Name != "" && p.Name != "" && a.Name != p.Name {
				bad("the code object names it %q", a.Name)
			}
		case codeobj.FormatPTX:
			// PTX says only .u64 for a pointer; floats keep their type.
			t := strings.TrimSpace(a.TypeName)
			switch {
			case strings.HasPrefix(t, ".f") && (p.Type.Pointer || !p.Type.Elem.Float):
				bad("the PTX parameter is %s, a float, where the source has no float", t)
			case (strings.HasPrefix(t, ".u") || strings.HasPrefix(t, ".s")) && !p.Type.Pointer && p.Type.Elem.Float:
				bad("the PTX parameter is %s, an integer, where the source has a float", t)
			}
		}
	}
	return errors.Join(errs...)
}
