package kernelgen

import (
	"go/ast"
	"go/types"
)

// A slice's length and capacity are tracked apart, because s[lo:hi]
// takes its length from the bounds and only its capacity from s.
type lenKey struct {
	v   *types.Var // a slice variable, or a kernel's dynVar
	cap bool
}

// lenRoot is the slice variable whose length and capacity the slice
// expression x takes its own from (a kernel's dynVar for
// kernel.DynamicShared), and whether its length still comes from that
// variable's (no slice expression on the way has a high bound).
func (t *translator) lenRoot(fn *function, x ast.Expr) (v *types.Var, keepsLen bool) {
	keepsLen = true
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
		case *ast.SliceExpr:
			if !isSlice(t.info.TypeOf(e.X)) {
				return nil, false
			}
			if e.High != nil {
				keepsLen = false
			}
			x = e.X
		case *ast.Ident:
			v, _ := t.info.ObjectOf(e).(*types.Var)
			if v == nil || !isSlice(v.Type()) {
				return nil, false
			}
			return v, keepsLen
		case *ast.CallExpr:
			if fn.dynVar != nil && sdk[t.kernelFunc(e)].Form == formDynamicShared {
				return fn.dynVar, keepsLen
			}
			return nil, false
		default:
			return nil, false
		}
	}
}

// lenRead records that the length (or the capacity) of the slice
// expression x is read.
func (t *translator) lenRead(fn *function, x ast.Expr, cap bool) {
	v, keepsLen := t.lenRoot(fn, x)
	if v == nil || !cap && !keepsLen {
		return
	}
	t.lenReads = append(t.lenReads, lenKey{v, cap})
}

// lenFlow records that the slice variable l (when it is one) takes its
// length and capacity from r.
func (t *translator) lenFlow(fn *function, l, r ast.Expr) {
	id, ok := ast.Unparen(l).(*ast.Ident)
	if !ok {
		return
	}
	if v, _ := t.info.ObjectOf(id).(*types.Var); v != nil {
		t.lenFlowVar(fn, v, r)
	}
}

func (t *translator) lenFlowVar(fn *function, l *types.Var, r ast.Expr) {
	if !isSlice(l.Type()) {
		return
	}
	root, keepsLen := t.lenRoot(fn, r)
	if root == nil {
		return
	}
	t.lenEdges[lenKey{l, true}] = append(t.lenEdges[lenKey{l, true}], lenKey{root, true})
	if keepsLen {
		t.lenEdges[lenKey{l, false}] = append(t.lenEdges[lenKey{l, false}], lenKey{root, false})
	}
}

// closeLens marks, from the reads, every slice whose length or capacity
// is read through an alias or a device function's parameter.
func (t *translator) closeLens() {
	work := append([]lenKey(nil), t.lenReads...)
	seen := map[lenKey]bool{}
	for len(work) > 0 {
		k := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[k] {
			continue
		}
		seen[k] = true
		t.lenUsed[k.v] = true
		work = append(work, t.lenEdges[k]...)
	}
}
