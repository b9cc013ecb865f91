package kernelgen

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// KernelPkg is the import path of the kernel SDK.
const KernelPkg = "github.com/hipgo/hipgo/rocr/kernel"

// Error is a construct outside the kernel subset, or a kernel the
// generator cannot translate, at a place in the Go source.
type Error struct {
	Pos       token.Position
	Construct string // what is not allowed, e.g. "closure (func literal)"
	Detail    string // why, or what to do instead; may be empty
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %s is outside the kernel subset", e.Pos, e.Construct)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// ErrorList is every Error of one translation, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap gives the errors one by one, for errors.As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// LoadMode is what Translate needs of a package.
const LoadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo

// Load reads the Go package in dir and translates its kernels. The files
// named by generated (the Go that hipgo-gen writes, which may be stale or
// absent) are read as empty, and type errors outside the files that hold
// kernels are tolerated: the rest of the package may call launchers that
// do not exist yet.
func Load(dir string, generated ...string) (*Result, error) {
	return Options{}.Load(dir, generated...)
}

// Load is Load with these options.
func (o Options) Load(dir string, generated ...string) (*Result, error) {
	overlay := map[string][]byte{}
	for _, g := range generated {
		abs, err := filepath.Abs(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err == nil {
			overlay[abs] = []byte("package " + packageName(abs) + "\n")
		}
	}
	for path, src := range o.Overlay {
		overlay[path] = src
	}
	cfg := &packages.Config{Mode: LoadMode, Dir: dir, Overlay: overlay}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("load %s: %d packages, want one", dir, len(pkgs))
	}
	pkg := pkgs[0]
	kernelFiles := map[string]bool{}
	for _, f := range pkg.Syntax {
		if hasKernel(f) {
			kernelFiles[pkg.Fset.File(f.Pos()).Name()] = true
		}
	}
	var errs []error
	hinted := false
	for _, e := range pkg.Errors {
		if e.Kind == packages.TypeError && !kernelFiles[errorFile(e.Pos)] {
			continue
		}
		if e.Kind == packages.TypeError && strings.HasPrefix(e.Msg, "undefined: ") && !hinted {
			// Most often a launcher hipgo-gen has not written yet (or that
			// the overlay of the generated file hides).
			hinted = true
			errs = append(errs, fmt.Errorf("%s: %s (a file that holds a //hipgo:kernel must type-check without the code hipgo-gen writes: call the generated launchers from another file of the package)", e.Pos, e.Msg))
			continue
		}
		// go list's own compile of the package reports the same type
		// errors again, as one "# pkg" message: the type checker's are
		// the ones that count.
		if e.Kind == packages.ListError && (e.Pos == "" || e.Pos == "-") && strings.HasPrefix(e.Msg, "# ") {
			continue
		}
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("load %s: %w", dir, errors.Join(errs...))
	}
	return o.Translate(pkg)
}

// packageName is the package clause of the Go file at path, "main" if it
// cannot be read.
func packageName(path string) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
	if err != nil {
		return "main"
	}
	return f.Name.Name
}

// hasKernel reports whether f declares a //hipgo:kernel function.
func hasKernel(f *ast.File) bool {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			for _, c := range fd.Doc.List {
				if strings.HasPrefix(c.Text, "//hipgo:kernel") {
					return true
				}
			}
		}
	}
	return false
}

// errorFile is the file of a packages.Error position, "file:line:col".
func errorFile(pos string) string {
	for i := 0; i < 2; i++ {
		if j := strings.LastIndexByte(pos, ':'); j >= 0 {
			if _, err := strconv.Atoi(pos[j+1:]); err == nil {
				pos = pos[:j]
			}
		}
	}
	return pos
}

