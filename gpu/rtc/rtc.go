package rtc

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/module"
)

// Options tune a compile. The zero value compiles with the compiler's
// defaults and caches in the default directory.
type Options struct {
	// Name is the source's file name in the compiler's messages.
	Name string
	// Flags go to the compiler as they are: "-O3", "-DN=256",
	// "--use_fast_math", "-std=c++17". The target comes from the device
	// (CompileFor takes another); an architecture flag is refused.
	Flags []string
	// NameExpressions are the template instances (or other names) to
	// compile and look up by expression: "scale<float>", "&reduce<int, 256>".
	NameExpressions []string
	// Headers are the sources #include "name" finds, by name.
	Headers map[string]string
	// Cache is the cache directory: "" is $HIPGO_RTC_CACHE, else
	// os.UserCacheDir()/hipgo/rtc; "off" (in either) caches nothing.
	Cache string
}

// Program is source compiled for one target.
type Program struct {
	Target   string // the target compiled for: "sm_90", "gfx90a:sramecc+:xnack-"
	Compiler string // the compiler and its version: "nvrtc 13.0"
	// Image is what module.Load takes: from NVRTC, an NVIDIA fat binary
	// of the cubin and its PTX (PTX alone where the NVRTC gives no
	// cubin); from hipRTC, an AMDGPU code object.
	Image []byte
	// Lowered maps each name expression to the kernel's symbol name.
	Lowered map[string]string
	// Log is the compiler's warnings; empty when it had none.
	Log string
	// Cached says the program was read from the cache, not compiled.
	Cached bool
}

// Symbol is the kernel name an expression (or a plain name) stands for.
func (p *Program) Symbol(name string) string {
	if p == nil {
		return name
	}
	if s, ok := p.Lowered[name]; ok {
		return s
	}
	return name
}

// Module is a compiled program loaded on a device. Its Function takes
// kernel names and the program's name expressions.
type Module struct {
	*module.Module
	Program *Program
}

// Function looks a kernel up by name or by one of the program's name
// expressions ("scale<float>").
func (m *Module) Function(name string) (*module.Function, error) {
	if m == nil || m.Module == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, "module get function", "nil module")
	}
	return m.Module.Function(m.Program.Symbol(name))
}

// MustFunction is Function that panics; for examples and tests.
func (m *Module) MustFunction(name string) *module.Function {
	f, err := m.Function(name)
	if err != nil {
		panic(err)
	}
	return f
}

// CompileError is a program the compiler refused; Log says why.
type CompileError struct {
	Program, Target, Compiler string
	Msg                       string // the failed call
	Log                       string
}

func (e *CompileError) Error() string {
	s := fmt.Sprintf("%s for %s (%s): %s", e.Program, e.Target, e.Compiler, e.Msg)
	// The log on lines of its own; no blank line before what wraps it.
	if log := strings.TrimRight(e.Log, " \t\r\n\x00"); log != "" {
		s += "\n" + log
	}
	return s
}

// Compile compiles CUDA or HIP source for dev's target (NVRTC on NVIDIA
// GPUs, hipRTC on AMD ones) and loads it. A program compiled before, for
// the same target by the same compiler with the same options, is read
// from the cache instead. The cpu agent has no compiler: its kernels are
// Go kernels (rocr/kernel, docs/go-kernels.md).
func Compile(dev *gpu.Device, source string, opts Options) (*Module, error) {
	return CompileContext(context.Background(), dev, source, opts)
}

// CompileContext is Compile that gives up when ctx is done, with an error
// that wraps both gpu.ErrNotReady and ctx's error. A compiler cannot be
// stopped midway: the compile goes on, and its cache entry still helps
// the next call.
func CompileContext(ctx context.Context, dev *gpu.Device, source string, opts Options) (*Module, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("compile", err)
	}
	target := dev.Target()
	if compilerFor(target) == nil {
		return nil, errNoCompilerf("%s (target %q) runs no CUDA or HIP source; write the kernel in Go with the kernel SDK (rocr/kernel: a //hipgo:kernel function that go generate turns into launchers for every agent; docs/go-kernels.md)", dev, target)
	}
	p, err := CompileForContext(ctx, target, source, opts)
	if err != nil {
		return nil, err
	}
	m, err := module.Load(dev, p.Image)
	if err != nil {
		return nil, err
	}
	return &Module{Module: m, Program: p}, nil
}

