package kernelgen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A warp operation without a mask (kernel.Shfl, ShflDown, Ballot, ...,
// t.SyncWarp) names the whole warp, so every lane of the warp must reach
// it: under control flow that can differ between the lanes of a warp it
// is undefined on NVIDIA and wrong on every agent. checkDivergence refuses
// such a call, and a call of a device function that makes one, at its
// place. The analysis is conservative: a value is warp-uniform when it
// provably is (constants, the kernel's parameters, t.BlockIdx, BlockDim,
// GridDim, WarpSize, a vote's result, a device function's parameter that
// every call passes such a value, and variables only ever assigned such
// values where every lane runs), and by one idiom CUDA code relies
// on: t.ThreadIdx().X / t.WarpSize() (the warp's index) and
// t.ThreadIdx().X < k*t.WarpSize() are taken as uniform, which holds in a
// block whose x extent is a multiple of the warp size or that is
// one-dimensional. Everything else, memory reads included, may differ by
// lane. Control flow diverges under an if, switch or loop condition that
// may differ, and after a return, break or continue under one.

// class is what the analysis knows of a value.
type class int

const (
	clsUniform  class = iota // the same in every lane of a warp
	clsWarpSize              // t.WarpSize(), uniform
	clsTid                   // t.ThreadIdx().X
	clsLane                  // may differ by lane
)

type divergence struct {
	t       *translator
	fn      *function
	cls     map[*types.Var]class
	params  map[*types.Var]bool  // a device function's parameters
	given   map[*types.Var]class // what its calls pass them
	loops   map[ast.Node]bool    // loops that some lanes leave early
	targets []ast.Node           // enclosing loops and switches, innermost last
	labels  map[ast.Node]string
	changed bool
	report  bool
	retDiv  bool               // some lanes returned earlier in this pass
	fullOps map[*function]bool // functions that make a warp operation without a mask
}

// checkDivergence runs the analysis on every function: callers first, to
// learn what each device function's parameters are given at every call
// (uniform where every call passes a uniform value), then callees first,
// to report, each call of a function that makes a mask-less warp
// operation checked where it stands.
func (t *translator) checkDivergence() {
	given := map[*types.Var]class{}
	for i := len(t.order) - 1; i >= 0; i-- {
		d := t.divergenceOf(t.order[i], given, nil)
		ast.Inspect(d.fn.decl.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				d.recordArgs(c)
			}
			return true
		})
	}
	full := map[*function]bool{}
	for _, fn := range t.order {
		d := t.divergenceOf(fn, given, full)
		d.report, d.retDiv = true, false
		d.block(fn.decl.Body.List, false)
		ast.Inspect(fn.decl.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && d.fullWarp(c) {
				full[fn] = true
			}
			return true
		})
	}
}

// divergenceOf is fn's analysis, its variables' classes settled.
func (t *translator) divergenceOf(fn *function, given map[*types.Var]class, full map[*function]bool) *divergence {
	d := &divergence{t: t, fn: fn, cls: map[*types.Var]class{}, params: map[*types.Var]bool{}, given: given,
		loops: map[ast.Node]bool{}, labels: map[ast.Node]string{}, fullOps: full}
	if !fn.kernel {
		for _, v := range d.paramVars(fn.decl) {
			if v != nil {
				d.params[v] = true
			}
		}
	}
	for i := 0; i < 20; i++ {
		d.changed, d.retDiv = false, false
		d.targets = d.targets[:0]
		d.block(fn.decl.Body.List, false)
		if !d.changed {
			break
		}
	}
	return d
}

// paramVars are decl's receiver and parameters, in the order a call
// passes them (the receiver first), nil for a kernel.Thread or a blank.
func (d *divergence) paramVars(decl *ast.FuncDecl) []*types.Var {
	var out []*types.Var
	var lists []*ast.Field
	if decl.Recv != nil {
		lists = append(lists, decl.Recv.List...)
	}
	lists = append(lists, decl.Type.Params.List...)
	for _, f := range lists {
		if len(f.Names) == 0 {
			out = append(out, nil)
		}
		for _, id := range f.Names {
			v, _ := d.t.info.Defs[id].(*types.Var)
			if v != nil && isThread(v.Type()) {
				v = nil
			}
			out = append(out, v)
		}
	}
	return out
}

