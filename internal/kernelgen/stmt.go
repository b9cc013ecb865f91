package kernelgen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

func (e *emitter) stmts(list []ast.Stmt) {
	for _, s := range list {
		e.stmt(s, "")
	}
}

// block writes `{`-less statement lists one level in.
func (e *emitter) block(list []ast.Stmt) {
	top := e.top
	e.top = false
	e.indent++
	e.stmts(list)
	e.indent--
	e.top = top
}

func (e *emitter) stmt(s ast.Stmt, label string) {
	if _, ok := s.(*ast.EmptyStmt); ok {
		return
	}
	if _, ok := s.(*ast.LabeledStmt); !ok {
		e.at(s.Pos())
	}
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, ok := ast.Unparen(s.X).(*ast.CallExpr)
		if !ok {
			e.errorf(s, "expression statement", "")
			return
		}
		e.linef("%s;", e.call(call))
	case *ast.AssignStmt:
		e.assign(s)
	case *ast.IncDecStmt:
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		one := e.t.literal(constOne, e.info.TypeOf(s.X), s.Pos())
		e.opAssign(s.X, op, one, constOne, s.Pos())
	case *ast.DeclStmt:
		e.declStmt(s)
	case *ast.ReturnStmt:
		e.returnStmt(s)
	case *ast.BlockStmt:
		e.linef("{")
		e.block(s.List)
		e.linef("}")
	case *ast.IfStmt:
		e.ifStmt(s, false)
	case *ast.ForStmt:
		e.forStmt(s, label)
	case *ast.RangeStmt:
		e.rangeStmt(s, label)
	case *ast.SwitchStmt:
		e.switchStmt(s, label)
	case *ast.LabeledStmt:
		switch s.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt:
			e.stmt(s.Stmt, s.Label.Name)
		default:
			e.errorf(s, "label on a "+nodeName(s.Stmt), "labels name loops and switches, for break and continue")
		}
	case *ast.BranchStmt:
		e.branch(s)
	case *ast.GoStmt:
		e.errorf(s, "goroutine (go statement)", "")
	case *ast.DeferStmt:
		e.errorf(s, "defer", "")
	case *ast.SelectStmt:
		e.errorf(s, "select", "")
	case *ast.SendStmt:
		e.errorf(s, "channel send", "")
	case *ast.TypeSwitchStmt:
		e.errorf(s, "type switch (interfaces)", "")
	default:
		e.errorf(s, nodeName(s), "")
	}
}

func nodeName(n ast.Node) string {
	s := strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")
	return strings.ToLower(strings.TrimSuffix(s, "Stmt")) + " statement"
}

// declare writes `T name = init;` for a new variable (init "" is Go's
// zero value).
func (e *emitter) declVar(v *types.Var, init ast.Expr, pos token.Pos) {
	if v.Name() == "_" {
		if init != nil {
			e.linef("(void)(%s);", e.expr(init))
		}
		return
	}
	var ct string
	if sl, ok := v.Type().Underlying().(*types.Slice); ok {
		ct = e.t.sliceC(sl.Elem(), e.t.constSlice(v), pos)
	} else {
		ct = e.t.cType(v.Type(), pos)
	}
	if init == nil {
		e.linef("%s %s = {};", ct, e.declare(v))
		return
	}
	val := e.valueFor(v.Type(), e.t.constSlice(v), init)
	e.linef("%s %s = %s;", ct, e.declare(v), bare(val))
}

// valueFor is x as a value of a place of type typ: a slice for a const
// view (ro) made const.
func (e *emitter) valueFor(typ types.Type, ro bool, x ast.Expr) string {
	s := e.expr(x)
	if isSlice(typ) && ro && !e.constExpr(x) {
		return "hg_const(" + s + ")"
	}
	return s
}

// constExpr reports whether the slice expression x is a const view.
func (e *emitter) constExpr(x ast.Expr) bool {
	if v := e.t.rootVar(x); v != nil {
		return e.t.constSlice(v)
	}
	return false
}

