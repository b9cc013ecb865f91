package goback

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// A warp's inclusive scan by shuffles up in log steps,
//
//	for d := 1; d < t.WarpSize(); d <<= 1 {
//		n := kernel.ShflUp(t, v, d)
//		if lane >= d {
//			v += n
//		}
//	}
//
// with lane the work-item's t.Lane() and v an integer, gives each lane
// the sum of v over the lanes up to it: where every lane of each warp
// runs the loop (the block a whole number of warps, no guard, no
// returns), fission adds each work-item's predecessor's sum instead, one
// pass in place of five rounds of shuffles. Integer sums wrap the same
// in any order; a float's sums round differently, so floats keep the
// rounds.

// scanLoop reports whether f is such a scan, and its v.
func (p *fissionPlan) scanLoop(f *ast.ForStmt) (*types.Var, bool) {
	init, ok := f.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 || !isConst(p.info, init.Rhs[0], 1) {
		return nil, false
	}
	d, _ := p.info.Defs[init.Lhs[0].(*ast.Ident)].(*types.Var)
	cond, ok := f.Cond.(*ast.BinaryExpr)
	if d == nil || !ok || cond.Op != token.LSS || !p.isVar(cond.X, d) || !p.isWarpSize(cond.Y) {
		return nil, false
	}
	switch post := f.Post.(type) {
	case *ast.AssignStmt:
		if len(post.Lhs) != 1 || !p.isVar(post.Lhs[0], d) || !((post.Tok == token.SHL_ASSIGN && isConst(p.info, post.Rhs[0], 1)) || (post.Tok == token.MUL_ASSIGN && isConst(p.info, post.Rhs[0], 2))) {
			return nil, false
		}
	default:
		return nil, false
	}
	if len(f.Body.List) != 2 {
		return nil, false
	}
	// n := kernel.ShflUp(t, v, d)
	sh, ok := f.Body.List[0].(*ast.AssignStmt)
	if !ok || sh.Tok != token.DEFINE || len(sh.Lhs) != 1 || len(sh.Rhs) != 1 {
		return nil, false
	}
	n, _ := p.info.Defs[sh.Lhs[0].(*ast.Ident)].(*types.Var)
	call, ok := sh.Rhs[0].(*ast.CallExpr)
	if n == nil || !ok || p.sdkCall(call).Name != "ShflUp" || len(call.Args) != 3 || !p.isVar(call.Args[2], d) {
		return nil, false
	}
	vid, ok := call.Args[1].(*ast.Ident)
	v, _ := p.info.Uses[vid].(*types.Var)
	if !ok || v == nil || !isInteger(v.Type()) {
		return nil, false
	}
	// if lane >= d { v += n }
	g, ok := f.Body.List[1].(*ast.IfStmt)
	if !ok || g.Init != nil || g.Else != nil || len(g.Body.List) != 1 {
		return nil, false
	}
	gc, ok := g.Cond.(*ast.BinaryExpr)
	if !ok || gc.Op != token.GEQ || !p.isLane(gc.X) || !p.isVar(gc.Y, d) {
		return nil, false
	}
	add, ok := g.Body.List[0].(*ast.AssignStmt)
	if !ok || add.Tok != token.ADD_ASSIGN || len(add.Lhs) != 1 || !p.isVar(add.Lhs[0], v) || !p.isVar(add.Rhs[0], n) {
		return nil, false
	}
	return v, true
}

func isConst(info *types.Info, e ast.Expr, want int64) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil {
		return false
	}
	x, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return exact && x == want
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// isVar reports whether e names v.
func (p *fissionPlan) isVar(e ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && p.info.Uses[id] == v
}

// isWarpSize reports whether e is the warp's size: t.WarpSize(), 32, or
// a local never assigned after its declaration from one of these.
func (p *fissionPlan) isWarpSize(e ast.Expr) bool {
	if isConst(p.info, e, 32) {
		return true
	}
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		return p.sdkCall(c).Name == "WarpSize" && p.isThreadCall(c)
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	v, _ := p.info.Uses[id].(*types.Var)
	return ok && v != nil && p.declaredAs[v] == "WarpSize" && !p.assigned[v]
}

// isLane reports whether e is the work-item's lane: t.Lane(), or a local
// never assigned after its declaration from it.
func (p *fissionPlan) isLane(e ast.Expr) bool {
	if c, ok := ast.Unparen(e).(*ast.CallExpr); ok {
		return p.sdkCall(c).Name == "Lane" && p.isThreadCall(c)
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	v, _ := p.info.Uses[id].(*types.Var)
	return ok && v != nil && p.declaredAs[v] == "Lane" && !p.assigned[v]
}

// isThreadCall reports whether c calls a method of the kernel's Thread.
func (p *fissionPlan) isThreadCall(c *ast.CallExpr) bool {
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && p.isThread(id) && len(c.Args) == 0
}

// noteDeclaredAs records the locals s declares from t.Lane() or
// t.WarpSize().
func (p *fissionPlan) noteDeclaredAs(names, values []ast.Expr) {
	if len(names) != len(values) {
		return
	}
	for i, l := range names {
		id, ok := l.(*ast.Ident)
		v, _ := p.info.Defs[id].(*types.Var)
		c, isCall := ast.Unparen(values[i]).(*ast.CallExpr)
		if !ok || v == nil || !isCall || !p.isThreadCall(c) {
			continue
		}
		if name := p.sdkCall(c).Name; name == "Lane" || name == "WarpSize" {
			p.declaredAs[v] = name
		}
	}
}

// emitScan writes a scan loop's fast path where every lane runs it,
// the loop itself (loop) elsewhere.
func (p *fissionPlan) emitScan(w *bytes.Buffer, f *ast.ForStmt, v *types.Var, loop func() error) error {
	fmt.Fprintf(w, "%s\nif hgN%%kernel.CPUWarpSize == 0 {\n", p.lineDirective(f.Pos()))
	fmt.Fprintf(w, "for hgI := 0; hgI < hgN; hgI++ {\nif hgI%%kernel.CPUWarpSize != 0 {\n%s[hgI] += %s[hgI-1]\n}\n}\n} else {\n", p.names[v], p.names[v])
	if err := loop(); err != nil {
		return err
	}
	fmt.Fprintf(w, "}\n")
	return nil
}
