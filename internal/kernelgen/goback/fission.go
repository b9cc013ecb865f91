package goback

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/hipgo/hipgo/internal/kernelgen"
)

// Loop fission runs a kernel with barriers on the cpu agent as CPU OpenCL
// runtimes do: each stretch of the body between barriers becomes one loop
// over the group's work-items, so no work-item needs a stack of its own.
// It handles barriers at the top level of the body and at the top level
// of a for loop whose header is uniform across the block, itself at the
// top level or at the top level of such a loop (at any depth); any other
// kernel with barriers runs as coroutines (kernelimpl.Lockstep).

// How a top-level local of a fissioned kernel is kept.
const (
	varLocal = iota // used in its own stretch only: a plain local
	varGroup        // uniform and read by a loop header: one per group
	varItem         // live across a barrier: one per work-item
)

// unit is one piece of a fissioned body: a stretch of statements run per
// work-item, or a loop with barriers run once per group.
type unit struct {
	stmts []ast.Stmt
	loop  *ast.ForStmt
	body  []unit // the loop's stretches
	id    int
	// A call of a device function that synchronizes, run for the whole
	// group by that function's own fission (callee).
	call     *ast.CallExpr
	callee   *fissionPlan
	calleeFn *types.Func
}

type fissionPlan struct {
	res     *kernelgen.Result
	cache   map[*ast.FuncDecl]*calleePlan // the device functions planned so far
	k       *kernelgen.Kernel
	fset    *token.FileSet
	info    *types.Info
	thread  *types.Var
	tname   string
	params  []*types.Var
	prelude []ast.Stmt // const and type declarations, Shared calls: once per group
	units   []unit
	class   map[*types.Var]int
	names   map[*types.Var]string
	order   []*types.Var // the varItem and varGroup variables, in source order
	returns bool

	assigned map[*types.Var]bool
	uniform  map[*types.Var]bool
	stretch  map[*types.Var]int // the stretch a top-level local is declared in
	convert  map[ast.Stmt]bool  // declarations that become assignments
	nunits   int
}

// notFission is why a kernel runs as coroutines.
type notFission struct {
	pos token.Position
	why string
}

func (e *notFission) Error() string {
	return fmt.Sprintf("%s:%d: %s", filepath.Base(e.pos.Filename), e.pos.Line, e.why)
}

// planFission decides whether k can run by loop fission and, if so, how.
func planFission(res *kernelgen.Result, k *kernelgen.Kernel) (*fissionPlan, error) {
	return planFissionWith(res, k, map[*ast.FuncDecl]*calleePlan{})
}

// calleePlan is a device function's fission, or why it has none.
type calleePlan struct {
	plan *fissionPlan
	err  error
}

