package kernelgen

// The library's device functions that a calling package's kernels use,
// copied from their one source: prim.ScanWith's and MergeSortWith's.
//go:generate go run ./internal/libsrc -name primWithSrc -o libsrc_gen.go ../../gpu/prim/with_device.go
