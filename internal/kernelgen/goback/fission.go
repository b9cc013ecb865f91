package goback

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

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
	// A stretch whose first statement has warp operations, each run
	// for every warp before the stretch (fission_warp.go).
	warps []*warpCall
	// An if whose body synchronizes: its condition per work-item (gname),
	// its body's units under it; exit: the lanes that skip it are gone.
	guard *ast.IfStmt
	gname string
	exit  bool
	// An if with a uniform condition run once per group (fission_branch.go):
	// its body's units, its else's, and whether each ends the group.
	branch  *ast.IfStmt
	els     []unit
	hasElse bool
	ret     [2]bool
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

	callee     bool        // a device function's fission, run where its caller calls it
	warps      []*warpCall // every warp operation split at, in order
	nwarps     int
	nguards    int
	guardNames []string
	inlined    map[*types.Var]bool // variables of inlined device functions: kept per work-item
	aliases    []string            // the Thread's names in inlined device functions

	groupReturns map[*ast.ReturnStmt]bool // returns that end a branch: the group's
	// Locals assigned only uniform values where control is uniform
	// (fission_uniform.go): kept per work-item, the same in each.
	uniAssigned map[*types.Var]bool
	declaredAs  map[*types.Var]string // locals declared from t.Lane() or t.WarpSize() (fission_scan.go)

	// While a generic device function called with other type arguments
	// is inlined: its type parameters' arguments, its variables' copies
	// of the substituted types, and its declaration (fission_generic.go).
	subst map[*types.TypeParam]types.Type
	fresh map[*types.Var]*types.Var
	scope *ast.FuncDecl
	// freshSeq numbers those copies in the order they are made: copies of
	// one declaration (two instances, two call sites) share its position,
	// and orderedLocals needs a total order for output that does not
	// depend on map iteration.
	freshSeq map[*types.Var]int
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
	return p.plan()
}

// plan runs the steps of planning.
func (p *fissionPlan) plan() (*fissionPlan, error) {
	p.readParams()
	p.inlined = map[*types.Var]bool{}
	p.groupReturns = map[*ast.ReturnStmt]bool{}
	p.uniAssigned = map[*types.Var]bool{}
	p.declaredAs = map[*types.Var]string{}
	inline := func() error { return p.expandInlines(p.k.Decl.Body, 0) }
	for _, step := range []func() error{inline, p.refuse, p.planUnits, p.classifyLocals, p.nameLocals} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	p.returns = p.hasReturn()
	return p, nil
}

// planCallee plans the fission of a device function that synchronizes,
// run where its caller calls it.
func planCallee(res *kernelgen.Result, k *kernelgen.Kernel, cache map[*ast.FuncDecl]*calleePlan) (*fissionPlan, error) {
	p := &fissionPlan{res: res, cache: cache, k: k, fset: res.Fset, info: res.Info, class: map[*types.Var]int{}, names: map[*types.Var]string{},
		assigned: map[*types.Var]bool{}, uniform: map[*types.Var]bool{}, stretch: map[*types.Var]int{}, convert: map[ast.Stmt]bool{}, callee: true}
	return p.plan()
}

// fail is why fission does not apply, at n.
func (p *fissionPlan) fail(n ast.Node, format string, args ...any) error {
	return &notFission{pos: p.fset.Position(n.Pos()), why: fmt.Sprintf(format, args...)}
}

// readParams finds the kernel.Thread parameter and the others.
func (p *fissionPlan) readParams() {
	for i, f := range p.k.Decl.Type.Params.List {
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
}

// refuse finds the constructs that rule fission out wherever they stand,
// and records what the body assigns. A call of a device function that
// synchronizes may stand as a statement of its own (callUnit says where).
func (p *fissionPlan) refuse() error {
	body := p.k.Decl.Body
	var err error
	threadOK := map[*ast.Ident]bool{} // uses of the Thread that call it or pass it on
	var idents []*ast.Ident           // the body's, inlined device functions' included
	stmtCalls := map[*ast.CallExpr]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if es, ok := n.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.CallExpr); ok {
				stmtCalls[c] = true
			}
		}
		return true
	})
	ast.Inspect(body, func(n ast.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			threadUses(n, threadOK)
			err = p.refuseCall(n, stmtCalls[n])
		case *ast.BranchStmt:
			if n.Tok == token.GOTO {
				err = p.fail(n, "goto")
			}
		case *ast.Ident:
			idents = append(idents, n)
			if strings.HasPrefix(n.Name, "hg") {
				err = p.fail(n, "identifier %s: the hg prefix is the generated code's", n.Name)
			}
		default:
			p.noteAssignments(n)
		}
		return true
	})
	if err != nil {
		return err
	}
	return p.refuseAssigned(idents, threadOK)
}

