package goback

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

func joinArgs(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return ", " + strings.Join(xs, ", ")
}

func exported(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func lower(name string) string {
	r := []rune(name)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// launcherIdents are the identifiers a generated launcher uses besides its
// kernel's parameters: its own parameters and locals, the packages the
// file imports and the predeclared names it converts with.
var launcherIdents = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`s grid block sharedMem ld checked err args
	gpu buffer gokernel module stream rocr kernel embed
	nil error bool int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64`) {
		launcherIdents[w] = true
	}
}

// launcherNames are the names the launcher gives the kernel's parameters:
// each its own, unless the launcher takes that name (launcherIdents, the
// package's kernel set v), then with trailing underscores until it is
// free.
func launcherNames(ps []kernelgen.Param, v string) []string {
	taken := map[string]bool{}
	for _, p := range ps {
		taken[p.Name] = true
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		n := p.Name
		if launcherIdents[n] || n == v {
			for launcherIdents[n] || n == v || taken[n] {
				n += "_"
			}
			taken[n] = true
		}
		out[i] = n
	}
	return out
}

// packageScope is the scope of the package the kernels are declared in,
// or nil.
func packageScope(res *kernelgen.Result) *types.Scope {
	if res.Info == nil {
		return nil
	}
	for _, k := range res.Kernels {
		if k.Decl != nil {
			if obj := res.Info.Defs[k.Decl.Name]; obj != nil && obj.Pkg() != nil {
				return obj.Pkg().Scope()
			}
		}
	}
	return nil
}

// aliasImports renames, in the generated file src, each import whose name
// the package declares itself (a package-level stream or gpu would clash
// with it) to hg plus that name. Where nothing clashes src comes back as
// it is.
func aliasImports(src []byte, scope *types.Scope) ([]byte, error) {
	if scope == nil {
		return src, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("generated Go does not parse: %w", err), errors.New(string(src)))
	}
	alias := map[string]string{}
	for _, im := range f.Imports {
		if im.Name != nil {
			continue
		}
		path := strings.Trim(im.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if scope.Lookup(name) == nil {
			continue
		}
		a := "hg" + name
		for scope.Lookup(a) != nil {
			a += "_"
		}
		alias[name] = a
		im.Name = ast.NewIdent(a)
	}
	if len(alias) == 0 {
		return src, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		// The generated code refers to an import only as pkg.Name, and
		// to nothing else of that name through a selector but its own
		// parameters and locals, which resolve.
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil && alias[id.Name] != "" {
				id.Name = alias[id.Name]
			}
		}
		return true
	})
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// CheckNames refuses a package that declares, outside the generated
// file, a name the generated file declares: the kernel set, a kernel's
// launcher, kernarg layout, frame or cpu function.
func CheckNames(cfg Config, res *kernelgen.Result, objs int) error {
	scope := packageScope(res)
	if scope == nil || res.Fset == nil {
		return nil
	}
	names := map[string]string{cfg.Var: "the kernel set", cfg.Var + "Source": "the kernels' C++"}
	for i := 0; i < objs; i++ {
		names[fmt.Sprintf("%sObject%d", cfg.Var, i)] = "a code object"
	}
	type genName struct {
		decl *ast.FuncDecl
		what string
		pos  token.Position
	}
	owner := map[string]genName{}
	var clashes []error
	for _, k := range res.Kernels {
		gen := map[string]string{
			cfg.Prefix + exported(k.GoName): "launcher", lower(k.Ident) + "Args": "kernarg layout",
			k.Ident + "Kernel": "cpu function",
		}
		if k.TypeArgs != nil {
			gen[instanceLauncher(cfg.Prefix, &k)] = "instance's launcher"
			if sig := originSig(res, &k); sig != nil {
				for i := 0; i < sig.TypeParams().Len(); i++ {
					gen[constraintName(&k, sig, i)] = "type arguments"
					// The generic launcher declares the type parameters
					// beside its own parameters and imports.
					if tp := sig.TypeParams().At(i).Obj(); launcherIdents[tp.Name()] || tp.Name() == cfg.Var {
						clashes = append(clashes, fmt.Errorf("%s: type parameter %s of kernel %s is also a name its generated launcher uses: rename it",
							res.Fset.PositionFor(tp.Pos(), false), tp.Name(), k.GoName))
					}
				}
			}
		}
		if k.Lockstep {
			gen[lower(k.Ident)+"Frame"] = "lockstep frame"
			gen[k.GoName+"Group"] = "fission"
			gen[lower(k.GoName)+"Locals"] = "fission's locals"
		}
		for n, what := range gen {
			what = "kernel " + k.Ident + "'s " + what
			if o, ok := owner[n]; ok && o.decl != k.Decl {
				// Two kernels' generated names meet: AB[Float] and
				// A[BFloat] are both ABFloat.
				clashes = append(clashes, fmt.Errorf("%s: %s is the name of both %s and %s (%s) in the generated %s: rename one of the kernels or types",
					k.Pos, n, what, o.what, o.pos, cfg.Out))
				continue
			}
			owner[n] = genName{k.Decl, what, k.Pos}
			names[n] = what
		}
	}
	sort.Slice(clashes, func(i, j int) bool { return clashes[i].Error() < clashes[j].Error() })
	errs := clashes
	// The cpu functions call the kernel and convert to its parameters'
	// types inside closures whose own names would hide them.
	hidden := func(obj types.Object, what string) {
		n := obj.Name()
		if !closureLocal(n) || obj.Pkg() == nil || obj.Pkg().Scope() != scope {
			return
		}
		errs = append(errs, fmt.Errorf("%s: %s: the generated %s names a local %s in its cpu function: rename it",
			res.Fset.PositionFor(obj.Pos(), false), what, cfg.Out, n))
	}
	for _, k := range res.Kernels {
		if k.Decl != nil {
			if obj := res.Info.Defs[k.Decl.Name]; obj != nil {
				hidden(obj, "kernel "+k.GoName)
			}
		}
		for _, prm := range k.Params {
			if nt, ok := prm.Type.(*types.Named); ok {
				hidden(nt.Obj(), "type "+nt.Obj().Name()+" of kernel "+k.GoName+"'s parameter "+prm.Name)
			}
		}
	}
	for _, n := range scope.Names() {
		what, ok := names[n]
		if !ok {
			continue
		}
		pos := res.Fset.PositionFor(scope.Lookup(n).Pos(), false) // not a //line directive's
		if filepath.Base(pos.Filename) == filepath.Base(cfg.Out) {
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s is also the name of %s in the generated %s: rename it", pos, n, what, cfg.Out))
	}
	return errors.Join(errs...)
}

// closureLocal reports whether the cpu function of a generated kernel
// (kernel.Define's closure) declares n: its parameters, loop variables
// and argument copies (v0, s1, p2).
func closureLocal(n string) bool {
	switch n {
	case "a", "b", "n", "t", "ok", "lo", "hi", "g", "i", "f":
		return true
	}
	if len(n) > 1 && strings.ContainsRune("vsp", rune(n[0])) {
		_, err := strconv.Atoi(n[1:])
		return err == nil
	}
	return false
}
