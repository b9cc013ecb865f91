package kernel

import (
	"fmt"
	"os"
)

// Printf writes format with args to the process's standard output, as
// CUDA's printf does from a kernel. The format is a constant string; its
// verbs are %d and %v on integers, %x, %X and %o on unsigned integers,
// %t and %v on bools, %f, %F, %e and %E on floats, and %g and %G with a
// precision (%.6g), with flags and widths; hipgo-gen rejects others,
// naming the verb. On the cpu agent it is fmt.Printf, one write a call;
// on NVIDIA GPUs the C printf, whose lines the driver writes when the
// stream synchronizes; on AMD GPUs it prints nothing yet.
func Printf(t Thread, format string, args ...any) {
	_ = t
	_, _ = fmt.Fprintf(os.Stdout, format, args...)
}
