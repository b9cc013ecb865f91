package kernelgen

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

var constOne = constant.MakeInt64(1)

// bare drops one pair of parentheses around the whole of s.
func bare(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s
			}
		}
	}
	return s[1 : len(s)-1]
}

// expr is x as a C++ value.
func (e *emitter) expr(x ast.Expr) string {
	tv := e.info.Types[x]
	if tv.Value != nil {
		return e.t.literal(tv.Value, tv.Type, x.Pos())
	}
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.expr(x.X)
	case *ast.Ident:
		switch obj := e.info.Uses[x].(type) {
		case *types.Var:
			if obj.Parent() == e.t.pkg.Types.Scope() {
				if g := e.t.globals[obj]; g != nil {
					return g.Name
				}
				e.errorf(x, "package-level variable "+x.Name, "pass the value as a kernel parameter, or mark the variable //hipgo:constant or //hipgo:device")
				return x.Name
			}
			if isThread(obj.Type()) {
				e.errorf(x, "a kernel.Thread value", "call its methods or pass it to a device function")
			}
			if n, ok := e.names[obj]; ok {
				return n
			}
			return cName(x.Name)
		case *types.Nil:
			e.errorf(x, "nil", "")
		case *types.Func:
			e.errorf(x, "function value", "call the function")
		default:
			e.errorf(x, "identifier "+x.Name, "")
		}
		return x.Name
	case *ast.BasicLit:
		e.errorf(x, "string", "kernels have no strings")
		return "0"
	case *ast.BinaryExpr:
		return e.binary(x)
	case *ast.UnaryExpr:
		return e.unary(x)
	case *ast.StarExpr:
		return "(*" + e.expr(x.X) + ")"
	case *ast.SelectorExpr:
		return e.selector(x, false)
	case *ast.IndexExpr:
		if tv := e.info.Types[x.X]; tv.IsType() || isFuncExpr(e.info, x.X) {
			e.errorf(x, "function value", "call the function")
			return "0"
		}
		return e.index(x, false)
	case *ast.SliceExpr:
		return e.sliceExpr(x)
	case *ast.CallExpr:
		return e.call(x)
	case *ast.CompositeLit:
		return e.composite(x)
	case *ast.FuncLit:
		e.errorf(x, "closure (func literal)", "write a device function")
	case *ast.TypeAssertExpr:
		e.errorf(x, "type assertion (interfaces)", "")
	default:
		e.errorf(x, fmt.Sprintf("expression %T", x), "")
	}
	return "0"
}

func isFuncExpr(info *types.Info, x ast.Expr) bool {
	_, ok := info.TypeOf(x).(*types.Signature)
	return ok
}

// lvalue is the place x names, for assignment or &.
func (e *emitter) lvalue(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.lvalue(x.X)
	case *ast.IndexExpr:
		return e.index(x, true)
	case *ast.SelectorExpr:
		return e.selector(x, true)
	case *ast.StarExpr:
		return "(*" + e.expr(x.X) + ")"
	case *ast.Ident:
		return e.expr(x)
	}
	e.errorf(x, "assignment to "+fmt.Sprintf("%T", x), "")
	return "0"
}

// addressable reports whether x is a place (Go's addressability, the
// cases the subset has).
func (e *emitter) addressable(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.ParenExpr:
		return e.addressable(x.X)
	case *ast.Ident:
		_, ok := e.info.Uses[x].(*types.Var)
		return ok
	case *ast.StarExpr:
		return true
	case *ast.IndexExpr:
		switch e.info.TypeOf(x.X).Underlying().(type) {
		case *types.Slice, *types.Pointer:
			return true
		}
		return e.addressable(x.X)
	case *ast.SelectorExpr:
		if e.info.Selections[x] == nil {
			return false
		}
		return isPointer(e.info.TypeOf(x.X)) || e.addressable(x.X)
	}
	return false
}

