package rtc

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/vendorlib"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// compiler is one runtime compiler library. NVRTC and hipRTC have the
// same C interface under different prefixes (nvrtcCompileProgram,
// hiprtcCompileProgram), so one binding serves both.
type compiler struct {
	name   string             // "nvrtc" or "hiprtc"
	lib    *vendorlib.Library // its library and override variable
	serial bool               // compiles one program at a time (hipRTC's comgr)

	once sync.Once
	err  error
	fn   struct {
		create, compile, destroy, logSize, log, addName, lowered, version, errString uintptr
		codeSize, code, ptxSize, ptx                                                 uintptr // code: cubin on NVRTC; ptx: NVRTC only
	}
	version string // "nvrtc 13.0"
	path    string // the library opened

	idOnce sync.Once
	id     string // the library file's identity, for cache keys

	mu sync.Mutex // held around compiles when serial
}

var (
	nvrtc  = &compiler{name: "nvrtc", lib: vendorlib.NVRTC}
	hiprtc = &compiler{name: "hiprtc", lib: vendorlib.HIPRTC, serial: true}
)

// compilations counts programs handed to a compiler, for tests of the cache.
var compilations atomic.Int64

// open loads the library once; the handle is never closed (the compilers
// keep process-wide state).
func (c *compiler) open() error {
	c.once.Do(func() {
		h, err := dlopen(c.lib)
		if err != nil {
			c.err = err
			return
		}
		path := h.Path
		c.path = path
		var missing []string
		sym := func(p *uintptr, name string, required bool) {
			if *p = h.Sym(c.name + name); *p == 0 && required {
				missing = append(missing, c.name+name)
			}
		}
		sym(&c.fn.create, "CreateProgram", true)
		sym(&c.fn.compile, "CompileProgram", true)
		sym(&c.fn.destroy, "DestroyProgram", true)
		sym(&c.fn.logSize, "GetProgramLogSize", true)
		sym(&c.fn.log, "GetProgramLog", true)
		sym(&c.fn.addName, "AddNameExpression", true)
		sym(&c.fn.lowered, "GetLoweredName", true)
		sym(&c.fn.version, "Version", true)
		sym(&c.fn.errString, "GetErrorString", false)
		if c == nvrtc {
			sym(&c.fn.ptxSize, "GetPTXSize", true)
			sym(&c.fn.ptx, "GetPTX", true)
			sym(&c.fn.codeSize, "GetCUBINSize", false) // CUDA 11.1 and later
			sym(&c.fn.code, "GetCUBIN", false)
		} else {
			sym(&c.fn.codeSize, "GetCodeSize", true)
			sym(&c.fn.code, "GetCode", true)
		}
		if len(missing) > 0 {
			c.err = errNoCompilerf("%s lacks %s", path, strings.Join(missing, ", "))
			return
		}
		var major, minor int32
		if r := c.call(c.fn.version, uintptr(unsafe.Pointer(&major)), uintptr(unsafe.Pointer(&minor))); r != 0 {
			c.err = errNoCompilerf("%s: %s", path, c.result("Version", r))
			return
		}
		c.version = fmt.Sprintf("%s %d.%d", c.name, major, minor)
	})
	return c.err
}

// identity names the compiler for cache keys. It is found without loading
// the library where the library is a file on disk, so that a cached
// program costs no dlopen; else it is the loaded library's version.
func (c *compiler) identity() (string, error) {
	c.idOnce.Do(func() {
		for _, p := range c.lib.Candidates(vendorlib.OS) {
			if id := fileID(p); id != "" {
				c.id = c.name + " " + id
				return
			}
		}
	})
	if c.id != "" {
		return c.id, nil
	}
	if err := c.open(); err != nil {
		return "", err
	}
	return c.version + " " + c.path, nil
}

// call invokes an entry point. Its arguments may be Go pointers converted
// to uintptr at the call site: uintptrescapes keeps their memory on the
// heap and alive through the call, as it does for purego.SyscallN.
//
//go:uintptrescapes
func (c *compiler) call(f uintptr, args ...uintptr) int32 {
	r, _, _ := purego.SyscallN(f, args...)
	return int32(r)
}

// result names a failed call with the library's own words for the code.
func (c *compiler) result(fn string, r int32) string {
	msg := fmt.Sprintf("%s%s: error %d", c.name, fn, r)
	if c.fn.errString != 0 {
		p, _, _ := purego.SyscallN(c.fn.errString, uintptr(r))
		if s := goString(p); s != "" {
			msg += " (" + s + ")"
		}
	}
	return msg
}

// output is what one compile gave.
type output struct {
	image   []byte
	lowered map[string]string
	log     string
}

