package kernelgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// A user's operation passed to the library: array.Map1..Map4,
// prim.ReduceWith, InclusiveScanWith, ExclusiveScanWith, MergeSortWith
// and MergeSortPairsWith take a functor, a package-level struct type
// without fields whose value methods (Apply and Identity, or Less) are Go
// device functions.
// Instances finds the package's calls of them and writes InstFile: one
// generic //hipgo:kernel per library function used, with a
// //hipgo:instantiate line per (functor, types), and an init that
// registers each instance's launcher with the library under its type
// arguments. The kernels are then translated and compiled with the
// package's own; the launchers they reference are in the file hipgo-gen
// writes after, so the translation reads InstFile without its init
// (Instances.Overlay), which is why the init comes last: the kernels'
// lines are the same in both.

// InstFile is the file Instances writes in the package.
const InstFile = "hipgo_inst_gen.go"

// The library's packages.
const (
	arrayPkg = "github.com/hipgo/hipgo/gpu/array"
	primPkg  = "github.com/hipgo/hipgo/gpu/prim"
)

// libOp is a library function that takes a user's operation.
type libOp struct {
	pkg, name string
	kernels   []string // the generated kernels' names
	register  string   // the library's registration function
	opArg     int      // the operation's argument
	tparams   []string // the kernels' type parameters: the call's first type arguments
	inputs    int      // Map's operands; 0 for gpu/prim's functions
}

var libOps = []libOp{
	{arrayPkg, "Map1", []string{"hipgoMap1"}, "RegisterMap1", 0, []string{"F", "R", "X1"}, 1},
	{arrayPkg, "Map2", []string{"hipgoMap2"}, "RegisterMap2", 0, []string{"F", "R", "X1", "X2"}, 2},
	{arrayPkg, "Map3", []string{"hipgoMap3"}, "RegisterMap3", 0, []string{"F", "R", "X1", "X2", "X3"}, 3},
	{arrayPkg, "Map4", []string{"hipgoMap4"}, "RegisterMap4", 0, []string{"F", "R", "X1", "X2", "X3", "X4"}, 4},
	{primPkg, "ReduceWith", []string{"hipgoReduce"}, "RegisterReduceWith", 1, []string{"F", "T"}, 0},
	{primPkg, "InclusiveScanWith", []string{"hipgoScan"}, "RegisterScanWith", 1, []string{"F", "T"}, 0},
	{primPkg, "ExclusiveScanWith", []string{"hipgoScan"}, "RegisterScanWith", 1, []string{"F", "T"}, 0},
	{primPkg, "MergeSortWith", []string{"hipgoMergeBlock", "hipgoMergePass"}, "RegisterMergeSortWith", 1, []string{"F", "K"}, 0},
	{primPkg, "MergeSortPairsWith", []string{"hipgoMergeBlock", "hipgoMergePass"}, "RegisterMergeSortWith", 1, []string{"F", "K"}, 0},
}

// libUse is one instance: a library function and its type arguments.
type libUse struct {
	op    *libOp
	targs []types.Type
	pos   token.Position
}

// Instances is what Options.Instances found in a package.
type Instances struct {
	// File is InstFile's content, nil when the package calls no library
	// function with an operation of its own.
	File []byte
	// Overlay is File without its init, for the translation
	// (Options.Overlay), nil with File.
	Overlay []byte
}

// Instances reads the package in dir, finds its calls of the library's
// functions that take an operation, checks the operations, and returns
// InstFile's content. generated names the files hipgo-gen writes there
// (read as empty, as Load reads them). A functor declared inside a
// function, a func literal, a functor with fields or of another kind
// than a struct type is an error at the call (an ErrorList).
func (o Options) Instances(dir string, generated ...string) (*Instances, error) {
	overlay := map[string][]byte{}
	for _, g := range append([]string{InstFile}, generated...) {
		abs, err := filepath.Abs(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err == nil {
			overlay[abs] = []byte("package " + packageName(abs) + "\n")
		}
	}
	cfg := &packages.Config{Mode: LoadMode, Dir: dir, Overlay: overlay}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("load %s: %d packages, want one", dir, len(pkgs))
	}
	return o.instances(pkgs[0])
}