func (e *emitter) selector(x *ast.SelectorExpr, lv bool) string {
	sel := e.info.Selections[x]
	if sel == nil {
		// A qualified identifier that is not a constant.
		e.errorf(x, "package member "+x.Sel.Name, "only constants and calls of package kernel and math")
		return "0"
	}
	switch sel.Kind() {
	case types.MethodVal, types.MethodExpr:
		e.errorf(x, "method value", "call the method")
		return "0"
	}
	if len(sel.Index()) != 1 {
		e.errorf(x, "promoted field "+x.Sel.Name, "name the embedded field")
	}
	// t.ThreadIdx().X and friends read one index directly.
	if call, ok := ast.Unparen(x.X).(*ast.CallExpr); ok && !lv {
		if m := e.threadMethod(call); m != "" {
			if f := sdk[m].Dim; f != "" {
				return fmt.Sprintf("(long long)hg_%s_%s()", f, strings.ToLower(x.Sel.Name))
			}
		}
	}
	field := cName(x.Sel.Name)
	if isPointer(e.info.TypeOf(x.X)) {
		return e.expr(x.X) + "->" + field
	}
	if lv || e.addressable(x.X) {
		return e.lvalue(x.X) + "." + field
	}
	return e.expr(x.X) + "." + field
}

// index is x[i]: a read (hg_ld) or a place (hg_ref), checked in the
// checked variant.
func (e *emitter) index(x *ast.IndexExpr, lv bool) string { return e.indexAs(x, lv, false) }

// readPlace is the place x as the base of a read, a[i] in a[i][j]: an
// array element through hg_cref, which a failed index points at the
// array's first element rather than at the global scratch cell, so the
// read keeps its address space (a shared tile stays in shared memory).
func (e *emitter) readPlace(x ast.Expr) string {
	switch y := x.(type) {
	case *ast.ParenExpr:
		return e.readPlace(y.X)
	case *ast.IndexExpr:
		return e.indexAs(y, true, true)
	}
	return e.lvalue(x)
}

// scratchCell is the size of the prelude's hg_scratch, the cell a failed
// checked write through hg_ref goes to.
const scratchCell = 64 * 8

// bigElem reports whether elem, an element of a slice or array, is larger
// than the scratch cell, so its place goes through hg_ref_big. An element
// whose type mentions a type parameter stays with hg_ref.
func (e *emitter) bigElem(elem types.Type) bool {
	return elem != nil && !mentionsTypeParam(elem) && e.t.sizes.Sizeof(elem) > scratchCell
}

func (e *emitter) indexAs(x *ast.IndexExpr, lv, read bool) string {
	i := e.expr(x.Index)
	if !isInteger(e.info.TypeOf(x.Index)) {
		e.errorf(x.Index, "index of type "+e.info.TypeOf(x.Index).String(), "")
	}
	constIdx := e.constant(x.Index)
	fn := "hg_ld"
	if lv {
		fn = "hg_ref"
	}
	if fn == "hg_ref" && !read && e.bigElem(e.info.TypeOf(x)) {
		fn = "hg_ref_big"
		e.t.usesBigRef = true
	}
	var base string
	switch u := e.info.TypeOf(x.X).Underlying().(type) {
	case *types.Slice:
		return fmt.Sprintf("%s<Checked>(%s, %s, %s)", fn, e.expr(x.X), bare(i), e.loc(x.Lbrack))
	case *types.Array:
		switch {
		case lv && !read:
			base = e.lvalue(x.X)
		case e.addressable(x.X):
			base = e.readPlace(x.X)
		default:
			base = e.expr(x.X)
		}
		if read {
			fn = "hg_cref"
		}
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			e.errorf(x, "index of "+u.String(), "")
		}
		base = "(*" + e.expr(x.X) + ")"
		if read {
			fn = "hg_cref"
		}
	case *types.Map:
		e.errorf(x, "map", "")
		return "0"
	case *types.Basic:
		e.errorf(x, "string", "kernels have no strings")
		return "0"
	default:
		e.errorf(x, "index of "+u.String(), "")
		return "0"
	}
	if constIdx {
		return base + "[" + bare(i) + "]" // Go checked it at compile time
	}
	return fmt.Sprintf("%s<Checked>(%s, %s, %s)", fn, base, bare(i), e.loc(x.Lbrack))
}

// place is x[i] as the target of a write: hg_at<Checked>, a place whose
// failed index records the fault and drops the write. A failed place
// points at its base, so a write to a shared array stays a shared store;
// hg_ref's scratch cell, global memory, would make it a generic one.
// a[i][j] is the element j of the place a[i].
func (e *emitter) place(x *ast.IndexExpr) string {
	var base string
	switch u := e.info.TypeOf(x.X).Underlying().(type) {
	case *types.Slice:
		base = e.expr(x.X)
	case *types.Array:
		base = e.lvalue(x.X)
		if y, ok := ast.Unparen(x.X).(*ast.IndexExpr); ok {
			base = e.place(y)
		}
	case *types.Pointer:
		if _, ok := u.Elem().Underlying().(*types.Array); !ok {
			return e.index(x, true) // reports it
		}
		base = "(*" + e.expr(x.X) + ")"
	default:
		return e.index(x, true) // reports it
	}
	if !isInteger(e.info.TypeOf(x.Index)) {
		e.errorf(x.Index, "index of type "+e.info.TypeOf(x.Index).String(), "")
	}
	return fmt.Sprintf("hg_at<Checked>(%s, %s, %s)", base, bare(e.expr(x.Index)), e.loc(x.Lbrack))
}

