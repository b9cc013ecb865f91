// Package doctor works out why hipgo is not using a GPU and says so in words
// a user can act on. gpuinfo doctor prints its report.
//
// A check looks at one thing: a GPU library on the loader's search path
// (libhsa-runtime64.so.1, libcuda.so.1, and the libraries of gpu/rtc,
// gpu/blas and gpu/collective where their vendor's GPUs are), found as
// internal/vendorlib's table says, a device node (/dev/kfd,
// /dev/dri/renderD*, /dev/nvidiactl) and whether the user may open it, a
// kernel driver and its version (/sys/module/amdgpu,
// /proc/driver/nvidia/version), the versions of the kernel and the
// user-space runtimes side by side, the environment (HIPGO_DRIVER and the
// *_VISIBLE_DEVICES lists), the status each hipgo driver gave when the
// runtime opened, and NCCL's and RCCL's versions (ncclGetVersion) with
// whether gpu/collective runs ranks across processes on them (it needs
// ncclCommInitRankScalable, NCCL 2.23 and later). Each gives a Finding: ok, warn or fail, a message and a
// hint.
//
// The checks read the machine through a System: a filesystem root, an
// environment and an access probe, so tests run them against a temporary
// directory laid out like /dev, /sys and /proc. What the runtime saw is a
// Runtime value; Observe fills one from rocr, and tests write one by hand.
//
// Lifetimes and concurrency: Check is a pure function of its System and
// Runtime and may run concurrently. Observe opens and closes the rocr
// runtime and changes the process environment while it runs (see Observe),
// so it must not run alongside other code that reads the environment or
// opens the runtime. Nothing blocks beyond file reads and driver start-up.
package doctor
