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
// to a length field it has not checked against the input's size.
//
// Cost: Parse's time and memory are bounded by its input's size, hostile
// input included. Every allocation that grows with the input, and every
// re-reading of bytes that several structures may share (overlapping
// sections, symbol tables, notes), is charged to a budget of
// Limits.MaxExpansion bytes (default 4) per input byte plus 64 KiB;
// compilers' code objects use under two. Names share one copy of their
// string table, metadata strings one copy of the note, PTX tokens one copy
// of the text. Compressed bundles may expand together to 10 times the
// input's size, or 64 MiB where that is more (what the zstd decoders
// allocate besides their output, the window and block ring of one that
// streams and each decoder's own buffers, counts as bytes inflated; a
// zstd bundle is decoded into the buffer of its claimed size, which is
// its decoder's history too, so its bytes are allocated once), never past
// Limits.MaxDecompressed (default 256 MiB), and each to at most 10000
// times its compressed size; a larger claim is refused before anything is
// inflated, and decompressed bytes count as input for the budget. A claim
// over 8 times the compressed size is inflated twice: first only counted
// (and hashed), then into a buffer of the claimed size, so that a claim
// the stream does not make good costs no memory of its size. Bundle entries
// must not overlap. A PTX .reqntid or .maxntid whose thread count does not
// fit 32 bits is refused. An exceeded limit is a *FormatError naming it;
// ParseWithLimits raises or lowers them. The tests build each hostile
// case and hold it to a second and ten times its size in allocation; the
// fuzz targets check the same bound on every input.
//
// Lifetimes and concurrency: a Spec's Image fields alias the input slice
// (except for compressed bundles, where each object gets its own copy of
// its bytes, so the inflated bundle is not kept), so the caller must not
// modify the input while the Spec is in use. Parse, Select and Describe
// may run concurrently; a Spec is read-only after Parse returns. Nothing
// blocks.
//
// The test fixtures under testdata are built by testdata/gen.sh with
// Debian's clang-19 from testdata/k.hip and testdata/k.cu; the tests
// compare this package's reading of them with llvm-readelf-19 where that
// is installed (HIPGO_REQUIRE=clang makes its absence a failure).
package codeobj