// recordArgs joins what call passes into the classes of its device
// function's parameters.
func (d *divergence) recordArgs(call *ast.CallExpr) {
	callee := d.t.deviceCallee(call)
	if callee == nil || d.t.funcs[callee] == nil {
		return
	}
	decl := d.t.funcs[callee].decl
	args := call.Args
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && decl.Recv != nil {
		if s := d.t.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			args = append([]ast.Expr{sel.X}, args...)
		}
	}
	for i, v := range d.paramVars(decl) {
		if v == nil || i >= len(args) {
			continue
		}
		c := d.class(args[i])
		if c == clsTid {
			c = clsLane // the idiom holds for the kernel's own threadIdx only
		}
		if old, ok := d.given[v]; ok {
			c = d.join(old, c, true)
		}
		d.given[v] = c
	}
}

// fullWarp reports whether call is a warp operation without a mask or a
// call of a function that makes one.
func (d *divergence) fullWarp(call *ast.CallExpr) bool {
	if name := d.t.kernelFunc(call); name != "" {
		c := sdk[name]
		return c.Warp() && !c.Mask
	}
	if callee := d.t.deviceCallee(call); callee != nil {
		return d.fullOps[d.t.funcs[callee]]
	}
	return false
}

// block walks a statement list; div is whether the lanes of a warp may
// have parted before it. It reports whether some lanes may have left
// (returned, broken or continued) within it, after which the rest
// diverges too.
func (d *divergence) block(list []ast.Stmt, div bool) bool {
	left := false
	for _, s := range list {
		if d.stmt(s, div) {
			div, left = true, true
		}
		if d.retDiv {
			div = true
		}
	}
	return left
}

func (d *divergence) stmt(s ast.Stmt, div bool) (left bool) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return d.block(s.List, div)
	case *ast.LabeledStmt:
		d.labels[s.Stmt] = s.Label.Name
		return d.stmt(s.Stmt, div)
	case *ast.ExprStmt:
		d.exprs(s.X, div)
	case *ast.AssignStmt:
		d.assign(s, div)
	case *ast.IncDecStmt:
		d.exprs(s.X, div)
		d.set(s.X, d.join(d.class(s.X), clsUniform, false), div)
	case *ast.DeclStmt:
		if g, ok := s.Decl.(*ast.GenDecl); ok {
			for _, sp := range g.Specs {
				vs, ok := sp.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range vs.Names {
					c := clsUniform
					if i < len(vs.Values) && len(vs.Values) == len(vs.Names) {
						d.exprs(vs.Values[i], div)
						c = d.class(vs.Values[i])
					} else if len(vs.Values) > 0 {
						c = clsLane
					}
					d.set(id, c, div)
				}
			}
		}
	case *ast.ReturnStmt:
		for _, r := range s.Results {
			d.exprs(r, div)
		}
		if div {
			// The lanes that return leave the rest, and every loop
			// around, to the others.
			for _, t := range d.targets {
				d.markLoop(t)
			}
			d.retDiv = true
			return true
		}
	case *ast.BranchStmt:
		if div && (s.Tok == token.BREAK || s.Tok == token.CONTINUE) {
			// Every loop from the innermost to the target repeats
			// without the lanes that left.
			for i := len(d.targets) - 1; i >= 0; i-- {
				t := d.targets[i]
				d.markLoop(t)
				if s.Label != nil && d.labels[t] == s.Label.Name {
					break
				}
				if s.Label == nil {
					if _, isSwitch := t.(*ast.SwitchStmt); !isSwitch || s.Tok == token.BREAK {
						break
					}
				}
			}
			return true
		}
	case *ast.IfStmt:
		if s.Init != nil {
			left = d.stmt(s.Init, div)
			div = div || left
		}
		d.exprs(s.Cond, div)
		inner := div || d.class(s.Cond) == clsLane
		if d.block(s.Body.List, inner) {
			left = true
		}
		if s.Else != nil && d.stmt(s.Else, inner) {
			left = true
		}
	case *ast.ForStmt:
		if s.Init != nil {
			div = d.stmt(s.Init, div) || div
		}
		d.targets = append(d.targets, s)
		defer func() { d.targets = d.targets[:len(d.targets)-1] }()
		inner := div || d.loops[s]
		if s.Cond != nil {
			d.exprs(s.Cond, inner)
			inner = inner || d.class(s.Cond) == clsLane
		}
		d.block(s.Body.List, inner)
		if s.Post != nil {
			d.stmt(s.Post, inner || d.loops[s])
		}
	case *ast.RangeStmt:
		d.exprs(s.X, div)
		d.targets = append(d.targets, s)
		defer func() { d.targets = d.targets[:len(d.targets)-1] }()
		inner := div || d.loops[s] || d.class(s.X) == clsLane
		if s.Key != nil {
			d.set(s.Key, clsUniform, inner)
		}
		if s.Value != nil {
			c := clsLane
			if b, ok := d.t.info.TypeOf(s.X).Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
				c = clsUniform
			}
			d.set(s.Value, c, inner)
		}
		d.block(s.Body.List, inner)
	case *ast.SwitchStmt:
		if s.Init != nil {
			div = d.stmt(s.Init, div) || div
		}
		inner := div
		if s.Tag != nil {
			d.exprs(s.Tag, div)
			inner = inner || d.class(s.Tag) == clsLane
		}
		for _, c := range s.Body.List {
			for _, e := range c.(*ast.CaseClause).List {
				d.exprs(e, div)
				inner = inner || d.class(e) == clsLane
			}
		}
		d.targets = append(d.targets, s)
		defer func() { d.targets = d.targets[:len(d.targets)-1] }()
		for _, c := range s.Body.List {
			if d.block(c.(*ast.CaseClause).Body, inner) {
				left = true
			}
		}
	}
	return left
}

