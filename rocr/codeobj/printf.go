package codeobj

import (
	"strconv"
	"strings"
)

// PrintfFormat is one format string of a buffered printf call, from the
// code object's amdhsa.printf metadata. clang's -mprintf-kind=buffered
// (HIP) writes each entry as "0:0:HASH,FORMAT": HASH, in hex, is the low
// 64 bits of the format's MD5 digest (its first 8 bytes read little
// endian), and the call's record in the printf buffer carries the same
// 64 bits after its control dword.
type PrintfFormat struct {
	Hash   uint64
	Format string
}

// printfFormats reads amdhsa.printf: a list of strings. Entries of another
// shape (OpenCL's "ID:SIZES:FORMAT", which HIP does not write) are
// skipped; anything but a list is ignored.
func (p *parser) printfFormats(r *mpReader) ([]PrintfFormat, error) {
	v, err := r.head()
	if err != nil || v.kind != mpArray {
		if err == nil {
			err = r.skipItems(v, 0)
		}
		return nil, err
	}
	fs, err := alloc[PrintfFormat](p, int(v.u), "amdhsa.printf", -1)
	if err != nil {
		return nil, err
	}
	for range v.u {
		e, err := r.head()
		if err != nil {
			return nil, err
		}
		if e.kind != mpStr {
			if err := r.skipItems(e, 0); err != nil {
				return nil, err
			}
			continue
		}
		if f, ok := parsePrintfEntry(e.s); ok {
			fs = append(fs, f)
		}
	}
	return fs, nil
}

// parsePrintfEntry reads "0:0:HASH,FORMAT".
func parsePrintfEntry(s string) (PrintfFormat, bool) {
	head, format, ok := strings.Cut(s, ",")
	if !ok {
		return PrintfFormat{}, false
	}
	i := strings.LastIndexByte(head, ':')
	if i < 0 || strings.Count(head, ":") != 2 {
		return PrintfFormat{}, false
	}
	h, err := strconv.ParseUint(head[i+1:], 16, 64)
	if err != nil {
		return PrintfFormat{}, false
	}
	return PrintfFormat{Hash: h, Format: format}, true
}

// UsesPrintfBuffer reports whether the kernel takes the printf buffer
// (hidden_printf_buffer), which buffered printf writes through.
func (k *Kernel) UsesPrintfBuffer() bool {
	for i := range k.Args {
		if k.Args[i].Kind == KindHiddenPrintfBuffer {
			return true
		}
	}
	return false
}

// hostcallPrintf names the device-library functions through which
// -mprintf-kind=hostcall (HIP's default) prints; a code object that
// defines or calls them needs a hostcall listener on the host.
var hostcallPrintf = []string{"__ockl_printf_begin", "__ockl_printf_append_args", "__ockl_printf_append_string_n"}

// HostcallPrintf reports whether the code object prints through hostcall
// (clang's -mprintf-kind=hostcall, HIP's default, with ROCm's device
// libraries linked in), naming the symbol that says so. Kernels list
// hidden_hostcall_buffer at -O0 whether or not they call it, so the
// symbol table decides.
func (o *CodeObject) HostcallPrintf() (string, bool) {
	for i := range o.Symbols {
		for _, n := range hostcallPrintf {
			if o.Symbols[i].Name == n {
				return n, true
			}
		}
	}
	return "", false
}
