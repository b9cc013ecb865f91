package codeobj_test

import (
	"fmt"
	"os"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

func ExampleParse() {
	ptx := `
.version 8.0
.target sm_90
.address_size 64
.visible .entry saxpy(
	.param .f32 a,
	.param .u64 .ptr .global .align 4 x,
	.param .u64 .ptr .global .align 4 y,
	.param .u32 n
) .maxntid 256 { ret; }
`
	spec, err := codeobj.Parse([]byte(ptx))
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, err := spec.Select("sm_90")
	if err != nil {
		fmt.Println(err)
		return
	}
	k, _ := obj.Kernel("saxpy")
	for _, a := range k.Args {
		fmt.Printf("%-2s offset %2d size %d %s\n", a.Name, a.Offset, a.Size, a.Kind)
	}
	fmt.Println("param bytes:", k.KernargSize, "max threads:", k.MaxFlatWorkgroup)
	// Output:
	// a  offset  0 size 4 by_value
	// x  offset  8 size 8 global_buffer
	// y  offset 16 size 8 global_buffer
	// n  offset 24 size 4 by_value
	// param bytes: 28 max threads: 256
}

func ExampleKernel_FillHidden() {
	b, err := os.ReadFile("testdata/bundle.hipfb")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := codeobj.Parse(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, err := spec.Select("gfx1100")
	if err != nil {
		fmt.Println(err)
		return
	}
	k, _ := obj.Kernel("vector_add")
	kernarg := make([]byte, k.KernargSize) // explicit arguments go in first
	err = k.FillHidden(kernarg, &codeobj.Launch{Grid: [3]uint32{1000}, Block: [3]uint32{256}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range k.Args {
		if a.Kind == codeobj.KindHiddenBlockCountX || a.Kind == codeobj.KindHiddenRemainderX {
			fmt.Printf("%s at %d: %d\n", a.Kind, a.Offset, kernarg[a.Offset])
		}
	}
	// Output:
	// hidden_block_count_x at 32: 3
	// hidden_remainder_x at 50: 232
}
