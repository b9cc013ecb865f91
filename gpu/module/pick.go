package module

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
)

type named struct {
	name string
	b    []byte
}

// maxLibraryDepth bounds Libraries nested in Libraries; real ones nest one
// or two deep.
const maxLibraryDepth = 16

// libraryKey identifies a Library by its elements, so that one holding
// itself (directly or through others) is found before it recurses.
type libraryKey struct {
	first *any
	n     int
}

// pick finds the code for dev's target in src.
func pick(dev *gpu.Device, src any) (*hsa.Code, error) {
	p := picker{want: dev.Target()}
	// Unnamed data has no name for its errors, whose cause (a
	// codeobj.FormatError) says "code object" already.
	c, err := p.try(src, "")
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, gpu.Errorf(gpu.ErrNoBinaryForGpu, "module load", "no code for %s (%s); the module has code for [%s]", p.want, dev, strings.Join(p.have, ", "))
	}
	return c, nil
}

// picker is one search of a source for the code of a target; a source
// that holds none is nil code and no error.
type picker struct {
	want string
	have []string     // the targets seen, for the error when none matches
	open []libraryKey // the Libraries being searched, outermost first
}

// try searches src, named name for its errors, by its kind.
func (p *picker) try(src any, name string) (*hsa.Code, error) {
	const op = "module load"
	switch s := src.(type) {
	case nil:
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil code")
	case coder:
		return p.goCode(s.Code())
	case expander:
		x, err := s.Expand()
		if err != nil {
			return nil, &gpu.Error{Code: gpu.ErrInvalidImage, Op: op, Msg: name, Err: err}
		}
		return p.try(x, name)
	case Library:
		return p.library(s, name)
	case named:
		return p.try(s.b, s.name)
	case string:
		return p.try([]byte(s), name)
	case []byte:
		spec, err := codeobj.Parse(s)
		if err != nil {
			return nil, &gpu.Error{Code: gpu.ErrInvalidImage, Op: op, Msg: name, Err: err}
		}
		return p.try(spec, name)
	case *codeobj.Spec:
		return p.spec(s, name)
	}
	return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "cannot load a %T", src)
}

// goCode is a Go kernel set's code c where it is for the target.
func (p *picker) goCode(c *hsa.Code) (*hsa.Code, error) {
	if c == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "module load", "nil code")
	}
	p.have = append(p.have, c.Target)
	if c.Target == p.want {
		return c, nil
	}
	return nil, nil
}

// library tries lib's forms in order; PTX or a cubin found there takes
// what the library's other forms say of its signatures (refinePTX).
func (p *picker) library(lib Library, name string) (*hsa.Code, error) {
	const op = "module load"
	if len(lib) == 0 {
		return nil, nil
	}
	key := libraryKey{&lib[0], len(lib)}
	if slices.Contains(p.open, key) {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "library contains itself")
	}
	if len(p.open) >= maxLibraryDepth {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "libraries nested more than %d deep", maxLibraryDepth)
	}
	p.open = append(p.open, key)
	defer func() { p.open = p.open[:len(p.open)-1] }()
	for _, x := range lib {
		c, err := p.try(x, name)
		if err != nil {
			return nil, err
		}
		if c != nil {
			if c.Kind == hsa.CodePTX || c.Kind == hsa.CodeCubin {
				refinePTX(c, lib)
			}
			return c, nil
		}
	}
	return nil, nil
}

// spec selects the target's code object from a parsed one.
func (p *picker) spec(s *codeobj.Spec, name string) (*hsa.Code, error) {
	const op = "module load"
	if s == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil spec")
	}
	for i, o := range s.Objects {
		if o == nil {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "spec object %d is nil", i)
		}
		p.have = append(p.have, entryLabel(o))
	}
	if !strings.HasPrefix(p.want, "gfx") && !strings.HasPrefix(p.want, "sm_") {
		return nil, nil // the device runs no GPU code object
	}
	obj, err := s.Select(p.want)
	if errors.Is(err, codeobj.ErrNoMatch) {
		return nil, nil
	}
	if err != nil {
		return nil, &gpu.Error{Code: gpu.ErrInvalidImage, Op: op, Msg: name, Err: err}
	}
	if name == "" {
		name = "code object"
	}
	return loadable(obj, name)
}

