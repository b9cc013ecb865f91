// Package devprintf decodes the printf buffer that AMDGPU kernels built
// with clang's -mprintf-kind=buffered write, and renders each record with
// C's printf semantics.
//
// The buffer, as the device sees it: a 32-bit count of the bytes of
// records written so far, a 32-bit size of the whole buffer, then the
// records from byte 8. A kernel reserves a record with an atomic add on
// the count (__printf_alloc) and drops it when it does not fit; hipgo's
// own __printf_alloc then sets the count's high bit (Overflowed), which
// ROCm's device library does not.
//
// A record: a control dword (bit 0: the stream, 1 for stderr; bit 1: the
// format is a constant; bits 2-31: the record's size in bytes, control
// dword included), then the low 64 bits of the format's MD5 digest when
// the format is a constant, otherwise the format itself, NUL-terminated
// and padded to 8 bytes, then the arguments: each one 8 bytes (integers
// zero-extended to 64 bits, float promoted to double), except those that
// a constant format prints with %s, which are the string's bytes with
// their NUL, padded to 8 (a null string takes no bytes).
//
// The package is pure: bytes in, text out, no state.
package devprintf
