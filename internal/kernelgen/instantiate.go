package kernelgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
	"unicode"
)

// A generic kernel (a //hipgo:kernel with type parameters) is translated
// once, as the same `template <bool Checked, class T...>` body a generic
// device function is, and gets a pair of extern "C" entry points per
// instance: NAME_ARGS and NAME_ARGS_checked, ARGS its type arguments' names
// in snake case joined by "_" (scale_float32, pair_int32_float64). The
// instances are those its //hipgo:instantiate lines list, and those the
// package's calls of its generated launcher name (LaunchScale[float32](...)
// or an argument of a type that fixes a type parameter): see
// Options.Prefix.

// instantiateDirective lists a generic kernel's instances:
//
//	//hipgo:instantiate T=float32,int32,float64
//	//hipgo:instantiate K=uint32,uint64 V=float32
//
// Each line names every type parameter once, with its type arguments
// separated by commas, and asks for every combination; several lines add
// up.
const instantiateDirective = "//hipgo:instantiate"

// instance is one instantiation of a generic kernel.
type instance struct {
	targs []types.Type
	pos   token.Pos // where it is asked for
}

// instances collects fn's instances: its directives', then its launcher
// calls', in source order, each once.
func (t *translator) instances(fn *function) []instance {
	tps := fn.obj.Type().(*types.Signature).TypeParams()
	var out []instance
	seen := map[string]bool{}
	add := func(targs []types.Type, pos token.Pos) {
		var names []string
		for _, a := range targs {
			names = append(names, a.String())
		}
		key := strings.Join(names, ",")
		if seen[key] || !t.validInstance(fn, targs, pos) {
			return
		}
		seen[key] = true
		out = append(out, instance{targs, pos})
	}
	asked := false
	if fn.decl.Doc != nil {
		for _, c := range fn.decl.Doc.List {
			f := strings.Fields(c.Text)
			if len(f) == 0 || f[0] != instantiateDirective {
				continue
			}
			asked = true
			for _, targs := range t.parseInstantiate(c, tps) {
				add(targs, c.Pos())
			}
		}
	}
	for _, call := range t.launcherCalls(fn) {
		asked = true
		add(call.targs, call.pos)
	}
	if !asked {
		t.errorf(fn.decl.Name.Pos(), "generic kernel "+fn.obj.Name()+" without instances",
			"list its type arguments on a line of its doc comment, %s %s=float32,int32, or call %s[float32](...) in the package",
			instantiateDirective, tps.At(0).Obj().Name(), t.opts.prefix()+exportedName(fn.obj.Name()))
	}
	return out
}

// parseInstantiate reads one //hipgo:instantiate line: every combination
// of the type arguments it names.
func (t *translator) parseInstantiate(c *ast.Comment, tps *types.TypeParamList) [][]types.Type {
	at := func(field string, off int) token.Pos {
		return c.Pos() + token.Pos(strings.Index(c.Text, field)+off)
	}
	lists := make([][]types.Type, tps.Len())
	bad := false
	for _, field := range strings.Fields(c.Text)[1:] {
		name, args, ok := strings.Cut(field, "=")
		i := typeParamIndex(tps, name)
		switch {
		case !ok || args == "":
			t.errorf(at(field, 0), "instantiate directive "+field, "write %s T=float32,int32: each type parameter, =, its type arguments separated by commas", instantiateDirective)
			bad = true
			continue
		case i < 0:
			t.errorf(at(field, 0), "instantiate directive "+field, "%s is not a type parameter of the kernel", name)
			bad = true
			continue
		case lists[i] != nil:
			t.errorf(at(field, 0), "instantiate directive "+field, "%s is named twice on the line", name)
			bad = true
			continue
		}
		off := len(name) + 1
		for _, a := range strings.Split(args, ",") {
			pos := at(field, off)
			off += len(a) + 1
			typ := t.typeArg(a, pos)
			if typ == nil {
				bad = true
				continue
			}
			lists[i] = append(lists[i], typ)
		}
	}
	for i := range lists {
		if lists[i] == nil && !bad {
			t.errorf(c.Pos(), "instantiate directive without "+tps.At(i).Obj().Name(), "name every type parameter: %s %s=float32", instantiateDirective, tps.At(i).Obj().Name())
			bad = true
		}
	}
	if bad {
		return nil
	}
	// Every combination, the first parameter varying slowest.
	combos := [][]types.Type{nil}
	for _, l := range lists {
		var next [][]types.Type
		for _, c := range combos {
			for _, typ := range l {
				next = append(next, append(append([]types.Type(nil), c...), typ))
			}
		}
		combos = next
	}
	return combos
}

func typeParamIndex(tps *types.TypeParamList, name string) int {
	for i := 0; i < tps.Len(); i++ {
		if tps.At(i).Obj().Name() == name {
			return i
		}
	}
	return -1
}

