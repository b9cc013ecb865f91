package goback

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// Warp operations in lockstep within loop fission. A statement whose
// expressions hold warp operations, at the top level of the kernel, of a
// loop with a uniform header or of the body of an if without init or
// else, starts a stretch of its own. Before that stretch each operation
// runs as at a barrier: a loop over the work-items stores its operands
// (kernelimpl.Warp.Post, which fails as the coroutines do on a bad mask
// or width), Run completes it for each warp at once, and the statement
// then reads each work-item's result. A call the statement evaluates
// before one of its warp operations must be pure (the operation now runs
// first); other calls keep their order.
//
// The body of such an if runs under a guard: the condition is kept per
// work-item, and the lanes that skipped the body are gone for the
// operation where nothing that synchronizes follows the if (they run to
// their return), elsewhere otherwise (a mask naming them never
// completes, as with coroutines).

// warpCall is one warp operation of a split statement.
type warpCall struct {
	call *ast.CallExpr
	row  kernelgen.SDKCall
	name string // its kernelimpl.Warp in the frame: hgW0
	typ  types.Type
}

// guardRef is a guard an emitted unit stands under: the per-work-item
// condition's name and whether the lanes that fail it are gone.
type guardRef struct {
	name string
	exit bool
}

// warpOps are the Op constant, and how the operands are passed, of each
// warp operation of the SDK.
var warpOps = map[string]struct {
	op     string
	mask   bool // a mask argument after the Thread
	arg    bool // a src, delta or lane mask after the value
	width  bool // a width after it
	vote   string
	noValu bool // SyncWarp, SyncWarpMask
}{
	"Shfl":          {op: "OpShfl", arg: true},
	"ShflDown":      {op: "OpShflDown", arg: true},
	"ShflUp":        {op: "OpShflUp", arg: true},
	"ShflXor":       {op: "OpShflXor", arg: true},
	"ShflSync":      {op: "OpShflIdx", mask: true, arg: true, width: true},
	"ShflDownSync":  {op: "OpShflDown", mask: true, arg: true, width: true},
	"ShflUpSync":    {op: "OpShflUp", mask: true, arg: true, width: true},
	"ShflXorSync":   {op: "OpShflXor", mask: true, arg: true, width: true},
	"Ballot":        {op: "OpBallot", vote: "ballot"},
	"Any":           {op: "OpBallot", vote: "any"},
	"All":           {op: "OpBallot", vote: "all"},
	"BallotSync":    {op: "OpBallot", mask: true, vote: "ballot"},
	"AnySync":       {op: "OpBallot", mask: true, vote: "any"},
	"AllSync":       {op: "OpBallot", mask: true, vote: "all"},
	"ReduceAddSync": {op: "OpReduceAdd", mask: true},
	"ReduceMinSync": {op: "OpReduceMin", mask: true},
	"ReduceMaxSync": {op: "OpReduceMax", mask: true},
	"ReduceAndSync": {op: "OpReduceAnd", mask: true},
	"ReduceOrSync":  {op: "OpReduceOr", mask: true},
	"ReduceXorSync": {op: "OpReduceXor", mask: true},
	"SyncWarp":      {op: "OpSync", noValu: true},
	"SyncWarpMask":  {op: "OpSync", mask: true, noValu: true},
}

// warpHead is the expressions of s evaluated before anything else of it
// runs, where a warp operation may stand: all of an assignment or an
// expression statement, the condition of an if; nil for other
// statements.
func warpHead(s ast.Stmt) []ast.Expr {
	switch s := s.(type) {
	case *ast.AssignStmt:
		return append(append([]ast.Expr{}, s.Lhs...), s.Rhs...)
	case *ast.ExprStmt:
		return []ast.Expr{s.X}
	case *ast.IncDecStmt:
		return []ast.Expr{s.X}
	case *ast.DeclStmt:
		g, ok := s.Decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			return nil
		}
		var out []ast.Expr
		for _, sp := range g.Specs {
			out = append(out, sp.(*ast.ValueSpec).Values...)
		}
		return out
	case *ast.IfStmt:
		if s.Init == nil {
			return []ast.Expr{s.Cond}
		}
	}
	return nil
}

// warpCallsIn are the warp operations in n, outermost first.
func (p *fissionPlan) warpCallsIn(n ast.Node) []*ast.CallExpr {
	var out []*ast.CallExpr
	if n == nil {
		return nil
	}
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && p.sdkCall(c).Warp() {
			out = append(out, c)
		}
		return true
	})
	return out
}

// isWarpStmt reports whether s is a statement fission splits at its warp
// operations.
func (p *fissionPlan) isWarpStmt(s ast.Stmt) bool {
	for _, e := range warpHead(s) {
		if len(p.warpCallsIn(e)) > 0 {
			return true
		}
	}
	return false
}

// isGuard reports whether s is an if without init or else whose body
// synchronizes at its top level, its condition without warp operations.
func (p *fissionPlan) isGuard(s ast.Stmt) bool {
	f, ok := s.(*ast.IfStmt)
	return ok && f.Init == nil && f.Else == nil && len(p.warpCallsIn(f.Cond)) == 0 && p.hasTopBarrier(f.Body)
}

