package kernelgen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
)

// A strided loop is the grid-stride loop of CUDA kernels,
//
//	for i := start; i < bound; i += step { ... }
//
// over an int, where bound and step do not change in the loop and are not
// both constants, i is not assigned in its body, and the body has no
// barrier or warp operation.
// Go's i += step wraps, so C++ cannot count such a loop's trips, and
// clang then neither unrolls it nor keeps several of its loads in flight.
// The emitter writes it twice: counted, when step is positive and i +
// step cannot pass the int's maximum while i < bound (so Go's i never
// wraps), and as written otherwise. Both run the same iterations.
type stridedLoop struct {
	v                  *types.Var
	start, bound, step ast.Expr
}

// strided reports whether s is a strided loop.
func (e *emitter) strided(s *ast.ForStmt) (stridedLoop, bool) {
	var sl stridedLoop
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return sl, false
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return sl, false
	}
	sl.v, _ = e.info.Defs[id].(*types.Var)
	if sl.v == nil || !isInt64(sl.v.Type()) {
		return sl, false
	}
	cond, ok := s.Cond.(*ast.BinaryExpr)
	if !ok || cond.Op != token.LSS || !e.isVar(cond.X, sl.v) {
		return sl, false
	}
	post, ok := s.Post.(*ast.AssignStmt)
	if !ok || post.Tok != token.ADD_ASSIGN || len(post.Lhs) != 1 || !e.isVar(post.Lhs[0], sl.v) {
		return sl, false
	}
	sl.start, sl.bound, sl.step = init.Rhs[0], cond.Y, post.Rhs[0]
	assigned := map[types.Object]bool{}
	plain := true
	ast.Inspect(s.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, l := range n.Lhs {
					if r := e.rootIdent(l); r != nil {
						assigned[e.info.Uses[r]] = true
					}
				}
			}
		case *ast.IncDecStmt:
			if r := e.rootIdent(n.X); r != nil {
				assigned[e.info.Uses[r]] = true
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				if r := e.rootIdent(n.X); r != nil {
					assigned[e.info.Uses[r]] = true
				}
			}
		case *ast.CallExpr:
			if lockstepOp(e.t.kernelFunc(n)) {
				plain = false
			}
			if callee := e.t.deviceCallee(n); callee != nil {
				if fn := e.t.funcs[callee]; fn == nil || fn.lockstep {
					plain = false
				}
			}
		}
		return true
	})
	if !plain || assigned[sl.v] || e.constant(sl.bound) && e.constant(sl.step) {
		// With a constant bound and step, clang counts the loop itself.
		return sl, false
	}
	return sl, e.invariant(sl.bound, assigned) && e.invariant(sl.step, assigned)
}

// invariant reports whether x has the same value at every evaluation in
// a loop whose body assigns the variables of assigned, and cannot fail:
// constants, variables the loop leaves alone, the thread's indices and
// sizes, lengths of such slices, conversions, and arithmetic other than
// division and shifts.
func (e *emitter) invariant(x ast.Expr, assigned map[types.Object]bool) bool {
	if e.constant(x) {
		return true
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.invariant(x.X, assigned)
	case *ast.Ident:
		v, ok := e.info.Uses[x].(*types.Var)
		return ok && !assigned[v] && v.Parent() != nil && (v.Pkg() == nil || v.Parent() != v.Pkg().Scope())
	case *ast.BinaryExpr:
		switch x.Op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR, token.AND_NOT:
			return e.invariant(x.X, assigned) && e.invariant(x.Y, assigned)
		}
		return false
	case *ast.UnaryExpr:
		return (x.Op == token.SUB || x.Op == token.ADD || x.Op == token.XOR) && e.invariant(x.X, assigned)
	case *ast.SelectorExpr:
		// t.BlockDim().X
		c, ok := x.X.(*ast.CallExpr)
		return ok && e.invariant(c, assigned)
	case *ast.CallExpr:
		if sdk[e.t.kernelFunc(x)].Fixed {
			return len(x.Args) == 0
		}
		if tv, ok := e.info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			_, isBasic := tv.Type.Underlying().(*types.Basic)
			return isBasic && e.invariant(x.Args[0], assigned)
		}
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && len(x.Args) == 1 {
			if b, ok := e.info.Uses[id].(*types.Builtin); ok && b.Name() == "len" {
				_, isSlice := e.info.TypeOf(x.Args[0]).Underlying().(*types.Slice)
				return isSlice && e.invariant(x.Args[0], assigned)
			}
		}
	}
	return false
}

