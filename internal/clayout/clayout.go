// Package clayout checks that a Go type passed by value to a kernel has the
// layout C gives the same declaration. The Go kernel SDK (rocr/kernel), the
// cpu driver and gpu/module's argument encoding share the rule.
package clayout

import (
	"fmt"
	"reflect"
)

// Check reports whether a Go type passed by value has the layout C
// gives the same declaration: a fixed-size number (int, uint and uintptr
// included, where they are the size C's long is), bool, complex, or an
// array or struct of these. Go and C lay such fields out alike (each at
// the next multiple of its alignment, the whole padded to the largest);
// where the platform makes them differ (an int64 aligned to 4) the check
// says so. Pointers, strings, slices, interfaces, maps, channels and
// functions have no C counterpart, nor do zero-size fields, which Go pads
// differently.
func Check(t reflect.Type) error {
	_, err := cLayout(t, t.String())
	return err
}

// cLayout is t's C alignment, or why t has no C layout; path names the
// field for messages.
func cLayout(t reflect.Type, path string) (align uintptr, err error) {
	if t.Size() == 0 {
		return 0, fmt.Errorf("%s has type %s of size 0, which C has no layout for", path, t)
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Int, reflect.Uint, reflect.Uintptr,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		align = t.Size()
	case reflect.Complex64, reflect.Complex128:
		align = t.Size() / 2
	case reflect.Array:
		return cLayout(t.Elem(), path+"[]")
	case reflect.Struct:
		var off uintptr
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			fa, err := cLayout(f.Type, path+"."+f.Name)
			if err != nil {
				return 0, err
			}
			off = (off + fa - 1) &^ (fa - 1)
			if f.Offset != off {
				return 0, fmt.Errorf("%s.%s is at offset %d in Go, %d in C", path, f.Name, f.Offset, off)
			}
			off += f.Type.Size()
			align = max(align, fa)
		}
		if size := (off + align - 1) &^ (align - 1); size != t.Size() {
			return 0, fmt.Errorf("%s is %d bytes in Go, %d in C", path, t.Size(), size)
		}
		return align, nil
	default:
		return 0, fmt.Errorf("%s has type %s: pointers, strings, slices, interfaces, maps, channels and functions cannot be passed by value to a kernel", path, t)
	}
	if uintptr(t.Align()) != align {
		return 0, fmt.Errorf("%s has type %s aligned to %d in Go, %d in C", path, t, t.Align(), align)
	}
	return align, nil
}