func (e *emitter) declStmt(s *ast.DeclStmt) {
	g := s.Decl.(*ast.GenDecl)
	switch g.Tok {
	case token.CONST:
		return // folded where used
	case token.TYPE:
		e.errorf(s, "local type declaration", "declare types at package level")
		return
	}
	for _, sp := range g.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) == 1 && len(vs.Names) > 1 {
			lhs := make([]ast.Expr, len(vs.Names))
			for i, id := range vs.Names {
				lhs[i] = id
			}
			e.unpack(true, lhs, vs.Values[0])
			continue
		}
		if len(vs.Values) != 0 && len(vs.Values) != len(vs.Names) {
			e.errorf(vs, "several results", "")
			continue
		}
		for i, id := range vs.Names {
			v := e.info.Defs[id].(*types.Var)
			var init ast.Expr
			if len(vs.Values) > 0 {
				init = vs.Values[i]
			}
			if init != nil && e.sharedDecl(v, init) {
				continue
			}
			e.declVar(v, init, id.Pos())
		}
	}
}

// sharedDecl writes `x := kernel.Shared[T](t)`: a __shared__ variable.
func (e *emitter) sharedDecl(v *types.Var, init ast.Expr) bool {
	call, ok := ast.Unparen(init).(*ast.CallExpr)
	if !ok || sdk[e.t.kernelFunc(call)].Form != formShared {
		return false
	}
	if !e.top {
		e.errorf(call, "kernel.Shared outside the kernel's top level", "declare shared variables in the kernel body, not in a block or device function")
		return true
	}
	elem := v.Type().(*types.Pointer).Elem()
	ct := e.t.cType(elem, call.Pos())
	name := e.declare(v)
	shared := "hg_shared_" + name
	e.linef("__shared__ %s %s;", ct, shared)
	e.linef("%s* %s = &%s;", ct, name, shared)
	if e.sharedVars == nil {
		e.sharedVars = map[*types.Var]bool{}
	}
	e.sharedVars[v] = true
	e.fn.shared = append(e.fn.shared, elem)
	if mentionsTypeParam(elem) {
		// Its size is the instance's (instanceShared).
		return true
	}
	e.static = addShared(e.static, elem, e.t.sizes)
	if e.static > maxStaticShared {
		e.errorf(call, fmt.Sprintf("%d bytes of kernel.Shared", e.static),
			"a kernel's static shared memory is at most %d bytes (CUDA's bound; AMD's LDS is 64 KiB): take the rest as kernel.DynamicShared", maxStaticShared)
	}
	return true
}

// maxStaticShared is the most static shared memory a kernel may declare:
// CUDA refuses more than 48 KiB of __shared__ variables.
const maxStaticShared = 48 << 10

func (e *emitter) assign(s *ast.AssignStmt) {
	switch s.Tok {
	case token.DEFINE, token.ASSIGN:
	default:
		op := map[token.Token]token.Token{token.ADD_ASSIGN: token.ADD, token.SUB_ASSIGN: token.SUB, token.MUL_ASSIGN: token.MUL,
			token.QUO_ASSIGN: token.QUO, token.REM_ASSIGN: token.REM, token.AND_ASSIGN: token.AND, token.OR_ASSIGN: token.OR,
			token.XOR_ASSIGN: token.XOR, token.SHL_ASSIGN: token.SHL, token.SHR_ASSIGN: token.SHR, token.AND_NOT_ASSIGN: token.AND_NOT}[s.Tok]
		e.opAssign(s.Lhs[0], op, e.expr(s.Rhs[0]), e.info.Types[s.Rhs[0]].Value, s.Rhs[0].Pos())
		return
	}
	if len(s.Lhs) > 1 && len(s.Rhs) == 1 {
		e.unpack(s.Tok == token.DEFINE, s.Lhs, s.Rhs[0])
		return
	}
	if len(s.Lhs) != len(s.Rhs) {
		e.errorf(s, "several results", "")
		return
	}
	if len(s.Lhs) == 1 {
		e.assign1(s.Tok, s.Lhs[0], s.Rhs[0])
		return
	}
	// Parallel assignment: every right side first, as Go does.
	tmps := make([]string, len(s.Rhs))
	for i, r := range s.Rhs {
		if id, ok := s.Lhs[i].(*ast.Ident); ok && id.Name == "_" {
			e.linef("(void)(%s);", e.expr(r))
			continue
		}
		lt := e.info.TypeOf(s.Lhs[i])
		ct := e.t.cType(lt, r.Pos())
		if v := e.lhsVar(s.Lhs[i]); v != nil && isSlice(lt) {
			ct = e.t.sliceC(lt.Underlying().(*types.Slice).Elem(), e.t.constSlice(v), r.Pos())
			tmps[i] = e.temp("t")
			e.linef("%s %s = %s;", ct, tmps[i], bare(e.valueFor(lt, e.t.constSlice(v), r)))
			continue
		}
		tmps[i] = e.temp("t")
		e.linef("%s %s = %s;", ct, tmps[i], bare(e.expr(r)))
	}
	for i, l := range s.Lhs {
		if tmps[i] == "" {
			continue
		}
		id, _ := l.(*ast.Ident)
		if s.Tok == token.DEFINE && id != nil && e.info.Defs[id] != nil {
			v := e.info.Defs[id].(*types.Var)
			ct := e.t.cType(v.Type(), id.Pos())
			if sl, ok := v.Type().Underlying().(*types.Slice); ok {
				ct = e.t.sliceC(sl.Elem(), e.t.constSlice(v), id.Pos())
			}
			e.linef("%s %s = %s;", ct, e.declare(v), tmps[i])
			continue
		}
		e.linef("%s = %s;", e.store(l), tmps[i])
	}
}