// planFissionWith is planFission with the device functions planned so far
// (each is planned once: its emission rewrites its body).
func planFissionWith(res *kernelgen.Result, k *kernelgen.Kernel, cache map[*ast.FuncDecl]*calleePlan) (*fissionPlan, error) {
	p := &fissionPlan{res: res, cache: cache, k: k, fset: res.Fset, info: res.Info, class: map[*types.Var]int{}, names: map[*types.Var]string{},
		assigned: map[*types.Var]bool{}, uniform: map[*types.Var]bool{}, stretch: map[*types.Var]int{}, convert: map[ast.Stmt]bool{}}
	d := k.Decl
	fail := func(n ast.Node, format string, args ...any) error {
		return &notFission{pos: p.fset.Position(n.Pos()), why: fmt.Sprintf(format, args...)}
	}
	for i, f := range d.Type.Params.List {
		for _, id := range f.Names {
			v, _ := p.info.Defs[id].(*types.Var)
			if i == 0 && p.thread == nil {
				p.thread, p.tname = v, id.Name
				continue
			}
			p.params = append(p.params, v)
		}
		if i == 0 && len(f.Names) == 0 {
			p.tname = "_"
		}
	}
	// Constructs that rule fission out wherever they stand. A call of a
	// device function that synchronizes may stand as a statement of its
	// own (callUnit says where).
	var err error
	threadOK := map[*ast.Ident]bool{}
	stmtCalls := map[*ast.CallExpr]bool{}
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if es, ok := n.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok {
				stmtCalls[c] = true
			}
		}
		return true
	})
	ast.Inspect(d.Body, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					threadOK[id] = true
				}
			}
			for _, a := range n.Args {
				if id, ok := a.(*ast.Ident); ok {
					threadOK[id] = true
				}
			}
			if fn, ok := typeutil.Callee(p.info, n).(*types.Func); ok {
				if c := p.sdkCall(n); c.Coroutines() {
					what := "warp operation"
					if !c.Warp() {
						what = "block-wide call"
					}
					err = fail(n, "%s %s", what, fn.Name())
				} else if res.Lockstep[fn.Origin()] && !stmtCalls[n] {
					err = fail(n, "calls %s, which synchronizes", fn.Name())
				}
			}
		case *ast.BranchStmt:
			if n.Tok == token.GOTO {
				err = fail(n, "goto")
			}
		case *ast.Ident:
			if strings.HasPrefix(n.Name, "hg") {
				err = fail(n, "identifier %s: the hg prefix is the generated code's", n.Name)
			}
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if id, ok := l.(*ast.Ident); ok && n.Tok == token.DEFINE && p.info.Defs[id] != nil {
					continue
				}
				p.markAssigned(l)
			}
		case *ast.IncDecStmt:
			p.markAssigned(n.X)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				p.markAssigned(n.X)
			}
		case *ast.RangeStmt:
			if n.Tok == token.ASSIGN {
				p.markAssigned(n.Key)
				p.markAssigned(n.Value)
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for id, o := range p.info.Uses {
		if o == p.thread && p.thread != nil && id.Pos() >= d.Body.Pos() && id.End() <= d.Body.End() && !threadOK[id] {
			return nil, fail(id, "uses %s other than to call it or pass it", p.tname)
		}
	}
	for _, v := range p.params {
		if v != nil && p.assigned[v] {
			return nil, fail(d, "assigns parameter %s, a per-work-item copy", v.Name())
		}
		if v != nil {
			p.uniform[v] = true
		}
	}
	if p.thread != nil && p.assigned[p.thread] {
		return nil, fail(d, "assigns %s", p.tname)
	}

	// The top level: barriers, loops with barriers, stretches.
	cur := &unit{id: p.nunits}
	flush := func(us *[]unit) {
		if len(cur.stmts) > 0 {
			*us = append(*us, *cur)
			p.nunits++
		}
		cur = &unit{id: p.nunits}
	}
	for _, s := range d.Body.List {
		switch {
		case p.isBarrier(s):
			flush(&p.units)
		case p.isGroupDecl(s):
			p.prelude = append(p.prelude, s)
		case p.isSharedDecl(s):
			p.prelude = append(p.prelude, s)
			for _, v := range p.declared(s) {
				if p.assigned[v] {
					return nil, fail(s, "assigns %s, a Shared variable", v.Name())
				}
				p.uniform[v] = true // the same memory in every work-item
			}
		case p.deviceCallStmt(s) != nil:
			flush(&p.units)
			u, err := p.callUnit(s)
			if err != nil {
				return nil, err
			}
			p.units = append(p.units, u)
			p.nunits++
			cur = &unit{id: p.nunits}
		case isFor(s) && p.hasTopBarrier(s.(*ast.ForStmt).Body):
			flush(&p.units)
			u, err := p.barrierLoop(s.(*ast.ForStmt))
			if err != nil {
				return nil, err
			}
			p.units = append(p.units, u)
			p.nunits++
			cur = &unit{id: p.nunits}
		default:
			if err := p.stretchStmt(s, false); err != nil {
				return nil, err
			}
			p.topLocals(s, cur.id, true)
			cur.stmts = append(cur.stmts, s)
		}
	}
	flush(&p.units)
	if p.hasReturn() {
		if c := firstCall(p.units); c != nil {
			return nil, fail(c, "a return in a kernel that calls %s, which synchronizes", c.Fun)
		}
	}

	// Where each top-level local is used decides how it is kept.
	span := map[int][2]token.Pos{}
	var spans func(us []unit)
	spans = func(us []unit) {
		for _, u := range us {
			if u.loop != nil {
				spans(u.body)
				continue
			}
			if u.call != nil {
				continue
			}
			span[u.id] = [2]token.Pos{u.stmts[0].Pos(), u.stmts[len(u.stmts)-1].End()}
		}
	}
	spans(p.units)
	in := func(pos token.Pos) int {
		for id, s := range span {
			if pos >= s[0] && pos < s[1] {
				return id
			}
		}
		return -1 // a loop header
	}
	for id, o := range p.info.Uses {
		v, ok := o.(*types.Var)
		if !ok {
			continue
		}
		home, top := p.stretch[v]
		if !top {
			continue
		}
		switch where := in(id.Pos()); {
		case where == -1:
			if !p.uniform[v] {
				return nil, fail(id, "a loop with a barrier reads %s, which is not uniform across the block", v.Name())
			}
			p.class[v] = varGroup
		case where != home && p.class[v] != varGroup:
			p.class[v] = varItem
		}
	}
	// A declaration that keeps any of its variables outside the stretch
	// becomes an assignment: its plain locals must then live outside too.
	for s := range p.convert {
		vs := p.declared(s)
		keep := false
		for _, v := range vs {
			keep = keep || p.class[v] != varLocal
		}
		if !keep {
			delete(p.convert, s)
			continue
		}
		for _, v := range vs {
			if p.class[v] == varLocal {
				p.class[v] = varItem
			}
		}
	}
	// The generated code's own names are taken.
	seen := map[string]bool{"hgB": true, "hgN": true, "hgF": true, "hgI": true, "hgT": true, "hgDone": true, "hgLeft": true}
	for _, v := range p.orderedLocals() {
		if p.class[v] == varLocal {
			continue
		}
		if n, ok := v.Type().(*types.Named); ok && n.Obj().Parent() != nil && n.Obj().Parent() != n.Obj().Pkg().Scope() {
			return nil, fail(k.Decl, "%s has a type declared in the kernel", v.Name())
		}
		name := "hg" + upperFirst(v.Name())
		for i := 2; seen[name]; i++ {
			name = fmt.Sprintf("hg%s%d", upperFirst(v.Name()), i)
		}
		seen[name] = true
		p.names[v] = name
		p.order = append(p.order, v)
	}
	p.returns = p.hasReturn()
	return p, nil
}

func upperFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func isFor(s ast.Stmt) bool { _, ok := s.(*ast.ForStmt); return ok }

// markAssigned records the variable an assignment to e changes, if any.
func (p *fissionPlan) markAssigned(e ast.Expr) {
	for e != nil {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			if _, ptr := p.info.TypeOf(x.X).Underlying().(*types.Pointer); ptr {
				return
			}
			e = x.X
		case *ast.IndexExpr:
			if _, arr := p.info.TypeOf(x.X).Underlying().(*types.Array); !arr {
				return
			}
			e = x.X
		case *ast.Ident:
			if v, ok := p.info.Uses[x].(*types.Var); ok {
				p.assigned[v] = true
			}
			return
		default:
			return
		}
	}
}

func (p *fissionPlan) isBarrier(s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	return ok && p.sdkCall(call).Barrier()
}

// sdkCall is the kernel SDK's row for the function or Thread method call
// calls; the zero row for other calls.
func (p *fissionPlan) sdkCall(call *ast.CallExpr) kernelgen.SDKCall {
	fn, ok := typeutil.Callee(p.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != kernelgen.KernelPkg {
		return kernelgen.SDKCall{}
	}
	c, _ := kernelgen.LookupSDK(fn.Name())
	return c
}

func (p *fissionPlan) containsBarrier(n ast.Node) (pos token.Pos) {
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && pos == token.NoPos && p.sdkCall(c).Barrier() {
			pos = c.Pos()
		}
		return pos == token.NoPos
	})
	return pos
}

// hasTopBarrier reports whether b has a barrier at its top level, or a
// for loop at its top level that has one (at any depth of such loops).
func (p *fissionPlan) hasTopBarrier(b *ast.BlockStmt) bool {
	for _, s := range b.List {
		if p.isBarrier(s) || p.deviceCallStmt(s) != nil {
			return true
		}
		if f, ok := s.(*ast.ForStmt); ok && p.hasTopBarrier(f.Body) {
			return true
		}
	}
	return false
}

// isGroupDecl: a const or type declaration, which every stretch may use.
func (p *fissionPlan) isGroupDecl(s ast.Stmt) bool {
	ds, ok := s.(*ast.DeclStmt)
	if !ok {
		return false
	}
	g := ds.Decl.(*ast.GenDecl)
	return g.Tok == token.CONST || g.Tok == token.TYPE
}

// isSharedDecl: x := kernel.Shared[T](t) or kernel.DynamicShared[T](t),
// the same memory for every work-item, so taken once per group.
func (p *fissionPlan) isSharedDecl(s ast.Stmt) bool {
	as, ok := s.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) {
		return false
	}
	for _, r := range as.Rhs {
		c, ok := r.(*ast.CallExpr)
		if !ok {
			return false
		}
		if !p.sdkCall(c).GroupMemory() {
			return false
		}
	}
	return true
}

// declared is the variables s declares at its own level.
func (p *fissionPlan) declared(s ast.Stmt) []*types.Var {
	var ids []*ast.Ident
	switch s := s.(type) {
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			for _, l := range s.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					ids = append(ids, id)
				}
			}
		}
	case *ast.DeclStmt:
		if g := s.Decl.(*ast.GenDecl); g.Tok == token.VAR {
			for _, sp := range g.Specs {
				ids = append(ids, sp.(*ast.ValueSpec).Names...)
			}
		}
	}
	var vs []*types.Var
	for _, id := range ids {
		if v, ok := p.info.Defs[id].(*types.Var); ok {
			vs = append(vs, v)
		} else if v, ok := p.info.Uses[id].(*types.Var); ok {
			vs = append(vs, v) // := redeclaring
		}
	}
	return vs
}