// threadUses marks the identifiers call calls a method of or passes.
func threadUses(call *ast.CallExpr, ok map[*ast.Ident]bool) {
	if sel, isSel := call.Fun.(*ast.SelectorExpr); isSel {
		if id, isID := sel.X.(*ast.Ident); isID {
			ok[id] = true
		}
	}
	for _, a := range call.Args {
		if id, isID := a.(*ast.Ident); isID {
			ok[id] = true
		}
	}
}

// refuseCall refuses a warp operation, a block-wide call and a call of a
// device function that synchronizes anywhere but as a statement.
func (p *fissionPlan) refuseCall(call *ast.CallExpr, isStmt bool) error {
	fn, ok := typeutil.Callee(p.info, call).(*types.Func)
	if !ok {
		return nil
	}
	if c := p.sdkCall(call); c.Coroutines() {
		return p.fail(call, "block-wide call %s", fn.Name())
	}
	if p.res.Lockstep[fn.Origin()] && !isStmt {
		return p.fail(call, "calls %s, which synchronizes", fn.Name())
	}
	return nil
}

// noteAssignments records the variables n assigns or takes the address of.
func (p *fissionPlan) noteAssignments(n ast.Node) {
	switch n := n.(type) {
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
}

// refuseAssigned refuses a Thread used other than to call or pass it, and
// an assigned parameter (each work-item's copy); the others are uniform.
func (p *fissionPlan) refuseAssigned(idents []*ast.Ident, threadOK map[*ast.Ident]bool) error {
	for _, id := range idents {
		if v, ok := p.info.Uses[id].(*types.Var); ok && !threadOK[id] && (v == p.thread || (p.inlined[v] && isThreadType(v.Type()))) {
			return p.fail(id, "uses %s other than to call it or pass it", id.Name)
		}
	}
	for _, v := range p.params {
		if v != nil && p.assigned[v] {
			return p.fail(p.k.Decl, "assigns parameter %s, a per-work-item copy", v.Name())
		}
		if v != nil {
			p.uniform[v] = true
		}
	}
	if p.thread != nil && p.assigned[p.thread] {
		return p.fail(p.k.Decl, "assigns %s", p.tname)
	}
	return nil
}

// planUnits cuts the top level into units: barriers, loops with
// barriers, calls of device functions that synchronize, stretches.
func (p *fissionPlan) planUnits() error {
	us, err := p.planList(p.k.Decl.Body.List, listCtx{top: true, uni: true, exit: !p.callee})
	if err != nil {
		return err
	}
	p.units = us
	if p.hasReturn() {
		if c := firstCall(p.units); c != nil {
			return p.fail(c, "a return in a kernel that calls %s, which synchronizes", c.Fun)
		}
	}
	return nil
}

// listCtx is where a list of statements planList cuts stands.
type listCtx struct {
	top     bool // the kernel's body: its const, type and Shared declarations go to the prelude
	uni     bool // control the same in every work-item since the start: its locals may be uniform
	inLoop  bool // in a loop with barriers: no return, no break or continue of the loop
	inGuard bool // under an if whose condition is per work-item
	exit    bool // nothing synchronizes after the list: the lanes a guard in it skips are gone
}

// planList cuts a list of statements into units: barriers, loops with
// barriers, ifs with a uniform condition that synchronize or return,
// guards, calls of device functions that synchronize, stretches.
func (p *fissionPlan) planList(list []ast.Stmt, ctx listCtx) ([]unit, error) {
	var us []unit
	cur := unit{id: p.nunits}
	flush := func() {
		if len(cur.stmts) > 0 {
			us = append(us, cur)
			p.nunits++
		}
		cur = unit{id: p.nunits}
	}
	whole := func(u unit, err error) error {
		if err != nil {
			return err
		}
		us = append(us, u)
		p.nunits++
		cur = unit{id: p.nunits}
		return nil
	}
	for i, s := range list {
		var err error
		inner, isFor := s.(*ast.ForStmt)
		after := ctx
		after.exit = ctx.exit && !p.syncsIn(list[i+1:])
		switch {
		case p.isBarrier(s):
			if ctx.inGuard {
				return nil, p.fail(s, "barrier inside an if whose condition is not uniform across the block")
			}
			flush()
		case ctx.top && p.isGroupDecl(s):
			p.prelude = append(p.prelude, s)
		case ctx.top && p.isSharedDecl(s):
			err = p.sharedDecl(s)
		case isTypeOrConstDecl(s):
			err = p.fail(s, "a declaration of a constant or type inside a statement that synchronizes")
		case p.deviceCallStmt(s) != nil && ctx.inGuard:
			err = p.fail(s, "calls %s, which synchronizes, inside a statement", p.plain(p.deviceCallStmt(s).Fun))
		case p.deviceCallStmt(s) != nil:
			flush()
			err = whole(p.callUnit(s))
		case isFor && p.hasTopBarrier(inner.Body):
			flush()
			err = whole(p.barrierLoop(inner, ctx))
		case p.isBranch(s, ctx):
			flush()
			err = whole(p.branchUnit(s.(*ast.IfStmt), after))
		case p.isGuard(s):
			flush()
			err = whole(p.guardUnit(s.(*ast.IfStmt), after))
		case p.isWarpStmt(s):
			flush()
			if cur.warps, err = p.warpStmt(s, ctx.inLoop); err == nil {
				p.topLocals(s, cur.id, ctx.uni)
				cur.stmts = append(cur.stmts, s)
			}
		default:
			if err = p.stretchStmt(s, ctx.inLoop); err == nil {
				p.topLocals(s, cur.id, ctx.uni)
				cur.stmts = append(cur.stmts, s)
			}
		}
		if err != nil {
			return us, err
		}
	}
	flush()
	return us, nil
}

// sharedDecl takes a Shared declaration into the group's prelude: the
// same memory in every work-item.
func (p *fissionPlan) sharedDecl(s ast.Stmt) error {
	p.prelude = append(p.prelude, s)
	for _, v := range p.declared(s) {
		if p.assigned[v] {
			return p.fail(s, "assigns %s, a Shared variable", v.Name())
		}
		p.uniform[v] = true
	}
	return nil
}

// unitUses is, for each identifier the units use, the id of the
// stretch (or guard condition) it stands in, -1 for a loop header or a
// call of a device function run by its own fission.
func (p *fissionPlan) unitUses() map[*ast.Ident]int {
	where := map[*ast.Ident]int{}
	mark := func(n ast.Node, id int) {
		if n == nil || fmt.Sprint(n) == "<nil>" {
			return
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if x, ok := n.(*ast.Ident); ok {
				where[x] = id
			}
			return true
		})
	}
	var walk func(us []unit)
	walk = func(us []unit) {
		for _, u := range us {
			switch {
			case u.loop != nil:
				mark(u.loop.Init, -1)
				mark(u.loop.Cond, -1)
				mark(u.loop.Post, -1)
				walk(u.body)
			case u.guard != nil:
				mark(u.guard.Cond, u.id)
				walk(u.body)
			case u.branch != nil:
				mark(u.branch.Cond, -1)
				walk(u.body)
				walk(u.els)
			case u.call != nil:
				mark(u.call, -1)
			default:
				for _, s := range u.stmts {
					mark(s, u.id)
				}
			}
		}
	}
	walk(p.units)
	return where
}

