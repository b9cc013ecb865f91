package kernelgen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// analyze finds, before any C++ is written, what the emitter needs to know
// of whole functions: which slices are written and which have their
// length read (through any alias or device function), which kernels are
// lockstep or use dynamic shared memory.
func (t *translator) analyze() {
	for _, fn := range t.order {
		t.scanFunc(fn)
	}
	t.closeLens()
	// written(u) and an edge u → r (u aliases r) make r written.
	var work []*types.Var
	for v := range t.written {
		work = append(work, v)
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, r := range t.edges[v] {
			if !t.written[r] {
				t.written[r] = true
				work = append(work, r)
			}
		}
	}
	// Close lockstep and dynamic shared memory over callees (order has
	// callees first): a device function that calls DynamicShared takes
	// hg_dyn_bytes from its callers, down from the kernel.
	for _, fn := range t.order {
		fn.dynLen = fn.dyn && t.lenUsed[fn.dynVar]
		for _, c := range fn.callees {
			fn.lockstep = fn.lockstep || c.lockstep
			fn.dyn = fn.dyn || c.dyn
			fn.dynLen = fn.dynLen || c.dynLen
		}
	}
}

func (t *translator) scanFunc(fn *function) {
	fn.dynVar = types.NewVar(fn.decl.Pos(), nil, "hg_dyn_shared", nil)
	ast.Inspect(fn.decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if n.Tok != token.DEFINE {
					t.markWritten(l)
				}
				if len(n.Lhs) == len(n.Rhs) {
					t.alias(l, n.Rhs[i])
					t.lenFlow(fn, l, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					t.alias(id, n.Values[i])
					t.lenFlow(fn, id, n.Values[i])
				}
			}
		case *ast.RangeStmt:
			t.lenRead(fn, n.X, false)
		case *ast.IncDecStmt:
			t.markWritten(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				t.markWritten(n.X)
			}
		case *ast.CallExpr:
			t.scanCall(fn, n)
		}
		return true
	})
}

func (t *translator) scanCall(fn *function, call *ast.CallExpr) {
	if callee := t.deviceCallee(call); callee != nil {
		d := t.decls[callee]
		if d == nil {
			return
		}
		var params []*types.Var
		for _, f := range d.Type.Params.List {
			for _, id := range f.Names {
				v, _ := t.info.Defs[id].(*types.Var)
				params = append(params, v)
			}
			if len(f.Names) == 0 {
				params = append(params, nil)
			}
		}
		for i, a := range call.Args {
			if i < len(params) && params[i] != nil {
				if r := t.rootVar(a); r != nil {
					t.edges[params[i]] = append(t.edges[params[i]], r)
				}
				t.lenFlowVar(fn, params[i], a)
			}
		}
		return
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok && len(call.Args) == 1 {
		if b, ok := t.info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
			t.lenRead(fn, call.Args[0], b.Name() == "cap")
		}
	}
	name := t.kernelFunc(call)
	if sdk[name].Form == formStoreVec && len(call.Args) > 0 {
		if r := t.rootVar(call.Args[0]); r != nil {
			t.written[r] = true
		}
	}
	switch {
	case lockstepOp(name):
		fn.lockstep = true
	case sdk[name].Form == formDynamicShared:
		fn.dyn = true
		t.usesDyn = true
	}
}

// lockstepOp reports whether the kernel SDK function or Thread method
// name is a barrier or warp operation, which makes its caller lockstep.
func lockstepOp(name string) bool { return sdk[name].Lockstep() }

// kernelFunc is the name of the kernel SDK function or Thread method call
// calls, or "".
func (t *translator) kernelFunc(call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	obj := t.info.Uses[sel.Sel]
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != KernelPkg {
		return ""
	}
	if _, ok := obj.(*types.Func); !ok {
		return ""
	}
	return obj.Name()
}

// markWritten records that the slice under the place x is written.
func (t *translator) markWritten(x ast.Expr) {
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
		case *ast.SelectorExpr:
			if isPointer(t.info.TypeOf(e.X)) {
				return
			}
			x = e.X
		case *ast.IndexExpr:
			switch t.info.TypeOf(e.X).Underlying().(type) {
			case *types.Slice:
				if r := t.rootVar(e.X); r != nil {
					t.written[r] = true
				}
				return
			case *types.Array:
				x = e.X
			default:
				return
			}
		default:
			return
		}
	}
}

// alias records that the slice variable l (when it is one) aliases the
// slice r is rooted at.
func (t *translator) alias(l, r ast.Expr) {
	id, ok := ast.Unparen(l).(*ast.Ident)
	if !ok {
		return
	}
	v, _ := t.info.ObjectOf(id).(*types.Var)
	if v == nil || !isSlice(v.Type()) {
		return
	}
	if root := t.rootVar(r); root != nil {
		t.edges[v] = append(t.edges[v], root)
	}
}

// rootVar is the slice variable a slice expression views, or nil.
func (t *translator) rootVar(x ast.Expr) *types.Var {
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
		case *ast.SliceExpr:
			if !isSlice(t.info.TypeOf(e.X)) {
				return nil
			}
			x = e.X
		case *ast.Ident:
			v, _ := t.info.ObjectOf(e).(*types.Var)
			if v == nil || !isSlice(v.Type()) {
				return nil
			}
			return v
		default:
			return nil
		}
	}
}

func isSlice(typ types.Type) bool {
	if typ == nil {
		return false
	}
	_, ok := typ.Underlying().(*types.Slice)
	return ok
}

func isPointer(typ types.Type) bool {
	if typ == nil {
		return false
	}
	_, ok := typ.Underlying().(*types.Pointer)
	return ok
}

// constSlice reports whether the slice variable v is never written: a
// const view in C++.
func (t *translator) constSlice(v *types.Var) bool { return isSlice(v.Type()) && !t.written[v] }