// Translate translates every //hipgo:kernel function of pkg, which must
// have been loaded with at least LoadMode, with these options.
func (o Options) Translate(pkg *packages.Package) (*Result, error) {
	if pkg.Types == nil || pkg.TypesInfo == nil || len(pkg.Syntax) == 0 {
		return nil, fmt.Errorf("translate %s: package loaded without syntax and types", pkg.PkgPath)
	}
	t := newTranslator(pkg)
	t.opts = o
	// Every phase runs, so one translation reports every construct
	// outside the subset.
	t.discoverGlobals()
	t.discoverUnrolls()
	t.discover()
	t.analyze()
	t.checkDivergence()
	t.emit()
	if len(t.errs) > 0 {
		sort.SliceStable(t.errs, func(i, j int) bool {
			a, b := t.errs[i].Pos, t.errs[j].Pos
			if a.Filename != b.Filename {
				return a.Filename < b.Filename
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
		return nil, t.errs
	}
	t.res.Fset, t.res.Info = t.fset, t.info
	t.res.Lockstep = map[*types.Func]bool{}
	t.res.Devices = map[*types.Func]*ast.FuncDecl{}
	for _, fn := range t.order {
		if fn.lockstep && !fn.kernel {
			t.res.Lockstep[fn.obj] = true
		}
		if !fn.kernel {
			t.res.Devices[fn.obj] = fn.decl
		}
	}
	return t.res, nil
}

// function is a kernel or a device function it reaches.
type function struct {
	obj     *types.Func // the origin, for a generic function
	decl    *ast.FuncDecl
	kernel  bool
	file    int // index in Result.Files
	callees []*function
	// direct properties, before closing over callees
	lockstep bool
	dyn      bool
	dynVar   *types.Var // the function's kernel.DynamicShared memory, for the length analysis
	dynLen   bool       // it, or a callee, reads that memory's length
	k        *Kernel    // for a kernel: its entry in Result.Kernels
	// For a generic kernel: its instances, and their entries in
	// Result.Kernels (for any other kernel, ks is k alone).
	insts []instance
	ks    []*Kernel
	// The element types of its kernel.Shared variables, in order.
	shared []types.Type
	// A method called through a type parameter (a functor's): C++ calls
	// it by an overload on its receiver type, hg_m_NAME.
	viaTypeParam bool
}

type translator struct {
	functors []*types.Named // typeParamCallees'
	opts     Options
	pkg      *packages.Package
	info     *types.Info
	fset     *token.FileSet
	sizes    types.Sizes
	res      *Result
	errs     ErrorList
	seen     map[token.Pos]bool // error positions already reported

	fileIdx map[*token.File]int
	funcs   map[*types.Func]*function
	decls   map[*types.Func]*ast.FuncDecl
	order   []*function // reachable functions, callees before callers

	written map[*types.Var]bool
	edges   map[*types.Var][]*types.Var

	lenReads []lenKey
	lenEdges map[lenKey][]lenKey // l → r: reading l's length (capacity) reads r's
	lenUsed  map[*types.Var]bool // the slices whose length or capacity is read

	structs    []*types.Named
	structSeen map[*types.Named]bool
	math       map[string]bool // used math helpers: "exp/32"
	usesDyn    bool
	usesMemory bool                      // fences and ordered, scoped atomics: memoryPrelude
	usesWarp   bool                      // masked warp operations and reductions: warpPrelude
	usesVector bool                      // Load4 ...: vectorPrelude
	usesBigRef bool                      // hg_ref_big: bigRefPrelude
	globals    map[*types.Var]*globalVar // //hipgo:constant and //hipgo:device variables
	unroll     map[token.Pos]bool        // the for statements marked //hipgo:unroll
	globalList []*globalVar              // the same, in declaration order
}

func newTranslator(pkg *packages.Package) *translator {
	t := &translator{
		pkg:        pkg,
		info:       pkg.TypesInfo,
		fset:       pkg.Fset,
		sizes:      types.SizesFor("gc", "amd64"),
		res:        &Result{Package: pkg.Name, BareSlices: true},
		seen:       map[token.Pos]bool{},
		fileIdx:    map[*token.File]int{},
		funcs:      map[*types.Func]*function{},
		decls:      map[*types.Func]*ast.FuncDecl{},
		written:    map[*types.Var]bool{},
		edges:      map[*types.Var][]*types.Var{},
		lenEdges:   map[lenKey][]lenKey{},
		lenUsed:    map[*types.Var]bool{},
		structSeen: map[*types.Named]bool{},
		math:       map[string]bool{},
	}
	for _, f := range pkg.Syntax {
		tf := pkg.Fset.File(f.Pos())
		t.fileIdx[tf] = len(t.res.Files)
		t.res.Files = append(t.res.Files, filepath.Base(tf.Name()))
	}
	return t
}

func (t *translator) errorf(pos token.Pos, construct, format string, args ...any) {
	if t.seen[pos] {
		return
	}
	t.seen[pos] = true
	t.errs = append(t.errs, &Error{Pos: t.fset.Position(pos), Construct: construct, Detail: fmt.Sprintf(format, args...)})
}

// isKernelDecl reports whether d is marked //hipgo:kernel.
func isKernelDecl(d *ast.FuncDecl) bool {
	_, ok := kernelDirective(d)
	return ok
}

// kernelDirective is d's //hipgo:kernel line and its options, as in
// `//hipgo:kernel maxthreads=256`.
func kernelDirective(d *ast.FuncDecl) (*ast.Comment, bool) {
	if d.Doc == nil {
		return nil, false
	}
	for _, c := range d.Doc.List {
		f := strings.Fields(c.Text)
		if len(f) > 0 && f[0] == "//hipgo:kernel" {
			return c, true
		}
	}
	return nil, false
}

// maxThreads reads the directive's maxthreads=N option: the kernel's
// largest block, __launch_bounds__(N) in the C++; 0 when absent.
func (t *translator) maxThreads(d *ast.FuncDecl) int {
	n, _ := t.launchBounds(d)
	return n
}

// minBlocks reads the directive's minblocks=M option, the second
// argument of __launch_bounds__(N, M); 0 when absent.
func (t *translator) minBlocks(d *ast.FuncDecl) int {
	_, m := t.launchBounds(d)
	return m
}

// launchBounds reads the directive's options: maxthreads=N, 1 <= N <=
// 1024, and minblocks=M, 1 <= M <= 32, which needs maxthreads.
func (t *translator) launchBounds(d *ast.FuncDecl) (maxThreads, minBlocks int) {
	c, ok := kernelDirective(d)
	if !ok {
		return 0, 0
	}
	const usage = "the options are maxthreads=N, 1 <= N <= 1024 (the largest block: __launch_bounds__(N)) and minblocks=M, 1 <= M <= 32 (__launch_bounds__(N, M))"
	sawMax := false
	for _, opt := range strings.Fields(c.Text)[1:] {
		name, v, _ := strings.Cut(opt, "=")
		sawMax = sawMax || name == "maxthreads"
		n, err := strconv.Atoi(v)
		switch {
		case name == "maxthreads" && err == nil && n >= 1 && n <= 1024:
			maxThreads = n
		case name == "minblocks" && err == nil && n >= 1 && n <= 32:
			minBlocks = n
		default:
			t.errorf(c.Pos()+token.Pos(strings.Index(c.Text, opt)), "kernel directive option", "%q: %s", opt, usage)
		}
	}
	if minBlocks > 0 && maxThreads == 0 && !sawMax {
		t.errorf(c.Pos(), "kernel directive option minblocks without maxthreads", "%s", usage)
		minBlocks = 0
	}
	return maxThreads, minBlocks
}

// isThread reports whether typ is kernel.Thread.
func isThread(typ types.Type) bool { return isKernelType(typ, "Thread") }

func isKernelType(typ types.Type, name string) bool {
	n, ok := typ.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == KernelPkg && n.Obj().Name() == name
}

// discover finds the kernels and the device functions they reach.
func (t *translator) discover() {
	var kernels []*function
	for _, f := range t.pkg.Syntax {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			obj, _ := t.info.Defs[fd.Name].(*types.Func)
			if obj == nil {
				continue
			}
			t.decls[obj] = fd
			if !isKernelDecl(fd) {
				continue
			}
			sig := obj.Type().(*types.Signature)
			switch {
			case sig.Recv() != nil:
				t.errorf(fd.Name.Pos(), "method kernel", "a kernel is a package-level function")
				continue
			case sig.Params().Len() == 0 || !isThread(sig.Params().At(0).Type()):
				t.errorf(fd.Name.Pos(), "kernel without kernel.Thread", "a kernel's first parameter is a kernel.Thread")
				continue
			case sig.Results().Len() > 0:
				t.errorf(fd.Name.Pos(), "kernel with results", "a kernel returns nothing")
				continue
			}
			fn := &function{obj: obj, decl: fd, kernel: true, file: t.fileIdx[t.fset.File(fd.Pos())]}
			if sig.TypeParams().Len() > 0 {
				fn.insts = t.instances(fn)
				t.addFunctors(fn.insts)
			}
			t.funcs[obj] = fn
			kernels = append(kernels, fn)
		}
	}
	// The call graph, depth first: recursion is an error, and order puts
	// callees before their callers.
	state := map[*function]int{} // 1 visiting, 2 done
	var visit func(fn *function)
	visit = func(fn *function) {
		state[fn] = 1
		ast.Inspect(fn.decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			link := func(callee *types.Func) *function {
				c := t.funcs[callee]
				if c == nil {
					d := t.decls[callee]
					if d == nil {
						return nil
					}
					if d.Recv != nil {
						if what, hint := methodRefused(callee); what != "" {
							t.errorf(call.Pos(), what, "%s", hint)
							return nil
						}
					}
					if isKernelDecl(d) {
						t.errorf(call.Pos(), "call to a kernel", "move the shared code into a device function")
						return nil
					}
					c = &function{obj: callee, decl: d, file: t.fileIdx[t.fset.File(d.Pos())]}
					t.funcs[callee] = c
				} else if c.kernel {
					t.errorf(call.Pos(), "call to a kernel", "move the shared code into a device function")
					return nil
				}
				switch state[c] {
				case 1:
					t.errorf(call.Pos(), "recursion", "call to %s makes a cycle; GPUs have no call stack to grow", callee.Name())
					return nil
				case 0:
					visit(c)
				}
				fn.callees = append(fn.callees, c)
				return c
			}
			if name, ok := t.typeParamMethod(call); ok {
				ms := t.typeParamCallees(name)
				if len(ms) == 0 {
					t.errorf(call.Pos(), "call of "+name+" through a type parameter",
						"no type argument of the package's generic kernels has a method %s: give a generic kernel the operation's type as a type argument (//hipgo:instantiate O=myOp)", name)
				}
				for _, m := range ms {
					if c := link(m); c != nil {
						c.viaTypeParam = true
					}
				}
				return true
			}
			callee := t.deviceCallee(call)
			if callee == nil {
				return true
			}
			link(callee)
			return true
		})
		state[fn] = 2
		t.order = append(t.order, fn)
	}
	for _, k := range kernels {
		if state[k] == 0 {
			visit(k)
		}
	}
}

// methodRefused says why a method cannot be a device function, "" when
// it can: one with a value receiver of a named, non-generic type of this
// package that is no slice (the receiver is its first parameter in C++).
func methodRefused(m *types.Func) (what, hint string) {
	recv := m.Type().(*types.Signature).Recv().Type()
	if _, ok := recv.(*types.Pointer); ok {
		return "method with a pointer receiver", "use a value receiver: kernels have no pointers"
	}
	named, ok := recv.(*types.Named)
	if !ok {
		return "method call", "write a function that takes the value"
	}
	if named.TypeParams().Len() > 0 {
		return "method of a generic type", "write a generic function that takes the value"
	}
	if _, ok := named.Underlying().(*types.Slice); ok {
		return "method of a slice type", "write a function that takes the slice"
	}
	return "", ""
}

// funcCName is fn's C++ name: its own, or Type_Method for a method.
func funcCName(fn *types.Func) string {
	if r := fn.Type().(*types.Signature).Recv(); r != nil {
		if named, ok := r.Type().(*types.Named); ok {
			return cName(named.Obj().Name() + "_" + fn.Name())
		}
	}
	return cName(fn.Name())
}

// deviceCallee is the package-level function of this package that call
// calls, as its origin, or nil.
func (t *translator) deviceCallee(call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := t.info.Selections[f]; sel != nil && sel.Kind() == types.MethodVal {
			if _, ok := sel.Recv().(*types.TypeParam); ok {
				return nil // typeParamMethod's
			}
			if fn, ok := sel.Obj().(*types.Func); ok && fn.Pkg() == t.pkg.Types {
				return fn.Origin()
			}
		}
		return nil
	default:
		return nil
	}
	fn, ok := t.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() != t.pkg.Types {
		return nil
	}
	return fn.Origin()
}

