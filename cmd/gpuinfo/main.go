package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	// The gpu package blank-imports every driver, so agents of drivers
	// added there appear here without a change.
	_ "github.com/hipgo/hipgo/gpu"
)

const usage = `usage:
  gpuinfo [--json]                        list every agent of every driver, then the drivers that did not open
  gpuinfo doctor [--json]                 say why a GPU is or is not used; exit status 1 when none is
  gpuinfo codeobj [-v] [--json] FILE...   print a code object's targets, kernels and argument layouts
  gpuinfo trace [--json] FILE             per kernel of a HIPGO_TRACE file: launches, total, mean, min and max time
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "doctor":
			return runDoctor(args[1:], stdout, stderr)
		case "codeobj":
			return runCodeobj(args[1:], stdout, stderr)
		case "trace":
			return runTrace(args[1:], stdout, stderr)
		case "help", "-h", "-help", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	return runInfo(args, stdout, stderr)
}

// parseJSONFlag parses the arguments of a command whose only flag is --json.
// ok is false after a usage error, which it has reported.
func parseJSONFlag(name string, args []string, stderr io.Writer) (asJSON, ok bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	j := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return false, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unknown argument %q\n%s", name, fs.Arg(0), usage)
		return false, false
	}
	return *j, true
}

// write prints v as indented JSON, or as text with writeText.
func write(w io.Writer, asJSON bool, v any, writeText func(io.Writer) error) error {
	if !asJSON {
		return writeText(w)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
