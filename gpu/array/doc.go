// Package array is a typed n-dimensional array on a device, the layer
// CuPy's ndarray and CUDA.jl's CuArray are: an Array[T] is a buffer (or a
// view of one), a shape, and the stream its operations are queued on.
//
// Arrays are C-contiguous (row-major, the last axis varies fastest);
// Reshape, Ravel and Slice (a range of the first axis) are views that
// share the memory of the array they come from, with no copy. Strides
// (transposes, steps) are not supported yet.
//
// Operations build on gpu/prim: element-wise arithmetic between arrays
// whose shapes broadcast as NumPy's do, and with scalars (Add, Sub, Mul, Div, Minimum, Maximum, Neg,
// Abs, Square, Scale, AddScalar, ...), reductions over all elements (Sum,
// Min, Max, ArgMin, ArgMax; SumAxis, MinAxis, MaxAxis along the last
// axis), Cumsum, Sort and Argsort, and copies to and from gonum's
// mat.Dense and mat.VecDense (FromDense, ToDense, FromVecDense,
// ToVecDense), and Map1..Map4, an element-wise operation of the caller's
// (a functor, its kernel written by hipgo-gen at go generate) over inputs
// that broadcast, as one kernel (map.go). Comparisons make uint8 masks, CuPy's bool arrays (Equal,
// Less, ..., and their Scalar forms), which Where and WhereScalar select
// by and CountNonzero, Any and All count and fold; Clip and AsType (Go's
// conversions, a float out of an integer type's range saturated) are
// the package's own Go kernels (kernels.go, instantiated into gen/ by go
// generate). MatMul and MatMulTrans multiply float matrices and batches
// of them through gpu/blas, with a BLAS handle each stream keeps until it
// is destroyed. Each returns a new
// array allocated from the stream's pool in the stream's order and queues
// its work on the first operand's stream; nothing blocks except the calls
// that bring values to the host (ToSlice, CopyTo, Item, At), which wait
// for the work that writes the array. An operand on another stream is
// ordered by its buffer's dependencies, as any buffer is.
//
// Element types: Number (gpu/prim's int32, uint32, int64, uint64,
// float32, float64) for arithmetic, reductions and sorts; Element, the
// Numbers and uint8, for masks, selections, conversions and the
// constructors.
//
// Every call checks its arguments before it queues anything: a nil or
// freed array, shapes that do not broadcast (a *ShapeError), a device mismatch, an
// integer division by a zero scalar. Errors wrap gpu.ErrInvalidValue
// (gpu.ErrNotSupported for what the package cannot do yet); no call
// panics on bad input. An integer division by a zero element of an array
// is a kernel fault that fails the stream, as it does in CUDA.
//
// Lifetimes: an array from a constructor or an operation owns its memory
// and Free gives it back (in its stream's order); a view owns nothing,
// its Free does nothing, and it fails once its base is freed. An
// operation racing a Free of its array, a Free of the buffer under it
// (FromBuffer), a Destroy of its stream or gpu.Shutdown either runs
// first or returns an error (gpu.ErrInvalidValue, ErrInvalidHandle,
// ErrContextIsDestroyed); the device memory of an array freed while an
// operation still reads it stays until the stream has run that
// operation (Free is in the stream's order).
package array