// topLocals records the locals s declares in stretch id, and whether each
// is uniform (kernelTop: s stands at the kernel body's top level).
func (p *fissionPlan) topLocals(s ast.Stmt, id int, kernelTop bool) {
	vs := p.declared(s)
	if len(vs) == 0 {
		return
	}
	p.convert[s] = true
	uni := kernelTop
	switch s := s.(type) {
	case *ast.AssignStmt:
		uni = uni && len(s.Lhs) == len(s.Rhs)
		for _, r := range s.Rhs {
			uni = uni && p.isUniform(r)
		}
	case *ast.DeclStmt:
		for _, sp := range s.Decl.(*ast.GenDecl).Specs {
			vsp := sp.(*ast.ValueSpec)
			uni = uni && (len(vsp.Values) == 0 || len(vsp.Values) == len(vsp.Names))
			for _, r := range vsp.Values {
				uni = uni && p.isUniform(r)
			}
		}
	}
	for _, v := range vs {
		if _, ok := p.stretch[v]; !ok {
			p.stretch[v] = id
		}
		if uni && !p.assigned[v] {
			p.uniform[v] = true
		}
	}
}

// isUniform reports whether e has the same value in every work-item of the
// block: constants, parameters, uniform locals, the block's and grid's
// sizes and indices, and arithmetic and conversions of these.
func (p *fissionPlan) isUniform(e ast.Expr) bool {
	if tv, ok := p.info.Types[e]; ok && tv.Value != nil {
		return true
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return p.isUniform(e.X)
	case *ast.BinaryExpr:
		return p.isUniform(e.X) && p.isUniform(e.Y)
	case *ast.UnaryExpr:
		return e.Op != token.AND && e.Op != token.ARROW && p.isUniform(e.X)
	case *ast.Ident:
		v, ok := p.info.Uses[e].(*types.Var)
		return ok && p.uniform[v]
	case *ast.SelectorExpr:
		if sel, ok := p.info.Selections[e]; ok && sel.Kind() == types.FieldVal {
			return p.isUniform(e.X)
		}
	case *ast.IndexExpr:
		if _, arr := p.info.TypeOf(e.X).Underlying().(*types.Array); arr {
			return p.isUniform(e.X) && p.isUniform(e.Index)
		}
	case *ast.SliceExpr:
		// The same slice of the same memory in every work-item.
		for _, x := range []ast.Expr{e.Low, e.High, e.Max} {
			if x != nil && !p.isUniform(x) {
				return false
			}
		}
		return p.isUniform(e.X)
	case *ast.CallExpr:
		if tv := p.info.Types[e.Fun]; tv.IsType() {
			return len(e.Args) == 1 && p.isUniform(e.Args[0])
		}
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			if b, ok := p.info.Uses[id].(*types.Builtin); ok {
				switch b.Name() {
				case "len", "cap", "min", "max":
					for _, a := range e.Args {
						if !p.isUniform(a) {
							return false
						}
					}
					return true
				}
			}
			return false
		}
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && p.thread != nil && p.info.Uses[id] == p.thread {
				switch sel.Sel.Name {
				case "BlockIdx", "BlockDim", "GridDim", "WarpSize":
					return true
				}
			}
		}
	}
	return false
}

// stretchStmt checks a statement of a stretch: no barrier in it, no
// Shared call, and, in a loop with barriers (inLoop), no return and no
// break or continue of that loop.
func (p *fissionPlan) stretchStmt(s ast.Stmt, inLoop bool) error {
	fail := func(n ast.Node, format string, args ...any) error {
		return &notFission{pos: p.fset.Position(n.Pos()), why: fmt.Sprintf(format, args...)}
	}
	if pos := p.containsBarrier(s); pos != token.NoPos {
		kind := strings.TrimPrefix(strings.TrimSuffix(fmt.Sprintf("%T", s), "Stmt"), "*ast.")
		return &notFission{pos: p.fset.Position(pos), why: fmt.Sprintf("barrier inside a %s statement (line %d)", strings.ToLower(kind), p.fset.Position(s.Pos()).Line)}
	}
	var err error
	var loops, breakables [][2]token.Pos
	labels := map[string]bool{}
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			loops = append(loops, [2]token.Pos{n.Pos(), n.End()})
			breakables = append(breakables, [2]token.Pos{n.Pos(), n.End()})
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			breakables = append(breakables, [2]token.Pos{n.Pos(), n.End()})
		case *ast.LabeledStmt:
			labels[n.Label.Name] = true
		case *ast.CallExpr:
			if c := p.sdkCall(n); c.GroupMemory() && err == nil {
				err = fail(n, "kernel.%s outside a top-level declaration", c.Name)
			}
			if fn, ok := typeutil.Callee(p.info, n).(*types.Func); ok && p.res.Lockstep[fn.Origin()] && err == nil {
				err = fail(n, "calls %s, which synchronizes, inside a statement", fn.Name())
			}
		}
		return true
	})
	if err != nil || !inLoop {
		return err
	}
	within := func(pos token.Pos, rs [][2]token.Pos) bool {
		for _, r := range rs {
			if pos > r[0] && pos < r[1] {
				return true
			}
		}
		return false
	}
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ReturnStmt:
			if err == nil {
				err = fail(n, "return inside a loop with a barrier")
			}
		case *ast.BranchStmt:
			escapes := false
			switch {
			case n.Label != nil:
				escapes = !labels[n.Label.Name]
			case n.Tok == token.BREAK:
				escapes = !within(n.Pos(), breakables)
			case n.Tok == token.CONTINUE:
				escapes = !within(n.Pos(), loops)
			}
			if escapes && err == nil {
				err = fail(n, "%s of a loop with a barrier", n.Tok)
			}
		}
		return true
	})
	return err
}