// classifyLocals decides how each top-level local is kept from where it
// is used.
func (p *fissionPlan) classifyLocals() error {
	for id, where := range p.unitUses() {
		v, ok := p.info.Uses[id].(*types.Var)
		if !ok {
			continue
		}
		home, top := p.stretch[v]
		if !top {
			continue
		}
		switch {
		case where == -1 && p.uniAssigned[v]:
			if p.hasReturn() {
				return p.fail(id, "a statement run once per group reads %s, which is assigned in a kernel that returns", v.Name())
			}
			p.class[v] = varItem // work-item 0's copy read once per group
		case where == -1:
			if !p.uniform[v] {
				return p.fail(id, "a loop with a barrier reads %s, which is not uniform across the block", v.Name())
			}
			p.class[v] = varGroup
		case where != home && p.class[v] != varGroup:
			p.class[v] = varItem
		}
	}
	for v := range p.stretch {
		if p.inlined[v] && p.class[v] == varLocal {
			p.class[v] = varItem // no clash with the caller's names
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
	return nil
}

// nameLocals names the locals kept outside their stretch, clear of the
// generated code's own names.
func (p *fissionPlan) nameLocals() error {
	seen := map[string]bool{"hgB": true, "hgN": true, "hgF": true, "hgI": true, "hgT": true, "hgDone": true, "hgLeft": true}
	for _, wc := range p.warps {
		seen[wc.name] = true
	}
	for _, g := range p.guardNames {
		seen[g] = true
	}
	for _, v := range p.orderedLocals() {
		if p.class[v] == varLocal {
			continue
		}
		if n, ok := v.Type().(*types.Named); ok && n.Obj().Parent() != nil && n.Obj().Parent() != n.Obj().Pkg().Scope() {
			return p.fail(p.k.Decl, "%s has a type declared in the kernel", v.Name())
		}
		name := "hg" + upperFirst(v.Name())
		for i := 2; seen[name]; i++ {
			name = fmt.Sprintf("hg%s%d", upperFirst(v.Name()), i)
		}
		seen[name] = true
		p.names[v] = name
		p.order = append(p.order, v)
	}
	return nil
}

func upperFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

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

// hasTopBarrier reports whether b synchronizes at its top level (a
// barrier, a warp operation, a call of a device function that does), or
// in a for loop or an if without else at its top level that does (at any
// depth of such statements).
func (p *fissionPlan) hasTopBarrier(b *ast.BlockStmt) bool {
	for _, s := range b.List {
		if p.isBarrier(s) || p.deviceCallStmt(s) != nil || p.isWarpStmt(s) {
			return true
		}
		if f, ok := s.(*ast.ForStmt); ok && p.hasTopBarrier(f.Body) {
			return true
		}
		if f, ok := s.(*ast.IfStmt); ok && f.Init == nil && p.ifSyncs(f) {
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
	// Each variable is uniform where its own value is: a, b := uniform, per-item.
	uni := map[*types.Var]bool{}
	pair := func(names []ast.Expr, values []ast.Expr) {
		p.noteDeclaredAs(names, values)
		for i, l := range names {
			id, ok := l.(*ast.Ident)
			if !ok {
				continue
			}
			v, _ := p.info.Defs[id].(*types.Var)
			if v != nil && kernelTop && (len(values) == 0 || (len(values) == len(names) && p.isUniform(values[i]))) {
				uni[v] = true
			}
		}
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		if len(s.Rhs) > 0 {
			pair(s.Lhs, s.Rhs)
		}
	case *ast.DeclStmt:
		for _, sp := range s.Decl.(*ast.GenDecl).Specs {
			vsp := sp.(*ast.ValueSpec)
			var names []ast.Expr
			for _, n := range vsp.Names {
				names = append(names, n)
			}
			pair(names, vsp.Values)
		}
	}
	for _, v := range vs {
		if _, ok := p.stretch[v]; !ok {
			p.stretch[v] = id
		}
		switch {
		case uni[v] && !p.assigned[v]:
			p.uniform[v] = true
		case uni[v] && p.uniformAssigns(v):
			p.uniAssigned[v] = true
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
		return ok && (p.uniform[v] || p.uniAssigned[v])
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
			if id, ok := sel.X.(*ast.Ident); ok && p.isThread(id) {
				return p.sdkCall(e).SameInBlock()
			}
		}
	}
	return false
}

// stretchStmt checks a statement of a stretch: no barrier in it, no
// Shared call, and, in a loop with barriers (inLoop), no return and no
// break or continue of that loop.
func (p *fissionPlan) stretchStmt(s ast.Stmt, inLoop bool) error {
	return p.stretchStmtSkip(s, inLoop, nil)
}

// stretchStmtSkip is stretchStmt for a statement whose warp operations
// skip fission runs before it.
func (p *fissionPlan) stretchStmtSkip(s ast.Stmt, inLoop bool, skip map[*ast.CallExpr]bool) error {
	kind := strings.TrimPrefix(strings.TrimSuffix(fmt.Sprintf("%T", s), "Stmt"), "*ast.")
	if pos := p.containsBarrier(s); pos != token.NoPos {
		return &notFission{pos: p.fset.Position(pos), why: fmt.Sprintf("barrier inside a %s statement (line %d)", strings.ToLower(kind), p.fset.Position(s.Pos()).Line)}
	}
	for _, c := range p.warpCallsIn(s) {
		if !skip[c] {
			return &notFission{pos: p.fset.Position(c.Pos()), why: fmt.Sprintf("warp operation %s inside a %s statement (line %d)", p.sdkCall(c).Name, strings.ToLower(kind), p.fset.Position(s.Pos()).Line)}
		}
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
				err = p.fail(n, "kernel.%s outside a top-level declaration", c.Name)
			}
			if fn, ok := typeutil.Callee(p.info, n).(*types.Func); ok && p.res.Lockstep[fn.Origin()] && err == nil {
				err = p.fail(n, "calls %s, which synchronizes, inside a statement", fn.Name())
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
				err = p.fail(n, "return inside a loop with a barrier")
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
				err = p.fail(n, "%s of a loop with a barrier", n.Tok)
			}
		}
		return true
	})
	return err
}

// barrierLoop checks a top-level for loop with barriers and splits its
// body into stretches.
func (p *fissionPlan) barrierLoop(f *ast.ForStmt, ctx listCtx) (unit, error) {
	loopVars, err := p.loopHeader(f)
	// The loop's variables are uniform inside it only.
	defer func() {
		for _, v := range loopVars {
			delete(p.uniform, v)
		}
	}()
	if err != nil {
		return unit{loop: f}, err
	}
	return p.loopBody(f, ctx)
}

// loopHeader checks that a loop with barriers has a header uniform across
// the block, whose variables only the post statement assigns, and makes
// those variables uniform.
func (p *fissionPlan) loopHeader(f *ast.ForStmt) ([]*types.Var, error) {
	var loopVars []*types.Var
	if f.Init != nil {
		as, ok := f.Init.(*ast.AssignStmt)
		if !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) {
			return nil, p.fail(f, "a loop with a barrier whose init is not a declaration")
		}
		for _, r := range as.Rhs {
			if !p.isUniform(r) {
				return nil, p.fail(r, "a loop with a barrier starts from a value that is not uniform across the block")
			}
		}
		loopVars = p.declared(as)
	}
	for i, v := range loopVars {
		// The post statement may assign it; the body must not.
		if p.assigned[v] && p.assigns(f.Body, v) {
			return loopVars[:i], p.fail(f, "a loop with a barrier whose body assigns its variable %s", v.Name())
		}
		p.uniform[v] = true
	}
	if f.Cond != nil && !p.isUniform(f.Cond) {
		return loopVars, p.fail(f.Cond, "a loop with a barrier whose condition is not uniform across the block")
	}
	return loopVars, p.loopPost(f, loopVars)
}