func (o Options) instances(pkg *packages.Package) (*Instances, error) {
	var errs ErrorList
	fail := func(pos token.Pos, construct, detail string, args ...any) {
		errs = append(errs, &Error{Pos: pkg.Fset.Position(pos), Construct: construct, Detail: fmt.Sprintf(detail, args...)})
	}
	var uses []libUse
	seen := map[string]bool{}
	for _, f := range pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			op, id := libCall(pkg.TypesInfo, call)
			if op == nil || len(call.Args) == 0 {
				return true
			}
			if op.opArg >= len(call.Args) {
				return true // a type error the compiler reports
			}
			arg := call.Args[op.opArg] // Map1(op, a), ReduceWith(s, op, in, out)
			what := op.name + "'s operation"
			if _, ok := ast.Unparen(arg).(*ast.FuncLit); ok {
				fail(arg.Pos(), "func literal as "+what, "declare a functor: a package-level struct type without fields whose value method Apply is the function (type f struct{}; func (f) Apply(...) ...)")
				return true
			}
			inst, ok := pkg.TypesInfo.Instances[id]
			if !ok || inst.TypeArgs.Len() == 0 {
				return true // a type error the compiler reports
			}
			// The kernels' type arguments: MergeSortPairsWith's value
			// type is the library's own gather's.
			targs := make([]types.Type, min(inst.TypeArgs.Len(), len(op.tparams)))
			for i := range targs {
				targs[i] = inst.TypeArgs.At(i)
			}
			f := targs[0]
			if named, ok := types.Unalias(f).(*types.Named); ok && named.Obj().Pkg() != pkg.Types {
				return true // another package's functor: its own go generate instantiates it
			}
			if why := functorRefused(f, pkg.Types, pkg.Fset); why != "" {
				fail(arg.Pos(), fmt.Sprintf("operation %s of %s", types.TypeString(f, types.RelativeTo(pkg.Types)), op.name), "%s", why)
				return true
			}
			for _, t := range targs[1:] {
				if b, ok := types.Unalias(t).(*types.Basic); !ok || b.Info()&types.IsNumeric == 0 {
					return true // the library's constraints refuse it already
				}
			}
			key := op.register + "[" + typeList(targs, pkg.Types) + "]"
			if !seen[key] {
				seen[key] = true
				uses = append(uses, libUse{op, targs, pkg.Fset.Position(call.Pos())})
			}
			return true
		})
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return posLess(errs[i].Pos, errs[j].Pos) })
		return nil, errs
	}
	if len(uses) == 0 {
		return &Instances{}, nil
	}
	file, overlay, err := o.instFile(pkg, uses)
	if err != nil {
		return nil, err
	}
	return &Instances{File: file, Overlay: overlay}, nil
}

func posLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// libCall is the library function call calls, and the identifier its
// instance is recorded under; nil for any other call.
func libCall(info *types.Info, call *ast.CallExpr) (*libOp, *ast.Ident) {
	fun := ast.Unparen(call.Fun)
	switch x := fun.(type) {
	case *ast.IndexExpr:
		fun = x.X
	case *ast.IndexListExpr:
		fun = x.X
	}
	var id *ast.Ident
	switch x := ast.Unparen(fun).(type) {
	case *ast.SelectorExpr:
		id = x.Sel
	case *ast.Ident:
		id = x // a dot import
	default:
		return nil, nil
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil, nil
	}
	for i := range libOps {
		if op := &libOps[i]; fn.Pkg().Path() == op.pkg && fn.Name() == op.name {
			return op, id
		}
	}
	return nil, nil
}