// warpStmt checks a statement with warp operations and names them, in
// the order they run (inner before outer, left to right).
func (p *fissionPlan) warpStmt(s ast.Stmt, inLoop bool) ([]*warpCall, error) {
	head := warpHead(s)
	var calls []*ast.CallExpr
	for _, e := range head {
		calls = append(calls, p.warpCallsIn(e)...)
	}
	skip := map[*ast.CallExpr]bool{}
	for _, c := range calls {
		skip[c] = true
	}
	for _, e := range head {
		if err := p.warpHeadPure(e, skip); err != nil {
			return nil, err
		}
	}
	if err := p.stretchStmtSkip(s, inLoop, skip); err != nil {
		return nil, err
	}
	sort.Slice(calls, func(i, j int) bool { return calls[i].End() < calls[j].End() })
	var out []*warpCall
	for _, c := range calls {
		row := p.sdkCall(c)
		op, ok := warpOps[row.Name]
		if !ok {
			return nil, p.fail(c, "warp operation %s", row.Name)
		}
		wc := &warpCall{call: c, row: row, name: fmt.Sprintf("hgW%d", p.nwarps)}
		p.nwarps++
		switch {
		case op.vote != "" || op.noValu:
			wc.typ = types.Typ[types.Uint64]
		default:
			wc.typ = p.info.TypeOf(c)
		}
		out = append(out, wc)
		p.warps = append(p.warps, wc)
	}
	return out, nil
}

// warpHeadPure checks that e's calls other than its warp operations
// (skip) are pure, and that each warp operation runs exactly once: not
// on the right of && or ||, not in a function literal.
func (p *fissionPlan) warpHeadPure(e ast.Expr, skip map[*ast.CallExpr]bool) error {
	var err error
	ast.Inspect(e, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.FuncLit:
			if c := p.warpCallsIn(n); len(c) > 0 {
				err = p.fail(c[0], "warp operation %s in a function literal", p.sdkCall(c[0]).Name)
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				if c := p.warpCallsIn(n.Y); len(c) > 0 {
					err = p.fail(c[0], "warp operation %s on the right of %s", p.sdkCall(c[0]).Name, n.Op)
				}
			}
		case *ast.CallExpr:
			if skip[n] || p.pureCall(n) || afterWarps(n, skip) {
				return true
			}
			err = p.fail(n, "a call evaluated before a warp operation of its statement: %s", p.plain(n.Fun))
		}
		return true
	})
	return err
}

// afterWarps reports whether Go evaluates call after each warp operation
// of its statement (ws) or among its operands: call holds the operation,
// is in its arguments or follows it; fission keeps that order.
func afterWarps(call *ast.CallExpr, ws map[*ast.CallExpr]bool) bool {
	for w := range ws {
		holds := call.Pos() <= w.Pos() && w.End() <= call.End()
		operand := w.Pos() < call.Pos() && call.End() <= w.End()
		if !holds && !operand && call.Pos() < w.End() {
			return false
		}
	}
	return true
}

// pureCall reports whether call is a conversion, a builtin without
// effect or a pure call of the SDK.
func (p *fissionPlan) pureCall(call *ast.CallExpr) bool {
	if tv := p.info.Types[call.Fun]; tv.IsType() {
		return true
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if b, ok := p.info.Uses[id].(*types.Builtin); ok {
			switch b.Name() {
			case "len", "cap", "min", "max":
				return true
			}
		}
	}
	return p.sdkCall(call).Pure()
}

// guardUnit plans an if whose body synchronizes: its condition kept per
// work-item, its body's units run under it. ctx.exit: nothing that
// synchronizes follows it, so the lanes that skip it are gone.
func (p *fissionPlan) guardUnit(f *ast.IfStmt, ctx listCtx) (unit, error) {
	if pos := p.containsBarrier(f.Body); pos != token.NoPos {
		return unit{}, &notFission{pos: p.fset.Position(pos), why: fmt.Sprintf("barrier inside a if statement (line %d)", p.fset.Position(f.Pos()).Line)}
	}
	if err := p.stretchStmtSkip(&ast.ExprStmt{X: f.Cond}, ctx.inLoop, nil); err != nil {
		return unit{}, err
	}
	u := unit{guard: f, id: p.nunits, gname: fmt.Sprintf("hgC%d", p.nguards), exit: ctx.exit}
	p.nguards++
	p.nunits++
	p.guardNames = append(p.guardNames, u.gname)
	body, err := p.planList(f.Body.List, listCtx{inLoop: ctx.inLoop, inGuard: true, exit: ctx.exit})
	u.body = body
	return u, err
}

