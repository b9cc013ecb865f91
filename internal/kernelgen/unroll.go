package kernelgen

import (
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// A for statement on the line after a //hipgo:unroll comment is unrolled
// in full by the C++ compiler (#pragma unroll): a loop of a constant
// trip count (constant once its function is inlined) whose body indexes
// a local array by the loop's variable keeps the array in registers
// rather than local memory, which clang's own heuristics give up on for
// a large body. Go and the cpu agent run the loop as written.
const unrollDirective = "//hipgo:unroll"

// discoverUnrolls finds the marked loops (t.unroll); a mark that is not
// on the line before a for statement is an error.
func (t *translator) discoverUnrolls() {
	t.unroll = map[token.Pos]bool{}
	for _, f := range t.pkg.Syntax {
		tf := t.fset.File(f.Pos())
		if tf == nil {
			continue
		}
		marks := map[int]*ast.Comment{}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.TrimSpace(c.Text) == unrollDirective {
					marks[tf.Line(c.Pos())] = c
				}
			}
		}
		if len(marks) == 0 {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				l := tf.Line(n.Pos()) - 1
				if _, ok := marks[l]; ok {
					t.unroll[n.Pos()] = true
					delete(marks, l)
				}
			}
			return true
		})
		stray := make([]*ast.Comment, 0, len(marks))
		for _, c := range marks {
			stray = append(stray, c)
		}
		sort.Slice(stray, func(i, j int) bool { return stray[i].Pos() < stray[j].Pos() })
		for _, c := range stray {
			t.errorf(c.Pos(), unrollDirective+" not on the line before a for statement", "put it on the line just above the loop to unroll")
		}
	}
}