// functorRefused says why f cannot be an operation the generator
// instantiates, "" when it can: a struct type without fields, declared at
// the package's top level, not generic.
func functorRefused(f types.Type, pkg *types.Package, fset *token.FileSet) string {
	named, ok := types.Unalias(f).(*types.Named)
	if !ok {
		return "an operation is a functor: a package-level struct type without fields whose value method Apply is a Go device function (a pointer or an unnamed type is not)"
	}
	if named.Obj().Parent() != pkg.Scope() {
		return fmt.Sprintf("%s is declared inside a function (%s): a kernel's type is a package-level type; move the declaration to the top level", named.Obj().Name(), fset.Position(named.Obj().Pos()))
	}
	if named.TypeArgs().Len() > 0 || named.TypeParams().Len() > 0 {
		return "a generic type is not an operation: declare a functor per element type"
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok {
		return fmt.Sprintf("%s is not a struct type: a functor is a struct type without fields", named.Obj().Name())
	}
	if st.NumFields() > 0 {
		return fmt.Sprintf("%s has fields: a functor is a struct type without fields (the kernel makes its own zero value); pass values as arrays or constants in Apply", named.Obj().Name())
	}
	return ""
}

// typeList is targs as Go writes them in the package.
func typeList(targs []types.Type, pkg *types.Package) string {
	var s []string
	for _, t := range targs {
		s = append(s, types.TypeString(t, types.RelativeTo(pkg)))
	}
	return strings.Join(s, ", ")
}

// The generated kernels. Every name starts with hipgo: they share the
// user's package.
const instPrelude = `// hipgoNumber is an element type of the library's arrays and primitives.
type hipgoNumber interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// hipgoRange is work-item t's part of n elements: [lo, hi) by step, a
// grid-stride loop (span 0, GPUs) or the contiguous span t.GlobalX()*span
// on (the cpu agent).
func hipgoRange(t kernel.Thread, n, span int) (lo, hi, step int) {
	if span > 0 {
		lo = min(t.GlobalX()*span, n)
		return lo, min(lo+span, n), 1
	}
	return t.GlobalX(), n, t.BlockDim().X * t.GridDim().X
}
`

const mapPrelude = `
// hipgoAt is where an input is read for the result's element i: at i
// (d 0), at 0 (m 1: one element), or at (i/d)%m (broadcast).
func hipgoAt(i, d, m int) int {
	if m == 1 {
		return 0
	}
	if d == 0 {
		return i
	}
	return i / d % m
}
`

const reducePrelude = `
// hipgoReduceFunc is prim.ReduceWith's operation.
type hipgoReduceFunc[T any] interface {
	Apply(a, b T) T
	Identity() T
}

// hipgoBlockReduce combines v over the block with F; work-item 0 gets
// the result. The block is one work-item (the cpu agent) or a multiple
// of the warp.
func hipgoBlockReduce[F hipgoReduceFunc[T], T kernel.Shuffleable](t kernel.Thread, v T, warps *[32]T) T {
	var op F
	bd := t.BlockDim().X
	if bd == 1 {
		return v
	}
	ws := t.WarpSize()
	for off := ws / 2; off > 0; off >>= 1 {
		v = op.Apply(v, kernel.ShflDown(t, v, off))
	}
	if bd <= ws {
		return v
	}
	lane, w := t.Lane(), t.ThreadIdx().X/ws
	if lane == 0 {
		warps[w] = v
	}
	t.SyncThreads()
	if w == 0 {
		v = op.Identity()
		if lane < bd/ws {
			v = warps[lane]
		}
		for off := ws / 2; off > 0; off >>= 1 {
			v = op.Apply(v, kernel.ShflDown(t, v, off))
		}
	}
	return v
}

// hipgoReduce is prim.ReduceWith's kernel: out[block] = the block's
// elements of in combined by F from its identity.
//
//hipgo:kernel
%s
func hipgoReduce[F hipgoReduceFunc[T], T kernel.Shuffleable](t kernel.Thread, in, out []T, span int) {
	warps := kernel.Shared[[32]T](t)
	var op F
	acc := op.Identity()
	lo, hi, step := hipgoRange(t, len(in), span)
	for i := lo; i < hi; i += step {
		acc = op.Apply(acc, in[i])
	}
	acc = hipgoBlockReduce[F, T](t, acc, warps)
	if t.ThreadIdx().X == 0 {
		out[t.BlockIdx().X] = acc
	}
}
`

const scanKernel = `
// hipgoScan is prim.InclusiveScanWith's and ExclusiveScanWith's kernel:
// a pass over each block's tpb tiles of tile elements (hipgoScanTiles).
//
//hipgo:kernel
%s
func hipgoScan[F hipgoScanFunc[T], T kernel.Shuffleable](t kernel.Thread, in, out, offs []T, mode int, exclusive bool, tile, tpb int) {
	warps := kernel.Shared[[32]T](t)
	sh := kernel.DynamicShared[T](t)
	hipgoScanTiles[F, T](t, in, out, offs, mode, exclusive, tile, tpb, sh, warps)
}
`

const mergeKernels = `
// hipgoMergeBlock is prim.MergeSortWith's block sort of tiles of tile
// keys (hipgoMergeSortTiles).
//
//hipgo:kernel
%s
func hipgoMergeBlock[F hipgoLessFunc[K], K hipgoKey](t kernel.Thread, in, out []K, outI []uint32, pairs bool, tile int) {
	sk := kernel.DynamicShared[K](t)
	si := kernel.Shared[[2048]uint32](t)
	hipgoMergeSortTiles[F, K](t, in, out, outI, pairs, tile, sk, si)
}

// hipgoMergePass is prim.MergeSortWith's pass merging pairs of sorted
// runs of w keys (hipgoMergeRuns).
//
//hipgo:kernel
%s
func hipgoMergePass[F hipgoLessFunc[K], K hipgoKey](t kernel.Thread, src, dst []K, srcI, dstI []uint32, pairs bool, count, w, tile int) {
	sk := kernel.DynamicShared[K](t)
	si := kernel.Shared[[2048]uint32](t)
	part := kernel.Shared[[2]int](t)
	hipgoMergeRuns[F, K](t, src, dst, srcI, dstI, pairs, count, w, tile, sk, si, part)
}
`

// mapKernel is array.MapN's kernel.
func mapKernel(n int, directives string) string {
	var xs, params, reads, ins []string
	for k := 1; k <= n; k++ {
		xs = append(xs, fmt.Sprintf("X%d", k))
		params = append(params, fmt.Sprintf("x%[1]d []X%[1]d, d%[1]d, m%[1]d int", k))
		reads = append(reads, fmt.Sprintf("x%[1]d[hipgoAt(i, d%[1]d, m%[1]d)]", k))
		ins = append(ins, fmt.Sprintf("X%d", k))
	}
	return fmt.Sprintf(`
// hipgoFunc%[1]d is array.Map%[1]d's operation.
type hipgoFunc%[1]d[R, %[2]s any] interface{ Apply(%[3]s) R }

// hipgoMap%[1]d is array.Map%[1]d's kernel: out[i] = F's Apply of the
// inputs' elements at i.
//
//hipgo:kernel
%[4]s
func hipgoMap%[1]d[F hipgoFunc%[1]d[R, %[2]s], R, %[2]s hipgoNumber](t kernel.Thread, out []R, %[5]s, span int) {
	var op F
	lo, hi, step := hipgoRange(t, len(out), span)
	for i := lo; i < hi; i += step {
		out[i] = op.Apply(%[6]s)
	}
}
`, n, strings.Join(xs, ", "), strings.Join(ins, ", "), directives, strings.Join(params, ", "), strings.Join(reads, ", "))
}

// instFile writes InstFile for uses, and the same without its init.
func (o Options) instFile(pkg *packages.Package, uses []libUse) (file, overlay []byte, err error) {
	byKernel := map[string][]libUse{}
	hasMap, hasPrim, hasWith := false, false, false
	for _, u := range uses {
		for _, k := range u.op.kernels {
			byKernel[k] = append(byKernel[k], u)
		}
		switch {
		case u.op.pkg == arrayPkg:
			hasMap = true
		case u.op.kernels[0] != "hipgoReduce":
			hasPrim, hasWith = true, true
		default:
			hasPrim = true
		}
	}
	qual := types.RelativeTo(pkg.Types)
	directives := func(name string) string {
		var lines []string
		for _, u := range byKernel[name] {
			var fields []string
			for i, tp := range u.op.tparams {
				fields = append(fields, tp+"="+types.TypeString(u.targs[i], qual))
			}
			lines = append(lines, instantiateDirective+" "+strings.Join(fields, " "))
		}
		return strings.Join(lines, "\n")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by hipgo-gen -go. DO NOT EDIT.\n\npackage %s\n\n", pkg.Name)
	var imports []string
	if hasMap {
		imports = append(imports, arrayPkg)
	}
	if hasPrim {
		imports = append(imports, primPkg)
	}
	// The kernels: one generic kernel per library function used.
	b.WriteString("import \"" + KernelPkg + "\"\n\n")
	b.WriteString("// The kernels of the library calls of this package that take an\n// operation of its own (array.Map1..Map4, prim.ReduceWith, the scans and\n// merge sorts With), and their registration.\n\n")
	b.WriteString(instPrelude)
	if hasMap {
		b.WriteString(mapPrelude)
	}
	for n := 1; n <= 4; n++ {
		if name := fmt.Sprintf("hipgoMap%d", n); byKernel[name] != nil {
			b.WriteString(mapKernel(n, directives(name)))
		}
	}
	if byKernel["hipgoReduce"] != nil {
		fmt.Fprintf(&b, reducePrelude, directives("hipgoReduce"))
	}
	if hasWith {
		b.WriteString("\n// gpu/prim's device functions of the scans and merge sorts with an\n// operation (gpu/prim/with_device.go).\n\n")
		b.WriteString(primWithSrc)
	}
	if byKernel["hipgoScan"] != nil {
		fmt.Fprintf(&b, scanKernel, directives("hipgoScan"))
	}
	if byKernel["hipgoMergeBlock"] != nil {
		fmt.Fprintf(&b, mergeKernels, directives("hipgoMergeBlock"), directives("hipgoMergePass"))
	}
	// The registration, last: the launchers are hipgo-gen's, written
	// after the translation.
	b.WriteString("\nfunc init() {\n")
	for _, u := range uses {
		alias := "array"
		if u.op.pkg == primPkg {
			alias = "prim"
		}
		var launchers []string
		for _, k := range u.op.kernels {
			_, ident := instanceNames(k, u.targs)
			launchers = append(launchers, lowerFirst(o.prefix())+ident)
		}
		fmt.Fprintf(&b, "\t%s.%s[%s](%s) // %s:%d\n", alias, u.op.register, typeList(u.targs, pkg.Types), strings.Join(launchers, ", "), filepath.Base(u.pos.Filename), u.pos.Line)
	}
	b.WriteString("}\n")
	// The imports of the full file.
	var imp strings.Builder
	imp.WriteString("import (\n")
	for _, p := range imports {
		imp.WriteString("\t\"" + p + "\"\n")
	}
	imp.WriteString("\t\"" + KernelPkg + "\"\n)\n")
	full := bytes.Replace(b.Bytes(), []byte("import \""+KernelPkg+"\"\n"), []byte(imp.String()), 1)
	if file, err = format.Source(full); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", InstFile, err)
	}
	// The overlay: the same lines, the library imported for nothing and
	// the init empty.
	lines := strings.SplitAfter(string(file), "\n")
	inInit := false
	for i, l := range lines {
		switch {
		case l == "func init() {\n":
			inInit = true
		case inInit && l == "}\n":
			inInit = false
		case inInit:
			lines[i] = "\n"
		case l == "\t\""+arrayPkg+"\"\n" || l == "\t\""+primPkg+"\"\n":
			lines[i] = "\t_ " + l[1:]
		}
	}
	return file, []byte(strings.Join(lines, "")), nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// WriteInstances writes (or removes) InstFile in dir as Instances found
// it, leaving an unchanged file alone, and returns the options that
// translate the package with the kernels in it.
func (o Options) WriteInstances(dir string, generated ...string) (Options, error) {
	in, err := o.Instances(dir, generated...)
	if err != nil {
		return o, err
	}
	path := filepath.Join(dir, InstFile)
	if in.File == nil {
		old, err := os.ReadFile(path)
		if err == nil && bytes.HasPrefix(old, []byte("// Code generated by hipgo-gen")) {
			return o, os.Remove(path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return o, err
		}
		return o, nil
	}
	if old, err := os.ReadFile(path); err != nil || !bytes.Equal(old, in.File) {
		if err := os.WriteFile(path, in.File, 0o666); err != nil {
			return o, err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return o, err
	}
	o.Overlay = map[string][]byte{abs: in.Overlay}
	return o, nil
}