func (d *divergence) markLoop(n ast.Node) {
	switch n.(type) {
	case *ast.ForStmt, *ast.RangeStmt:
		if !d.loops[n] {
			d.loops[n] = true
			d.changed = true
		}
	}
}

func (d *divergence) assign(s *ast.AssignStmt, div bool) {
	for _, r := range s.Rhs {
		d.exprs(r, div)
	}
	for _, l := range s.Lhs {
		if _, ok := ast.Unparen(l).(*ast.Ident); !ok {
			d.exprs(l, div)
		}
	}
	switch {
	case len(s.Lhs) == len(s.Rhs) && (s.Tok == token.ASSIGN || s.Tok == token.DEFINE):
		for i, l := range s.Lhs {
			d.set(l, d.class(s.Rhs[i]), div)
		}
	case len(s.Lhs) == len(s.Rhs):
		// x op= e
		for i, l := range s.Lhs {
			d.set(l, d.join(d.class(l), d.class(s.Rhs[i]), false), div)
		}
	default:
		// a, b := f(): a device function's results may differ by lane.
		for _, l := range s.Lhs {
			d.set(l, clsLane, div)
		}
	}
}

// set records that the variable x (when it is one) is assigned a value of
// class c, under divergent control flow where div.
func (d *divergence) set(x ast.Expr, c class, div bool) {
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok || id.Name == "_" {
		return
	}
	v, _ := d.t.info.ObjectOf(id).(*types.Var)
	if v == nil || v.Parent() == d.t.pkg.Types.Scope() {
		return
	}
	if div {
		c = clsLane
	}
	old, seen := d.cls[v]
	n := c
	if seen {
		n = d.join(old, c, true)
	}
	if !seen || n != old {
		d.cls[v] = n
		d.changed = true
	}
}

// join is the class of a variable assigned values of classes a and b
// (merge), or of a value computed from both.
func (d *divergence) join(a, b class, merge bool) class {
	switch {
	case a == clsLane || b == clsLane:
		return clsLane
	case a == b && merge:
		return a
	case (a == clsTid) != (b == clsTid):
		return clsLane
	case a == clsTid:
		return clsLane
	}
	return clsUniform
}

