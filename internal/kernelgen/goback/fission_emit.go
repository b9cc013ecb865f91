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

	"golang.org/x/tools/go/ast/astutil"
)

// emit writes the group function, name, and its locals' frame type.
// A generic kernel's are generic: tdecl declares the type parameters,
// "[T Number]", and tuse names them, "[T]" ("" for other kernels).
func (p *fissionPlan) emit(w *bytes.Buffer, name, frame, tdecl, tuse string, ts func(types.Type) string) error {
	p.emitFrame(w, frame, tdecl, ts)
	t := p.emitHead(w, name, frame, tdecl, tuse, ts)
	for _, s := range p.prelude {
		if err := p.printStmt(w, s); err != nil {
			return err
		}
	}
	if err := p.emitUnits(w, p.units, t, ts, nil); err != nil {
		return err
	}
	fmt.Fprintf(w, "}\n\n")
	return nil
}

// emitFrame writes the frame type: one slice per work-item variable.
func (p *fissionPlan) emitFrame(w *bytes.Buffer, frame, tdecl string, ts func(types.Type) string) {
	fmt.Fprintf(w, "// %s holds the per-work-item variables of %s's fissioned group.\ntype %s%s struct {\n", frame, p.k.GoName, frame, tdecl)
	for _, v := range p.order {
		if p.class[v] == varItem {
			fmt.Fprintf(w, "\t%s []%s\n", p.names[v], ts(v.Type()))
		}
	}
	if p.hasReturn() {
		fmt.Fprintf(w, "\thgDone []bool\n")
	}
	for _, wc := range p.warps {
		fmt.Fprintf(w, "\t%s kernelimpl.Warp[%s]\n", wc.name, ts(wc.typ))
	}
	for _, g := range p.guardNames {
		fmt.Fprintf(w, "\t%s []bool\n", g)
	}
	fmt.Fprintf(w, "}\n\n")
}

// emitHead writes the function's signature and its group-wide locals,
// and returns the name of its kernel.Thread.
func (p *fissionPlan) emitHead(w *bytes.Buffer, name, frame, tdecl, tuse string, ts func(types.Type) string) string {
	k := p.k
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
	for _, wc := range p.warps {
		fmt.Fprintf(w, "%s := &hgF.%s\n", wc.name, wc.name)
	}
	for _, g := range p.guardNames {
		fmt.Fprintf(w, "%s := kernelimpl.Locals(&hgF.%s, hgN)\n", g, g)
	}
	t := p.tname
	if t == "" || t == "_" {
		t = "hgT"
	}
	p.threadAt(w, t, "0")
	return t
}

// emitUnits writes the units in order: a device function's fission called
// for the group, a loop with barriers around its own units, a stretch as
// a loop over the group's work-items (t the Thread's name).
func (p *fissionPlan) emitUnits(w *bytes.Buffer, us []unit, t string, ts func(types.Type) string, guards []guardRef) error {
	for _, u := range us {
		switch {
		case u.guard != nil:
			if err := p.emitGuard(w, u, t, ts, guards); err != nil {
				return err
			}
		case u.branch != nil:
			if err := p.emitBranch(w, u, t, ts, guards); err != nil {
				return err
			}
		case u.call != nil:
			var args []string
			for _, a := range u.call.Args {
				if isThreadType(p.info.TypeOf(a)) {
					continue
				}
				args = append(args, p.plain(p.rewrite(a, -1)))
			}
			fmt.Fprintf(w, "%s\n%s%s(hgB%s)\n", p.lineDirective(u.call.Pos()), calleeGroup(u.calleeFn.Name()), p.callTypeArgs(u.call, ts), joinArgs(args))
		case u.loop != nil:
			f := u.loop
			v, scan := p.scanLoop(f)
			loop := func() error {
				p.rewrite(f.Init, -1)
				p.rewrite(f.Cond, -1)
				p.rewrite(f.Post, -1)
				fmt.Fprintf(w, "%s\nfor %s; %s; %s {\n", p.lineDirective(f.Pos()), p.plain(f.Init), p.plain(f.Cond), p.plain(f.Post))
				if err := p.emitUnits(w, u.body, t, ts, guards); err != nil {
					return err
				}
				fmt.Fprintf(w, "}\n")
				return nil
			}
			var err error
			if scan && len(guards) == 0 && !p.returns && p.class[v] == varItem {
				err = p.emitScan(w, f, v, loop)
			} else {
				err = loop()
			}
			if err != nil {
				return err
			}
		default:
			if len(u.warps) > 0 {
				p.emitWarps(w, &u, t, guards)
			}
			if err := p.emitStretch(w, u, t, guards); err != nil {
				return err
			}
		}
	}
	return nil
}

// emitStretch writes a stretch: its statements in a loop over the group's
// work-items, past those that returned.
func (p *fissionPlan) emitStretch(w *bytes.Buffer, u unit, t string, guards []guardRef) error {
	if len(u.stmts) == 0 {
		return nil
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
	if len(guards) > 0 {
		fmt.Fprintf(w, "if !%s[hgI] {\ncontinue\n}\n", guards[len(guards)-1].name)
	}
	var nodes []ast.Node
	for _, s := range u.stmts {
		nodes = append(nodes, s)
	}
	if p.usesThread(t, nodes...) {
		p.threadAt(w, t, "hgI")
	}
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
	return nil
}

func (p *fissionPlan) hasReturn() bool {
	found := false
	ast.Inspect(p.k.Decl.Body, func(n ast.Node) bool {
		r, ok := n.(*ast.ReturnStmt)
		found = found || (ok && !p.groupReturns[r])
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
				item := "hgI"
				if id == -1 {
					item = "0" // a uniform one read once per group
				}
				c.Replace(&ast.IndexExpr{X: nid, Lbrack: x.End(), Index: &ast.Ident{Name: item, NamePos: x.End()}, Rbrack: x.End()})
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

// usesThread reports whether any of ns names the Thread (t) or an
// inlined device function's name for it: a loop over the work-items
// takes each one's Thread only where it does.
func (p *fissionPlan) usesThread(t string, ns ...ast.Node) bool {
	found := false
	for _, n := range ns {
		if n == nil || fmt.Sprint(n) == "<nil>" {
			continue
		}
		ast.Inspect(n, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == t || containsString(p.aliases, id.Name)) {
				found = true
			}
			return !found
		})
	}
	return found
}

// threadAt writes the Thread of work-item i under the kernel's name t
// and the names inlined device functions give theirs.
func (p *fissionPlan) threadAt(w *bytes.Buffer, t, i string) {
	fmt.Fprintf(w, "%s := hgB.Thread(%s)\n_ = %s\n", t, i, t)
	for _, a := range p.aliases {
		if a != t {
			fmt.Fprintf(w, "%s := %s\n_ = %s\n", a, t, a)
		}
	}
}
