// Command hipgo-gen writes typed Go launchers for HIP kernels, in the spirit
// of cilium/ebpf's bpf2go: one Go function per kernel with one typed
// parameter per kernel argument, so a wrong argument is a compile error
// rather than a launch error.
//
// Usage, from a go:generate line in the package that embeds the kernels:
//
//	//go:generate go run github.com/hipgo/hipgo/cmd/hipgo-gen -src src/kernels.hip -obj gen/kernels.hipfb -obj gen/kernels_sm90.ptx -loader set -o launch_gen.go
//
// It reads the kernels' C declarations (HIPGO_KERNEL or extern "C"
// __global__) from the -src files, following #include "..." relative to the
// including file, and maps each parameter's C type onto a Go type: a pointer
// (const float *) becomes buffer.Array[float32], a value (int, unsigned,
// float, double, long long, size_t, int32_t, ...) the Go scalar of the same
// size and kind. A type it does not know is an error naming the kernel and
// the parameter. AMDGPU metadata carries neither names nor C types, and PTX
// only .u64/.u32/.f32, so the declarations are the source of the Go API; the
// -obj code objects are the check: every code object in them (each gfx target
// of an offload bundle, each PTX module) must hold exactly the declared
// kernels, each with the argument count, offsets and sizes the declaration
// implies, and pointers and values where the object tells them apart.
// Any disagreement fails the generation.
//
// With -loader, the package provides the loader (below). Without it,
// hipgo-gen writes one, loadKernels, which embeds the -obj files
// (//go:embed; they must lie in the package's directory) and, with -cpu,
// the package's kernels for the cpu agent, which runs no C++ (a variable
// holding a kernel.NewSet or any other form module.Load takes).
//
// -header FILE writes hipgo.h, the header that lets clang-19 compile HIP
// and CUDA kernels without a ROCm or CUDA SDK and declares HIPGO_KERNEL,
// to FILE; alone, it writes the header and nothing else, so a build script
// runs it before clang. A module of its own needs no path into hipgo's tree.
//
// The output, gofmt'ed and deterministic, declares
//
//	type Functions struct { VectorAdd *module.Function; ... } // -type
//	func (fs *Functions) lookup(m *module.Module) error
//	func LaunchVectorAdd(s *stream.Stream, grid, block gpu.Dim3, sharedMem int,
//		a buffer.Array[float32], b buffer.Array[float32], c buffer.Array[float32], n int32) error
//
// and a loader: the package's -loader function,
// func(*stream.Stream) (*T, error), where T is Functions or a struct
// embedding it: it returns the kernels loaded on the stream's device. The
// launchers pass their arguments straight to Function.Launch, which does not
// retain them, so a launch allocates nothing of its own.
package main

import (
	"bytes"
	_ "embed" // hipgo.h
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hipgo/hipgo/internal/kernelgen/cpplaunch"
	"github.com/hipgo/hipgo/internal/kernelgen/goback"
)

// hipgoH is the header -header writes.
//
//go:embed hipgo.h
var hipgoH []byte

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "hipgo-gen:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is 0 for success and for -h, which asked for the usage.
func exitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 1
}

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