// barrierLoop checks a top-level for loop with barriers and splits its
// body into stretches.
func (p *fissionPlan) barrierLoop(f *ast.ForStmt) (unit, error) {
	fail := func(n ast.Node, format string, args ...any) error {
		return &notFission{pos: p.fset.Position(n.Pos()), why: fmt.Sprintf(format, args...)}
	}
	u := unit{loop: f}
	var loopVars []*types.Var
	if f.Init != nil {
		as, ok := f.Init.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) {
			return u, fail(f, "a loop with a barrier whose init is not a declaration")
		}
		for _, r := range as.Rhs {
			if !p.isUniform(r) {
				return u, fail(r, "a loop with a barrier starts from a value that is not uniform across the block")
			}
		}
		loopVars = p.declared(as)
	}
	for _, v := range loopVars {
		if p.assigned[v] {
			// The post statement assigns it; the body must not.
			ok := true
			ast.Inspect(f.Body, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch n := n.(type) {
				case *ast.AssignStmt:
					lhs = n.Lhs
				case *ast.IncDecStmt:
					lhs = []ast.Expr{n.X}
				case *ast.UnaryExpr:
					if n.Op == token.AND {
						lhs = []ast.Expr{n.X}
					}
				}
				for _, l := range lhs {
					if id, isID := ast.Unparen(l).(*ast.Ident); isID && p.info.Uses[id] == v {
						ok = false
					}
				}
				return true
			})
			if !ok {
				return u, fail(f, "a loop with a barrier whose body assigns its variable %s", v.Name())
			}
		}
		p.uniform[v] = true
	}
	defer func() {
		for _, v := range loopVars {
			delete(p.uniform, v)
		}
	}()
	if f.Cond != nil && !p.isUniform(f.Cond) {
		return u, fail(f.Cond, "a loop with a barrier whose condition is not uniform across the block")
	}
	if f.Post != nil {
		var lhs, rhs []ast.Expr
		switch s := f.Post.(type) {
		case *ast.AssignStmt:
			lhs, rhs = s.Lhs, s.Rhs
		case *ast.IncDecStmt:
			lhs = []ast.Expr{s.X}
		default:
			return u, fail(f.Post, "a loop with a barrier whose post statement is not an assignment")
		}
		for _, l := range lhs {
			id, ok := l.(*ast.Ident)
			v, _ := p.info.Uses[id].(*types.Var)
			if !ok || !p.uniform[v] || !containsVar(loopVars, v) {
				return u, fail(l, "a loop with a barrier whose post statement assigns other than its own variables")
			}
		}
		for _, r := range rhs {
			if !p.isUniform(r) {
				return u, fail(r, "a loop with a barrier whose post statement is not uniform across the block")
			}
		}
	}
	cur := unit{id: p.nunits}
	flush := func() {
		if len(cur.stmts) > 0 {
			u.body = append(u.body, cur)
			p.nunits++
		}
		cur = unit{id: p.nunits}
	}
	for _, s := range f.Body.List {
		if p.isBarrier(s) {
			flush()
			continue
		}
		if p.deviceCallStmt(s) != nil {
			flush()
			cu, err := p.callUnit(s)
			if err != nil {
				return u, err
			}
			u.body = append(u.body, cu)
			p.nunits++
			cur = unit{id: p.nunits}
			continue
		}
		if inner, ok := s.(*ast.ForStmt); ok && p.hasTopBarrier(inner.Body) {
			// A loop with barriers in a loop with barriers, at any depth:
			// its header uniform as the outer one's is, its body in
			// stretches of its own.
			flush()
			iu, err := p.barrierLoop(inner)
			if err != nil {
				return u, err
			}
			u.body = append(u.body, iu)
			p.nunits++
			cur = unit{id: p.nunits}
			continue
		}
		if ds, ok := s.(*ast.DeclStmt); ok && ds.Decl.(*ast.GenDecl).Tok != token.VAR {
			return u, fail(s, "a declaration of a constant or type inside a loop with a barrier")
		}
		if err := p.stretchStmt(s, true); err != nil {
			return u, err
		}
		p.topLocals(s, cur.id, false)
		cur.stmts = append(cur.stmts, s)
	}
	flush()
	return u, nil
}

func containsVar(vs []*types.Var, v *types.Var) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// orderedLocals is the top-level locals in declaration order.
func (p *fissionPlan) orderedLocals() []*types.Var {
	var vs []*types.Var
	for v := range p.stretch {
		vs = append(vs, v)
	}
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].Pos() < vs[j-1].Pos(); j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	return vs
}