// class is what is known of x's value.
func (d *divergence) class(x ast.Expr) class {
	if tv := d.t.info.Types[x]; tv.Value != nil {
		return clsUniform
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		return d.class(x.X)
	case *ast.Ident:
		v, ok := d.t.info.Uses[x].(*types.Var)
		if !ok {
			return clsUniform
		}
		if d.params[v] {
			if c, ok := d.given[v]; ok {
				return c
			}
			return clsLane
		}
		if v.Parent() == d.t.pkg.Types.Scope() {
			return clsLane
		}
		if c, ok := d.cls[v]; ok {
			return c
		}
		if v.Parent() != nil && v.Parent() == d.t.info.Scopes[d.fn.decl.Type] {
			return clsUniform // a kernel's parameter
		}
		return clsUniform // not assigned yet in this pass
	case *ast.BinaryExpr:
		l, r := d.class(x.X), d.class(x.Y)
		switch x.Op {
		case token.QUO:
			if l == clsTid && r == clsWarpSize {
				return clsUniform // the warp's index
			}
		case token.LSS, token.GEQ:
			if l == clsTid && d.warpMultiple(x.Y) {
				return clsUniform
			}
		case token.GTR, token.LEQ:
			if r == clsTid && d.warpMultiple(x.X) {
				return clsUniform
			}
		}
		return d.join(l, r, false)
	case *ast.UnaryExpr:
		if c := d.class(x.X); c == clsLane || c == clsTid {
			return clsLane
		}
		return clsUniform
	case *ast.SelectorExpr:
		if call, ok := ast.Unparen(x.X).(*ast.CallExpr); ok {
			switch sdk[d.t.kernelFunc(call)].Lanes {
			case lanesTid:
				if x.Sel.Name == "X" {
					return clsTid
				}
				return clsLane
			case lanesUniform:
				return clsUniform
			}
		}
		if d.t.info.Selections[x] == nil {
			return clsUniform // a qualified constant
		}
		if c := d.class(x.X); c == clsLane || c == clsTid {
			return clsLane
		}
		return clsUniform
	case *ast.CallExpr:
		return d.callClass(x)
	case *ast.SliceExpr:
		c := d.class(x.X)
		for _, e := range []ast.Expr{x.Low, x.High, x.Max} {
			if e != nil {
				c = d.join(c, d.class(e), false)
			}
		}
		return c
	case *ast.CompositeLit:
		c := clsUniform
		for _, e := range x.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Value
			}
			c = d.join(c, d.class(e), false)
		}
		return c
	}
	return clsLane // memory reads and the rest
}

// warpMultiple reports whether x is t.WarpSize() or a uniform multiple of
// it.
func (d *divergence) warpMultiple(x ast.Expr) bool {
	if d.class(x) == clsWarpSize {
		return true
	}
	b, ok := ast.Unparen(x).(*ast.BinaryExpr)
	if !ok || b.Op != token.MUL {
		return false
	}
	l, r := d.class(b.X), d.class(b.Y)
	return (l == clsWarpSize && r == clsUniform) || (r == clsWarpSize && l == clsUniform)
}

func (d *divergence) callClass(call *ast.CallExpr) class {
	fun := ast.Unparen(call.Fun)
	tv := d.t.info.Types[fun]
	if tv.IsType() && len(call.Args) == 1 {
		return d.class(call.Args[0]) // a conversion keeps what is known
	}
	args := func() class {
		c := clsUniform
		for _, a := range call.Args {
			if isThread(d.t.info.TypeOf(a)) {
				continue
			}
			c = d.join(c, d.class(a), false)
		}
		return c
	}
	if tv.IsBuiltin() {
		return args()
	}
	if name := d.t.kernelFunc(call); name != "" {
		switch sdk[name].Lanes {
		case lanesWarpSize:
			return clsWarpSize
		case lanesUniform:
			return clsUniform // the same in every lane that takes part
		case lanesArgs:
			return args()
		}
		return clsLane
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if obj := d.t.info.Uses[sel.Sel]; obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "math" {
			return args()
		}
	}
	return clsLane // device functions
}

// exprs checks the calls in x, run where div says.
func (d *divergence) exprs(x ast.Expr, div bool) {
	if !d.report || !div || x == nil {
		return
	}
	ast.Inspect(x, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !d.fullWarp(call) {
			return true
		}
		name := d.t.kernelFunc(call)
		what, how := "kernel."+name+" without a mask", "move it out of the branch or loop, or write kernel."+name+"Sync with the mask of the lanes that reach it (kernel.FullMask where all do)"
		switch {
		case name == "SyncWarp":
			what, how = "t.SyncWarp without a mask", "move it out of the branch or loop, or write kernel.SyncWarpMask with the mask of the lanes that reach it"
		case name == "":
			what = "a call of " + nodeText(call.Fun) + ", which makes a warp operation without a mask,"
			how = "give that operation a mask (kernel.ShflSync ...), or call the function where every lane of the warp does"
		}
		d.t.errorf(call.Pos(), what+" under control flow that may differ between the lanes of a warp", "every lane of the warp must reach it: %s", how)
		return true
	})
}
