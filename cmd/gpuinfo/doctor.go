package main

import (
	"fmt"
	"io"

	"github.com/hipgo/hipgo/cmd/gpuinfo/internal/doctor"
)

// doctorSystem is the machine the doctor looks at; tests replace it.
var doctorSystem = doctor.System{}

func runDoctor(args []string, stdout, stderr io.Writer) int {
	asJSON, ok := parseJSONFlag("gpuinfo doctor", args, stderr)
	if !ok {
		return 2
	}
	rep := doctor.Check(doctorSystem, doctor.Observe())
	if err := write(stdout, asJSON, rep, rep.WriteText); err != nil {
		fmt.Fprintf(stderr, "gpuinfo doctor: %v\n", err)
		return 1
	}
	if !rep.GPU {
		return 1
	}
	return 0
}