// sharedRoot reports whether the place x is inside a kernel.Shared
// variable of the kernel.
func (e *emitter) sharedRoot(x ast.Expr) bool {
	for {
		switch y := x.(type) {
		case *ast.ParenExpr:
			x = y.X
		case *ast.IndexExpr:
			x = y.X
		case *ast.StarExpr:
			x = y.X
		case *ast.Ident:
			v, _ := e.info.Uses[y].(*types.Var)
			return v != nil && e.sharedVars[v]
		default:
			return false
		}
	}
}

func (e *emitter) sliceExpr(x *ast.SliceExpr) string {
	if x.Slice3 {
		e.errorf(x, "three-index slice", "")
	}
	lo, hi := "0", "-1"
	if x.Low != nil {
		lo = bare(e.expr(x.Low))
	}
	if x.High != nil {
		hi = bare(e.expr(x.High))
	}
	var base string
	switch u := e.info.TypeOf(x.X).Underlying().(type) {
	case *types.Slice:
		base = e.expr(x.X)
	case *types.Pointer:
		base = "(*" + e.expr(x.X) + ")"
	case *types.Array:
		base = e.lvalue(x.X)
	case *types.Basic:
		e.errorf(x, "string", "kernels have no strings")
		return "0"
	default:
		e.errorf(x, "slice of "+u.String(), "")
		return "0"
	}
	return fmt.Sprintf("hg_sub<Checked>(%s, %s, %s, %s)", base, lo, hi, e.loc(x.Lbrack))
}

func (e *emitter) binary(x *ast.BinaryExpr) string {
	lt := e.info.TypeOf(x.X)
	switch x.Op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		// A type parameter's Underlying is its constraint: its values
		// are numbers here (the subset's constraints are numeric).
		switch lt.Underlying().(type) {
		case *types.Basic, *types.Pointer:
		default:
			if !isTypeParam(lt) {
				e.errorf(x, "comparison of "+lt.String(), "compare fields or elements")
			}
		}
		return fmt.Sprintf("(%s %s %s)", e.expr(x.X), x.Op, e.expr(x.Y))
	case token.LAND, token.LOR:
		return fmt.Sprintf("(%s %s %s)", e.expr(x.X), x.Op, e.expr(x.Y))
	}
	return e.binop(x.Op, e.info.TypeOf(x), e.info.Types[x.Y].Value, e.expr(x.X), e.expr(x.Y), x.OpPos)
}

