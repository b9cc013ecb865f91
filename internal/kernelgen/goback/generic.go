package goback

import (
	"bytes"
	"fmt"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// A generic kernel's Go side. Each instance (kernelgen.Kernel.TypeArgs)
// is a kernel of its own, as a non-generic one is: its kernarg layout,
// its cpu function (calling Scale[float32]) and an unexported launcher,
// launchScaleFloat32. Above them one generic launcher, LaunchScale[T],
// takes what the kernel takes with T in place and picks the instance by a
// type switch on a nil *T: a Go user calls one function for every
// element type, as with any generic function; a type argument the kernel
// is not instantiated for does not compile, since T's constraint is the
// union of the instantiated types (scaleTypes); and the switch costs a
// comparison of type words, with no reflection and no allocation. The
// fission of a generic kernel is one generic function, ScaleGroup[T].

// typeArgsGo is k's type arguments as Go writes them after a name,
// "[float32]", or "" for a kernel without type parameters.
func typeArgsGo(k *kernelgen.Kernel, ts func(types.Type) string) string {
	if k.TypeArgs == nil {
		return ""
	}
	var s []string
	for _, a := range k.TypeArgs {
		s = append(s, ts(a))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// originSig is the signature of the generic kernel k instantiates.
func originSig(res *kernelgen.Result, k *kernelgen.Kernel) *types.Signature {
	if res.Info == nil || k.Decl == nil {
		return nil
	}
	fn, _ := res.Info.Defs[k.Decl.Name].(*types.Func)
	if fn == nil {
		return nil
	}
	return fn.Type().(*types.Signature)
}

// typeParamsGo are a generic function's type parameters as it declares
// them, "[T Number]", and as it uses them, "[T]".
func typeParamsGo(sig *types.Signature, ts func(types.Type) string) (decl, use string) {
	tps := sig.TypeParams()
	if tps == nil || tps.Len() == 0 {
		return "", ""
	}
	var d, u []string
	for i := 0; i < tps.Len(); i++ {
		tp := tps.At(i)
		d = append(d, tp.Obj().Name()+" "+ts(tp.Constraint()))
		u = append(u, tp.Obj().Name())
	}
	return "[" + strings.Join(d, ", ") + "]", "[" + strings.Join(u, ", ") + "]"
}

// instanceLauncher is the unexported launcher of one instance.
func instanceLauncher(prefix string, k *kernelgen.Kernel) string {
	return lower(prefix) + k.Ident
}

// constraintName is the generated union of the type arguments a generic
// kernel's type parameter i takes.
func constraintName(k *kernelgen.Kernel, sig *types.Signature, i int) string {
	if sig.TypeParams().Len() == 1 {
		return lower(k.GoName) + "Types"
	}
	return lower(k.GoName) + sig.TypeParams().At(i).Obj().Name() + "Types"
}

// writeGenericLauncher writes the generic launcher of the generic kernel
// whose instances are insts (consecutive in Result.Kernels) and the
// constraints of its type parameters.
func writeGenericLauncher(w *bytes.Buffer, cfg Config, res *kernelgen.Result, insts []*kernelgen.Kernel, ts func(types.Type) string) {
	k := insts[0]
	sig := originSig(res, k)
	tps := sig.TypeParams()
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	var tparams []string
	for i := 0; i < tps.Len(); i++ {
		var union []string
		seen := map[string]bool{}
		for _, in := range insts {
			if t := ts(in.TypeArgs[i]); !seen[t] {
				seen[t] = true
				union = append(union, t)
			}
		}
		c := constraintName(k, sig, i)
		p("// %s are the type arguments %s is instantiated for as %s.\ntype %s interface {\n\t%s\n}\n\n",
			c, k.GoName, tps.At(i).Obj().Name(), c, strings.Join(union, " | "))
		tparams = append(tparams, tps.At(i).Obj().Name()+" "+c)
	}
	lname := launcherNames(k.Params, cfg.Var)
	var params []string
	for i := 1; i < sig.Params().Len(); i++ {
		params = append(params, fmt.Sprintf("%s %s", lname[i-1], launcherType(sig.Params().At(i).Type(), ts)))
	}
	var list []string
	for _, in := range insts {
		list = append(list, typeArgsGo(in, ts))
	}
	p("// %s%s launches %s (%s:%d) on s: grid blocks of block threads, with\n// sharedMem bytes of dynamic shared memory. A slice parameter takes a\n// buffer; the kernel sees its length. It is instantiated for %s.\n",
		cfg.Prefix, exported(k.GoName), k.GoName, filepath.Base(k.Pos.Filename), k.Pos.Line, strings.Join(list, ", "))
	p("func %s%s[%s](s *stream.Stream, grid, block gpu.Dim3, sharedMem int%s) error {\n", cfg.Prefix, exported(k.GoName), strings.Join(tparams, ", "), joinArgs(params))
	// One type parameter: a *T; several: a pointer to a struct of them.
	key := func(args []string) string {
		if len(args) == 1 {
			return "*" + args[0]
		}
		var fs []string
		for i, a := range args {
			fs = append(fs, fmt.Sprintf("a%d %s", i, a))
		}
		return "*struct{ " + strings.Join(fs, "; ") + " }"
	}
	var tpNames []string
	for i := 0; i < tps.Len(); i++ {
		tpNames = append(tpNames, tps.At(i).Obj().Name())
	}
	p("\tswitch any((%s)(nil)).(type) {\n", key(tpNames))
	for _, in := range insts {
		var targs []string
		for _, a := range in.TypeArgs {
			targs = append(targs, ts(a))
		}
		var args []string
		for i := 1; i < sig.Params().Len(); i++ {
			pt := sig.Params().At(i).Type()
			name := lname[i-1]
			if !mentionsTypeParam(pt) {
				args = append(args, name)
				continue
			}
			// T is the instance's type here: the same bits.
			args = append(args, fmt.Sprintf("*(*%s)(unsafe.Pointer(&%s))", instanceLauncherType(in.Params[i-1], ts), name))
		}
		p("\tcase %s:\n\t\treturn %s(s, grid, block, sharedMem%s)\n", key(targs), instanceLauncher(cfg.Prefix, in), joinArgs(args))
	}
	p("\t}\n\treturn gpu.Errorf(gpu.ErrInvalidValue, \"launch\", \"kernel %s is not instantiated for these type arguments: add them to its //hipgo:instantiate line\")\n}\n\n", k.GoName)
}

// launcherType is the launcher's parameter type for a kernel parameter
// of type t: a slice takes a buffer.
func launcherType(t types.Type, ts func(types.Type) string) string {
	if sl, ok := t.(*types.Slice); ok {
		return "buffer.Array[" + ts(sl.Elem()) + "]"
	}
	return ts(t)
}

// instanceLauncherType is an instance launcher's parameter type for prm.
func instanceLauncherType(prm kernelgen.Param, ts func(types.Type) string) string {
	if prm.Kind == kernelgen.Slice {
		return "buffer.Array[" + ts(prm.Type) + "]"
	}
	return ts(prm.Type)
}

// mentionsTypeParam reports whether t is or holds a type parameter.
func mentionsTypeParam(t types.Type) bool {
	switch u := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Slice:
		return mentionsTypeParam(u.Elem())
	case *types.Array:
		return mentionsTypeParam(u.Elem())
	case *types.Pointer:
		return mentionsTypeParam(u.Elem())
	}
	return false
}

// lastInstance reports whether Kernels[ki] is the last instance of a
// generic kernel.
func lastInstance(res *kernelgen.Result, ki int) bool {
	k := &res.Kernels[ki]
	return k.TypeArgs != nil && (ki+1 == len(res.Kernels) || res.Kernels[ki+1].Decl != k.Decl)
}

// instancesOf are the instances of the generic kernel whose last
// instance is Kernels[ki].
func instancesOf(res *kernelgen.Result, ki int) []*kernelgen.Kernel {
	var out []*kernelgen.Kernel
	for i := ki; i >= 0 && res.Kernels[i].Decl == res.Kernels[ki].Decl; i-- {
		out = append([]*kernelgen.Kernel{&res.Kernels[i]}, out...)
	}
	return out
}

// addImports adds to the generated file's import block the packages of
// extra (path → name) it does not import yet, in path order.
func addImports(src []byte, extra map[string]string) []byte {
	const block = "import (\n"
	i := bytes.Index(src, []byte(block))
	if i < 0 || len(extra) == 0 {
		return src
	}
	var paths []string
	for path := range extra {
		if !bytes.Contains(src[i:], []byte(fmt.Sprintf("%q", path))) {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	var b bytes.Buffer
	for _, path := range paths {
		if name := extra[path]; name != path[strings.LastIndex(path, "/")+1:] {
			fmt.Fprintf(&b, "\t%s %q\n", name, path)
		} else {
			fmt.Fprintf(&b, "\t%q\n", path)
		}
	}
	at := i + len(block)
	return append(append(append([]byte{}, src[:at]...), b.Bytes()...), src[at:]...)
}
