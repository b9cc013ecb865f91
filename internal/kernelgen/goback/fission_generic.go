package goback

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"
)

// A generic device function that synchronizes, called with type
// arguments other than its own type parameters' names (blockReduce[int64]
// in a kernel over T), is inlined with its types substituted: each of
// its variables gets a copy of the argument's type, each expression's
// type is substituted, and the type parameters it names become the
// arguments' spellings. It must not call another generic function that
// synchronizes (that call's instance would still name the parameters).

// typeArgsOf is the substitution of fn's type parameters for call, nil
// where there is none to make (not generic, or the same names).
func (p *fissionPlan) typeArgsOf(call *ast.CallExpr, fn *types.Func, sig *types.Signature, decl *ast.FuncDecl) (map[*types.TypeParam]types.Type, error) {
	if sig.TypeParams().Len() == 0 || p.sameTypeArgs(call, sig) {
		return nil, nil
	}
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	id, ok := fun.(*ast.Ident)
	inst, found := p.info.Instances[id]
	if !ok || !found || inst.TypeArgs.Len() != sig.TypeParams().Len() {
		return nil, p.fail(call, "calls %s, which synchronizes, with type arguments it cannot substitute", fn.Name())
	}
	m := map[*types.TypeParam]types.Type{}
	for i := 0; i < inst.TypeArgs.Len(); i++ {
		m[sig.TypeParams().At(i)] = inst.TypeArgs.At(i)
	}
	var err error
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		c, isCall := n.(*ast.CallExpr)
		if !isCall || err != nil {
			return err == nil
		}
		if g, isFn := typeutil.Callee(p.info, c).(*types.Func); isFn && p.res.Lockstep[g.Origin()] && g.Origin().Type().(*types.Signature).TypeParams().Len() > 0 {
			err = p.fail(call, "calls %s, which synchronizes, with other type arguments, and it calls the generic %s, which synchronizes", fn.Name(), g.Name())
		}
		return true
	})
	return m, err
}

// substType is t with the inlined function's type parameters replaced.
func (p *fissionPlan) substType(t types.Type) types.Type {
	if p.subst == nil || t == nil {
		return t
	}
	switch x := t.(type) {
	case *types.TypeParam:
		if a, ok := p.subst[x]; ok {
			return a
		}
	case *types.Pointer:
		return types.NewPointer(p.substType(x.Elem()))
	case *types.Slice:
		return types.NewSlice(p.substType(x.Elem()))
	case *types.Array:
		return types.NewArray(p.substType(x.Elem()), x.Len())
	case *types.Map:
		return types.NewMap(p.substType(x.Key()), p.substType(x.Elem()))
	case *types.Tuple:
		vs := make([]*types.Var, x.Len())
		for i := range vs {
			v := x.At(i)
			vs[i] = types.NewVar(v.Pos(), v.Pkg(), v.Name(), p.substType(v.Type()))
		}
		return types.NewTuple(vs...)
	case *types.Named:
		if x.TypeArgs().Len() > 0 {
			args := make([]types.Type, x.TypeArgs().Len())
			for i := range args {
				args[i] = p.substType(x.TypeArgs().At(i))
			}
			if n, err := types.Instantiate(nil, x.Origin(), args, false); err == nil {
				return n
			}
		}
	}
	return t
}

// freshObj is o, or the inlined function's own copy of it where its
// types are substituted.
func (p *fissionPlan) freshObj(o types.Object) types.Object {
	if v, ok := o.(*types.Var); ok {
		return p.freshVar(v)
	}
	return o
}

// freshVar is v, or its copy of the substituted type where v is a
// variable of the generic function being inlined.
func (p *fissionPlan) freshVar(v *types.Var) *types.Var {
	if p.subst == nil || v == nil || p.scope == nil || v.Pos() < p.scope.Pos() || v.Pos() >= p.scope.End() {
		return v
	}
	if c, ok := p.fresh[v]; ok {
		return c
	}
	c := types.NewVar(v.Pos(), v.Pkg(), v.Name(), p.substType(v.Type()))
	p.fresh[v] = c
	if p.freshSeq == nil {
		p.freshSeq = map[*types.Var]int{}
	}
	p.freshSeq[c] = len(p.freshSeq) + 1
	return c
}

// substTypeNames replaces the names of the type parameters in body with
// their arguments' spellings.
func (p *fissionPlan) substTypeNames(body *ast.BlockStmt) {
	astutil.Apply(body, nil, func(c *astutil.Cursor) bool {
		id, ok := c.Node().(*ast.Ident)
		if !ok {
			return true
		}
		tn, ok := p.info.Uses[id].(*types.TypeName)
		if !ok {
			return true
		}
		tp, ok := tn.Type().(*types.TypeParam)
		if !ok {
			return true
		}
		a, ok := p.subst[tp]
		if !ok {
			return true
		}
		e := p.typeExpr(a, id.Pos())
		if tv, ok := p.info.Types[id]; ok {
			tv.Type = a
			p.info.Types[e] = tv
		}
		c.Replace(e)
		return true
	})
}

