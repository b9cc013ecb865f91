package goback

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// argFields are the kernarg layout's extra fields: a slice's length and
// the dynamic shared bytes, under names no parameter has.
type argFields struct {
	args string   // the layout's type: kernelArgs
	len  []string // per parameter, the length's field where the C++ takes it
	dyn  string   // the dynamic shared bytes
}

func newArgFields(k *kernelgen.Kernel) argFields {
	taken := map[string]bool{}
	for _, prm := range k.Params {
		taken[prm.Name] = true
	}
	free := func(n string) string {
		for taken[n] {
			n += "_"
		}
		taken[n] = true
		return n
	}
	f := argFields{args: lower(k.Ident) + "Args", len: make([]string, len(k.Params))}
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice && prm.Len {
			f.len[i] = free(prm.Name + "Len")
		}
	}
	f.dyn = free("hgDynBytes")
	return f
}

// kernarg writes k's kernarg layout: the C++ entry point's parameters as
// a Go struct.
func (g *writer) kernarg(k *kernelgen.Kernel, f argFields) error {
	p := g.p
	p("// %s is the kernarg layout of %s's C++ entry point.\ntype %s struct {\n", f.args, k.Name, f.args)
	for pi, prm := range k.Params {
		switch prm.Kind {
		case kernelgen.Slice:
			ptr := "Ptr"
			if prm.ReadOnly {
				ptr = "ConstPtr"
			}
			p("\t%s rocr.%s[%s]\n", prm.Name, ptr, g.ts(prm.Type))
			if prm.Len {
				p("\t%s int64\n", f.len[pi])
			}
		case kernelgen.Struct:
			p("\t%s %s\n", prm.Name, g.ts(prm.Type))
		default:
			_, conv, err := argsMethod(prm.Type)
			if err != nil {
				return fmt.Errorf("kernel %s parameter %s: %w", k.GoName, prm.Name, err)
			}
			if conv == "bool" {
				conv = "uint8"
			}
			p("\t%s %s\n", prm.Name, conv)
		}
	}
	if k.DynamicSharedLen {
		p("\t%s uint32\n", f.dyn)
	}
	p("}\n\n")
	return nil
}

// callArgs are the cpu function's arguments of k as Go values read from
// the kernarg layout a: the slices' views, and the other parameters (a
// slice's place left "").
func (g *writer) callArgs(k *kernelgen.Kernel, f argFields) (views, call []string) {
	for pi, prm := range k.Params {
		switch prm.Kind {
		case kernelgen.Slice:
			fn, rest := "View", "Rest"
			if prm.ReadOnly {
				fn = "ConstView"
			}
			if prm.Len {
				views = append(views, fmt.Sprintf("kernelimpl.%s(b, a.%s, a.%s)", fn, prm.Name, f.len[pi]))
			} else {
				views = append(views, fmt.Sprintf("kernelimpl.%s%s(b, a.%s)", fn, rest, prm.Name))
			}
			call = append(call, "")
		case kernelgen.Struct:
			call = append(call, "a."+prm.Name)
		default:
			_, conv, _ := argsMethod(prm.Type)
			t := g.ts(prm.Type)
			switch {
			case conv == "bool":
				call = append(call, fmt.Sprintf("a.%s != 0", prm.Name))
			case conv != t:
				call = append(call, fmt.Sprintf("%s(a.%s)", t, prm.Name))
			default:
				call = append(call, "a."+prm.Name)
			}
		}
	}
	return views, call
}

// fissionOf is kernel ki's fission, planned and written once per generic
// kernel with the device functions it calls; a nil plan says why not.
func (g *writer) fissionOf(ki int) (*fissionPlan, string, error) {
	k := &g.res.Kernels[ki]
	if f := g.fissions[k.Decl]; f != nil {
		return f.plan, f.why, nil
	}
	f := &fission{}
	g.fissions[k.Decl] = f
	var err error
	if f.plan, err = planFissionWith(g.res, k, g.calleePlans); err != nil {
		f.why = err.Error()
		return nil, f.why, nil
	}
	decl, use := "", ""
	if sig := originSig(g.res, k); sig != nil && k.TypeArgs != nil {
		decl, use = typeParamsGo(sig, g.ts)
	}
	if err := f.plan.emit(&g.fis, k.GoName+"Group", lower(k.GoName)+"Locals", decl, use, g.ts); err != nil {
		return nil, "", fmt.Errorf("kernel %s: %w", k.GoName, err)
	}
	for _, c := range f.plan.callees() {
		if g.calleeDone[c] {
			continue
		}
		g.calleeDone[c] = true
		decl, use := "", ""
		if sig := originSig(g.res, c.k); sig != nil {
			decl, use = typeParamsGo(sig, g.ts)
		}
		if err := c.emit(&g.fis, calleeGroup(c.k.GoName), calleeLocals(c.k.GoName), decl, use, g.ts); err != nil {
			return nil, "", fmt.Errorf("device function %s: %w", c.k.GoName, err)
		}
	}
	return f.plan, "", nil
}