// run is the command: parse flags, read and check, write the output.
func run(args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("hipgo-gen", flag.ContinueOnError)
	fset.SetOutput(stderr)
	var srcs, objs list
	fset.Var(&srcs, "src", "kernel source file or glob (repeatable); #include \"...\" is followed")
	fset.Var(&objs, "obj", "code object whose argument layout must agree with the sources: AMDGPU ELF, offload bundle or PTX (repeatable)")
	pkg := fset.String("pkg", os.Getenv("GOPACKAGE"), "package name of the output (default $GOPACKAGE, set by go generate)")
	out := fset.String("o", "-", "output file, - for standard output")
	loader := fset.String("loader", "", "the package's func(*stream.Stream) (*T, error) that returns the loaded kernels (default: write loadKernels, which embeds the -obj files)")
	cpuSet := fset.String("cpu", "", "without -loader: the package's variable holding the kernels for the cpu agent (a kernel.NewSet), which runs no C++")
	headerOut := fset.String("header", "", "write hipgo.h, the header for kernels compiled without a ROCm or CUDA SDK, to this file")
	typ := fset.String("type", "Functions", "name of the generated struct of *module.Function")
	prefix := fset.String("prefix", "Launch", "prefix of the launchers' names")
	goDir := fset.String("go", "", "a package of Go kernels (//hipgo:kernel functions, and those of its calls of array.Map1..Map4 and prim's functions With an operation, written to hipgo_inst_gen.go) to translate: its directory")
	gen := fset.String("gen", "gen", "with -go: the folder, relative to the package, for the C++ and the code objects")
	name := fset.String("name", "", "with -go: the library's base name (default the package name)")
	libVar := fset.String("var", "goKernels", "with -go: the generated *gokernel.Library variable")
	clang := fset.String("clang", "", "with -go: the C++ compiler (default clang-19 when on PATH; off: build no code objects)")
	coroutines := fset.Bool("coroutines", os.Getenv("HIPGO_COROUTINES") != "", "with -go: list on standard error each kernel the cpu agent runs as coroutines, with why loop fission does not apply (default from $HIPGO_COROUTINES)")
	fset.Usage = func() {
		fmt.Fprintf(stderr, "usage: hipgo-gen -src kernels.hip [-obj code-object]... [-cpu var | -loader func] [-pkg name] [-o out.go]\n")
		fmt.Fprintf(stderr, "       hipgo-gen -header src/hipgo.h\n")
		fmt.Fprintf(stderr, "       hipgo-gen -go . -o kernels_gen.go\n")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fset.Args())
	}
	if *headerOut != "" {
		if err := writeHeader(*headerOut); err != nil {
			return err
		}
		if len(srcs) == 0 && *goDir == "" {
			return nil
		}
	}
	if *goDir != "" {
		if *out == "-" {
			return errors.New("-go needs -o, the Go file to write in the package")
		}
		n := *name
		if n == "" {
			n = filepath.Base(mustAbs(*goDir))
		}
		cfg := goback.Config{Dir: *goDir, Out: *out, Gen: *gen, Name: n, Prefix: *prefix, Var: *libVar}
		if *coroutines {
			cfg.Report = stderr
		}
		return runGo(goConfig{Config: cfg, Clang: *clang})
	}
	if len(srcs) == 0 || *pkg == "" {
		fset.Usage()
		return errors.New("-src and -pkg (set by go generate) are required")
	}
	cfg := cpplaunch.Config{Pkg: *pkg, Loader: *loader, Type: *typ, Prefix: *prefix}
	if *loader == "" {
		if len(objs) == 0 && *cpuSet == "" {
			return errors.New("the generated loader has nothing to load: name code objects with -obj, the cpu agent's kernels with -cpu, or your own loader with -loader")
		}
		cfg.Loader, cfg.CPU = cpplaunch.DefaultLoader, *cpuSet
		for _, o := range objs {
			if !filepath.IsLocal(o) {
				return fmt.Errorf("-obj %q: the generated loader embeds it, so it must be a path inside the package's directory", o)
			}
			cfg.Embed = append(cfg.Embed, filepath.ToSlash(filepath.Clean(o)))
		}
	} else if *cpuSet != "" {
		return errors.New("-cpu goes with the generated loader; with -loader, your loader loads the cpu agent's kernels")
	}
	cfg.Dir = "."
	if *out != "-" {
		cfg.Dir = filepath.Dir(*out)
	}
	code, err := cpplaunch.Build(cfg, srcs, objs)
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err = stdout.Write(code)
		return err
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, code) {
		return nil // unchanged: leave the file's time alone
	}
	return os.WriteFile(*out, code, 0o666)
}

// writeHeader writes hipgo.h to name, leaving an unchanged file alone.
func writeHeader(name string) error {
	if dir := filepath.Dir(name); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("-header: %w", err)
		}
	}
	if err := goback.WriteIfChanged(name, hipgoH); err != nil {
		return fmt.Errorf("-header: %w", err)
	}
	return nil
}

func mustAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
