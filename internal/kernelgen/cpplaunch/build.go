package cpplaunch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hipgo/hipgo/rocr/codeobj"
)

// Build reads the sources, checks them against the code objects and
// generates the launchers.
func Build(cfg Config, srcs, objs []string) ([]byte, error) {
	ss := newSourceSet()
	for _, pattern := range srcs {
		files, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("-src %q: %w", pattern, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("-src %q: no such file", pattern)
		}
		for _, f := range files {
			if err := ss.addFile(f); err != nil {
				return nil, err
			}
		}
		cfg.Sources = append(cfg.Sources, filepath.ToSlash(pattern))
	}
	var errs []error
	for _, name := range objs {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		spec, err := codeobj.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		errs = append(errs, checkLayout(ss.kernels, filepath.ToSlash(name), spec))
		cfg.Objects = append(cfg.Objects, fmt.Sprintf("%s (%s)", filepath.ToSlash(name), strings.Join(spec.Targets(), ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("the sources and the code objects disagree:\n%w", err)
	}
	if cfg.CPU != "" {
		if err := checkTwins(cfg.Dir, ss.kernels); err != nil {
			return nil, fmt.Errorf("the cpu agent's kernels (-cpu %s) and the sources disagree:\n%w", cfg.CPU, err)
		}
	}
	return generate(cfg, ss.kernels)
}
