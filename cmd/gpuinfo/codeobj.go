package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

var containerNames = map[string]string{
	"elf":        "AMDGPU code object (ELF)",
	"bundle":     "clang offload bundle",
	"ccob":       "compressed clang offload bundle",
	"hip-fatbin": "HIP fat binary",
	"host-elf":   "host ELF carrying a HIP or NVIDIA fat binary",
	"ptx":        "PTX",
	"cubin":      "NVIDIA cubin (ELF)",
	"nv-fatbin":  "NVIDIA fat binary",
}

func runCodeobj(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gpuinfo codeobj", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	verbose := fs.Bool("v", false, "also print every hidden argument, register count and kernel descriptor")
	asJSON := fs.Bool("json", false, "print one JSON object per file instead of tables")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintf(stderr, "gpuinfo codeobj: name at least one file\n%s", usage)
		return 2
	}
	status := 0
	for i, name := range fs.Args() {
		if i > 0 && !*asJSON {
			fmt.Fprintln(stdout)
		}
		b, err := os.ReadFile(name)
		if err == nil {
			var spec *codeobj.Spec
			if spec, err = codeobj.Parse(b); err == nil {
				if *asJSON {
					err = writeJSON(stdout, name, spec)
				} else {
					err = describe(stdout, name, spec, *verbose)
				}
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "gpuinfo codeobj: %s: %v\n", name, err)
			status = 1
		}
	}
	return status
}

// describe prints a spec for people: its targets, one row per kernel and
// target, and each kernel's argument layout once for all the targets that
// share it.
func describe(w io.Writer, name string, spec *codeobj.Spec, verbose bool) error {
	kind := containerNames[spec.Container]
	if kind == "" {
		kind = spec.Container
	}
	fmt.Fprintf(w, "%s: %s, %d code object(s)\n\n", name, kind, len(spec.Objects))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "target\tformat\tsize\tbundle entry\n")
	for _, o := range spec.Objects {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Target, objectFormat(o), bytesText(uint64(len(o.Image))), dash(o.BundleEntry))
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "kernel\ttarget\tkernarg\tgroup\tprivate\twavefront\tsgpr\tvgpr\tagpr\tmax workgroup\n")
	for _, o := range spec.Objects {
		for _, k := range o.Kernels {
			fmt.Fprintf(tw, "%s\t%s\t%d (align %d)\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", k.Name, o.Target, k.KernargSize, k.KernargAlign,
				k.GroupSegmentSize, k.PrivateSegmentSize, num(k.WavefrontSize), num(k.SGPRCount), num(k.VGPRCount), num(k.AGPRCount), num(k.MaxFlatWorkgroup))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	for _, l := range layouts(spec) {
		title := l.kernel
		if d := codeobj.Demangle(l.kernel); d != l.kernel {
			title += "  [" + d + "]"
		}
		fmt.Fprintf(w, "\n%s  (%s)\n", title, strings.Join(l.targets, ", "))
		if err := writeArgs(w, l.args, verbose); err != nil {
			return err
		}
	}
	if verbose {
		fmt.Fprintf(w, "\n%s", codeobj.Describe(spec))
	}
	return nil
}

func objectFormat(o *codeobj.CodeObject) string {
	switch o.Format {
	case codeobj.FormatPTX:
		return fmt.Sprintf("PTX %s, %d-bit", o.PTXVersion, o.AddressSize)
	case codeobj.FormatCubin:
		return fmt.Sprintf("cubin, ELF ABI %d", o.ABIVersion)
	}
	return fmt.Sprintf("ELF, code object v%d", o.Version)
}

// layout is one kernel's argument list, shared by targets.
type layout struct {
	kernel  string
	targets []string
	args    []codeobj.Arg
	key     string
}

// layouts groups each kernel's argument lists across targets: kernels in
// the order they first appear, each with its distinct layouts.
func layouts(spec *codeobj.Spec) []*layout {
	var names []string
	byName := map[string][]*layout{}
	for _, o := range spec.Objects {
		for _, k := range o.Kernels {
			key := argsKey(k.Args)
			ls := byName[k.Name]
			if ls == nil {
				names = append(names, k.Name)
			}
			i := slices.IndexFunc(ls, func(l *layout) bool { return l.key == key })
			if i < 0 {
				ls = append(ls, &layout{kernel: k.Name, args: k.Args, key: key})
				i = len(ls) - 1
				byName[k.Name] = ls
			}
			ls[i].targets = append(ls[i].targets, o.Target)
		}
	}
	var out []*layout
	for _, n := range names {
		out = append(out, byName[n]...)
	}
	return out
}

func argsKey(args []codeobj.Arg) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "%d/%d/%d/%s/%s/%s/%s;", a.Offset, a.Size, a.Align, kindName(a), a.AddressSpace, a.TypeName, a.Name)
	}
	return b.String()
}

func kindName(a codeobj.Arg) string {
	if a.Kind == codeobj.KindUnknown && a.KindName != "" {
		return a.KindName
	}
	return a.Kind.String()
}

// writeArgs prints the explicit arguments as a table and the hidden ones
// in a line (one row each with verbose).
func writeArgs(w io.Writer, args []codeobj.Arg, verbose bool) error {
	var hidden []codeobj.Arg
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rows := 0
	for _, a := range args {
		if a.Hidden() && !verbose {
			hidden = append(hidden, a)
			continue
		}
		if rows == 0 {
			fmt.Fprintf(tw, "  offset\tsize\talign\tkind\tspace\ttype\tname\n")
		}
		rows++
		fmt.Fprintf(tw, "  %6d\t%4d\t%5d\t%s\t%s\t%s\t%s\n", a.Offset, a.Size, a.Align, kindName(a), dash(a.AddressSpace), dash(a.TypeName), dash(a.Name))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rows == 0 && len(hidden) == 0 {
		_, err := fmt.Fprintln(w, "  no arguments")
		return err
	}
	if len(hidden) > 0 {
		first, last := hidden[0], hidden[len(hidden)-1]
		_, err := fmt.Fprintf(w, "  + %d hidden argument(s) in bytes %d-%d: %s\n", len(hidden), first.Offset, last.Offset+last.Size-1, hiddenNames(hidden))
		return err
	}
	return nil
}

// hiddenNames lists hidden arguments briefly: "block_count_x/y/z, grid_dims".
func hiddenNames(args []codeobj.Arg) string {
	var out []string
	for _, a := range args {
		n := strings.TrimPrefix(kindName(a), "hidden_")
		if i := len(out) - 1; i >= 0 && len(n) > 2 && n[len(n)-2] == '_' && strings.ContainsRune("yz", rune(n[len(n)-1])) &&
			strings.HasPrefix(out[i], n[:len(n)-1]) {
			out[i] += "/" + n[len(n)-1:]
			continue
		}
		out = append(out, n)
	}
	return strings.Join(out, ", ")
}

func num(v uint32) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprint(v)
}
