package goback

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// globalGuards is the integer scalar parameters of k that bound a
// work-item's global index, as in CUDA's guard
//
//	if i := t.GlobalX(); i < int(n) { ... }
//
// by their positions in k.Params. The cpu agent's registration adds
// `hi <= int(p)` to the condition of its fast path, so that the compiler
// decides such a guard once per block. Only performance depends on the
// answer: the fast path is a copy of the plain loop.
func globalGuards(k *kernelgen.Kernel) []int {
	d := k.Decl
	if d == nil || d.Body == nil || d.Type.Params == nil || len(d.Type.Params.List) == 0 || len(d.Type.Params.List[0].Names) == 0 {
		return nil
	}
	thread := d.Type.Params.List[0].Names[0].Name
	scalars := map[string]int{}
	for i, prm := range k.Params {
		if b, ok := prm.Type.Underlying().(*types.Basic); ok && prm.Kind == kernelgen.Scalar && b.Info()&types.IsInteger != 0 {
			scalars[prm.Name] = i
		}
	}
	if len(scalars) == 0 {
		return nil
	}
	global := map[string]bool{} // variables set from GlobalX
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if id, ok := as.Lhs[0].(*ast.Ident); ok && isGlobalX(as.Rhs[0], thread) {
				global[id.Name] = true
			}
		}
		return true
	})
	var out []int
	seen := map[int]bool{}
	ast.Inspect(d.Body, func(n ast.Node) bool {
		be, ok := n.(*ast.BinaryExpr)
		if !ok {
			return true
		}
		idx, bound := be.X, be.Y
		switch be.Op {
		case token.LSS:
		case token.GTR:
			idx, bound = be.Y, be.X
		default:
			return true
		}
		if id, ok := idx.(*ast.Ident); !(ok && global[id.Name]) && !isGlobalX(idx, thread) {
			return true
		}
		if c, ok := bound.(*ast.CallExpr); ok && len(c.Args) == 1 {
			if f, ok := c.Fun.(*ast.Ident); ok && f.Name == "int" {
				bound = c.Args[0]
			}
		}
		if id, ok := bound.(*ast.Ident); ok {
			if i, ok := scalars[id.Name]; ok && !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
		return true
	})
	return out
}

// isGlobalX reports whether e is thread.GlobalX().
func isGlobalX(e ast.Expr, thread string) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != "GlobalX" {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == thread
}