// lhsVar is the variable an assignment's left side names, or nil.
func (e *emitter) lhsVar(l ast.Expr) *types.Var {
	if id, ok := ast.Unparen(l).(*ast.Ident); ok {
		v, _ := e.info.ObjectOf(id).(*types.Var)
		return v
	}
	return nil
}

func (e *emitter) assign1(tok token.Token, l, r ast.Expr) {
	if id, ok := l.(*ast.Ident); ok {
		if id.Name == "_" {
			e.linef("(void)(%s);", bare(e.expr(r)))
			return
		}
		if tok == token.DEFINE {
			if v, ok := e.info.Defs[id].(*types.Var); ok {
				if e.sharedDecl(v, r) {
					return
				}
				e.declVar(v, r, id.Pos())
				return
			}
		}
	}
	ro := false
	if v := e.lhsVar(l); v != nil {
		ro = e.t.constSlice(v)
	}
	e.linef("%s = %s;", e.store(l), bare(e.valueFor(e.info.TypeOf(l), ro, r)))
}

// opAssign writes l op= r (r already C++).
func (e *emitter) opAssign(l ast.Expr, op token.Token, r string, rc constant.Value, pos token.Pos) {
	typ := e.info.TypeOf(l)
	if _, ok := ast.Unparen(l).(*ast.IndexExpr); ok {
		// A place (hg_at): read through get, written by assignment.
		ref := e.temp("r")
		e.linef("{")
		e.indent++
		e.linef("auto %s = %s;", ref, e.store(l))
		e.linef("%s = %s;", ref, bare(e.binop(op, typ, rc, ref+".get()", r, pos)))
		e.indent--
		e.linef("}")
		return
	}
	if native, ok := e.nativeOp(op, typ); ok {
		e.linef("%s %s= %s;", e.store(l), native, bare(r))
		return
	}
	if id, ok := ast.Unparen(l).(*ast.Ident); ok {
		name := e.store(id)
		e.linef("%s = %s;", name, bare(e.binop(op, typ, rc, name, r, pos)))
		return
	}
	ref := e.temp("r")
	e.linef("{")
	e.indent++
	e.linef("%s& %s = %s;", e.t.cType(typ, pos), ref, e.store(l))
	e.linef("%s = %s;", ref, bare(e.binop(op, typ, rc, ref, r, pos)))
	e.indent--
	e.linef("}")
}

// nativeOp is the C++ compound operator that computes Go's op on typ
// exactly, if there is one.
func (e *emitter) nativeOp(op token.Token, typ types.Type) (string, bool) {
	if isTypeParam(typ) {
		return "", false
	}
	if isFloat(typ) {
		switch op {
		case token.ADD, token.SUB, token.MUL, token.QUO:
			return op.String(), true
		}
		return "", false
	}
	if !isInteger(typ) || isNarrow(typ) {
		return "", false
	}
	switch op {
	case token.AND, token.OR, token.XOR:
		return op.String(), true
	case token.ADD, token.SUB, token.MUL:
		return op.String(), isUnsigned(typ)
	}
	return "", false
}

