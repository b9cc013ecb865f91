package array

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
)

// ShapeError is an operation given arrays or a shape that do not fit:
// operands of different shapes, a reshape to another number of elements,
// a negative dimension. errors.Is(err, gpu.ErrInvalidValue) holds.
type ShapeError struct {
	Op     string  // the operation, such as "array add"
	Shapes [][]int // the shapes involved
	Reason string  // what does not fit
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("%s: %s (shapes %s)", e.Op, e.Reason, shapesString(e.Shapes))
}

// Is maps a ShapeError onto gpu.ErrInvalidValue.
func (e *ShapeError) Is(target error) bool { return target == gpu.ErrInvalidValue }

func shapesString(shapes [][]int) string {
	s := ""
	for i, sh := range shapes {
		if i > 0 {
			s += ", "
		}
		s += shapeString(sh)
	}
	return s
}

func shapeString(shape []int) string {
	s := "("
	for i, d := range shape {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(d)
	}
	if len(shape) == 1 {
		s += ","
	}
	return s + ")"
}