// assigns reports whether body assigns v or takes its address.
func (p *fissionPlan) assigns(body *ast.BlockStmt, v *types.Var) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
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
				found = true
			}
		}
		return true
	})
	return found
}

// loopPost checks that the post statement of a loop with barriers assigns
// the loop's own variables uniform values.
func (p *fissionPlan) loopPost(f *ast.ForStmt, loopVars []*types.Var) error {
	if f.Post == nil {
		return nil
	}
	var lhs, rhs []ast.Expr
	switch s := f.Post.(type) {
	case *ast.AssignStmt:
		lhs, rhs = s.Lhs, s.Rhs
	case *ast.IncDecStmt:
		lhs = []ast.Expr{s.X}
	default:
		return p.fail(f.Post, "a loop with a barrier whose post statement is not an assignment")
	}
	for _, l := range lhs {
		id, ok := l.(*ast.Ident)
		v, _ := p.info.Uses[id].(*types.Var)
		if !ok || !p.uniform[v] || !containsVar(loopVars, v) {
			return p.fail(l, "a loop with a barrier whose post statement assigns other than its own variables")
		}
	}
	for _, r := range rhs {
		if !p.isUniform(r) {
			return p.fail(r, "a loop with a barrier whose post statement is not uniform across the block")
		}
	}
	return nil
}