// emit writes the group function, name, and its locals' frame type.
// A generic kernel's are generic: tdecl declares the type parameters,
// "[T Number]", and tuse names them, "[T]" ("" for other kernels).
func (p *fissionPlan) emit(w *bytes.Buffer, name, frame, tdecl, tuse string, ts func(types.Type) string) error {
	k := p.k
	fmt.Fprintf(w, "// %s holds the per-work-item variables of %s's fissioned group.\ntype %s%s struct {\n", frame, k.GoName, frame, tdecl)
	for _, v := range p.order {
		if p.class[v] == varItem {
			fmt.Fprintf(w, "\t%s []%s\n", p.names[v], ts(v.Type()))
		}
	}
	if p.hasReturn() {
		fmt.Fprintf(w, "\thgDone []bool\n")
	}
	fmt.Fprintf(w, "}\n\n")
	var params []string
	for _, v := range p.params {
		params = append(params, fmt.Sprintf("%s %s", v.Name(), ts(v.Type())))
	}
	fmt.Fprintf(w, "// %s runs one work-group of %s (%s:%d) by loop fission: each stretch\n// between barriers is one loop over the group's work-items.\n",
		name, k.GoName, filepath.Base(k.Pos.Filename), k.Pos.Line)
	fmt.Fprintf(w, "func %s%s(hgB *kernel.Block%s) {\n", name, tdecl, joinArgs(params))
	fmt.Fprintf(w, "hgN := hgB.Threads()\nhgF := kernelimpl.Frame[%s%s](hgB)\n_ = hgF\n", frame, tuse)
	if !hasStretch(p.units) {
		fmt.Fprintf(w, "_ = hgN\n") // calls of device functions alone
	}
	for _, v := range p.order {
		switch p.class[v] {
		case varItem:
			fmt.Fprintf(w, "%s := kernelimpl.Locals(&hgF.%s, hgN)\n", p.names[v], p.names[v])
		case varGroup:
			fmt.Fprintf(w, "var %s %s\n", p.names[v], ts(v.Type()))
		}
	}
	if p.returns {
		fmt.Fprintf(w, "hgDone := kernelimpl.Locals(&hgF.hgDone, hgN)\nclear(hgDone)\nhgLeft := hgN\n")
	}
	t := p.tname
	if t == "" || t == "_" {
		t = "hgT"
	}
	fmt.Fprintf(w, "%s := hgB.Thread(0)\n_ = %s\n", t, t)
	for _, s := range p.prelude {
		if err := p.printStmt(w, s); err != nil {
			return err
		}
	}
	var units func(us []unit) error
	units = func(us []unit) error {
		for _, u := range us {
			if u.call != nil {
				var args []string
				for _, a := range u.call.Args {
					if isThreadType(p.info.TypeOf(a)) {
						continue
					}
					args = append(args, p.plain(p.rewrite(a, -1)))
				}
				fmt.Fprintf(w, "%s\n%s%s(hgB%s)\n", p.lineDirective(u.call.Pos()), calleeGroup(u.calleeFn.Name()), p.callTypeArgs(u.call, ts), joinArgs(args))
				continue
			}
			if u.loop != nil {
				f := u.loop
				p.rewrite(f.Init, -1)
				p.rewrite(f.Cond, -1)
				p.rewrite(f.Post, -1)
				fmt.Fprintf(w, "%s\nfor %s; %s; %s {\n", p.lineDirective(f.Pos()), p.plain(f.Init), p.plain(f.Cond), p.plain(f.Post))
				if err := units(u.body); err != nil {
					return err
				}
				fmt.Fprintf(w, "}\n")
				continue
			}
			ret := false
			for _, s := range u.stmts {
				ast.Inspect(s, func(n ast.Node) bool {
					_, isRet := n.(*ast.ReturnStmt)
					ret = ret || isRet
					return true
				})
			}
			if ret {
				fmt.Fprintf(w, "hgS%d:\n", u.id)
			}
			fmt.Fprintf(w, "for hgI := 0; hgI < hgN; hgI++ {\n")
			if p.returns {
				fmt.Fprintf(w, "if hgDone[hgI] {\ncontinue\n}\n")
			}
			fmt.Fprintf(w, "%s := hgB.Thread(hgI)\n_ = %s\n", t, t)
			for _, s := range u.stmts {
				s = p.rewriteTop(s, u.id)
				if err := p.printStmt(w, s); err != nil {
					return err
				}
			}
			fmt.Fprintf(w, "}\n")
			if ret {
				fmt.Fprintf(w, "if hgLeft == 0 {\nreturn\n}\n")
			}
		}
		return nil
	}
	if err := units(p.units); err != nil {
		return err
	}
	fmt.Fprintf(w, "}\n\n")
	return nil
}

