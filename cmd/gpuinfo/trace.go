package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hipgo/hipgo/rocr/kerneltime"
)

// runTrace prints the per-kernel summary of a trace file (HIPGO_TRACE's).
func runTrace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gpuinfo trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "gpuinfo trace: want one trace file\n%s", usage)
		return 2
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "gpuinfo trace: %v\n", err)
		return 1
	}
	defer f.Close()
	ks, err := kerneltime.Read(f)
	if err != nil {
		fmt.Fprintf(stderr, "gpuinfo trace: %s: %v\n", fs.Arg(0), err)
		return 1
	}
	if ks == nil {
		ks = []kerneltime.Kernel{}
	}
	if err := write(stdout, *asJSON, ks, func(w io.Writer) error { return kerneltime.Write(w, ks) }); err != nil {
		fmt.Fprintf(stderr, "gpuinfo trace: %v\n", err)
		return 1
	}
	return 0
}