// binop is l op r for operands of Go type typ, with Go's semantics; rc is
// r's value when it is a constant.
func (e *emitter) binop(op token.Token, typ types.Type, rc constant.Value, l, r string, pos token.Pos) string {
	if b := basicOf(typ); !isTypeParam(typ) && (b == nil || b.Info()&types.IsNumeric == 0) {
		if b != nil && b.Info()&types.IsString != 0 {
			e.t.errorf(pos, "string", "kernels have no strings")
		} else {
			e.t.errorf(pos, "operator "+op.String()+" on "+typ.String(), "")
		}
		return "0"
	}
	ct := e.t.cType(typ, pos)
	narrow := func(s string) string {
		if isNarrow(typ) {
			return "(" + ct + ")" + s
		}
		return s
	}
	tp := isTypeParam(typ)
	if isFloat(typ) {
		return fmt.Sprintf("(%s %s %s)", l, op, r)
	}
	switch op {
	case token.ADD, token.SUB, token.MUL:
		if !tp && isUnsigned(typ) && !isNarrow(typ) {
			return fmt.Sprintf("(%s %s %s)", l, op, r)
		}
		f := map[token.Token]string{token.ADD: "hg_add", token.SUB: "hg_sub", token.MUL: "hg_mul"}[op]
		return fmt.Sprintf("%s(%s, %s)", f, bare(l), bare(r))
	case token.QUO, token.REM:
		// A constant divisor other than 0 and -1 needs no check: C++
		// truncates toward zero as Go does.
		if c, ok := constInt(rc); ok && !tp && c != 0 && c != -1 {
			return narrow(fmt.Sprintf("(%s %s %s)", l, op, r))
		}
		if op == token.REM {
			return fmt.Sprintf("hg_rem<Checked>(%s, %s, %s)", bare(l), bare(r), e.loc(pos))
		}
		return fmt.Sprintf("hg_div<Checked>(%s, %s, %s)", bare(l), bare(r), e.loc(pos))
	case token.AND, token.OR, token.XOR:
		return narrow(fmt.Sprintf("(%s %s %s)", l, op, r))
	case token.AND_NOT:
		return narrow(fmt.Sprintf("(%s & ~%s)", l, r))
	case token.SHL, token.SHR:
		// A constant count below the width is a plain shift, except a
		// left shift of a signed or narrow value (C++ overflow).
		if c, ok := constInt(rc); ok && !tp && c >= 0 && c < e.t.sizes.Sizeof(typ)*8 {
			if op == token.SHR {
				return fmt.Sprintf("(%s >> %s)", l, r)
			}
			if isUnsigned(typ) && !isNarrow(typ) {
				return fmt.Sprintf("(%s << %s)", l, r)
			}
		}
		f := "hg_shl"
		if op == token.SHR {
			f = "hg_shr"
		}
		return fmt.Sprintf("%s<Checked>(%s, %s, %s)", f, bare(l), bare(r), e.loc(pos))
	}
	e.t.errorf(pos, "operator "+op.String(), "")
	return "0"
}

// constInt is the integer constant v, if v is one that fits an int64.
func constInt(v constant.Value) (int64, bool) {
	if v == nil {
		return 0, false
	}
	v = constant.ToInt(v)
	if v.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v)
}

func (e *emitter) unary(x *ast.UnaryExpr) string {
	typ := e.info.TypeOf(x)
	switch x.Op {
	case token.ADD:
		return e.expr(x.X)
	case token.NOT:
		return "(!" + e.expr(x.X) + ")"
	case token.SUB:
		if isFloat(typ) || (isUnsigned(typ) && !isNarrow(typ)) {
			return "(-" + e.expr(x.X) + ")"
		}
		return "hg_neg(" + bare(e.expr(x.X)) + ")"
	case token.XOR:
		s := "(~" + e.expr(x.X) + ")"
		if isNarrow(typ) || isTypeParam(typ) {
			return "(" + e.t.cType(typ, x.Pos()) + ")" + s
		}
		return s
	case token.AND:
		e.errorf(x, "address-of (&)", "& is for the first argument of an atomic")
	case token.ARROW:
		e.errorf(x, "channel receive", "")
	default:
		e.errorf(x, "operator "+x.Op.String(), "")
	}
	return "0"
}

func (e *emitter) composite(x *ast.CompositeLit) string {
	typ := e.info.TypeOf(x)
	switch u := typ.Underlying().(type) {
	case *types.Slice:
		e.errorf(x, "slice literal (allocation)", "use a fixed-size array")
	case *types.Map:
		e.errorf(x, "map literal", "")
	case *types.Struct:
		ct := e.t.cType(typ, x.Pos())
		vals := make([]string, u.NumFields())
		for i := range vals {
			vals[i] = "{}"
		}
		for i, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				name := kv.Key.(*ast.Ident).Name
				for j := 0; j < u.NumFields(); j++ {
					if u.Field(j).Name() == name {
						vals[j] = bare(e.expr(kv.Value))
					}
				}
				continue
			}
			vals[i] = bare(e.expr(el))
		}
		return ct + "{" + strings.Join(vals, ", ") + "}"
	case *types.Array:
		ct := e.t.cType(typ, x.Pos())
		vals := make([]string, u.Len())
		for i := range vals {
			vals[i] = "{}"
		}
		next := int64(0)
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				k, _ := constant.Int64Val(e.info.Types[kv.Key].Value)
				next = k
				el = kv.Value
			}
			if next < int64(len(vals)) {
				vals[next] = bare(e.expr(el))
			}
			next++
		}
		return ct + "{{" + strings.Join(vals, ", ") + "}}"
	default:
		e.errorf(x, "composite literal of "+typ.String(), "")
	}
	return "0"
}

