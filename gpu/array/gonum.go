package array

import (
	"gonum.org/v1/gonum/mat"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// FromDense is a new rows×cols float64 array on s with a copy of m's
// elements (C order, as gonum keeps them).
func FromDense(s *stream.Stream, m *mat.Dense) (*Array[float64], error) {
	const op = "array from dense"
	if m == nil || m.IsEmpty() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil or empty matrix")
	}
	raw := m.RawMatrix()
	data := raw.Data[:raw.Rows*raw.Cols]
	if raw.Stride != raw.Cols {
		data = make([]float64, 0, raw.Rows*raw.Cols)
		for i := range raw.Rows {
			data = append(data, raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols]...)
		}
	}
	return FromSlice(s, data, raw.Rows, raw.Cols)
}

// ToDense copies a two-dimensional float64 array into a new *mat.Dense;
// it waits for the work that writes the array.
func ToDense(a *Array[float64]) (*mat.Dense, error) {
	const op = "array to dense"
	if err := a.check(op); err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || a.size == 0 {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape}, Reason: "a matrix has two nonzero dimensions"}
	}
	h, err := a.ToSlice()
	if err != nil {
		return nil, err
	}
	return mat.NewDense(a.shape[0], a.shape[1], h), nil
}

// FromVecDense is a new one-dimensional float64 array on s with a copy
// of v's elements (its increment taken into account).
func FromVecDense(s *stream.Stream, v *mat.VecDense) (*Array[float64], error) {
	const op = "array from vec dense"
	if v == nil || v.IsEmpty() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil or empty vector")
	}
	raw := v.RawVector()
	data := raw.Data[:raw.N]
	if raw.Inc != 1 {
		data = make([]float64, raw.N)
		for i := range data {
			data[i] = raw.Data[i*raw.Inc]
		}
	}
	return FromSlice(s, data, raw.N)
}

// ToVecDense copies a one-dimensional float64 array into a new
// *mat.VecDense; it waits for the work that writes the array.
func ToVecDense(a *Array[float64]) (*mat.VecDense, error) {
	const op = "array to vec dense"
	if err := a.check(op); err != nil {
		return nil, err
	}
	if len(a.shape) != 1 || a.size == 0 {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape}, Reason: "a vector has one nonzero dimension"}
	}
	h, err := a.ToSlice()
	if err != nil {
		return nil, err
	}
	return mat.NewVecDense(a.size, h), nil
}
