package goback

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A local declared with a uniform value where control is uniform stays
// uniform when every assignment to it gives it a uniform value where
// control is uniform too (kt := 0; if base < n { kt = ... }): each
// work-item keeps its own copy, all equal, and a statement run once per
// group (a loop header, a branch's condition) reads work-item 0's.

// uniformAssigns reports whether every assignment to v in the kernel is
// a plain one of uniform values, reached from the body only through
// blocks, ifs with uniform conditions and loops with barriers.
func (p *fissionPlan) uniformAssigns(v *types.Var) bool {
	ok, found := true, false
	var path []ast.Node
	ast.Inspect(p.k.Decl.Body, func(n ast.Node) bool {
		if !ok {
			return false
		}
		if n == nil {
			path = path[:len(path)-1]
			return true
		}
		var lhs, rhs []ast.Expr
		switch s := n.(type) {
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				lhs, rhs = s.Lhs, s.Rhs
			}
		case *ast.IncDecStmt:
			lhs = []ast.Expr{s.X}
		case *ast.UnaryExpr:
			if s.Op == token.AND && p.refersTo(s.X, v) {
				ok = false
			}
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN && (p.refersTo(s.Key, v) || p.refersTo(s.Value, v)) {
				ok = false
			}
		}
		for i, l := range lhs {
			if !p.refersTo(l, v) {
				continue
			}
			found = true
			if _, isID := ast.Unparen(l).(*ast.Ident); !isID || len(lhs) != len(rhs) && len(rhs) > 0 || (len(rhs) > 0 && !p.isUniform(rhs[i])) || !p.uniformPath(path) {
				ok = false
			}
		}
		path = append(path, n)
		return true
	})
	return ok && found
}

// refersTo reports whether e is v (or an element or field of it).
func (p *fissionPlan) refersTo(e ast.Expr, v *types.Var) bool {
	for e != nil {
		switch x := e.(type) {
		case *ast.Ident:
			return p.info.Uses[x] == v || p.info.Defs[x] == v
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return false
		}
	}
	return false
}

// uniformPath reports whether the nodes from the body down to a
// statement are blocks, ifs with uniform conditions (entered by a
// branch) and loops with barriers (entered by their body).
func (p *fissionPlan) uniformPath(path []ast.Node) bool {
	for i, n := range path {
		switch s := n.(type) {
		case *ast.BlockStmt:
		case *ast.IfStmt:
			if !p.isUniform(s.Cond) || i+1 >= len(path) || (path[i+1] != s.Body && path[i+1] != s.Else) {
				return false
			}
		case *ast.ForStmt:
			if !p.hasTopBarrier(s.Body) || i+1 >= len(path) || path[i+1] != s.Body {
				return false
			}
		default:
			if _, stmt := n.(ast.Stmt); stmt || i < len(path)-1 {
				return false
			}
		}
	}
	return true
}