func (e *emitter) call(x *ast.CallExpr) string {
	fun := ast.Unparen(x.Fun)
	tv := e.info.Types[fun]
	if tv.IsType() {
		return e.conversion(x, tv.Type)
	}
	if tv.IsBuiltin() {
		return e.builtin(x, fun)
	}
	if m := e.threadMethod(x); m != "" {
		return e.threadCall(x, m)
	}
	if name := e.t.kernelFunc(x); name != "" {
		return e.kernelCall(x, name)
	}
	if name, ok := e.t.typeParamMethod(x); ok {
		return e.typeParamCall(x, name)
	}
	if callee := e.t.deviceCallee(x); callee != nil {
		return e.deviceCall(x, callee)
	}
	// Calls into other packages: math, or an error naming the package.
	base := fun
	if ix, ok := base.(*ast.IndexExpr); ok {
		base = ix.X
	}
	if sel, ok := base.(*ast.SelectorExpr); ok {
		if s := e.info.Selections[sel]; s != nil {
			if s.Kind() == types.MethodVal {
				if fn, ok := s.Obj().(*types.Func); ok && fn.Pkg() != nil {
					e.errorf(x, "call of method "+fn.FullName(), "")
					return "0"
				}
			}
			e.errorf(x, "call of a method", "")
			return "0"
		}
		if obj := e.info.Uses[sel.Sel]; obj != nil && obj.Pkg() != nil {
			if obj.Pkg().Path() == "math" {
				return e.mathCall(x, obj.Name())
			}
			e.errorf(x, "call to package "+obj.Pkg().Path(), "kernels call only package kernel, math and this package's functions")
			return "0"
		}
	}
	e.errorf(x, "call of a function value", "")
	return "0"
}

func (e *emitter) conversion(x *ast.CallExpr, to types.Type) string {
	from := e.info.TypeOf(x.Args[0])
	ct := e.t.cType(to, x.Pos())
	switch {
	case isSlice(to) || isSlice(from):
		if types.Identical(to.Underlying(), from.Underlying()) {
			return e.expr(x.Args[0])
		}
		e.errorf(x, "conversion to "+to.String(), "")
	case basicOf(to) != nil && basicOf(to).Info()&types.IsString != 0:
		e.errorf(x, "string", "kernels have no strings")
	}
	if mul := roundedProduct(x.Args[0], from, to); mul != nil {
		// Go: an explicit conversion rounds, so float32(x*y) + z must
		// not become one FMA.
		fn := "hg_fmul_rn"
		switch {
		case isTypeParam(to):
			fn = "hg_mul_rn<" + ct + ">"
		case basicOf(to).Kind() == types.Float64:
			fn = "hg_dmul_rn"
		}
		return fmt.Sprintf("%s(%s, %s)", fn, bare(e.expr(mul.X)), bare(e.expr(mul.Y)))
	}
	return fmt.Sprintf("(%s)%s", ct, parenthesize(e.expr(x.Args[0])))
}

// roundedProduct is arg when it is a float product converted to its own
// type, float32(x*y) or float64(x*y), or a product of a type parameter's
// values converted to it, T(x*y): the conversion that the Go spec says
// prevents fusing the product into an FMA.
func roundedProduct(arg ast.Expr, from, to types.Type) *ast.BinaryExpr {
	b, ok := ast.Unparen(arg).(*ast.BinaryExpr)
	if !ok || b.Op != token.MUL {
		return nil
	}
	if isTypeParam(to) {
		if types.Identical(from, to) {
			return b
		}
		return nil
	}
	tb, fb := basicOf(to), basicOf(from)
	if tb == nil || fb == nil || tb.Info()&types.IsFloat == 0 || tb.Kind() != fb.Kind() {
		return nil
	}
	return b
}

func parenthesize(s string) string {
	if bare(s) != s {
		return s
	}
	return "(" + s + ")"
}