// syncsIn reports whether any of list synchronizes: a barrier, a warp
// operation or a call of a device function that does.
func (p *fissionPlan) syncsIn(list []ast.Stmt) bool {
	for _, s := range list {
		found := false
		ast.Inspect(s, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				found = found || p.sdkCall(c).Lockstep() || p.deviceCallStmt(&ast.ExprStmt{X: c}) != nil
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// emitGuard writes a guard's condition for each work-item, then its
// body's units under it.
func (p *fissionPlan) emitGuard(w *bytes.Buffer, u unit, t string, ts func(types.Type) string, guards []guardRef) error {
	fmt.Fprintf(w, "for hgI := 0; hgI < hgN; hgI++ {\n")
	if p.returns {
		fmt.Fprintf(w, "if hgDone[hgI] {\n%s[hgI] = false\ncontinue\n}\n", u.gname)
	}
	if len(guards) > 0 {
		fmt.Fprintf(w, "if !%s[hgI] {\n%s[hgI] = false\ncontinue\n}\n", guards[len(guards)-1].name, u.gname)
	}
	if p.usesThread(t, u.guard.Cond) {
		p.threadAt(w, t, "hgI")
	}
	cond := p.rewrite(u.guard.Cond, u.id).(ast.Expr)
	fmt.Fprintf(w, "%s\n%s[hgI] = %s\n}\n", p.lineDirective(u.guard.Cond.Pos()), u.gname, p.plain(cond))
	return p.emitUnits(w, u.body, t, ts, append(guards[:len(guards):len(guards)], guardRef{u.gname, u.exit}))
}

// emitWarps writes the warp operations of a stretch's first statement:
// for each, a loop posting every work-item's operands and the warp's
// completion; the statement then reads the results.
func (p *fissionPlan) emitWarps(w *bytes.Buffer, u *unit, t string, guards []guardRef) {
	s := u.stmts[0]
	for _, wc := range u.warps {
		op := warpOps[wc.row.Name]
		args := wc.call.Args
		var rest []ast.Expr
		if !wc.row.Thread {
			rest = args[1:] // the Thread first
		} else {
			rest = args
		}
		arg := func(e ast.Expr) string { return p.plain(p.rewrite(e, u.id)) }
		mask, val, a, width := "kernel.FullMask", "0", "0", "kernel.CPUWarpSize"
		if op.mask {
			mask, rest = arg(rest[0]), rest[1:]
		}
		if !op.noValu {
			val = arg(rest[0])
			switch op.vote {
			case "ballot", "any":
				val = "kernelimpl.Vote(" + val + ")"
			case "all":
				val = "kernelimpl.Vote(!(" + val + "))"
			}
			rest = rest[1:]
		}
		if op.arg {
			a, rest = arg(rest[0]), rest[1:]
		}
		if op.width {
			width = arg(rest[0])
		}
		fmt.Fprintf(w, "%s.Begin(hgB)\nfor hgI := 0; hgI < hgN; hgI++ {\n", wc.name)
		if p.returns {
			fmt.Fprintf(w, "if hgDone[hgI] {\ncontinue\n}\n")
		}
		for _, g := range guards {
			if g.exit {
				fmt.Fprintf(w, "if !%s[hgI] {\ncontinue\n}\n", g.name)
			} else {
				fmt.Fprintf(w, "if !%s[hgI] {\n%s.Elsewhere(hgI)\ncontinue\n}\n", g.name, wc.name)
			}
		}
		ops := args
		if !wc.row.Thread {
			ops = args[1:]
		}
		var nodes []ast.Node
		for _, a := range ops {
			nodes = append(nodes, a)
		}
		if p.usesThread(t, nodes...) {
			p.threadAt(w, t, "hgI")
		}
		fmt.Fprintf(w, "%s\n%s.Post(hgB, hgI, kernelimpl.%s, %s, %s, %s, %s)\n}\n", p.lineDirective(wc.call.Pos()), wc.name, op.op, mask, val, a, width)
		fmt.Fprintf(w, "%s\n%s.Run(hgB, kernelimpl.%s)\n", p.lineDirective(wc.call.Pos()), wc.name, op.op)
		// The statement reads the result in place of the call.
		pos := wc.call.Pos()
		var res ast.Expr = &ast.IndexExpr{X: &ast.SelectorExpr{X: &ast.Ident{Name: wc.name, NamePos: pos}, Sel: &ast.Ident{Name: "Out", NamePos: pos}}, Lbrack: pos, Index: &ast.Ident{Name: "hgI", NamePos: pos}, Rbrack: pos}
		switch op.vote {
		case "any":
			res = &ast.ParenExpr{Lparen: pos, X: &ast.BinaryExpr{X: res, OpPos: pos, Op: token.NEQ, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}, Rparen: pos}
		case "all":
			res = &ast.ParenExpr{Lparen: pos, X: &ast.BinaryExpr{X: res, OpPos: pos, Op: token.EQL, Y: &ast.BasicLit{ValuePos: pos, Kind: token.INT, Value: "0"}}, Rparen: pos}
		}
		if es, ok := s.(*ast.ExprStmt); ok && ast.Unparen(es.X) == wc.call {
			u.stmts = u.stmts[1:] // a call alone: nothing is left to run
			continue
		}
		astutil.Apply(s, nil, func(c *astutil.Cursor) bool {
			if c.Node() == wc.call {
				c.Replace(res)
			}
			return true
		})
	}
}