// typeArg resolves a type argument's name, a predeclared type or one the
// package declares, in the package's scope.
func (t *translator) typeArg(name string, pos token.Pos) types.Type {
	obj := t.pkg.Types.Scope().Lookup(name)
	if obj == nil {
		obj = types.Universe.Lookup(name)
	}
	tn, ok := obj.(*types.TypeName)
	if !ok {
		t.errorf(pos, "type argument "+name, "a type argument is a predeclared number or bool type, or a type the package declares")
		return nil
	}
	return tn.Type()
}

// validInstance reports whether the kernel compiles for targs: each a
// type a kernel's values may have, that satisfies its constraint. What
// else the body does with a type parameter Go's type checker has already
// held to the constraint, and the kernel SDK's constraints are the
// subset's (kernel.Atomic, kernel.Word4, ...).
func (t *translator) validInstance(fn *function, targs []types.Type, pos token.Pos) bool {
	name := instanceString(fn.obj.Name(), targs)
	for _, a := range targs {
		if why := typeArgRefused(a, t.pkg.Types); why != "" {
			t.errorf(pos, "instance "+name, "%s: %s", a, why)
			return false
		}
	}
	if _, err := types.Instantiate(nil, fn.obj.Type(), targs, true); err != nil {
		t.errorf(pos, "instance "+name, "%v", err)
		return false
	}
	return true
}

// typeArgRefused says why typ cannot be a kernel's type argument, ""
// when it can: a number, a bool, or a non-generic package-level type of
// pkg whose values are fixed-size numbers, bools, arrays and structs of
// them.
func typeArgRefused(typ types.Type, pkg *types.Package) string {
	typ = types.Unalias(typ)
	switch u := typ.(type) {
	case *types.Basic:
		if _, ok := basicC[u.Kind()]; !ok || u.Info()&types.IsUntyped != 0 {
			return "a kernel's values are fixed-size numbers, bools, arrays and structs of them"
		}
		return ""
	case *types.Named:
		if u.Obj().Pkg() != pkg || u.Obj().Parent() != pkg.Scope() {
			return "a type argument is a predeclared type or a package-level type of the kernel's package"
		}
		if u.TypeParams().Len() > 0 {
			return "a generic type is not a kernel's type argument"
		}
		if !fixedSize(u) {
			return "a kernel's values are fixed-size numbers, bools, arrays and structs of them"
		}
		return ""
	}
	return "a type argument is a predeclared type or a package-level type of the kernel's package"
}

// instanceString is name[targs...] as Go writes it.
func instanceString(name string, targs []types.Type) string {
	var s []string
	for _, a := range targs {
		s = append(s, typeArgName(a))
	}
	return name + "[" + strings.Join(s, ", ") + "]"
}

// typeArgName is the name a type argument is known by: float32, Celsius.
func typeArgName(typ types.Type) string {
	switch u := types.Unalias(typ).(type) {
	case *types.Basic:
		return u.Name()
	case *types.Named:
		return u.Obj().Name()
	}
	return typ.String()
}

// instanceNames are an instance's C symbol (scale_float32) and Go
// identifier (ScaleFloat32).
func instanceNames(goName string, targs []types.Type) (cSym, ident string) {
	cSym, ident = snake(goName), goName
	for _, a := range targs {
		n := typeArgName(a)
		cSym += "_" + snake(n)
		ident += exportedName(n)
	}
	return cName(cSym), ident
}

func exportedName(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// subst is typ with the type parameters of m replaced by their
// arguments, for the types a kernel's parameters and shared variables
// have.
func subst(typ types.Type, m map[*types.TypeParam]types.Type) types.Type {
	switch u := typ.(type) {
	case *types.TypeParam:
		if a, ok := m[u]; ok {
			return a
		}
	case *types.Array:
		return types.NewArray(subst(u.Elem(), m), u.Len())
	case *types.Slice:
		return types.NewSlice(subst(u.Elem(), m))
	case *types.Pointer:
		return types.NewPointer(subst(u.Elem(), m))
	}
	return typ
}

// mentionsTypeParam reports whether typ is or holds a type parameter.
func mentionsTypeParam(typ types.Type) bool {
	switch u := typ.(type) {
	case *types.TypeParam:
		return true
	case *types.Array:
		return mentionsTypeParam(u.Elem())
	case *types.Slice:
		return mentionsTypeParam(u.Elem())
	case *types.Pointer:
		return mentionsTypeParam(u.Elem())
	}
	return false
}

// Options are what a translation needs to know of the code generated
// around it.
type Options struct {
	// Prefix is the generated launchers' prefix (LaunchScale for Scale):
	// the package's calls of a generic kernel's launcher instantiate it.
	// Empty: "Launch".
	Prefix string
	// Overlay replaces files of the package (absolute paths) for the
	// translation: WriteInstances's InstFile without its init.
	Overlay map[string][]byte
}

func (o Options) prefix() string {
	if o.Prefix == "" {
		return "Launch"
	}
	return o.Prefix
}

// launcherArgs is how many arguments a generated launcher takes before
// the kernel's own: the stream, grid, block and sharedMem.
const launcherArgs = 4

// launcherCalls are the instances the package's calls of fn's launcher
// ask for: its explicit type arguments (LaunchScale[float32](...)), or
// the types of the arguments that fix the type parameters (a T or a
// buffer.Array[T] of the kernel's parameters). The launcher does not
// exist yet when the package is loaded, so the type checker has only the
// arguments' types; a call whose type arguments these do not give is
// left to the compiler.
func (t *translator) launcherCalls(fn *function) []instance {
	name := t.opts.prefix() + exportedName(fn.obj.Name())
	sig := fn.obj.Type().(*types.Signature)
	tps := sig.TypeParams()
	var out []instance
	for _, f := range t.pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var id *ast.Ident
			var explicit []ast.Expr
			switch x := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				id = x
			case *ast.IndexExpr:
				id, _ = x.X.(*ast.Ident)
				explicit = []ast.Expr{x.Index}
			case *ast.IndexListExpr:
				id, _ = x.X.(*ast.Ident)
				explicit = x.Indices
			}
			if id == nil || id.Name != name || t.info.Uses[id] != nil {
				return true
			}
			targs := make([]types.Type, tps.Len())
			for i, e := range explicit {
				if i < len(targs) {
					targs[i] = t.explicitTypeArg(e)
				}
			}
			t.inferTypeArgs(sig, call, targs)
			for _, a := range targs {
				if a == nil {
					return true
				}
			}
			out = append(out, instance{targs, call.Pos()})
			return true
		})
	}
	return out
}

