// Package goback is the translator's Go back end: from a package of Go
// kernels, loaded and analyzed by kernelgen, it writes the Go side that
// hipgo-gen -go puts beside them. That file holds each kernel's kernarg
// layout, its function for the cpu agent (a plain loop over the block's
// work-items; loop fission where the kernel synchronizes, with the device
// functions it calls; coroutines where fission does not apply), the typed
// launchers (one per instance of a generic kernel, and a generic launcher
// over them), and the gokernel.Library that embeds the code objects.
//
// The output is deterministic for a given input: hipgo-gen writes a file
// only where it changed, and CI compares the committed files with a
// regeneration.
package goback

import "io"

// Config names what the Go side declares and where the C++ and code
// objects lie.
type Config struct {
	Dir    string // the package's directory
	Out    string // the Go file to write, relative to Dir
	Gen    string // the folder for the C++ and code objects, relative to Dir
	Name   string // the library's base name: gen/<Name>.cu, gen/<Name>.hipfb, ...
	Prefix string // the launchers' prefix
	Var    string // the generated *gokernel.Library variable
	// Report, where not nil, gets a line per kernel the cpu agent runs
	// as coroutines: file:line, the kernel, why loop fission does not
	// apply.
	Report io.Writer
}
