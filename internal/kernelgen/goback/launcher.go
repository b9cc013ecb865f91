package goback

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// launcher writes kernel ki's typed launcher. A parameter named like one
// of the launcher's own identifiers is renamed there (launcherNames).
func (g *writer) launcher(ki int) {
	cfg, k, p := g.cfg, &g.res.Kernels[ki], g.p
	lname := launcherNames(k.Params, cfg.Var)
	var params []string
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice {
			params = append(params, fmt.Sprintf("%s buffer.Array[%s]", lname[i], g.ts(prm.Type)))
		} else {
			params = append(params, fmt.Sprintf("%s %s", lname[i], g.ts(prm.Type)))
		}
	}
	launcher := cfg.Prefix + exported(k.GoName)
	if k.TypeArgs != nil {
		launcher = instanceLauncher(cfg.Prefix, k)
		p("// %s launches %s: %s%s's instance.\n", launcher, k.GoName+typeArgsGo(k, g.ts), cfg.Prefix, exported(k.GoName))
	} else {
		p("// %s launches %s (%s:%d) on s: grid blocks of block threads, with\n// sharedMem bytes of dynamic shared memory. A slice parameter takes a\n// buffer; the kernel sees its length.\n",
			launcher, k.GoName, filepath.Base(k.Pos.Filename), k.Pos.Line)
	}
	p("func %s(s *stream.Stream, grid, block gpu.Dim3, sharedMem int%s) error {\n", launcher, joinArgs(params))
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice {
			p("\tif %s == nil {\n\t\treturn gpu.Errorf(gpu.ErrInvalidValue, \"launch\", \"kernel %s argument %d (%s): nil buffer\")\n\t}\n", lname[i], k.Name, i, prm.Name)
		}
	}
	p("\tld, checked, err := %s.Prepare(s, %d)\n\tif err != nil {\n\t\treturn err\n\t}\n", cfg.Var, ki)
	p("\tvar args module.Args\n\targs%s\n", g.launchArgs(k, lname))
	if trailing := checkedArgs(k, lname); trailing != "" {
		p("\tif checked {\n\t\t// The checked entry point's trailing arguments.\n\t\targs%s\n\t}\n", trailing)
	}
	p("\treturn ld.Launch(s, %d, checked, grid, block, sharedMem, &args)\n}\n\n", ki)
}

// launchArgs is the module.Args chain of the plain entry point's
// arguments, from the launcher's parameters lname.
func (g *writer) launchArgs(k *kernelgen.Kernel, lname []string) string {
	var b strings.Builder
	for pi, prm := range k.Params {
		switch prm.Kind {
		case kernelgen.Slice:
			m := "Ptr"
			if prm.ReadOnly {
				m = "ConstPtr"
			}
			fmt.Fprintf(&b, ".%s(%s)", m, lname[pi])
			if prm.Len {
				fmt.Fprintf(&b, ".Int64(int64(%s.Len()))", lname[pi])
			}
		case kernelgen.Struct:
			fmt.Fprintf(&b, ".Value(%s)", lname[pi])
		default:
			m, conv, _ := argsMethod(prm.Type)
			switch {
			case conv == "bool":
				fmt.Fprintf(&b, ".%s(gokernel.Bool(%s))", m, lname[pi])
			case conv != g.ts(prm.Type):
				fmt.Fprintf(&b, ".%s(%s(%s))", m, conv, lname[pi])
			default:
				fmt.Fprintf(&b, ".%s(%s)", m, lname[pi])
			}
		}
	}
	if k.DynamicSharedLen {
		b.WriteString(".Uint32(uint32(sharedMem))")
	}
	if len(k.Params) == 0 && !k.DynamicSharedLen {
		b.WriteString(".Reset()")
	}
	return b.String()
}

// checkedArgs is the chain of the checked entry point's extra arguments,
// in its order (kernelgen's doc), or "".
func checkedArgs(k *kernelgen.Kernel, lname []string) string {
	var extra []string
	if k.DynamicShared && !k.DynamicSharedLen {
		extra = append(extra, ".Uint32(uint32(sharedMem))")
	}
	for pi, prm := range k.Params {
		if prm.Kind == kernelgen.Slice && !prm.Len {
			extra = append(extra, fmt.Sprintf(".Int64(int64(%s.Len()))", lname[pi]))
		}
	}
	return strings.Join(extra, "")
}
