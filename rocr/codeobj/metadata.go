package codeobj

import (
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds the nesting of metadata values; real metadata nests 4 deep.
const maxDepth = 16

type metadata struct {
	version [2]int
	target  string
	kernels []Kernel
	printf  []PrintfFormat
}

// metadata decodes the NT_AMDGPU_METADATA MessagePack map.
func (p *parser) metadata(desc []byte) (*metadata, error) {
	// Not charged: an ELF decodes at most one metadata note, and bundle
	// entries share no bytes, so these copies total at most the input.
	r := &mpReader{s: string(desc)}
	// Check the whole value first, so that a malformed note fails the
	// same way wherever its fault lies.
	if err := r.skip(0); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("MessagePack at byte %d: %w", r.pos, err)
	}
	r.pos = 0
	root, _ := r.head()
	if root.kind != mpMap {
		return nil, fmt.Errorf("root is %v, want a map", root)
	}
	md := &metadata{}
	for range root.u {
		key, err := r.scalar()
		if err != nil {
			return nil, err
		}
		switch {
		case key.kind == mpStr && key.s == "amdhsa.version":
			v, err := r.head()
			if err != nil {
				return nil, err
			}
			if v.kind != mpArray {
				if err := r.skipItems(v, 0); err != nil {
					return nil, err
				}
				continue
			}
			for i := range v.u {
				e, err := r.scalar()
				if err != nil {
					return nil, err
				}
				if n, _ := e.uint(); i < 2 {
					md.version[i] = int(n)
				}
			}
		case key.kind == mpStr && key.s == "amdhsa.target":
			v, err := r.scalar()
			if err != nil {
				return nil, err
			}
			md.target = v.s
		case key.kind == mpStr && key.s == "amdhsa.kernels":
			if md.kernels, err = p.kernels(r); err != nil {
				return nil, err
			}
		case key.kind == mpStr && key.s == "amdhsa.printf":
			if md.printf, err = p.printfFormats(r); err != nil {
				return nil, err
			}
		default:
			if err := r.skip(0); err != nil {
				return nil, err
			}
		}
	}
	return md, nil
}

// kernels reads amdhsa.kernels; anything but a list is ignored.
func (p *parser) kernels(r *mpReader) ([]Kernel, error) {
	v, err := r.head()
	if err != nil || v.kind != mpArray {
		if err == nil {
			err = r.skipItems(v, 0)
		}
		return nil, err
	}
	return maps(p, r, int(v.u), "amdhsa.kernels", func(n uint64, k *Kernel) error { return p.kernel(r, n, k) },
		func(k *Kernel) string { return " (" + shorten(k.Name) + ")" })
}

// maps reads the n maps of the list where, each into one element through
// read; label, if not nil, names an element in errors.
func maps[E any](p *parser, r *mpReader, n int, where string, read func(n uint64, e *E) error, label func(e *E) string) ([]E, error) {
	es, err := alloc[E](p, n, where, -1)
	if err != nil {
		return nil, err
	}
	for i := range n {
		v, err := r.head()
		if err != nil {
			return nil, err
		}
		if v.kind != mpMap {
			return nil, fmt.Errorf("%s[%d] is %v, want a map", where, i, v)
		}
		var zero E
		es = append(es, zero)
		if err := read(v.u, &es[i]); err != nil {
			name := ""
			if label != nil {
				name = label(&es[i])
			}
			return nil, fmt.Errorf("%s[%d]%s: %w", where, i, name, err)
		}
	}
	return es, nil
}

func (p *parser) kernel(r *mpReader, n uint64, k *Kernel) error {
	err := r.fields(n, func(key string) (err error) {
		switch key {
		case ".name":
			k.Name, err = r.str(key)
		case ".symbol":
			k.Symbol, err = r.str(key)
		case ".kernarg_segment_size":
			k.KernargSize, err = r.u32(key)
		case ".kernarg_segment_align":
			k.KernargAlign, err = r.u32(key)
		case ".group_segment_fixed_size":
			k.GroupSegmentSize, err = r.u32(key)
		case ".private_segment_fixed_size":
			k.PrivateSegmentSize, err = r.u32(key)
		case ".max_flat_workgroup_size":
			k.MaxFlatWorkgroup, err = r.u32(key)
		case ".reqd_workgroup_size":
			k.ReqdWorkgroupSize, err = r.dim3(key)
		case ".wavefront_size":
			k.WavefrontSize, err = r.u32(key)
		case ".sgpr_count":
			k.SGPRCount, err = r.u32(key)
		case ".vgpr_count":
			k.VGPRCount, err = r.u32(key)
		case ".agpr_count":
			k.AGPRCount, err = r.u32(key)
		case ".uses_dynamic_stack":
			k.UsesDynamicStack, err = r.flag(key)
		case ".args":
			k.Args, err = p.args(r)
		default:
			err = r.skip(0)
		}
		return err
	})
	if err != nil {
		return err
	}
	if k.KernargSize == 0 {
		return nil
	}
	for i := range k.Args {
		a := &k.Args[i]
		if a.Offset > k.KernargSize || a.Size > k.KernargSize-a.Offset {
			return fmt.Errorf(".args[%d] (%s): offset %d + size %d exceed .kernarg_segment_size %d", i, shorten(a.KindName), a.Offset, a.Size, k.KernargSize)
		}
	}
	return nil
}

func (p *parser) args(r *mpReader) ([]Arg, error) {
	v, err := r.head()
	if err != nil {
		return nil, err
	}
	if v.kind != mpArray {
		if err := r.skipItems(v, 0); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf(".args is %v, want a list", v)
	}
	return maps(p, r, int(v.u), ".args", func(n uint64, a *Arg) error { return arg(r, n, a) }, nil)
}

func arg(r *mpReader, n uint64, a *Arg) error {
	err := r.fields(n, func(key string) (err error) {
		switch key {
		case ".name":
			a.Name, err = r.str(key)
		case ".type_name":
			a.TypeName, err = r.str(key)
		case ".offset":
			a.Offset, err = r.u32(key)
		case ".size":
			a.Size, err = r.u32(key)
		case ".value_kind":
			a.KindName, err = r.str(key)
		case ".address_space":
			a.AddressSpace, err = r.str(key)
		case ".access":
			a.Access, err = r.str(key)
		case ".actual_access":
			a.ActualAccess, err = r.str(key)
		case ".pointee_align":
			a.PointeeAlign, err = r.u32(key)
		case ".is_const":
			a.IsConst, err = r.flag(key)
		case ".is_restrict":
			a.IsRestrict, err = r.flag(key)
		case ".is_volatile":
			a.IsVolatile, err = r.flag(key)
		case ".is_pipe":
			a.IsPipe, err = r.flag(key)
		default:
			err = r.skip(0)
		}
		return err
	})
	if err != nil {
		return err
	}
	a.Kind = ParseValueKind(a.KindName)
	a.Align = naturalAlign(a.Size)
	return nil
}

// naturalAlign is the largest power of two dividing size, capped at 8:
// how AMDGPU lays out an argument of that size (an assumption for
// aggregates, whose real alignment the metadata does not give).
func naturalAlign(size uint32) uint32 {
	a := uint32(1)
	for a < 8 && size%(a*2) == 0 && size != 0 {
		a *= 2
	}
	return a
}