func (e *emitter) returnStmt(s *ast.ReturnStmt) {
	sig := e.fn.obj.Type().(*types.Signature)
	switch {
	case len(s.Results) == 1 && sig.Results().Len() > 1:
		e.linef("return %s;", bare(e.expr(s.Results[0]))) // return g(): g's results
	case len(s.Results) == 1:
		e.linef("return %s;", bare(e.valueFor(sig.Results().At(0).Type(), false, s.Results[0])))
	case len(s.Results) > 1:
		var vs []string
		for i, r := range s.Results {
			vs = append(vs, bare(e.valueFor(sig.Results().At(i).Type(), false, r)))
		}
		e.linef("return %s{%s};", e.retC, strings.Join(vs, ", "))
	case len(e.results) == 1:
		e.linef("return %s;", e.names[e.results[0]])
	case len(e.results) > 1:
		var vs []string
		for _, r := range e.results {
			vs = append(vs, e.names[r])
		}
		e.linef("return %s{%s};", e.retC, strings.Join(vs, ", "))
	default:
		e.linef("return;")
	}
}

// unpack writes lhs... = call or lhs... := call for a call of several
// results: the hg_tupleN in a temporary, then each result to its place.
// define: a new variable for each name that declares one.
func (e *emitter) unpack(define bool, lhs []ast.Expr, call ast.Expr) {
	if _, ok := ast.Unparen(call).(*ast.CallExpr); !ok {
		e.errorf(call, "several values from "+fmt.Sprintf("%T", call), "")
		return
	}
	tmp := e.temp("m")
	e.linef("auto %s = %s;", tmp, bare(e.expr(call)))
	for i, l := range lhs {
		id, _ := l.(*ast.Ident)
		if id != nil && id.Name == "_" {
			continue
		}
		field := fmt.Sprintf("%s.r%d", tmp, i)
		if define && id != nil && e.info.Defs[id] != nil {
			v := e.info.Defs[id].(*types.Var)
			e.linef("%s %s = %s;", e.t.cType(v.Type(), id.Pos()), e.declare(v), field)
			continue
		}
		e.linef("%s = %s;", e.store(l), field)
	}
}

func (e *emitter) ifStmt(s *ast.IfStmt, elseIf bool) {
	if s.Init != nil {
		if elseIf {
			e.errorf(s, "else if with an init statement", "")
		}
		e.linef("{")
		e.indent++
		e.stmt(s.Init, "")
		e.at(s.Pos())
		defer func() { e.indent--; e.linef("}") }()
	}
	e.linef("if (%s) {", bare(e.expr(s.Cond)))
	e.block(s.Body.List)
	for s.Else != nil {
		if ei, ok := s.Else.(*ast.IfStmt); ok && ei.Init == nil {
			e.linef("} else if (%s) {", bare(e.expr(ei.Cond)))
			e.block(ei.Body.List)
			s = ei
			continue
		}
		e.linef("} else {")
		e.block(elseList(s.Else))
		break
	}
	e.linef("}")
}

func elseList(s ast.Stmt) []ast.Stmt {
	if b, ok := s.(*ast.BlockStmt); ok {
		return b.List
	}
	return []ast.Stmt{s}
}

// loop writes a loop's body between head and tail, with the labels that
// break and continue jumps need.
func (e *emitter) loop(tg *target, head string, body []ast.Stmt, post func(), first string) {
	e.targets = append(e.targets, tg)
	e.pragmaUnroll(tg)
	e.linef("%s {", head)
	e.loopBody(tg, body, post, first)
	e.indent--
	e.linef("}")
	if tg.usedBrk {
		e.linef("hg_break_%d:;", tg.id)
	}
	e.targets = e.targets[:len(e.targets)-1]
}