// stridedFor writes a strided loop: counted where Go's i cannot wrap, as
// written where it could.
func (e *emitter) stridedFor(s *ast.ForStmt, sl stridedLoop, label string) {
	e.linef("{")
	e.indent++
	ct := e.t.cType(sl.v.Type(), s.Pos())
	b, st, i0 := e.temp("b"), e.temp("st"), e.temp("i")
	e.linef("%s %s = %s;", ct, i0, bare(e.expr(sl.start)))
	e.linef("%s %s = %s;", ct, b, bare(e.expr(sl.bound)))
	e.linef("%s %s = %s;", ct, st, bare(e.expr(sl.step)))
	name := e.declare(sl.v)
	cnt, k := e.temp("n"), e.temp("k")
	e.linef("if (%s > 0LL && %s <= 0x7fffffffffffffffLL - %s + 1LL) {", st, b, st)
	e.indent++
	e.linef("unsigned long long %s = %s < %s ? ((unsigned long long)%s - (unsigned long long)%s - 1ULL) / (unsigned long long)%s + 1ULL : 0ULL;", cnt, i0, b, b, i0, st)
	// By four, as nvcc unrolls such a loop: clang's own choice keeps
	// fewer loads in flight (a grid-stride reduction ran 7% slower).
	e.linef("#pragma unroll 4")
	e.loop(e.newTarget(label, true), fmt.Sprintf("for (unsigned long long %s = 0; %s < %s; %s++)", k, k, cnt, k),
		s.Body.List, nil, fmt.Sprintf("%s %s = (%s)((unsigned long long)%s + %s * (unsigned long long)%s);\nHG_ASSUME(Checked, %s >= %s && %s < %s);", ct, name, ct, i0, k, st, name, i0, name, b))
	e.indent--
	e.linef("} else {")
	e.indent++
	e.loop(e.newTarget(label, true), fmt.Sprintf("for (%s %s = %s; %s < %s; %s = hg_add(%s, %s))", ct, name, i0, name, b, name, name, st), s.Body.List, nil, "")
	e.indent--
	e.linef("}")
	e.indent--
	e.linef("}")
}

// constant reports whether x is a constant expression.
func (e *emitter) constant(x ast.Expr) bool {
	tv, ok := e.info.Types[x]
	return ok && tv.Value != nil
}

// isVar reports whether x is the variable v.
func (e *emitter) isVar(x ast.Expr, v *types.Var) bool {
	id, ok := ast.Unparen(x).(*ast.Ident)
	return ok && e.info.Uses[id] == v
}

// isInt64 reports whether t is int or int64: C's long long.
func isInt64(t types.Type) bool {
	b := basicOf(t)
	return b != nil && (b.Kind() == types.Int || b.Kind() == types.Int64)
}

// rootIdent is the variable whose value an assignment to the place x
// changes: v for v, v.f and v[i] of a struct or array v; nil where x is
// reached through a slice or pointer, which the assignment leaves as they
// are.
func (e *emitter) rootIdent(x ast.Expr) *ast.Ident {
	for {
		switch y := x.(type) {
		case *ast.Ident:
			return y
		case *ast.ParenExpr:
			x = y.X
		case *ast.IndexExpr:
			if _, ok := e.info.TypeOf(y.X).Underlying().(*types.Array); !ok {
				return nil
			}
			x = y.X
		case *ast.SelectorExpr:
			if _, ok := e.info.TypeOf(y.X).Underlying().(*types.Pointer); ok {
				return nil
			}
			x = y.X
		default:
			return nil
		}
	}
}
