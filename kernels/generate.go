package kernels

// launch_gen.go holds the typed launchers (LaunchVectorAdd, ...) and the
// Functions struct, written by cmd/hipgo-gen from the kernels' C declarations
// and checked against every embedded code object's argument layout.
// cmd/hipgo-gen's tests fail when it is stale.
//
//go:generate go run ../cmd/hipgo-gen -src src/kernels.hip -obj gen/kernels.hipfb -obj gen/kernels_sm80.ptx -obj gen/kernels_sm90.ptx -pkg kernels -loader set -o launch_gen.go