// loopBody writes the statements of a loop whose header is written, one
// level in. They go in a block of their own when a continue jumps to its
// end (the hg_continue_ label) or post follows them; else as they are.
// A first line, where not "", goes before them. The caller closes the
// loop.
func (e *emitter) loopBody(tg *target, body []ast.Stmt, post func(), first string) {
	saved := e.out
	e.out = &strings.Builder{}
	e.indent += 2
	top := e.top
	e.top = false
	if first != "" {
		for _, l := range strings.Split(first, "\n") {
			e.linef("%s", l)
		}
	}
	e.stmts(body)
	e.top = top
	e.indent--
	inner := e.out.String()
	e.out = saved
	if tg.usedCont || post != nil {
		e.linef("{")
		e.out.WriteString(inner)
		e.linef("}")
		if tg.usedCont {
			e.linef("hg_continue_%d:;", tg.id)
		}
		if post != nil {
			post()
		}
	} else {
		e.out.WriteString(reindent(inner))
	}
}

// reindent takes one level of indentation off lines written one too deep.
func reindent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			lines[i] = strings.TrimPrefix(l, "  ")
		}
	}
	return strings.Join(lines, "")
}

func (e *emitter) newTarget(label string, loop bool) *target {
	e.tmp++
	return &target{label: label, loop: loop, id: e.tmp}
}

func (e *emitter) forStmt(s *ast.ForStmt, label string) {
	unroll := e.t.unroll[s.Pos()]
	if sl, ok := e.strided(s); ok && !unroll {
		e.stridedFor(s, sl, label)
		return
	}
	tg := e.newTarget(label, true)
	tg.unroll = unroll
	wrap := false
	init := ""
	if s.Init != nil {
		// A single := (or assignment) goes into the for; anything else
		// before it, in a block.
		if as, ok := s.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 && (as.Tok == token.DEFINE || as.Tok == token.ASSIGN) {
			saved, line := e.out, e.line
			e.out = &strings.Builder{}
			e.assign1(as.Tok, as.Lhs[0], as.Rhs[0])
			init = strings.TrimSpace(e.out.String())
			e.out, e.line = saved, line
			init = strings.TrimSuffix(init, ";")
			if strings.Contains(init, "\n") || strings.Contains(init, "__shared__") {
				init = ""
			}
		}
		if init == "" {
			wrap = true
			e.linef("{")
			e.indent++
			e.stmt(s.Init, "")
			e.at(s.Pos())
		}
	}
	cond := "true"
	if s.Cond != nil {
		cond = bare(e.expr(s.Cond))
	}
	post, postExpr := func() {}, ""
	if s.Post != nil {
		postExpr = e.postExpr(s.Post)
		if postExpr == "" {
			tg.gotoCont = true
			p := s.Post
			post = func() { e.stmt(p, ""); e.at(s.Pos()) }
		}
	}
	head := fmt.Sprintf("for (%s; %s; %s)", init, cond, postExpr)
	if init == "" && postExpr == "" && s.Cond != nil {
		head = fmt.Sprintf("while (%s)", cond)
	} else if init == "" && postExpr == "" {
		head = "for (;;)"
	}
	if e.shortConstLoop(s) && !tg.unroll { // a marked loop gets its pragma in loop
		// Unrolled whole, as nvcc's samples ask: clang does so by itself
		// for a small body, but not for the same body with the checks of
		// the _checked entry, whose fault paths count toward its limit.
		e.linef("#pragma unroll")
	}
	if tg.gotoCont {
		e.loop(tg, head, s.Body.List, post, "")
	} else {
		e.loop(tg, head, s.Body.List, nil, "")
	}
	if wrap {
		e.indent--
		e.linef("}")
	}
}

// maxFullUnroll is the most iterations a loop of constant bounds is
// unrolled whole (#pragma unroll).
const maxFullUnroll = 32

// shortConstLoop reports whether s is for i := c0; i < c1; i++ (or <=)
// with constants c0 and c1, at most maxFullUnroll iterations.
func (e *emitter) shortConstLoop(s *ast.ForStmt) bool {
	as, ok := s.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return false
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	if !ok {
		return false
	}
	inc, ok := s.Post.(*ast.IncDecStmt)
	if !ok || inc.Tok != token.INC {
		return false
	}
	if pid, ok := inc.X.(*ast.Ident); !ok || e.info.ObjectOf(pid) != e.info.ObjectOf(id) {
		return false
	}
	cond, ok := s.Cond.(*ast.BinaryExpr)
	if !ok || (cond.Op != token.LSS && cond.Op != token.LEQ) {
		return false
	}
	if cid, ok := cond.X.(*ast.Ident); !ok || e.info.ObjectOf(cid) != e.info.ObjectOf(id) {
		return false
	}
	c0, ok0 := constInt(e.info.Types[as.Rhs[0]].Value)
	c1, ok1 := constInt(e.info.Types[cond.Y].Value)
	if !ok0 || !ok1 {
		return false
	}
	if cond.Op == token.LEQ {
		c1++
	}
	return c1 > c0 && c1-c0 <= maxFullUnroll
}

