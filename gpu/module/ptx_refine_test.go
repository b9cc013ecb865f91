package module_test

import (
	"reflect"
	"testing"

	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// The library's PTX says only ".u64" and ".u32"; its Go kernels say which
// parameters are float32 buffers and which are int32 values, and a launch
// on an NVIDIA GPU is checked as strictly as anywhere.
func TestPTXSignatureRefined(t *testing.T) {
	spec, err := codeobj.Parse([]byte(kernels.PTXsm90))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := spec.Select("sm_90")
	if err != nil {
		t.Fatal(err)
	}
	c := module.FromCodeObject(obj, "ptx")
	module.RefinePTX(c, kernels.Library())
	for _, k := range c.Kernels {
		if k.Name != "vector_add" {
			continue
		}
		want := []hsa.ArgKind{hsa.ArgGlobalBuffer, hsa.ArgGlobalBuffer, hsa.ArgGlobalBuffer, hsa.ArgByValue}
		for i, a := range k.Args[:4] {
			if a.Kind != want[i] {
				t.Fatalf("arg %d: %v, want %v", i, a.Kind, want[i])
			}
		}
		if k.Args[0].Elem != reflect.TypeFor[float32]() || k.Args[3].Value != reflect.TypeFor[int32]() {
			t.Fatalf("types not refined: %+v", k.Args)
		}
		return
	}
	t.Fatal("no vector_add in the PTX")
}