func (e *emitter) builtin(x *ast.CallExpr, fun ast.Expr) string {
	id, _ := fun.(*ast.Ident)
	if id == nil {
		e.errorf(x, "builtin", "")
		return "0"
	}
	switch id.Name {
	case "len", "cap":
		at := e.info.TypeOf(x.Args[0]).Underlying()
		if _, ok := at.(*types.Slice); ok {
			f := map[string]string{"len": "n", "cap": "c"}[id.Name]
			return e.expr(x.Args[0]) + "." + f
		}
		if b, ok := at.(*types.Basic); ok && b.Info()&types.IsString != 0 {
			e.errorf(x, "string", "kernels have no strings")
			return "0"
		}
		e.errorf(x, id.Name+" of "+at.String(), "")
	case "min", "max":
		out := e.expr(x.Args[0])
		for _, a := range x.Args[1:] {
			out = fmt.Sprintf("hg_%s(%s, %s)", id.Name, bare(out), bare(e.expr(a)))
		}
		return out
	case "make", "new", "append":
		e.errorf(x, "allocation ("+id.Name+")", "kernels cannot allocate; pass a slice or use kernel.Shared")
	case "panic":
		e.errorf(x, "panic", "checked mode reports index, division and shift faults")
	case "print", "println":
		e.errorf(x, id.Name, "")
	default:
		e.errorf(x, "builtin "+id.Name, "")
	}
	return "0"
}

// threadMethod is the kernel.Thread method x calls, or "".
func (e *emitter) threadMethod(x *ast.CallExpr) string {
	sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	s := e.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal || !isThread(s.Recv()) {
		return ""
	}
	return sel.Sel.Name
}

func (e *emitter) threadCall(x *ast.CallExpr, m string) string {
	if c, ok := sdk[m]; ok && c.Thread {
		return c.CPP
	}
	e.errorf(x, "kernel.Thread."+m, "")
	return "0"
}

// args is the call's arguments as C++, the kernel.Thread ones dropped.
func (e *emitter) args(x *ast.CallExpr) []string {
	var out []string
	for _, a := range x.Args {
		if isThread(e.info.TypeOf(a)) {
			continue
		}
		out = append(out, bare(e.expr(a)))
	}
	return out
}

func (e *emitter) kernelCall(x *ast.CallExpr, name string) string {
	c, ok := sdk[name]
	if !ok || c.Thread {
		e.errorf(x, "kernel."+name, "")
		return "0"
	}
	switch c.uses {
	case preludeWarp:
		e.t.usesWarp = true
	case preludeVector:
		e.t.usesVector = true
	case preludeMemory:
		e.t.usesMemory = true
	}
	switch c.Form {
	case formFixed:
		return c.CPP
	case formShared:
		e.errorf(x, "kernel.Shared outside a declaration", "write x := kernel.Shared[T](t) at the kernel's top level")
	case formDynamicShared:
		elem := e.info.TypeOf(x).(*types.Slice).Elem()
		ct := e.t.cType(elem, x.Pos())
		return fmt.Sprintf("hg_make_slice((%s*)hg_dyn_shared, (long long)(hg_dyn_bytes / sizeof(%s)))", ct, ct)
	case formShfl:
		a := e.args(x)
		return fmt.Sprintf("%s(%s, (long long)%s)", c.CPP, a[0], parenthesize(a[1]))
	case formVote:
		return fmt.Sprintf("%s(%s)", c.CPP, e.args(x)[0])
	case formShflSync:
		a := e.args(x)
		return fmt.Sprintf("%s((unsigned long long)%s, %s, (long long)%s, (long long)%s)", c.CPP, parenthesize(a[0]), a[1], parenthesize(a[2]), parenthesize(a[3]))
	case formMaskOp:
		a := e.args(x)
		return fmt.Sprintf("%s((unsigned long long)%s, %s)", c.CPP, parenthesize(a[0]), a[1])
	case formSyncWarpMask:
		return fmt.Sprintf("%s((unsigned long long)%s)", c.CPP, parenthesize(e.args(x)[0]))
	case formAtomic:
		p := e.atomicPtr(x.Args[0])
		rest := e.args(&ast.CallExpr{Args: x.Args[1:]})
		return fmt.Sprintf("%s(%s)", c.CPP, strings.Join(append([]string{p}, rest...), ", "))
	case formLoadVec:
		a := e.args(x)
		return fmt.Sprintf("%s<Checked, %s>(%s, %s, %s)", c.CPP, name[len("Load"):], a[0], a[1], e.loc(x.Lparen))
	case formStoreVec:
		a := e.args(x)
		return fmt.Sprintf("%s<Checked, %s>(%s, %s, %s, %s)", c.CPP, name[len("Store"):], a[0], a[1], a[2], e.loc(x.Lparen))
	case formOrderedBlockID:
		return fmt.Sprintf("%s(%s)", c.CPP, e.atomicPtr(x.Args[1]))
	case formScopedAtomic:
		return e.scopedAtomic(x, c)
	case formMath:
		return e.mathFn(x, c.CPP)
	case formPrintf:
		return e.printfCall(x)
	}
	return "0"
}

