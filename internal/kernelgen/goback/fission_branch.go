package goback

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/types"
)

// Ifs with a condition uniform across the block (branches). Where either
// branch synchronizes, or ends in a return of the whole group, the if
// runs once per group: its condition is evaluated once, as a loop
// header is, and each branch is a list of units of its own. A return
// that ends a branch outside loops with barriers and guards returns
// every work-item at once: the group function returns.

// isBranch reports whether s is an if with a uniform condition that
// fission runs once per group: a branch of it synchronizes or, where a
// return ends the group (ctx), ends in one.
func (p *fissionPlan) isBranch(s ast.Stmt, ctx listCtx) bool {
	f, ok := s.(*ast.IfStmt)
	if !ok || f.Init != nil || !p.isUniform(f.Cond) {
		return false
	}
	if p.ifSyncs(f) {
		return true
	}
	if ctx.inLoop || ctx.inGuard {
		return false
	}
	for _, b := range branches(f) {
		if b != nil && endsInReturn(b.List) {
			return true
		}
	}
	return false
}

// ifSyncs reports whether a branch of f synchronizes at its top level.
func (p *fissionPlan) ifSyncs(f *ast.IfStmt) bool {
	for _, b := range branches(f) {
		if b != nil && p.hasTopBarrier(b) {
			return true
		}
	}
	return false
}

// branches are f's body and its else as a block (nil where none).
func branches(f *ast.IfStmt) [2]*ast.BlockStmt {
	out := [2]*ast.BlockStmt{f.Body}
	switch e := f.Else.(type) {
	case *ast.BlockStmt:
		out[1] = e
	case *ast.IfStmt:
		out[1] = &ast.BlockStmt{Lbrace: e.Pos(), List: []ast.Stmt{e}, Rbrace: e.End()}
	}
	return out
}

// endsInReturn reports whether list ends in a return without results.
func endsInReturn(list []ast.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	r, ok := list[len(list)-1].(*ast.ReturnStmt)
	return ok && len(r.Results) == 0
}

// branchUnit plans an if with a uniform condition: each branch's units,
// a return that ends one taken as the group's.
func (p *fissionPlan) branchUnit(f *ast.IfStmt, ctx listCtx) (unit, error) {
	u := unit{branch: f}
	inner := ctx
	inner.top = false
	for i, b := range branches(f) {
		if b == nil {
			continue
		}
		list := b.List
		if !ctx.inLoop && !ctx.inGuard && endsInReturn(list) {
			p.groupReturns[list[len(list)-1].(*ast.ReturnStmt)] = true
			list = list[:len(list)-1]
			u.ret[i] = true
		}
		us, err := p.planList(list, inner)
		if err != nil {
			return u, err
		}
		if i == 0 {
			u.body = us
		} else {
			u.els = us
			u.hasElse = true
		}
	}
	return u, nil
}

// emitBranch writes an if with a uniform condition, run once per group.
func (p *fissionPlan) emitBranch(w *bytes.Buffer, u unit, t string, ts func(types.Type) string, guards []guardRef) error {
	f := u.branch
	cond := p.rewrite(f.Cond, -1).(ast.Expr)
	fmt.Fprintf(w, "%s\nif %s {\n", p.lineDirective(f.Pos()), p.plain(cond))
	if err := p.emitUnits(w, u.body, t, ts, guards); err != nil {
		return err
	}
	if u.ret[0] {
		fmt.Fprintf(w, "return\n")
	}
	if u.hasElse {
		fmt.Fprintf(w, "} else {\n")
		if err := p.emitUnits(w, u.els, t, ts, guards); err != nil {
			return err
		}
		if u.ret[1] {
			fmt.Fprintf(w, "return\n")
		}
	}
	fmt.Fprintf(w, "}\n")
	return nil
}