// run compiles one program. A compile error is a *CompileError with the
// compiler's log.
func (c *compiler) run(req *request) (*output, error) {
	if err := c.open(); err != nil {
		return nil, err
	}
	if c.serial {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	compilations.Add(1)

	// Every C string and array the compiler sees is pinned Go memory.
	var pin runtime.Pinner
	defer pin.Unpin()
	cstr := func(s string) uintptr {
		b := append([]byte(s), 0)
		pin.Pin(&b[0])
		return uintptr(unsafe.Pointer(&b[0]))
	}
	carray := func(ss []string) uintptr {
		if len(ss) == 0 {
			return 0
		}
		a := make([]uintptr, len(ss))
		for i, s := range ss {
			a[i] = cstr(s)
		}
		pin.Pin(&a[0])
		return uintptr(unsafe.Pointer(&a[0]))
	}

	var prog uintptr
	pin.Pin(&prog)
	names, bodies := req.headerLists()
	if r := c.call(c.fn.create, uintptr(unsafe.Pointer(&prog)), cstr(req.source), cstr(req.name),
		uintptr(len(names)), carray(bodies), carray(names)); r != 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "compile", "%s", c.result("CreateProgram", r))
	}
	defer c.call(c.fn.destroy, uintptr(unsafe.Pointer(&prog)))
	for _, e := range req.names {
		if r := c.call(c.fn.addName, prog, cstr(e)); r != 0 {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, "compile", "name expression %q: %s", e, c.result("AddNameExpression", r))
		}
	}
	if r := c.call(c.fn.compile, prog, uintptr(len(req.flags)), carray(req.flags)); r != 0 {
		return nil, &CompileError{Program: req.name, Target: req.target, Compiler: c.version, Log: c.programLog(prog), Msg: c.result("CompileProgram", r)}
	}
	out := &output{lowered: map[string]string{}, log: c.programLog(prog)}
	for _, e := range req.names {
		var p uintptr
		pin.Pin(&p)
		if r := c.call(c.fn.lowered, prog, cstr(e), uintptr(unsafe.Pointer(&p))); r != 0 || p == 0 {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, "compile", "name expression %q names nothing the program defines: %s", e, c.result("GetLoweredName", r))
		}
		out.lowered[e] = goString(p)
	}
	var err error
	if c.fn.code != 0 {
		out.image, err = c.bytes(prog, c.fn.codeSize, c.fn.code, "GetCode")
	}
	if err == nil && c.fn.ptx != 0 {
		// A virtual architecture (or an NVRTC without cubin output) gives
		// PTX alone. Beside a cubin, the PTX says what the cubin does not
		// (which kernels use dynamic shared memory, parameter types): the
		// two go into one fat binary, as nvcc -fatbin packs them.
		ptx, perr := c.bytes(prog, c.fn.ptxSize, c.fn.ptx, "GetPTX")
		ptx = bytes.TrimRight(ptx, "\x00")
		sm, isSM := smOf(req.target)
		switch {
		case len(out.image) == 0:
			out.image, err = ptx, perr
		case perr == nil && len(ptx) > 0 && isSM:
			out.image = codeobj.NVFatbin(codeobj.FatbinCode{Arch: sm, Code: out.image}, codeobj.FatbinCode{PTX: true, Arch: sm, Code: ptx})
		}
	}
	if err != nil {
		return nil, err
	}
	if len(out.image) == 0 {
		return nil, fmt.Errorf("%s gave no code for %s", c.version, req.target)
	}
	return out, nil
}

// smOf reads "sm_90" as 90; an architecture-specific target ("sm_90a")
// is not one a fat binary entry's number names.
func smOf(target string) (uint32, bool) {
	v, err := strconv.ParseUint(strings.TrimPrefix(target, "sm_"), 10, 32)
	return uint32(v), strings.HasPrefix(target, "sm_") && err == nil && v > 0
}

// bytes reads one of the program's outputs.
func (c *compiler) bytes(prog, sizeFn, getFn uintptr, what string) ([]byte, error) {
	var n uintptr
	if r := c.call(sizeFn, prog, uintptr(unsafe.Pointer(&n))); r != 0 {
		return nil, fmt.Errorf("%s", c.result(what+"Size", r))
	}
	if n == 0 {
		return nil, nil
	}
	b := make([]byte, n)
	if r := c.call(getFn, prog, uintptr(unsafe.Pointer(&b[0]))); r != 0 {
		return nil, fmt.Errorf("%s", c.result(what, r))
	}
	return b, nil
}

// programLog is the compiler's log, warnings and errors, as it wrote it.
func (c *compiler) programLog(prog uintptr) string {
	b, err := c.bytes(prog, c.fn.logSize, c.fn.log, "GetProgramLog")
	if err != nil {
		return err.Error()
	}
	return strings.TrimRight(string(b), "\x00\n ")
}

// goString copies a NUL-terminated C string owned by the library.
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	var n int
	for *(*byte)(hostmem.At(p + uintptr(n))) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(hostmem.At(p)), n))
}
