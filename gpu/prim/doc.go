// Package prim holds device-wide primitives, the layer CUB, hipCUB and
// rocPRIM are to C++: reductions (Sum, Min, Max, Reduce, ArgMin, ArgMax,
// ReduceWith; SegmentedSum, SegmentedMin, SegmentedMax,
// SegmentedReduce), prefix sums (InclusiveSum, ExclusiveSum;
// InclusiveSumByKey, ExclusiveSumByKey; InclusiveScanWith,
// ExclusiveScanWith), element-wise transforms
// (Transform, Transform2), selections and partitions (SelectFlagged,
// SelectIf, Unique, PartitionFlagged, PartitionIf), RunLengthEncode, a
// histogram of even bins (HistogramEven), a stable LSD radix sort
// (SortKeys, SortPairs) and a stable merge sort by an Ordering
// (MergeSortKeys, MergeSortPairs) or by a comparator (MergeSortWith,
// MergeSortPairsWith), over buffers and views (Sub) of the
// built-in numeric types.
//
// Each primitive is written once, as Go kernels (kernels.go): generic
// device functions that internal/gentypes wraps in one //hipgo:kernel per
// element type, translated by hipgo-gen into the CUDA/HIP C++, PTX and
// AMDGPU code objects of gen/. The cpu agent runs the same Go functions;
// its launches use blocks of one work-item over contiguous spans, so the
// kernels' sequential branches run there, one span per worker, while a
// GPU runs blocks of 256 (1024) work-items with warp shuffles, ballots
// and shared memory.
//
// A call queues its work on the stream it is given and returns; the
// results are there once the stream has run it (Synchronize, an event, a
// later operation on the stream). Nothing is computed on the host and no
// call blocks. A call checks its arguments first (nil buffers, short
// outputs, unknown operations, bit ranges) and queues nothing when they
// are wrong, returning an error wrapping gpu.ErrInvalidValue or
// gpu.ErrInvalidHandle. Calls on a capturing stream are captured into the
// graph like any other stream work.
//
// Temporary storage is the stream's (scratch.go): a call takes idle
// temporaries from its stream's cache, allocating from the device's
// default pool in the stream's order (buffer.NewAsync) on a miss, and
// gives them back after its last launch, so there is nothing for the
// caller to size or keep, and a repeated call allocates nothing on the
// host. A stream's temporaries are freed when it is destroyed. On a
// capturing stream they are the graph's alloc and free nodes. Small
// inputs need none: a reduction of up to 2^16
// elements, a scan of up to four GPU tiles (11264 four-byte elements)
// and every transform is one launch with no temporary and no allocation
// on the host. A GPU's larger scan is one launch too, by decoupled
// look-back (kernels_lookback.go), and a GPU's radix sort is Onesweep:
// one launch per 8 bits of key after one that counts them all
// (kernels_sort.go).
//
// Generics: a primitive is a generic Go function over the element types
// the package instantiates (Number, Key, Value). Operations are the
// package's own (Op, UnaryOp, BinaryOp), or one of the caller's for
// ReduceWith, the scans With and the merge sorts With: a functor
// (ReduceFunc, ScanFunc, LessFunc), whose kernels hipgo-gen writes into
// the calling package at go generate and registers at init
// (RegisterReduceWith, RegisterScanWith, RegisterMergeSortWith); a call
// finds them by its type arguments, with no reflection or allocation.
// Where no kernel was generated, the cpu agent runs the functor through
// the library's own kernels (with_device.go's device functions, which
// are also the source of the generated ones).
//
// All functions are safe for concurrent use; calls on one stream run in
// the order they were made.
package prim