// typeExpr is t spelled in the kernel's package, at pos.
func (p *fissionPlan) typeExpr(t types.Type, pos token.Pos) ast.Expr {
	s := types.TypeString(t, func(pk *types.Package) string {
		if pk.Name() == p.res.Package {
			return ""
		}
		return pk.Name()
	})
	e, err := parser.ParseExpr(s)
	if err != nil {
		return &ast.Ident{Name: s, NamePos: pos}
	}
	if id, ok := e.(*ast.Ident); ok {
		id.NamePos = pos
	}
	return e
}

// resultSetter is what inlining call (as assigns its results) puts
// before the body, and the statement each return of the body becomes:
// the declarations of the variables as declares, and an assignment of
// the results to as's left side.
func (p *fissionPlan) resultSetter(call *ast.CallExpr, fn *types.Func, as *ast.AssignStmt) ([]ast.Stmt, func(*ast.ReturnStmt) (ast.Stmt, error), error) {
	var pre []ast.Stmt
	lhs := make([]func() ast.Expr, len(as.Lhs))
	for i, l := range as.Lhs {
		id, isID := l.(*ast.Ident)
		v, def := (*types.Var)(nil), false
		if isID {
			v, def = p.info.Defs[id].(*types.Var)
		}
		switch {
		case def && as.Tok == token.DEFINE:
			pre = append(pre, &ast.DeclStmt{Decl: &ast.GenDecl{TokPos: as.Pos(), Tok: token.VAR, Specs: []ast.Spec{
				&ast.ValueSpec{Names: []*ast.Ident{id}, Type: p.typeExpr(v.Type(), id.Pos())}}}})
			lhs[i] = func() ast.Expr {
				n := &ast.Ident{Name: id.Name, NamePos: id.Pos()}
				p.info.Uses[n] = v
				return n
			}
		case isID && id.Name == "_":
			lhs[i] = func() ast.Expr { return &ast.Ident{Name: "_", NamePos: id.Pos()} }
		default:
			lhs[i] = func() ast.Expr { return p.clone(l).(ast.Expr) }
		}
	}
	set := func(r *ast.ReturnStmt) (ast.Stmt, error) {
		if len(r.Results) != len(lhs) {
			return nil, p.fail(r, "calls %s, which synchronizes and returns a call's results", fn.Name())
		}
		a := &ast.AssignStmt{TokPos: r.Pos(), Tok: token.ASSIGN, Rhs: r.Results}
		for _, l := range lhs {
			a.Lhs = append(a.Lhs, l())
		}
		return a, nil
	}
	return pre, set, nil
}

// tailReturns is list, the body of a function with results, with each
// return an assignment of its results (set): a return may end the list
// or the body of an if at the list's top level, and the rest of the list
// after such an if becomes its else.
func (p *fissionPlan) tailReturns(list []ast.Stmt, fn *types.Func, set func(*ast.ReturnStmt) (ast.Stmt, error)) ([]ast.Stmt, error) {
	for i, s := range list {
		if r, ok := s.(*ast.ReturnStmt); ok && i == len(list)-1 {
			a, err := set(r)
			return append(list[:i:i], a), err
		}
		if f, ok := s.(*ast.IfStmt); ok && f.Init == nil && f.Else == nil && endsInAnyReturn(f.Body.List) {
			body, err := p.tailReturns(f.Body.List, fn, set)
			if err != nil {
				return nil, err
			}
			rest, err := p.tailReturns(list[i+1:], fn, set)
			if err != nil {
				return nil, err
			}
			els := &ast.BlockStmt{Lbrace: f.Body.Rbrace, List: rest, Rbrace: list[len(list)-1].End()}
			nf := &ast.IfStmt{If: f.If, Cond: f.Cond, Body: &ast.BlockStmt{Lbrace: f.Body.Lbrace, List: body, Rbrace: f.Body.Rbrace}, Else: els}
			return append(list[:i:i], nf), nil
		}
		var at ast.Node
		ast.Inspect(s, func(n ast.Node) bool {
			if r, isRet := n.(*ast.ReturnStmt); isRet && at == nil {
				at = r
			}
			_, lit := n.(*ast.FuncLit)
			return !lit && at == nil
		})
		if at != nil {
			return nil, p.fail(at, "calls %s, which synchronizes and returns other than at its end or at the end of an if", fn.Name())
		}
	}
	at := ast.Node(p.scope)
	if len(list) > 0 {
		at = list[len(list)-1]
	}
	return nil, &notFission{pos: p.fset.Position(at.Pos()), why: "calls " + fn.Name() + ", which synchronizes and does not end in a return"}
}

// endsInAnyReturn reports whether list ends in a return.
func endsInAnyReturn(list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	_, ok := list[len(list)-1].(*ast.ReturnStmt)
	return ok
}
