package goback

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"

	"golang.org/x/tools/go/types/typeutil"
)

// Device functions that synchronize and return results are inlined
// before fission: `v := blockSum(t, x, part)` becomes the binding of the
// function's parameters to the arguments, the function's body (a copy of
// it, so two calls are two copies) and `v := <what it returns>`. The
// function must return only at its end. Its variables (parameters
// included) are kept per work-item under names of their own, so they
// clash with none of the caller's. A call as a statement of a function
// without results keeps its own fission (callUnit) where its arguments
// are uniform.

// maxInline bounds the depth of inlined calls (kernels do not recurse).
const maxInline = 16

// expandInlines inlines, in every statement list of b, the statements
// that call a device function that synchronizes and returns results.
func (p *fissionPlan) expandInlines(b *ast.BlockStmt, depth int) error {
	var err error
	var out []ast.Stmt
	for _, s := range b.List {
		ast.Inspect(s, func(n ast.Node) bool {
			if bs, ok := n.(*ast.BlockStmt); ok && err == nil {
				err = p.expandInlines(bs, depth)
				return false
			}
			return err == nil
		})
		if err != nil {
			return err
		}
		call, as := p.resultCall(s)
		if call == nil {
			out = append(out, s)
			continue
		}
		stmts, err := p.inline(call, as, depth)
		if err != nil {
			return err
		}
		out = append(out, stmts...)
	}
	b.List = out
	return nil
}

// resultCall is s's call and s, where s assigns the results of a call of
// a device function that synchronizes and has results.
func (p *fissionPlan) resultCall(s ast.Stmt) (*ast.CallExpr, *ast.AssignStmt) {
	as, ok := s.(*ast.AssignStmt)
	if !ok || len(as.Rhs) != 1 || (as.Tok != token.DEFINE && as.Tok != token.ASSIGN) {
		return nil, nil
	}
	call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil, nil
	}
	fn, ok := typeutil.Callee(p.info, call).(*types.Func)
	if !ok || !p.res.Lockstep[fn.Origin()] {
		return nil, nil
	}
	if sig := fn.Type().(*types.Signature); sig.Results().Len() == 0 {
		return nil, nil
	}
	return call, as
}

// inline is the statements that replace as, which assigns call's
// results.
func (p *fissionPlan) inline(call *ast.CallExpr, as *ast.AssignStmt, depth int) ([]ast.Stmt, error) {
	fn := typeutil.Callee(p.info, call).(*types.Func).Origin()
	sig := fn.Type().(*types.Signature)
	decl := p.res.Devices[fn]
	switch {
	case depth >= maxInline:
		return nil, p.fail(call, "calls %s, which synchronizes, %d calls deep", fn.Name(), depth)
	case decl == nil || decl.Body == nil || sig.Recv() != nil || sig.Variadic() || sig.Params().Len() == 0 || !isThreadType(sig.Params().At(0).Type()):
		return nil, p.fail(call, "calls %s, which synchronizes and is a method, is variadic or does not take the kernel.Thread first", fn.Name())
	}
	subst, err := p.typeArgsOf(call, fn, sig, decl)
	if err != nil {
		return nil, err
	}
	p.subst, p.fresh, p.scope = subst, map[*types.Var]*types.Var{}, decl
	body := p.clone(decl.Body).(*ast.BlockStmt)
	if subst != nil {
		p.substTypeNames(body)
	}
	defer func() { p.subst, p.fresh, p.scope = nil, nil, nil }()
	last, ok := body.List[len(body.List)-1].(*ast.ReturnStmt)
	var early ast.Node
	ast.Inspect(body, func(n ast.Node) bool {
		if r, isRet := n.(*ast.ReturnStmt); isRet && r != last && early == nil {
			early = r
		}
		_, lit := n.(*ast.FuncLit)
		return !lit
	})
	var pre []ast.Stmt
	var list []ast.Stmt
	switch {
	case ok && early == nil && len(last.Results) > 0:
		list = append(body.List[:len(body.List)-1:len(body.List)-1], &ast.AssignStmt{Lhs: as.Lhs, TokPos: as.TokPos, Tok: as.Tok, Rhs: last.Results})
	default:
		// Returns at the ends of ifs: each sets the results, the rest of
		// the body after such an if becomes its else.
		var set func(*ast.ReturnStmt) (ast.Stmt, error)
		if pre, set, err = p.resultSetter(call, fn, as); err == nil {
			list, err = p.tailReturns(body.List, fn, set)
		}
		if err != nil {
			return nil, err
		}
	}
	// The body's variables, and the parameters, are kept per work-item.
	ast.Inspect(body, func(n ast.Node) bool {
		if id, isID := n.(*ast.Ident); isID {
			if v, isVar := p.info.Defs[id].(*types.Var); isVar {
				p.inlined[v] = true
			}
		}
		return true
	})
	var lhs, rhs []ast.Expr
	i := 0
	for _, f := range decl.Type.Params.List {
		for _, name := range f.Names {
			arg := call.Args[i]
			i++
			v, _ := p.info.Defs[name].(*types.Var)
			v = p.freshVar(v)
			if isThreadType(v.Type()) {
				p.inlined[v] = true
				if name.Name != p.tname && name.Name != "_" && !containsString(p.aliases, name.Name) {
					p.aliases = append(p.aliases, name.Name)
				}
				continue
			}
			if name.Name == "_" {
				return nil, p.fail(call, "calls %s, which synchronizes and has a parameter named _", fn.Name())
			}
			id := &ast.Ident{Name: name.Name, NamePos: arg.Pos()}
			p.info.Defs[id] = v
			p.inlined[v] = true
			lhs, rhs = append(lhs, id), append(rhs, arg)
		}
	}
	body.List = list
	if err := p.expandInlines(body, depth+1); err != nil {
		return nil, err
	}
	out := pre
	if len(lhs) > 0 {
		out = append(out, &ast.AssignStmt{Lhs: lhs, TokPos: call.Pos(), Tok: token.DEFINE, Rhs: rhs})
	}
	return append(out, body.List...), nil
}