// CompileFor compiles for a target without a device: "sm_90" (NVRTC) or
// an AMDGPU target such as "gfx90a" or "gfx90a:xnack-" (hipRTC).
func CompileFor(target, source string, opts Options) (*Program, error) {
	return compileFor(target, source, opts)
}

// CompileForContext is CompileFor that gives up when ctx is done, as
// CompileContext does.
func CompileForContext(ctx context.Context, target, source string, opts Options) (*Program, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return nil, &gpu.Error{Code: gpu.ErrNotReady, Op: "compile", Msg: "not started", Err: err}
	}
	if ctx.Done() == nil {
		return compileFor(target, source, opts)
	}
	type result struct {
		p   *Program
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := compileFor(target, source, opts)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.p, r.err
	case <-ctx.Done():
		return nil, &gpu.Error{Code: gpu.ErrNotReady, Op: "compile", Msg: "given up; the compile goes on", Err: ctx.Err()}
	}
}

func compileFor(target, source string, opts Options) (*Program, error) {
	const op = "compile"
	c := compilerFor(target)
	if c == nil {
		return nil, errNoCompilerf("no runtime compiler for target %q (want sm_NN or gfxNNN); Go kernels (rocr/kernel) run on the cpu agent", target)
	}
	for _, f := range opts.Flags {
		if isArchFlag(f) {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "flag %q: the target comes from the device (or CompileFor's target)", f)
		}
	}
	for _, e := range opts.NameExpressions {
		if strings.TrimSpace(e) == "" {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "empty name expression")
		}
	}
	if strings.TrimSpace(source) == "" {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "empty source")
	}
	if err := checkNUL(source, opts); err != nil {
		return nil, err
	}
	req := &request{target: target, source: source, name: opts.Name, names: opts.NameExpressions, headers: opts.Headers}
	if req.name == "" {
		req.name = "source.cu"
		if c == hiprtc {
			req.name = "source.hip"
		}
	}
	req.flags = append(slices.Clone(opts.Flags), c.archFlag(target))

	id, err := c.identity()
	if err != nil {
		return nil, err
	}
	return cached(cacheDir(opts.Cache), req.key(id), func() (*Program, error) {
		out, err := c.run(req)
		if err != nil {
			if _, ok := err.(*CompileError); ok {
				return nil, &gpu.Error{Code: gpu.ErrInvalidValue, Op: op, Err: err}
			}
			return nil, errs.Wrap(op, err)
		}
		return &Program{Target: target, Compiler: c.version, Image: out.image, Lowered: out.lowered, Log: out.log}, nil
	})
}

// checkNUL refuses text holding a NUL: the compiler, reading C strings,
// would stop there and compile something else than asked.
func checkNUL(source string, opts Options) error {
	texts := map[string][]string{"source": {source}, "name": {opts.Name}, "flag": opts.Flags, "name expression": opts.NameExpressions}
	for n, h := range opts.Headers {
		texts["header"] = append(texts["header"], n, h)
	}
	for what, ss := range texts {
		for _, s := range ss {
			if i := strings.IndexByte(s, 0); i >= 0 {
				return gpu.Errorf(gpu.ErrInvalidValue, "compile", "%s holds a NUL byte at %d", what, i)
			}
		}
	}
	return nil
}

// compilerFor picks the compiler of a target, nil where there is none.
func compilerFor(target string) *compiler {
	switch {
	case strings.HasPrefix(target, "sm_"):
		return nvrtc
	case strings.HasPrefix(target, "gfx"):
		return hiprtc
	}
	return nil
}

func (c *compiler) archFlag(target string) string {
	if c == nvrtc {
		// NVRTC knows only the long spelling and -arch: "--gpu-arch" is
		// NVRTC_ERROR_INVALID_OPTION.
		return "--gpu-architecture=" + target
	}
	return "--offload-arch=" + target
}

func isArchFlag(f string) bool {
	for _, p := range []string{"-arch", "--gpu-architecture", "--gpu-arch", "--offload-arch", "-offload-arch", "--amdgpu-target", "--cuda-gpu-arch"} {
		if f == p || strings.HasPrefix(f, p+"=") {
			return true
		}
	}
	return false
}

// request is one program as the compiler gets it.
type request struct {
	target, source, name string
	flags, names         []string
	headers              map[string]string
}

// headerLists gives the headers' names and texts in a fixed order.
func (r *request) headerLists() (names, bodies []string) {
	names = slices.Sorted(maps.Keys(r.headers))
	for _, n := range names {
		bodies = append(bodies, r.headers[n])
	}
	return names, bodies
}