// loopBody splits the body of a loop with barriers into units: stretches
// between barriers, calls of device functions that synchronize, and
// loops with barriers of their own, at any depth (their headers uniform
// as this one's is).
func (p *fissionPlan) loopBody(f *ast.ForStmt, ctx listCtx) (unit, error) {
	body, err := p.planList(f.Body.List, listCtx{uni: ctx.uni && !ctx.inGuard, inLoop: true, inGuard: ctx.inGuard})
	return unit{loop: f, body: body}, err
}

// isTypeOrConstDecl reports whether s declares constants or types.
func isTypeOrConstDecl(s ast.Stmt) bool {
	ds, ok := s.(*ast.DeclStmt)
	return ok && ds.Decl.(*ast.GenDecl).Tok != token.VAR
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
	// By file name and offset, not token.Pos: the loader parses a
	// package's files in parallel, so the order of their bases in the
	// file set (and so the order of two positions in different files)
	// changes from run to run.
	slices.SortFunc(vs, func(a, b *types.Var) int {
		pa, pb := p.fset.PositionFor(a.Pos(), false), p.fset.PositionFor(b.Pos(), false)
		return cmp.Or(cmp.Compare(pa.Filename, pb.Filename), cmp.Compare(pa.Offset, pb.Offset),
			cmp.Compare(p.freshSeq[a], p.freshSeq[b]), cmp.Compare(a.Name(), b.Name()))
	})
	return vs
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
	sig := fn.Type().(*types.Signature)
	decl := p.res.Devices[fn]
	if decl == nil || sig.Recv() != nil || sig.Results().Len() > 0 || sig.Params().Len() == 0 || !isThreadType(sig.Params().At(0).Type()) {
		return unit{}, p.fail(call, "calls %s, which synchronizes and is a method, has results or does not take the kernel.Thread first", fn.Name())
	}
	for _, a := range call.Args {
		if isThreadType(p.info.TypeOf(a)) {
			continue
		}
		if c, ok := a.(*ast.CallExpr); ok && p.sdkCall(c).GroupMemory() {
			continue
		}
		if !p.isUniform(a) {
			return unit{}, p.fail(a, "calls %s, which synchronizes, with an argument that is not uniform across the block", fn.Name())
		}
	}
	cp := p.cache[decl]
	if cp == nil {
		cp = &calleePlan{}
		p.cache[decl] = cp // a cycle cannot happen: kernels do not recurse
		k := &kernelgen.Kernel{GoName: fn.Name(), Decl: decl, Pos: p.fset.Position(decl.Name.Pos())}
		cp.plan, cp.err = planCallee(p.res, k, p.cache)
	}
	if cp.err != nil {
		return unit{}, p.fail(call, "calls %s, which synchronizes and has no fission (%v)", fn.Name(), cp.err)
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
		if c := firstCall(u.els); c != nil {
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
			walk(u.els)
		}
	}
	walk(p.units)
	return out
}

// isThread reports whether id names the kernel's Thread, or an inlined
// device function's.
func (p *fissionPlan) isThread(id *ast.Ident) bool {
	v, ok := p.info.Uses[id].(*types.Var)
	return ok && v != nil && (v == p.thread || (p.inlined[v] && isThreadType(v.Type())))
}

func isThreadType(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == kernelgen.KernelPkg && n.Obj().Name() == "Thread"
}

// hasStretch reports whether us hold a stretch of statements, at any
// depth of loops.
func hasStretch(us []unit) bool {
	for _, u := range us {
		if (u.loop == nil && u.call == nil && u.branch == nil) || hasStretch(u.body) || hasStretch(u.els) { // a guard's condition is a stretch too
			return true
		}
	}
	return false
}