// postExpr is a for loop's post statement as one C++ expression, or "".
func (e *emitter) postExpr(s ast.Stmt) string {
	saved, line := e.out, e.line
	e.out = &strings.Builder{}
	indent := e.indent
	e.indent = 0
	switch s.(type) {
	case *ast.IncDecStmt, *ast.AssignStmt:
		e.stmt(s, "")
	default:
		e.out, e.line, e.indent = saved, line, indent
		return ""
	}
	out := strings.TrimSpace(e.out.String())
	e.out, e.line, e.indent = saved, line, indent
	if strings.HasPrefix(out, "#line") {
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:]
		}
	}
	if strings.ContainsAny(out, "\n{") || strings.Count(out, ";") != 1 {
		return ""
	}
	return strings.TrimSuffix(out, ";")
}

func (e *emitter) rangeStmt(s *ast.RangeStmt, label string) {
	tg := e.newTarget(label, true)
	tg.unroll = e.t.unroll[s.Pos()]
	xt := e.info.TypeOf(s.X)
	key, val := s.Key, s.Value
	isBlank := func(x ast.Expr) bool {
		id, ok := x.(*ast.Ident)
		return x == nil || ok && id.Name == "_"
	}
	e.linef("{")
	e.indent++
	idx := e.temp("i")
	var n, elem string
	var body []ast.Stmt
	switch u := xt.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsInteger == 0 {
			e.errorf(s.X, "range over "+xt.String(), "")
			break
		}
		ct := e.t.cType(xt, s.X.Pos())
		n = e.temp("n")
		e.linef("%s %s = %s;", ct, n, bare(e.expr(s.X)))
		e.pragmaUnroll(tg)
		e.linef("for (%s %s = 0; %s < %s; %s++) {", ct, idx, idx, n, idx)
	case *types.Slice:
		sv := e.temp("s")
		ro := e.constExpr(s.X)
		e.linef("%s %s = %s;", e.t.sliceC(u.Elem(), ro, s.X.Pos()), sv, bare(e.expr(s.X)))
		e.pragmaUnroll(tg)
		e.linef("for (long long %s = 0; %s < %s.n; %s++) {", idx, idx, sv, idx)
		elem = sv + ".p[" + idx + "]"
	case *types.Array, *types.Pointer:
		var length int64
		base := e.expr(s.X)
		if p, ok := u.(*types.Pointer); ok {
			arr, ok := p.Elem().Underlying().(*types.Array)
			if !ok {
				e.errorf(s.X, "range over "+xt.String(), "")
				break
			}
			length, base = arr.Len(), "(*"+base+")"
		} else {
			length = u.(*types.Array).Len()
			if !isBlank(val) {
				av := e.temp("a")
				e.linef("%s %s = %s;", e.t.cType(xt, s.X.Pos()), av, bare(base))
				base = av
			}
		}
		e.pragmaUnroll(tg)
		e.linef("for (long long %s = 0; %s < %d; %s++) {", idx, idx, length, idx)
		elem = base + "[" + idx + "]"
	default:
		e.errorf(s.X, "range over "+xt.String(), "ranges are over an int, a slice or an array")
	}
	e.indent++
	define := s.Tok == token.DEFINE
	bind := func(x ast.Expr, value string) {
		if isBlank(x) {
			return
		}
		if define {
			v := e.info.Defs[x.(*ast.Ident)].(*types.Var)
			ct := e.t.cType(v.Type(), x.Pos())
			e.linef("%s %s = %s;", ct, e.declare(v), value)
			return
		}
		e.linef("%s = %s;", e.store(x), value)
	}
	bind(key, idx)
	if elem != "" {
		bind(val, elem)
	}
	e.indent--
	body = s.Body.List
	// The loop header is written; loopBody writes the body.
	e.targets = append(e.targets, tg)
	e.loopBody(tg, body, nil, "")
	e.indent--
	e.linef("}")
	e.targets = e.targets[:len(e.targets)-1]
	e.indent--
	e.linef("}")
	if tg.usedBrk {
		e.linef("hg_break_%d:;", tg.id)
	}
}

