package kernelgen

import "errors"

// Load reads the package of Go kernels in dir and translates it.
func Load(dir string) (*Result, error) { return nil, errors.New("kernelgen: not yet") }