func (p *fissionPlan) hasReturn() bool {
	found := false
	ast.Inspect(p.k.Decl.Body, func(n ast.Node) bool {
		_, ok := n.(*ast.ReturnStmt)
		found = found || ok
		return true
	})
	return found
}

func (p *fissionPlan) lineDirective(pos token.Pos) string {
	ps := p.fset.Position(pos)
	return fmt.Sprintf("//line %s:%d", filepath.Base(ps.Filename), ps.Line)
}

// plain prints n on one line, without position directives.
func (p *fissionPlan) plain(n ast.Node) string {
	if n == nil || (fmt.Sprint(n) == "<nil>") {
		return ""
	}
	var b bytes.Buffer
	_ = printer.Fprint(&b, token.NewFileSet(), n)
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// printStmt prints s with //line directives that keep its lines the
// kernel's, so a panic names the user's file:line.
func (p *fissionPlan) printStmt(w *bytes.Buffer, s ast.Stmt) error {
	var b bytes.Buffer
	cfg := printer.Config{Mode: printer.SourcePos | printer.UseSpaces, Tabwidth: 8}
	if err := cfg.Fprint(&b, p.fset, s); err != nil {
		return err
	}
	out := b.String()
	dir := filepath.Dir(p.k.Pos.Filename) + string(filepath.Separator)
	out = strings.ReplaceAll(out, "//line "+dir, "//line ")
	if !strings.HasPrefix(out, "//line ") {
		out = p.lineDirective(s.Pos()) + "\n" + out
	}
	w.WriteString(out)
	w.WriteString("\n")
	return nil
}

// rewriteTop rewrites a top-level statement of stretch id: a declaration
// of variables kept outside the stretch becomes an assignment.
func (p *fissionPlan) rewriteTop(s ast.Stmt, id int) ast.Stmt {
	if p.convert[s] {
		switch d := s.(type) {
		case *ast.AssignStmt:
			d.Tok = token.ASSIGN
		case *ast.DeclStmt:
			var list []ast.Stmt
			for _, sp := range d.Decl.(*ast.GenDecl).Specs {
				vs := sp.(*ast.ValueSpec)
				var lhs []ast.Expr
				for _, n := range vs.Names {
					lhs = append(lhs, n)
				}
				if len(vs.Values) > 0 {
					list = append(list, &ast.AssignStmt{Lhs: lhs, TokPos: vs.Pos(), Tok: token.ASSIGN, Rhs: vs.Values})
					continue
				}
				for _, l := range lhs {
					zero := &ast.StarExpr{Star: vs.Pos(), X: &ast.CallExpr{Fun: &ast.Ident{Name: "new", NamePos: vs.Pos()}, Lparen: vs.Pos(), Args: []ast.Expr{vs.Type}, Rparen: vs.Pos()}}
					list = append(list, &ast.AssignStmt{Lhs: []ast.Expr{l}, TokPos: vs.Pos(), Tok: token.ASSIGN, Rhs: []ast.Expr{zero}})
				}
			}
			if len(list) == 1 {
				s = list[0]
			} else {
				s = &ast.BlockStmt{Lbrace: d.Pos(), List: list, Rbrace: d.End()}
			}
		}
	}
	return p.rewrite(s, id).(ast.Stmt)
}

// rewrite renames the kept variables in n (work-item i's element of a
// per-work-item one) and turns a return into marking the work-item done.
func (p *fissionPlan) rewrite(n ast.Node, id int) ast.Node {
	if n == nil || fmt.Sprint(n) == "<nil>" {
		return n
	}
	return astutil.Apply(n, nil, func(c *astutil.Cursor) bool {
		switch x := c.Node().(type) {
		case *ast.Ident:
			o := p.info.Uses[x]
			if o == nil {
				o = p.info.Defs[x]
			}
			v, ok := o.(*types.Var)
			if !ok || p.names[v] == "" {
				return true
			}
			nid := &ast.Ident{Name: p.names[v], NamePos: x.Pos()}
			switch p.class[v] {
			case varGroup:
				c.Replace(nid)
			case varItem:
				if _, isField := c.Parent().(*ast.ValueSpec); isField {
					return true
				}
				c.Replace(&ast.IndexExpr{X: nid, Lbrack: x.End(), Index: &ast.Ident{Name: "hgI", NamePos: x.End()}, Rbrack: x.End()})
			}
		case *ast.ReturnStmt:
			pos := x.Pos()
			c.Replace(&ast.BlockStmt{Lbrace: pos, Rbrace: x.End(), List: []ast.Stmt{
				&ast.AssignStmt{Lhs: []ast.Expr{&ast.IndexExpr{X: &ast.Ident{Name: "hgDone", NamePos: pos}, Lbrack: pos, Index: &ast.Ident{Name: "hgI", NamePos: pos}, Rbrack: pos}}, TokPos: pos, Tok: token.ASSIGN, Rhs: []ast.Expr{&ast.Ident{Name: "true", NamePos: pos}}},
				&ast.IncDecStmt{X: &ast.Ident{Name: "hgLeft", NamePos: pos}, TokPos: pos, Tok: token.DEC},
				&ast.BranchStmt{TokPos: pos, Tok: token.CONTINUE, Label: &ast.Ident{Name: fmt.Sprintf("hgS%d", id), NamePos: pos}},
			}})
		}
		return true
	})
}

// deviceCallStmt is the call s makes, where s is a statement calling a
// device function that synchronizes, or nil.
func (p *fissionPlan) deviceCallStmt(s ast.Stmt) *ast.CallExpr {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return nil
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return nil
	}
	fn, ok := typeutil.Callee(p.info, call).(*types.Func)
	if !ok || !p.res.Lockstep[fn.Origin()] {
		return nil
	}
	return call
}