func (e *emitter) switchStmt(s *ast.SwitchStmt, label string) {
	tg := e.newTarget(label, false)
	e.targets = append(e.targets, tg)
	defer func() { e.targets = e.targets[:len(e.targets)-1] }()
	e.linef("{")
	e.indent++
	if s.Init != nil {
		e.stmt(s.Init, "")
		e.at(s.Pos())
	}
	tag := ""
	var tagType types.Type
	if s.Tag != nil {
		tagType = e.info.TypeOf(s.Tag)
		tag = e.temp("tag")
		e.linef("%s %s = %s;", e.t.cType(tagType, s.Tag.Pos()), tag, bare(e.expr(s.Tag)))
	}
	var def *ast.CaseClause
	first := true
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		if cc.List == nil {
			def = cc
			continue
		}
		var conds []string
		for _, x := range cc.List {
			if tag != "" {
				conds = append(conds, fmt.Sprintf("%s == %s", tag, e.expr(x)))
			} else {
				conds = append(conds, bare(e.expr(x)))
			}
		}
		cond := strings.Join(conds, " || ")
		if len(conds) > 1 && tag == "" {
			cond = "(" + strings.Join(conds, ") || (") + ")"
		}
		e.at(cc.Pos())
		if first {
			e.linef("if (%s) {", cond)
		} else {
			e.linef("} else if (%s) {", cond)
		}
		first = false
		e.caseBody(cc)
	}
	if def != nil {
		e.at(def.Pos())
		if first {
			e.linef("{")
		} else {
			e.linef("} else {")
		}
		e.caseBody(def)
		first = false
	}
	if !first {
		e.linef("}")
	}
	e.indent--
	e.linef("}")
	if tg.usedBrk {
		e.linef("hg_break_%d:;", tg.id)
	}
}

func (e *emitter) caseBody(cc *ast.CaseClause) {
	for _, s := range cc.Body {
		if b, ok := s.(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			e.errorf(b, "fallthrough", "")
		}
	}
	e.block(cc.Body)
}

func (e *emitter) branch(s *ast.BranchStmt) {
	switch s.Tok {
	case token.GOTO:
		e.errorf(s, "goto", "")
		return
	case token.FALLTHROUGH:
		e.errorf(s, "fallthrough", "")
		return
	}
	var tg *target
	innermostLoop := -1
	for i := len(e.targets) - 1; i >= 0; i-- {
		c := e.targets[i]
		if c.loop && innermostLoop < 0 {
			innermostLoop = i
		}
		if s.Label != nil {
			if c.label == s.Label.Name {
				tg = c
				break
			}
			continue
		}
		if s.Tok == token.CONTINUE && !c.loop {
			continue
		}
		tg = c
		break
	}
	if tg == nil {
		e.errorf(s, s.Tok.String()+" outside a loop", "")
		return
	}
	i := 0
	for i = range e.targets {
		if e.targets[i] == tg {
			break
		}
	}
	// A native break or continue reaches only the innermost C++ loop;
	// switches are if chains, so that is the innermost Go loop.
	if s.Tok == token.BREAK {
		if tg.loop && i == innermostLoop {
			e.linef("break;")
			return
		}
		tg.usedBrk = true
		e.linef("goto hg_break_%d;", tg.id)
		return
	}
	if i == innermostLoop && !tg.gotoCont {
		e.linef("continue;")
		return
	}
	tg.usedCont = true
	e.linef("goto hg_continue_%d;", tg.id)
}

// pragmaUnroll writes #pragma unroll before the header of a loop marked
// //hipgo:unroll.
func (e *emitter) pragmaUnroll(tg *target) {
	if tg.unroll {
		e.linef("#pragma unroll")
	}
}