// scopedAtomic is an atomic with a memory order and a scope, its last two
// arguments, which must be constants: hg_atomic_load<O, S>(p),
// hg_atomic_add_s<O, S>(p, v), ...
func (e *emitter) scopedAtomic(x *ast.CallExpr, c SDKCall) string {
	name := c.Name
	n := len(x.Args)
	if n < 3 {
		e.errorf(x, "kernel."+name, "")
		return "0"
	}
	o, okO := constInt(e.info.Types[x.Args[n-2]].Value)
	s, okS := constInt(e.info.Types[x.Args[n-1]].Value)
	if !okO || o < 0 || o > 4 {
		e.errorf(x.Args[n-2], "a memory order that is not a constant", "pass kernel.Relaxed, Acquire, Release, AcqRel or SeqCst")
		return "0"
	}
	if !okS || s < 0 || s > 2 {
		e.errorf(x.Args[n-1], "a memory scope that is not a constant", "pass kernel.ScopeBlock, ScopeDevice or ScopeSystem")
		return "0"
	}
	orders := [...]string{"Relaxed", "Acquire", "Release", "AcqRel", "SeqCst"}
	switch {
	case name == "AtomicLoad" && (o == 2 || o == 3):
		e.errorf(x.Args[n-2], "an atomic load with order "+orders[o], "a load is Relaxed, Acquire or SeqCst")
		return "0"
	case name == "AtomicStore" && (o == 1 || o == 3):
		e.errorf(x.Args[n-2], "an atomic store with order "+orders[o], "a store is Relaxed, Release or SeqCst")
		return "0"
	}
	p := e.atomicPtr(x.Args[0])
	rest := e.args(&ast.CallExpr{Args: x.Args[1 : n-2]})
	return fmt.Sprintf("%s<%d, %d>(%s)", c.CPP, o, s, strings.Join(append([]string{p}, rest...), ", "))
}

// atomicPtr is an atomic's first argument: &s[i], &shared[i], &(*p) or a
// pointer from kernel.Shared.
func (e *emitter) atomicPtr(a ast.Expr) string {
	a = ast.Unparen(a)
	if u, ok := a.(*ast.UnaryExpr); ok && u.Op == token.AND {
		switch x := ast.Unparen(u.X).(type) {
		case *ast.IndexExpr:
			if e.sharedRoot(x) {
				return "hg_ptr_shared(" + e.store(x) + ")"
			}
			return "hg_ptr(" + e.store(x) + ")"
		case *ast.StarExpr, *ast.SelectorExpr:
			return "&" + e.store(x)
		}
		e.errorf(a, "atomic on "+nodeText(u.X), "atomics act on &slice[i], &shared[i] or a kernel.Shared pointer")
		return "0"
	}
	if id, ok := a.(*ast.Ident); ok && isPointer(e.info.TypeOf(id)) {
		return e.expr(id)
	}
	e.errorf(a, "atomic on "+nodeText(a), "atomics act on &slice[i], &shared[i] or a kernel.Shared pointer")
	return "0"
}

func nodeText(n ast.Expr) string { return types.ExprString(n) }

// mathFn calls the float helper hg_name on the call's arguments.
func (e *emitter) mathFn(x *ast.CallExpr, name string) string {
	typ := e.info.TypeOf(x)
	switch {
	case isTypeParam(typ):
		e.t.useMath(name, 32)
		e.t.useMath(name, 64)
	case basicOf(typ) != nil && basicOf(typ).Kind() == types.Float32:
		e.t.useMath(name, 32)
	default:
		e.t.useMath(name, 64)
	}
	return fmt.Sprintf("hg_%s(%s)", name, strings.Join(e.args(x), ", "))
}

