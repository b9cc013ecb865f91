package kernelgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
)

// A package-level variable marked //hipgo:constant or //hipgo:device is
// device memory the kernels read by name: a `__constant__` or
// `__device__` variable of the same name in the C++, and on the cpu agent
// the Go variable itself. module.GetGlobal finds it on every agent; the
// program sets and reads it by copies. It has no initializer (device
// memory starts zeroed, and the C++ has no Go initializer to run), and a
// type with a C layout. Kernels never write a //hipgo:constant variable:
// on GPUs constant memory is read-only to them.

// Global is one marked variable.
type Global struct {
	Name     string // the Go name, which is also the C++ symbol's
	Type     types.Type
	Constant bool // //hipgo:constant, else //hipgo:device
	Pos      token.Position
}

type globalVar struct {
	Global
	ctype string
}

// globalDirective is the marking of a variable declaration: "constant",
// "device" or "".
func globalDirective(docs ...*ast.CommentGroup) (string, *ast.Comment) {
	for _, doc := range docs {
		if doc == nil {
			continue
		}
		for _, c := range doc.List {
			switch strings.TrimSpace(c.Text) {
			case "//hipgo:constant":
				return "constant", c
			case "//hipgo:device":
				return "device", c
			}
		}
	}
	return "", nil
}

// discoverGlobals finds the marked variables.
func (t *translator) discoverGlobals() {
	for _, f := range t.pkg.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				docs := []*ast.CommentGroup{vs.Doc}
				if !gd.Lparen.IsValid() {
					docs = append(docs, gd.Doc)
				}
				kind, c := globalDirective(docs...)
				if kind == "" {
					continue
				}
				if len(vs.Values) > 0 {
					t.errorf(vs.Values[0].Pos(), "initialized //hipgo:"+kind+" variable", "device memory starts zeroed: set it with module.GetGlobal(...).CopyFrom")
					continue
				}
				for _, id := range vs.Names {
					t.addGlobal(id, kind == "constant", c)
				}
			}
		}
	}
}

func (t *translator) addGlobal(id *ast.Ident, constant bool, c *ast.Comment) {
	v, _ := t.info.Defs[id].(*types.Var)
	if v == nil || id.Name == "_" {
		t.errorf(id.Pos(), "variable "+id.Name, "a marked variable needs a name")
		return
	}
	if cName(id.Name) != id.Name {
		t.errorf(id.Pos(), "variable name "+id.Name, "the C++ symbol takes the Go name, and %q is reserved there: rename the variable", id.Name)
		return
	}
	if why := noDeviceLayout(v.Type()); why != "" {
		t.errorf(id.Pos(), "//hipgo variable of type "+v.Type().String(), "%s", why)
		return
	}
	if t.globals == nil {
		t.globals = map[*types.Var]*globalVar{}
	}
	g := &globalVar{Global: Global{Name: id.Name, Type: v.Type(), Constant: constant, Pos: t.fset.Position(id.Pos())}}
	g.ctype = t.cType(v.Type(), id.Pos())
	t.globals[v] = g
	t.globalList = append(t.globalList, g)
	t.res.Globals = append(t.res.Globals, g.Global)
}

// noDeviceLayout says why typ cannot be device memory; "" if it can: a
// number or bool, or an array or struct of them.
func noDeviceLayout(typ types.Type) string {
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		if u.Info()&(types.IsNumeric|types.IsBoolean) != 0 && u.Info()&types.IsComplex == 0 && u.Kind() != types.Uintptr && u.Kind() != types.UnsafePointer {
			return ""
		}
	case *types.Array:
		return noDeviceLayout(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if why := noDeviceLayout(u.Field(i).Type()); why != "" {
				return why
			}
		}
		return ""
	}
	return "device memory holds numbers, bools, and arrays and structs of them"
}

// globalSource declares the marked variables in the C++.
func (t *translator) globalSource() string {
	if len(t.res.Globals) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("// ---- the package's device variables ----\n\n")
	for _, g := range t.globalList {
		space := "__device__"
		if g.Constant {
			space = "__constant__"
		}
		fmt.Fprintf(&b, "#line %d %q\n%s %s %s;\n", g.Pos.Line, filepath.Base(g.Pos.Filename), space, g.ctype, g.Name)
	}
	b.WriteString("\n")
	return b.String()
}

// rootIdent is the variable a place is part of: s in s.f[i].
func rootIdent(x ast.Expr) *ast.Ident {
	for {
		switch y := x.(type) {
		case *ast.ParenExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.SelectorExpr:
			x = y.X
		case *ast.Ident:
			return y
		default:
			return nil
		}
	}
}

// store is the place x as the target of a write; a //hipgo:constant
// variable is no such target.
func (e *emitter) store(x ast.Expr) string {
	if id := rootIdent(x); id != nil {
		v, _ := e.info.Uses[id].(*types.Var)
		if g := e.t.globals[v]; g != nil && g.Constant {
			e.errorf(x, "write to //hipgo:constant variable "+g.Name, "constant memory is read-only in kernels: mark it //hipgo:device to write it")
		}
	}
	if ix, ok := ast.Unparen(x).(*ast.IndexExpr); ok {
		return e.place(ix)
	}
	return e.lvalue(x)
}
