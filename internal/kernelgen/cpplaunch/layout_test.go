package cpplaunch

import (
	"strings"
	"testing"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

func ptx(entries string) string {
	return ".version 7.8\n.target sm_90\n.address_size 64\n\n" + entries
}

const ptxSaxpy = `.visible .entry saxpy(
	.param .f32 saxpy_param_0,
	.param .u64 saxpy_param_1,
	.param .u64 saxpy_param_2,
	.param .u32 saxpy_param_3
)
{
	ret;
}
`

func mustKernels(t *testing.T, src string) []*kernel {
	t.Helper()
	ks, err := parse(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func TestLayoutPTX(t *testing.T) {
	spec, err := codeobj.Parse([]byte(ptx(ptxSaxpy)))
	if err != nil {
		t.Fatal(err)
	}
	ok := mustKernels(t, "HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, int n) {}")
	if err := checkLayout(ok, "k.ptx", spec); err != nil {
		t.Errorf("matching declaration: %v", err)
	}
	for _, c := range []struct{ src, want string }{
		// alpha is a double: 8 bytes, which moves everything after it.
		{"HIPGO_KERNEL void saxpy(double alpha, const float *x, float *y, int n) {}",
			"k.ptx (sm_90): kernel saxpy argument 0 (alpha, double): the source gives 8 bytes at offset 0, the code object 4 bytes at offset 0"},
		{"HIPGO_KERNEL void saxpy(int alpha, const float *x, float *y, int n) {}",
			"argument 0 (alpha, int): the PTX parameter is .f32, a float, where the source has no float"},
		{"HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, float n) {}",
			"argument 3 (n, float): the PTX parameter is .u32, an integer, where the source has a float"},
		{"HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y) {}",
			"kernel saxpy takes 4 arguments, but t.hip:1 declares 3"},
		{"HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, long long n) {}",
			"argument 3 (n, long long): the source gives 8 bytes at offset 24, the code object 4 bytes at offset 24"},
		{"HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, int n) {}\nHIPGO_KERNEL void other() {}",
			"k.ptx (sm_90): no kernel other, which t.hip:2 declares"},
	} {
		err := checkLayout(mustKernels(t, c.src), "k.ptx", spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", c.src, err, c.want)
		}
	}
	stale, err := codeobj.Parse([]byte(ptx(ptxSaxpy + strings.ReplaceAll(ptxSaxpy, "saxpy", "old"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkLayout(ok, "k.ptx", stale); err == nil || !strings.Contains(err.Error(), "kernel old is not declared in the sources; hipgo-gen reads kernels declared as HIPGO_KERNEL void name(...)") {
		t.Errorf("extra kernel: %v", err)
	}
}

// amdgpu builds the code object metadata of vector_add as clang writes it,
// hidden arguments included.
func amdgpu() *codeobj.Spec {
	args := []codeobj.Arg{
		{Offset: 0, Size: 8, Kind: codeobj.KindGlobalBuffer, KindName: "global_buffer", AddressSpace: "global"},
		{Offset: 8, Size: 8, Kind: codeobj.KindGlobalBuffer, KindName: "global_buffer", AddressSpace: "global"},
		{Offset: 16, Size: 8, Kind: codeobj.KindGlobalBuffer, KindName: "global_buffer", AddressSpace: "global"},
		{Offset: 24, Size: 4, Kind: codeobj.KindByValue, KindName: "by_value"},
		{Offset: 32, Size: 4, Kind: codeobj.KindHiddenBlockCountX, KindName: "hidden_block_count_x"},
	}
	return &codeobj.Spec{Objects: []*codeobj.CodeObject{{
		Format: codeobj.FormatELF, Target: "gfx90a",
		Kernels: []codeobj.Kernel{{Name: "vector_add", Symbol: "vector_add.kd", Args: args}},
	}}}
}

func TestLayoutAMDGPU(t *testing.T) {
	if err := checkLayout(mustKernels(t, "HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int n) {}"), "k.hipfb", amdgpu()); err != nil {
		t.Errorf("matching declaration: %v", err)
	}
	for _, c := range []struct {
		src, want string
		edit      func(*codeobj.Arg)
	}{
		{"HIPGO_KERNEL void vector_add(const float *a, const float *b, long long c, int n) {}",
			"k.hipfb (gfx90a): kernel vector_add argument 2 (c, long long): the code object takes a global buffer, the source a value", nil},
		{"HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int *n) {}",
			"argument 3 (n, int *): the source gives 8 bytes at offset 24, the code object 4 bytes at offset 24", nil},
		{"HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int n) {}",
			"argument 3 (n, int): the code object names it \"count\"", func(a *codeobj.Arg) { a.Name = "count" }},
		{"HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int n) {}",
			"argument 3 (n, int): the code object's type is \"int*\"", func(a *codeobj.Arg) { a.TypeName = "int*" }},
		{"HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int n) {}",
			"argument 3 (n, int): argument kind \"image\" is not supported", func(a *codeobj.Arg) { a.Kind, a.KindName = codeobj.KindImage, "image" }},
	} {
		spec := amdgpu()
		if c.edit != nil {
			c.edit(&spec.Objects[0].Kernels[0].Args[3])
		}
		err := checkLayout(mustKernels(t, c.src), "k.hipfb", spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", c.src, err, c.want)
		}
	}
}