func (t *translator) explicitTypeArg(e ast.Expr) types.Type {
	if tv, ok := t.info.Types[e]; ok && tv.IsType() {
		return tv.Type
	}
	if id, ok := e.(*ast.Ident); ok {
		return t.typeArg(id.Name, id.Pos())
	}
	return nil
}

// inferTypeArgs fills the type arguments left nil from the arguments of
// call that stand for a kernel parameter of type T or []T: typed ones
// first, then the default type of an untyped constant, as Go infers.
func (t *translator) inferTypeArgs(sig *types.Signature, call *ast.CallExpr, targs []types.Type) {
	for _, untyped := range []bool{false, true} {
		for i := 1; i < sig.Params().Len(); i++ { // after the kernel.Thread
			ai := launcherArgs + i - 1
			if ai >= len(call.Args) {
				break
			}
			at := t.info.TypeOf(call.Args[ai])
			if at == nil {
				continue
			}
			pt := sig.Params().At(i).Type()
			if sl, ok := pt.(*types.Slice); ok {
				pt, at = sl.Elem(), bufferElem(at)
			}
			tp, ok := pt.(*types.TypeParam)
			if !ok || at == nil || targs[tp.Index()] != nil {
				continue
			}
			if b, ok := at.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				if !untyped {
					continue
				}
				at = types.Default(at)
			}
			targs[tp.Index()] = at
		}
	}
}

// bufferElem is T of a buffer.Array[T] argument (a *buffer.Buffer[T],
// *buffer.Host[T], ...): the one type argument of its named type.
func bufferElem(typ types.Type) types.Type {
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	if n, ok := types.Unalias(typ).(*types.Named); ok && n.TypeArgs().Len() == 1 {
		return n.TypeArgs().At(0)
	}
	return nil
}

// addShared is the static shared bytes after a kernel.Shared of elem
// placed after static bytes, at its alignment.
func addShared(static int, elem types.Type, sizes types.Sizes) int {
	size, align := sizes.Sizeof(elem), sizes.Alignof(elem)
	off := (int64(static) + align - 1) / align * align
	return int(off + size)
}

// instanceShared is the static shared memory of k, an instance of the
// generic kernel fn: its kernel.Shared variables with k's type arguments,
// at most maxStaticShared.
func (t *translator) instanceShared(fn *function, k *Kernel) int {
	tps := fn.obj.Type().(*types.Signature).TypeParams()
	m := map[*types.TypeParam]types.Type{}
	for i := 0; i < tps.Len(); i++ {
		m[tps.At(i)] = k.TypeArgs[i]
	}
	static := 0
	for _, elem := range fn.shared {
		static = addShared(static, subst(elem, m), t.sizes)
	}
	if static > maxStaticShared {
		t.errorf(fn.decl.Name.Pos(), fmt.Sprintf("%d bytes of kernel.Shared in instance %s", static, instanceString(fn.obj.Name(), k.TypeArgs)),
			"a kernel's static shared memory is at most %d bytes (CUDA's bound; AMD's LDS is 64 KiB): take the rest as kernel.DynamicShared", maxStaticShared)
	}
	return static
}

// minBlocksPrelude lets __launch_bounds__ take a second argument offline,
// where the prelude's own definition takes one (NVRTC and hipRTC have
// theirs, which take both). Written only where a kernel asks for
// minblocks, so other translations keep their text.
const minBlocksPrelude = `// __launch_bounds__(maxThreads, minBlocks)
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#undef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif

`
