package cpplaunch

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checkTwins checks the Go twins of the C++ kernels, the cpu agent's
// kernels that -cpu names, against their C declarations: the argument
// struct of each Define("name", func(g, a *Args)) in the package's Go
// files in dir whose name is a kernel of the sources. A twin that
// disagrees would be refused at launch, or panic at start-up (a field of
// Go's int, whose size is the platform's); here generation fails instead,
// naming the field and the type to declare. Fields whose types are named
// or composite are counted but not checked.
func checkTwins(dir string, kernels []*kernel) error {
	byName := map[string]*kernel{}
	for _, k := range kernels {
		byName[k.Name] = k
	}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil // the compiler will say it better; nothing to check against
		}
		files = append(files, f)
	}
	structs := map[string]*ast.StructType{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					structs[ts.Name.Name] = st
				}
			}
			return true
		})
	}
	var errs []error
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isDefine(call.Fun) || len(call.Args) < 2 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			k := byName[name]
			if err != nil || k == nil {
				return true
			}
			fn, ok := call.Args[1].(*ast.FuncLit)
			if !ok {
				return true
			}
			args := argsType(fn)
			st := structs[args]
			if st == nil {
				return true
			}
			if err := checkTwin(k, args, st); err != nil {
				errs = append(errs, fmt.Errorf("%s: the Go twin of %s (%s) disagrees with its C declaration at %s: %w", fset.Position(call.Pos()), name, args, k.where(), err))
			}
			return true
		})
	}
	return errors.Join(errs...)
}

// isDefine reports whether f is X.Define or X.Define[T].
func isDefine(f ast.Expr) bool {
	if ix, ok := f.(*ast.IndexExpr); ok {
		f = ix.X
	}
	sel, ok := f.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Define"
}

// argsType is the name of the struct a kernel function's last parameter
// points to: Args of func(g *kernel.Block, a *Args).
func argsType(fn *ast.FuncLit) string {
	ps := fn.Type.Params.List
	if len(ps) == 0 {
		return ""
	}
	star, ok := ps[len(ps)-1].Type.(*ast.StarExpr)
	if !ok {
		return ""
	}
	id, ok := star.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return id.Name
}

var goScalars = map[string]bool{
	"int8": true, "uint8": true, "byte": true, "int16": true, "uint16": true, "int32": true, "rune": true,
	"uint32": true, "int64": true, "uint64": true, "float32": true, "float64": true,
}

// checkTwin compares the fields of st with k's parameters, in order.
func checkTwin(k *kernel, args string, st *ast.StructType) error {
	type field struct {
		name string
		typ  ast.Expr
	}
	var fields []field
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			return nil // an embedded field: leave it to Define
		}
		for _, n := range f.Names {
			fields = append(fields, field{n.Name, f.Type})
		}
	}
	if len(fields) != len(k.Params) {
		return fmt.Errorf("%s has %d fields, %s has %d parameters (%s)", args, len(fields), k.Name, len(k.Params), k.Decl())
	}
	for i, f := range fields {
		p := k.Params[i].Type
		c := k.Params[i].C
		switch t := f.typ.(type) {
		case *ast.Ident:
			switch {
			case t.Name == "int" || t.Name == "uint" || t.Name == "uintptr":
				return fmt.Errorf("field %s has type %s, whose size is the platform's; parameter %d is %s: declare it %s", f.name, t.Name, i, c, twinType(p))
			case !goScalars[t.Name]:
				continue // a named type: Define checks its layout
			case p.Pointer:
				return fmt.Errorf("field %s has type %s; parameter %d is the pointer %s: declare it %s", f.name, t.Name, i, c, twinType(p))
			case goName(t.Name) != p.Elem.Go:
				return fmt.Errorf("field %s has type %s; parameter %d is %s: declare it %s", f.name, t.Name, i, c, p.Elem.Go)
			}
		case *ast.IndexExpr:
			sel, ok := t.X.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Ptr" && sel.Sel.Name != "ConstPtr") {
				continue
			}
			elem, _ := t.Index.(*ast.Ident)
			switch {
			case !p.Pointer:
				return fmt.Errorf("field %s is a pointer; parameter %d is %s: declare it %s", f.name, i, c, p.Elem.Go)
			case elem != nil && goScalars[elem.Name] && goName(elem.Name) != p.Elem.Go:
				return fmt.Errorf("field %s points to %s; parameter %d is %s: declare it %s", f.name, elem.Name, i, c, twinType(p))
			case sel.Sel.Name == "ConstPtr" && !p.Const:
				return fmt.Errorf("field %s is a rocr.ConstPtr, a read, but parameter %d is %s, which the kernel may write: declare it rocr.Ptr[%s]", f.name, i, c, p.Elem.Go)
			}
		}
	}
	return nil
}

// goName spells Go's aliases as the launcher does.
func goName(s string) string {
	switch s {
	case "byte":
		return "uint8"
	case "rune":
		return "int32"
	}
	return s
}

// twinType is the Go twin's field type for a parameter of type t.
func twinType(t ctype) string {
	if t.Pointer {
		return "rocr." + ptrKind(t) + "[" + t.Elem.Go + "]"
	}
	return t.Elem.Go
}

func ptrKind(t ctype) string {
	if t.Const {
		return "ConstPtr"
	}
	return "Ptr"
}