// callUnit is the unit of a statement that calls a device function that
// synchronizes: the function runs for the whole group by its own fission,
// where it has one, its arguments are the same in every work-item, and
// it returns nothing. Between the kernel's stretches and the function's
// there is no barrier, and none is needed: running one stretch for every
// work-item before the next is one of the orders a GPU may run them in.
func (p *fissionPlan) callUnit(s ast.Stmt) (unit, error) {
	call := p.deviceCallStmt(s)
	fn := typeutil.Callee(p.info, call).(*types.Func).Origin()
	fail := func(n ast.Node, format string, args ...any) (unit, error) {
		return unit{}, &notFission{pos: p.fset.Position(n.Pos()), why: fmt.Sprintf(format, args...)}
	}
	sig := fn.Type().(*types.Signature)
	decl := p.res.Devices[fn]
	if decl == nil || sig.Recv() != nil || sig.Results().Len() > 0 || sig.Params().Len() == 0 || !isThreadType(sig.Params().At(0).Type()) {
		return fail(call, "calls %s, which synchronizes and is a method, has results or does not take the kernel.Thread first", fn.Name())
	}
	for _, a := range call.Args {
		if isThreadType(p.info.TypeOf(a)) {
			continue
		}
		if c, ok := a.(*ast.CallExpr); ok && p.sdkCall(c).GroupMemory() {
			continue
		}
		if !p.isUniform(a) {
			return fail(a, "calls %s, which synchronizes, with an argument that is not uniform across the block", fn.Name())
		}
	}
	cp := p.cache[decl]
	if cp == nil {
		cp = &calleePlan{}
		p.cache[decl] = cp // a cycle cannot happen: kernels do not recurse
		k := &kernelgen.Kernel{GoName: fn.Name(), Decl: decl, Pos: p.fset.Position(decl.Name.Pos())}
		cp.plan, cp.err = planFissionWith(p.res, k, p.cache)
	}
	if cp.err != nil {
		return fail(call, "calls %s, which synchronizes and has no fission (%v)", fn.Name(), cp.err)
	}
	return unit{call: call, callee: cp.plan, calleeFn: fn}, nil
}

// firstCall is the first call unit of us, or nil.
func firstCall(us []unit) *ast.CallExpr {
	for _, u := range us {
		if u.call != nil {
			return u.call
		}
		if c := firstCall(u.body); c != nil {
			return c
		}
	}
	return nil
}

// calleeGroup is the fissioned group function of the device function
// name, calleeLocals its frame.
func calleeGroup(name string) string  { return "hgGroup" + upperFirst(name) }
func calleeLocals(name string) string { return "hgLocals" + upperFirst(name) }

// callTypeArgs are the type arguments of a call of a generic device
// function, "[float32]", or "".
func (p *fissionPlan) callTypeArgs(call *ast.CallExpr, ts func(types.Type) string) string {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	id, ok := fun.(*ast.Ident)
	if !ok {
		return ""
	}
	inst, ok := p.info.Instances[id]
	if !ok || inst.TypeArgs.Len() == 0 {
		return ""
	}
	var s []string
	for i := 0; i < inst.TypeArgs.Len(); i++ {
		s = append(s, ts(inst.TypeArgs.At(i)))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// callees are the device functions whose fission p's call units run,
// p's own first, each once, callees before their callers' later ones.
func (p *fissionPlan) callees() []*fissionPlan {
	var out []*fissionPlan
	seen := map[*fissionPlan]bool{}
	var walk func(us []unit)
	walk = func(us []unit) {
		for _, u := range us {
			if u.call != nil && !seen[u.callee] {
				seen[u.callee] = true
				out = append(out, u.callee)
				walk(u.callee.units)
			}
			walk(u.body)
		}
	}
	walk(p.units)
	return out
}

func isThreadType(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == kernelgen.KernelPkg && n.Obj().Name() == "Thread"
}

// hasStretch reports whether us hold a stretch of statements, at any
// depth of loops.
func hasStretch(us []unit) bool {
	for _, u := range us {
		if (u.loop == nil && u.call == nil) || hasStretch(u.body) {
			return true
		}
	}
	return false
}
