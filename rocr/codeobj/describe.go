package codeobj

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Describe returns a readable listing of the spec: every code object's
// target and every kernel's properties and argument layout. gpuinfo
// codeobj prints it.
func Describe(s *Spec) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: %d code object(s)\n", s.Container, len(s.Objects))
	for _, o := range s.Objects {
		sb.WriteString(o.String())
	}
	return sb.String()
}

// String is Describe.
func (s *Spec) String() string { return Describe(s) }

// String describes one code object and its kernels.
func (o *CodeObject) String() string {
	var sb strings.Builder
	switch o.Format {
	case FormatPTX:
		fmt.Fprintf(&sb, "\n%s (PTX %s, .address_size %d, %d bytes)\n", o.Target, o.PTXVersion, o.AddressSize, len(o.Image))
	case FormatCubin:
		fmt.Fprintf(&sb, "\n%s (cubin, ELF ABI version %d, e_flags %#x, %d bytes)\n", o.Target, o.ABIVersion, o.Flags, len(o.Image))
	default:
		fmt.Fprintf(&sb, "\n%s (code object v%d, e_flags %#x, %d bytes)\n", o.ID.Full(), o.Version, o.Flags, len(o.Image))
		if o.MetadataTarget != "" || o.MetadataVersion != [2]int{} {
			fmt.Fprintf(&sb, "  metadata: amdhsa.version %d.%d, amdhsa.target %s\n", o.MetadataVersion[0], o.MetadataVersion[1], o.MetadataTarget)
		}
		for _, f := range o.Printf {
			fmt.Fprintf(&sb, "  printf %016x %q\n", f.Hash, f.Format)
		}
	}
	if o.BundleEntry != "" {
		fmt.Fprintf(&sb, "  bundle entry: %s\n", o.BundleEntry)
	}
	for i := range o.Kernels {
		o.Kernels[i].describe(&sb, o.Format)
	}
	return sb.String()
}

func (k *Kernel) describe(sb *strings.Builder, f Format) {
	fmt.Fprintf(sb, "  kernel %s", k.Name)
	if d := Demangle(k.Name); d != k.Name {
		fmt.Fprintf(sb, " [%s]", d)
	}
	if k.Symbol != "" && k.Symbol != k.Name {
		fmt.Fprintf(sb, " (symbol %s)", k.Symbol)
	}
	fmt.Fprintf(sb, "\n    kernarg %d bytes, align %d", k.KernargSize, k.KernargAlign)
	if k.UsesDynamicShared {
		sb.WriteString("; uses dynamic shared memory")
	}
	if f == FormatCubin {
		fmt.Fprintf(sb, "; shared %d, frame %d bytes; registers %d", k.GroupSegmentSize, k.PrivateSegmentSize, k.Registers)
	}
	if f == FormatPTX || f == FormatCubin {
		if k.MaxNTID != [3]uint32{} {
			fmt.Fprintf(sb, "; maxntid %d,%d,%d", k.MaxNTID[0], k.MaxNTID[1], k.MaxNTID[2])
		}
		if k.ReqNTID != [3]uint32{} {
			fmt.Fprintf(sb, "; reqntid %d,%d,%d", k.ReqNTID[0], k.ReqNTID[1], k.ReqNTID[2])
		}
		if k.MaxNReg != 0 {
			fmt.Fprintf(sb, "; maxnreg %d", k.MaxNReg)
		}
		if k.MinNCTAPerSM != 0 {
			fmt.Fprintf(sb, "; minnctapersm %d", k.MinNCTAPerSM)
		}
		sb.WriteString("\n")
	} else {
		fmt.Fprintf(sb, "; group %d, private %d bytes; max flat workgroup %d; wavefront %d\n",
			k.GroupSegmentSize, k.PrivateSegmentSize, k.MaxFlatWorkgroup, k.WavefrontSize)
		fmt.Fprintf(sb, "    registers: sgpr %d, vgpr %d, agpr %d", k.SGPRCount, k.VGPRCount, k.AGPRCount)
		if k.UsesDynamicStack {
			sb.WriteString("; dynamic stack")
		}
		if k.ReqdWorkgroupSize != [3]uint32{} {
			fmt.Fprintf(sb, "; reqd workgroup %d,%d,%d", k.ReqdWorkgroupSize[0], k.ReqdWorkgroupSize[1], k.ReqdWorkgroupSize[2])
		}
		sb.WriteString("\n")
		if d := k.Descriptor; d != nil {
			fmt.Fprintf(sb, "    descriptor: rsrc1 %#08x rsrc2 %#08x rsrc3 %#08x properties %#04x entry %+d\n",
				d.ComputePgmRsrc1, d.ComputePgmRsrc2, d.ComputePgmRsrc3, d.KernelCodeProperties, d.KernelCodeEntryByteOffset)
		}
	}
	if len(k.Args) == 0 {
		sb.WriteString("    no arguments\n")
		return
	}
	tw := tabwriter.NewWriter(sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    offset  size\tkind\tspace\tname\ttype")
	for _, a := range k.Args {
		kind := a.Kind.String()
		if a.Kind == KindUnknown {
			kind = a.KindName
		}
		typ := a.TypeName
		if f == FormatPTX || f == FormatCubin && typ != "" {
			typ = ptxParamString(a)
		}
		fmt.Fprintf(tw, "    %6d  %4d\t%s\t%s\t%s\t%s\n", a.Offset, a.Size, kind, dash(a.AddressSpace), dash(a.Name), dash(typ))
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
