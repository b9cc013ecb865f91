package main

import (
	"encoding/json"
	"io"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

// The JSON form of `gpuinfo codeobj --json`: what the tables show, for
// scripts. Field names are stable; zero values are left out.
type jsonSpec struct {
	File      string       `json:"file"`
	Container string       `json:"container"`
	Objects   []jsonObject `json:"objects"`
}

type jsonObject struct {
	Target      string       `json:"target"`
	Format      string       `json:"format"`
	Bytes       int          `json:"bytes"`
	BundleEntry string       `json:"bundle_entry,omitempty"`
	Version     int          `json:"code_object_version,omitempty"`
	PTXVersion  string       `json:"ptx_version,omitempty"`
	Flags       uint32       `json:"e_flags,omitempty"`
	Kernels     []jsonKernel `json:"kernels"`
}

type jsonKernel struct {
	Name              string    `json:"name"`
	Demangled         string    `json:"demangled,omitempty"`
	KernargSize       uint32    `json:"kernarg_size"`
	KernargAlign      uint32    `json:"kernarg_align"`
	GroupSegmentSize  uint32    `json:"group_segment_size"`
	PrivateSize       uint32    `json:"private_segment_size"`
	MaxWorkgroup      uint32    `json:"max_workgroup_size,omitempty"`
	ReqdWorkgroup     [3]uint32 `json:"reqd_workgroup_size,omitzero"`
	Wavefront         uint32    `json:"wavefront_size,omitempty"`
	Registers         uint32    `json:"registers,omitempty"`
	SGPRs             uint32    `json:"sgpr_count,omitempty"`
	VGPRs             uint32    `json:"vgpr_count,omitempty"`
	UsesDynamicShared bool      `json:"uses_dynamic_shared,omitempty"`
	Args              []jsonArg `json:"args"`
}

type jsonArg struct {
	Name         string `json:"name,omitempty"`
	Type         string `json:"type,omitempty"`
	Kind         string `json:"kind"`
	Offset       uint32 `json:"offset"`
	Size         uint32 `json:"size"`
	Align        uint32 `json:"align,omitempty"`
	AddressSpace string `json:"address_space,omitempty"`
	Hidden       bool   `json:"hidden,omitempty"`
}

func writeJSON(w io.Writer, name string, spec *codeobj.Spec) error {
	out := jsonSpec{File: name, Container: spec.Container, Objects: []jsonObject{}}
	for _, o := range spec.Objects {
		jo := jsonObject{Target: o.Target, Format: o.Format.String(), Bytes: len(o.Image), BundleEntry: o.BundleEntry,
			Version: o.Version, PTXVersion: o.PTXVersion, Flags: o.Flags, Kernels: []jsonKernel{}}
		for _, k := range o.Kernels {
			jk := jsonKernel{Name: k.Name, KernargSize: k.KernargSize, KernargAlign: k.KernargAlign,
				GroupSegmentSize: k.GroupSegmentSize, PrivateSize: k.PrivateSegmentSize, MaxWorkgroup: k.MaxFlatWorkgroup,
				ReqdWorkgroup: k.ReqdWorkgroupSize, Wavefront: k.WavefrontSize, Registers: k.Registers,
				SGPRs: k.SGPRCount, VGPRs: k.VGPRCount, UsesDynamicShared: k.UsesDynamicShared, Args: []jsonArg{}}
			if d := codeobj.Demangle(k.Name); d != k.Name {
				jk.Demangled = d
			}
			for _, a := range k.Args {
				jk.Args = append(jk.Args, jsonArg{Name: a.Name, Type: a.TypeName, Kind: kindName(a), Offset: a.Offset,
					Size: a.Size, Align: a.Align, AddressSpace: a.AddressSpace, Hidden: a.Hidden()})
			}
			jo.Kernels = append(jo.Kernels, jk)
		}
		out.Objects = append(out.Objects, jo)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