// typeParamMethod is the name of the method call calls through a value
// whose type is a type parameter (var o O; o.Apply(a, b)), a functor's,
// and whether it is one.
func (t *translator) typeParamMethod(call *ast.CallExpr) (string, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	s := t.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return "", false
	}
	if _, ok := s.Recv().(*types.TypeParam); !ok {
		return "", false
	}
	return sel.Sel.Name, true
}

// typeParamCallees are the methods named name of the functor types: the
// named types of this package that the kernels' instances take as type
// arguments, in the order the instances list them. A call through a type
// parameter reaches one of them in each instance.
func (t *translator) typeParamCallees(name string) []*types.Func {
	var out []*types.Func
	seen := map[*types.Func]bool{}
	for _, n := range t.functors {
		obj, _, _ := types.LookupFieldOrMethod(n, false, t.pkg.Types, name)
		m, ok := obj.(*types.Func)
		if !ok || seen[m] || t.decls[m] == nil {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// addFunctors records the named types of this package among the type
// arguments of instances.
func (t *translator) addFunctors(insts []instance) {
	for _, in := range insts {
		for _, a := range in.targs {
			n, ok := a.(*types.Named)
			if !ok || n.Obj().Pkg() != t.pkg.Types || slices.Contains(t.functors, n) {
				continue
			}
			t.functors = append(t.functors, n)
		}
	}
}
