// Package codeobj parses GPU code objects into a Spec: which targets a blob
// holds, which kernels each target has, and how each kernel's arguments
// are laid out in its kernarg segment. It is a pure function of bytes: no
// agents, no state, no cgo, deterministic output. Loading a Spec onto a
// device is gpu/module's job.
//
// Parse detects and reads:
//
//   - AMDGPU HSA code objects (ELF64, EM_AMDGPU, ELFOSABI_AMDGPU_HSA),
//     code object versions 3 to 6: the target ID from e_flags
//     ("gfx90a:sramecc+:xnack-"), symbols, each kernel's 64-byte kernel
//     descriptor (NAME.kd) and the NT_AMDGPU_METADATA note (MessagePack)
//     with every kernel's argument list and resource use;
//   - clang offload bundles ("__CLANG_OFFLOAD_BUNDLE__", as hipcc --genco
//     writes), compressed bundles ("CCOB", header versions 1-3, zlib or
//     zstd, checked against their MD5), and several of either laid end to
//     end;
//   - host objects and executables carrying a .hip_fatbin section or a
//     __hipFatBinaryWrapper ("HIPF") in .hipFatBinSegment;
//   - PTX text: .version, .target, .address_size and every .entry with
//     its .param list laid out as the CUDA ABI lays out the parameter
//     buffer, plus .maxntid/.reqntid/.minnctapersm/.maxnreg.
//
// Spec.Select picks the code object for a device target by clang's and
// HIP's target ID rules (see Compatible); Kernel.FillHidden writes the
// hidden arguments of a launch (block counts, group sizes, remainders,
// grid dimensions, dynamic LDS size, global offsets, runtime pointers)
// into a kernarg image exactly as the HIP runtime does, for code object
// v5 and v4 metadata alike. Describe prints a Spec for people.
//
// Errors: malformed input gives a *FormatError naming the structure and
// byte offset at fault; it matches ErrFormat with errors.Is. Parse never
// panics, never reads outside its input and never allocates in proportion
// to a length field it has not checked against the input's size; the fuzz
// targets in this package hold it to that.
//
// Lifetimes and concurrency: a Spec's Image fields alias the input slice
// (except for compressed bundles, which are expanded into new memory), so
// the caller must not modify the input while the Spec is in use. Parse,
// Select and Describe may run concurrently; a Spec is read-only after
// Parse returns. Nothing blocks.
//
// The test fixtures under testdata are built by testdata/gen.sh with
// Debian's clang-19 from testdata/k.hip and testdata/k.cu; the tests
// compare this package's reading of them with llvm-readelf-19 where that
// is installed (HIPGO_REQUIRE=clang makes its absence a failure).
package codeobj