// loadable is fromCodeObject for code hipgo can run: a code object
// whose kernels print through hostcall is refused, since no host thread
// serves the hostcall buffer (its kernels would fault or hang), and the
// format strings of buffered printf are recorded for the decoder.
func loadable(obj *codeobj.CodeObject, name string) (*hsa.Code, error) {
	if fn, ok := obj.HostcallPrintf(); ok {
		return nil, &gpu.Error{Code: gpu.ErrInvalidImage, Op: "module load", Err: gpu.ErrNotSupported,
			Msg: fmt.Sprintf("%s: its kernels print through hostcall (%s: clang's -mprintf-kind=hostcall, HIP's default), which hipgo does not serve; build with -mprintf-kind=buffered", name, fn)}
	}
	for _, f := range obj.Printf {
		core.AddPrintfFormat(f.Hash, f.Format)
	}
	return fromCodeObject(obj, name), nil
}

// fromCodeObject turns a parsed code object into loadable code with the
// kernels' signatures.
func fromCodeObject(obj *codeobj.CodeObject, name string) *hsa.Code {
	c := &hsa.Code{Name: name, Target: obj.Target, Data: obj.Image}
	switch obj.Format {
	case codeobj.FormatPTX:
		c.Kind = hsa.CodePTX
	case codeobj.FormatCubin:
		c.Kind = hsa.CodeCubin
	default:
		c.Kind = hsa.CodeAMDGPU
	}
	nv := obj.Format == codeobj.FormatPTX || obj.Format == codeobj.FormatCubin
	for i := range obj.Kernels {
		k := &obj.Kernels[i]
		sym := hsa.KernelSymbol{
			Name:                 k.Name,
			KernargSize:          k.KernargSize,
			KernargAlign:         k.KernargAlign,
			GroupSegmentSize:     k.GroupSegmentSize,
			PrivateSegmentSize:   k.PrivateSegmentSize,
			MaxFlatWorkGroupSize: int(k.MaxFlatWorkgroup),
			Wavefront:            int(k.WavefrontSize),
			CodeObjectVersion:    obj.Version,
			Registers:            k.VGPRCount,
			Meta:                 k,
		}
		for _, a := range k.Args {
			ka := hsa.KernelArg{Name: a.Name, TypeName: a.TypeName, Offset: a.Offset, Size: a.Size, Align: a.Align, ValueKind: a.KindName,
				ReadOnly: a.IsConst || a.Access == "read_only" || a.ActualAccess == "read_only"}
			switch {
			case a.Hidden():
				ka.Kind = hsa.ArgHidden
			case a.Kind == codeobj.KindGlobalBuffer:
				ka.Kind = hsa.ArgGlobalBuffer
			case a.Kind == codeobj.KindDynamicSharedPointer:
				ka.Kind = hsa.ArgDynamicSharedPointer
			case a.Kind == codeobj.KindByValue && nv && a.Size == 8 && a.AddressSpace == "":
				// A PTX .u64/.b64 parameter (or an 8-byte cubin one) is a
				// pointer or a 64-bit integer; neither says which.
				ka.Kind = hsa.ArgOther
			case a.Kind == codeobj.KindByValue && nv && a.AddressSpace == "global":
				ka.Kind = hsa.ArgGlobalBuffer
			case a.Kind == codeobj.KindByValue:
				ka.Kind = hsa.ArgByValue
			default:
				ka.Kind = hsa.ArgOther
			}
			sym.Args = append(sym.Args, ka)
		}
		if sym.MaxFlatWorkGroupSize == 0 {
			sym.MaxFlatWorkGroupSize = 1024
		}
		c.Kernels = append(c.Kernels, sym)
	}
	return c
}