// sameTypeArgs reports whether call instantiates the generic function of
// signature sig with types printed as its own type parameters' names
// (T for T): the inlined body's types then read the same in the caller.
func (p *fissionPlan) sameTypeArgs(call *ast.CallExpr, sig *types.Signature) bool {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	id, ok := fun.(*ast.Ident)
	if !ok {
		return false
	}
	inst, ok := p.info.Instances[id]
	if !ok || inst.TypeArgs.Len() != sig.TypeParams().Len() {
		return false
	}
	for i := 0; i < inst.TypeArgs.Len(); i++ {
		tp, isTP := inst.TypeArgs.At(i).(*types.TypeParam)
		if !isTP || tp.Obj().Name() != sig.TypeParams().At(i).Obj().Name() {
			return false
		}
	}
	return true
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// clone is a deep copy of n whose expressions and identifiers have the
// type information of those they copy.
func (p *fissionPlan) clone(n ast.Node) ast.Node {
	return p.cloneValue(reflect.ValueOf(n)).Interface().(ast.Node)
}

var nodeType = reflect.TypeFor[ast.Node]()

func (p *fissionPlan) cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !v.Type().Implements(nodeType) {
			return v // an ast.Object or ast.Scope: shared
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(v.Elem())
		for i := 0; i < c.Elem().NumField(); i++ {
			if f := c.Elem().Field(i); f.CanSet() {
				f.Set(p.cloneValue(f))
			}
		}
		p.copyInfo(v.Interface(), c.Interface())
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		r := reflect.New(v.Type()).Elem()
		r.Set(p.cloneValue(v.Elem()))
		return r
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			c.Index(i).Set(p.cloneValue(v.Index(i)))
		}
		return c
	}
	return v
}

// copyInfo gives the copy c of node n n's type information.
func (p *fissionPlan) copyInfo(n, c any) {
	if e, ok := n.(ast.Expr); ok {
		if tv, ok := p.info.Types[e]; ok {
			tv.Type = p.substType(tv.Type)
			p.info.Types[c.(ast.Expr)] = tv
		}
	}
	switch n := n.(type) {
	case *ast.Ident:
		if o := p.info.Defs[n]; o != nil {
			p.info.Defs[c.(*ast.Ident)] = p.freshObj(o)
		}
		if o := p.info.Uses[n]; o != nil {
			p.info.Uses[c.(*ast.Ident)] = p.freshObj(o)
		}
		if inst, ok := p.info.Instances[n]; ok {
			p.info.Instances[c.(*ast.Ident)] = inst
		}
	case *ast.SelectorExpr:
		if s, ok := p.info.Selections[n]; ok {
			p.info.Selections[c.(*ast.SelectorExpr)] = s
		}
	}
}
