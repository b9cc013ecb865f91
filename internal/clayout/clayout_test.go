package clayout_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/internal/clayout"
)

func TestCheck(t *testing.T) {
	type pair struct {
		X float32
		Y float64
	}
	type nested struct {
		C int8
		P pair
		A [3]uint16
		B bool
		Z complex64
	}
	type trailingEmpty struct {
		X int32
		E struct{}
	}
	for _, ok := range []reflect.Type{reflect.TypeFor[pair](), reflect.TypeFor[nested](), reflect.TypeFor[[16]byte](), reflect.TypeFor[struct{ N int }]()} {
		assert.NoError(t, clayout.Check(ok), ok.String())
	}
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[trailingEmpty]():           "clayout_test.trailingEmpty.E has type struct {} of size 0",
		reflect.TypeFor[struct{ S []int }]():       "struct { S []int }.S has type []int: pointers, strings",
		reflect.TypeFor[struct{ M map[int]int }](): "has type map[int]int",
		reflect.TypeFor[struct{ I any }]():         "has type interface {}",
		reflect.TypeFor[[0]int32]():                "of size 0",
		reflect.TypeFor[struct{ P [2]*int }]():     "struct { P [2]*int }.P[] has type *int",
		reflect.TypeFor[struct{ F func() }]():      "has type func()",
		reflect.TypeFor[struct{ C chan int }]():    "has type chan int",
		reflect.TypeFor[struct {
			S string
			N int32
		}](): "has type string",
	} {
		assert.ErrorContains(t, clayout.Check(typ), want, typ.String())
	}
}