// cpuFunction writes kernel ki's function for the cpu agent: a loop over
// the block's work-items where it does not synchronize, its fission where
// it does and fission applies, coroutines where fission does not.
func (g *writer) cpuFunction(ki int, f argFields) error {
	k := &g.res.Kernels[ki]
	callee := k.GoName + typeArgsGo(k, g.ts)
	views, call := g.callArgs(k, f)
	var opts []string
	if k.MaxThreads > 0 {
		opts = append(opts, fmt.Sprintf("kernel.MaxThreads(%d)", k.MaxThreads))
	}
	if k.StaticShared > 0 {
		opts = append(opts, fmt.Sprintf("kernel.StaticShared(%d)", k.StaticShared))
	}
	var plan *fissionPlan
	why := ""
	if k.Lockstep {
		var err error
		if plan, why, err = g.fissionOf(ki); err != nil {
			return err
		}
	}
	switch {
	case !k.Lockstep:
		g.p("// %sKernel runs %s on the cpu agent.\n", k.Ident, callee)
	case plan != nil:
		g.p("// %sKernel runs %s on the cpu agent by loop fission (%sGroup),\n// without coroutines but where kernelimpl.SetCoroutines asks for them.\n", k.Ident, callee, k.GoName)
	default:
		g.p("// %sKernel runs %s on the cpu agent as coroutines (kernelimpl.Lockstep):\n// loop fission does not apply (%s).\n", k.Ident, callee, why)
		if g.cfg.Report != nil {
			fmt.Fprintf(g.cfg.Report, "%s:%d: %s runs as coroutines on the cpu agent: %s\n", filepath.Base(k.Pos.Filename), k.Pos.Line, callee, why)
		}
	}
	g.p("var %sKernel = kernel.Define(%q, func(b *kernel.Block, a *%s) {\n", k.Ident, k.Name, f.args)
	switch {
	case plan != nil:
		// The coroutines run the kernel's own function, which tests
		// compare the fission with.
		g.p("\tif kernelimpl.Coroutines() {\n")
		g.lockstepCall(k, callee, views, append([]string(nil), call...))
		g.p("\t\treturn\n\t}\n")
		g.fissionCall(k, views, call)
		opts = append(opts, "kernelimpl.Lockstep()")
	case !k.Lockstep:
		g.loopCall(ki, callee, views, call)
	default:
		opts = append(opts, "kernelimpl.Lockstep()")
		g.lockstepCall(k, callee, views, call)
	}
	g.p("}%s)\n\n", joinArgs(opts))
	return nil
}

// fissionCall calls the kernel's fission (kernelGroup) once for the block.
func (g *writer) fissionCall(k *kernelgen.Kernel, views, call []string) {
	vi := 0
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice {
			call[i] = views[vi]
			vi++
		}
	}
	g.p("\t%sGroup%s(b%s)\n", k.GoName, typeArgsGo(k, g.ts), joinArgs(call))
}

// loopCall calls the kernel once per work-item in a plain loop.
func (g *writer) loopCall(ki int, callee string, views, call []string) {
	k, p := &g.res.Kernels[ki], g.p
	vi := 0
	var reach []string
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice {
			p("\tv%d := %s\n", i, views[vi])
			call[i] = fmt.Sprintf("v%d", i)
			reach = append(reach, fmt.Sprintf("hi <= len(v%d)", i))
			vi++
		} else {
			// In locals, the arguments stay in registers: the
			// kernel's stores could alias *a, which the compiler
			// would otherwise read again for every work-item.
			p("\ts%d := %s\n", i, call[i])
			call[i] = fmt.Sprintf("s%d", i)
		}
	}
	for _, i := range globalGuards(k) {
		reach = append(reach, fmt.Sprintf("hi <= int(s%d)", i))
	}
	// A one-dimensional block keeps its Thread in registers.
	p("\tn := b.Threads()\n\tif t, ok := b.First(); ok {\n")
	if len(reach) > 0 {
		// Where every view reaches past the block's last work-item,
		// the compiler proves the indexes by GlobalX in range and
		// drops their bounds checks; other indexes keep theirs.
		p("\t\tif lo, hi := t.GlobalX(), t.GlobalX()+n; lo >= 0 && %s {\n", strings.Join(reach, " && "))
		p("\t\t\tfor g := lo; g < hi; g++ {\n\t\t\t\t%s(t.Nth(g-lo)%s)\n\t\t\t}\n\t\t\treturn\n\t\t}\n", callee, joinArgs(call))
	}
	p("\t\tfor i := 0; i < n; i++ {\n\t\t\t%s(t.Nth(i)%s)\n\t\t}\n\t\treturn\n\t}\n", callee, joinArgs(call))
	p("\tfor i := 0; i < n; i++ {\n\t\t%s(b.Thread(i)%s)\n\t}\n", callee, joinArgs(call))
}

// lockstepCall runs the kernel's work-items as coroutines, their
// arguments in a frame (written to tail) the block keeps.
func (g *writer) lockstepCall(k *kernelgen.Kernel, callee string, views, call []string) {
	frameT := lower(k.Ident) + "Frame"
	g.p("\tf := kernelimpl.Frame[%s](b)\n", frameT)
	vi := 0
	var fcall []string
	for i, prm := range k.Params {
		if prm.Kind == kernelgen.Slice {
			g.p("\tf.p%d = %s\n", i, views[vi])
			vi++
		} else {
			g.p("\tf.p%d = %s\n", i, call[i])
		}
		fcall = append(fcall, fmt.Sprintf("f.p%d", i))
	}
	g.p("\tb.Lockstep(func(t kernel.Thread) {\n\t\tf := kernelimpl.FrameOf[%s](t)\n\t\t%s(t%s)\n\t})\n", frameT, callee, joinArgs(fcall))
	fmt.Fprintf(&g.tail, "// %s holds %s's arguments for its lockstep work-items.\ntype %s struct {\n", frameT, callee, frameT)
	for i, prm := range k.Params {
		t := g.ts(prm.Type)
		if prm.Kind == kernelgen.Slice {
			t = "[]" + t
		}
		fmt.Fprintf(&g.tail, "\tp%d %s\n", i, t)
	}
	fmt.Fprintf(&g.tail, "}\n\n")
}