func (e *emitter) mathCall(x *ast.CallExpr, name string) string {
	switch name {
	case "Sqrt", "Exp", "Exp2", "Log", "Log2", "Sin", "Cos", "Tanh", "Pow", "Abs", "Floor", "Ceil", "Trunc":
		return e.mathFn(x, strings.ToLower(name))
	case "FMA":
		return e.mathFn(x, "fma")
	case "Float32bits":
		return "hg_f32_bits(" + e.args(x)[0] + ")"
	case "Float32frombits":
		return "hg_f32_from(" + e.args(x)[0] + ")"
	case "Float64bits":
		return "hg_f64_bits(" + e.args(x)[0] + ")"
	case "Float64frombits":
		return "hg_f64_from(" + e.args(x)[0] + ")"
	case "IsNaN":
		a := e.args(x)[0]
		return fmt.Sprintf("(%s != %s)", a, a)
	case "NaN":
		return "hg_f64_from(0x7ff8000000000001ULL)"
	case "Inf":
		return fmt.Sprintf("hg_f64_from(%s >= 0 ? 0x7ff0000000000000ULL : 0xfff0000000000000ULL)", parenthesize(e.args(x)[0]))
	}
	e.errorf(x, "math."+name, "the subset has math's Sqrt, Abs, Exp, Exp2, Log, Log2, Sin, Cos, Tanh, Pow, Floor, Ceil, Trunc, FMA, IsNaN, NaN, Inf and the bit conversions")
	return "0"
}

func (e *emitter) deviceCall(x *ast.CallExpr, callee *types.Func) string {
	fn := e.t.funcs[callee]
	if fn == nil {
		e.errorf(x, "call of "+callee.Name(), "")
		return "0"
	}
	if len(x.Args) == 1 {
		if _, ok := e.info.TypeOf(x.Args[0]).(*types.Tuple); ok {
			e.errorf(x, "several results as arguments", "assign them to variables first")
			return "0"
		}
	}
	targs := []string{"Checked"}
	id := calleeIdent(x.Fun)
	if inst, ok := e.info.Instances[id]; ok {
		for i := 0; i < inst.TypeArgs.Len(); i++ {
			targs = append(targs, e.t.cType(inst.TypeArgs.At(i), x.Pos()))
		}
	}
	// Slice arguments become const views where the callee only reads.
	var params []*types.Var
	for _, f := range fn.decl.Type.Params.List {
		for _, n := range f.Names {
			params = append(params, e.info.Defs[n].(*types.Var))
		}
	}
	var args []string
	if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
		if s := e.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			// The receiver, by value (through a kernel.Shared pointer
			// where Go dereferences one).
			recv := bare(e.expr(sel.X))
			if _, ptr := e.info.TypeOf(sel.X).Underlying().(*types.Pointer); ptr {
				recv = "(*" + recv + ")"
			}
			args = append(args, recv)
		}
	}
	for i, a := range x.Args {
		if isThread(e.info.TypeOf(a)) {
			continue
		}
		ro := i < len(params) && e.t.constSlice(params[i])
		args = append(args, bare(e.valueFor(e.info.TypeOf(a), ro, a)))
	}
	if fn.dyn {
		args = append(args, "hg_dyn_bytes")
	}
	args = append(args, "hg_f")
	return fmt.Sprintf("%s<%s>(%s)", funcCName(callee), strings.Join(targs, ", "), strings.Join(args, ", "))
}

// typeParamCall calls a functor's method through a type parameter: the
// overload on the receiver's type (emit writes one per such method),
// chosen where the template is instantiated, as a C++ functor's
// operator() is.
func (e *emitter) typeParamCall(x *ast.CallExpr, name string) string {
	sel := ast.Unparen(x.Fun).(*ast.SelectorExpr)
	for _, m := range e.t.typeParamCallees(name) {
		if fn := e.t.funcs[m]; fn != nil && fn.dyn {
			e.errorf(x, "call through a type parameter of "+m.FullName()+", which uses kernel.DynamicShared", "pass the memory to the operation as an argument")
			return "0"
		}
	}
	args := []string{bare(e.expr(sel.X))}
	for _, a := range x.Args {
		if isSlice(e.info.TypeOf(a)) || isThread(e.info.TypeOf(a)) {
			e.errorf(a, "a slice or kernel.Thread argument of a method called through a type parameter", "pass the elements the operation works on")
			return "0"
		}
		args = append(args, bare(e.valueFor(e.info.TypeOf(a), false, a)))
	}
	args = append(args, "hg_f")
	return fmt.Sprintf("%s<Checked>(%s)", typeParamCName(name), strings.Join(args, ", "))
}

// typeParamCName is the C++ overload set of the methods named name that
// are called through type parameters.
func typeParamCName(name string) string { return "hg_m_" + cName(name) }

func calleeIdent(fun ast.Expr) *ast.Ident {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return f
	case *ast.IndexExpr:
		return calleeIdent(f.X)
	case *ast.IndexListExpr:
		return calleeIdent(f.X)
	case *ast.SelectorExpr:
		return f.Sel
	}
	return nil
}
