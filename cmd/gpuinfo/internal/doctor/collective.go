package doctor

import (
	"fmt"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// Collective is what Observe learned of a collective library (NCCL for
// NVIDIA GPUs, RCCL for AMD ones).
type Collective struct {
	Lib *vendorlib.Library
	// Info is the library's answer: its path, ncclGetVersion's code and
	// whether it has ncclCommInitRankScalable.
	Info vendorlib.NCCLInfo
	// Err is why the library could not be opened or asked, nil if it was.
	Err error
}

// collectiveLibs are the libraries gpu/collective runs on, by name.
var collectiveLibs = []struct {
	name string
	lib  *vendorlib.Library
}{{"NCCL", vendorlib.NCCL}, {"RCCL", vendorlib.RCCL}}

// observeCollectives opens NCCL and RCCL, where they are, and asks each
// its version. Nothing is initialized.
func observeCollectives() []Collective {
	var out []Collective
	for _, c := range collectiveLibs {
		info, err := vendorlib.ProbeNCCL(c.lib)
		out = append(out, Collective{Lib: c.lib, Info: info, Err: err})
	}
	return out
}

// scalableVersion is the first NCCL with ncclCommInitRankScalable, which
// gpu/collective's NewRank and FromEnv use: ncclCommInitRank takes its
// 128-byte ncclUniqueId by value, which purego cannot pass.
const scalableVersion = 22300

// NCCLVersion decodes ncclGetVersion's code, as nccl.h's NCCL_VERSION
// encodes it: major*10000 + minor*100 + patch from 2.9 on, and
// major*1000 + minor*100 + patch before (2.8.4 is 2804).
func NCCLVersion(code int) (major, minor, patch int) {
	if code >= 10000 {
		return code / 10000, code % 10000 / 100, code % 100
	}
	return code / 1000, code % 1000 / 100, code % 100
}

// MultiProcess reports whether a library of this ncclGetVersion code is
// new enough for gpu/collective's ranks in several processes: NCCL 2.23 or
// later, which has ncclCommInitRankScalable.
func MultiProcess(code int) bool { return code >= scalableVersion }

// collectives reports each collective library's version and whether
// collectives across processes work with it. A missing library is a
// finding, not a failure: collectives then run on cpu agents only.
func (c *checker) collectives() {
	for _, o := range c.rt.Collectives {
		name := o.Lib.Name
		for _, l := range collectiveLibs {
			if l.lib == o.Lib {
				name = l.name
			}
		}
		vendor := map[string]string{"nvidia": "NVIDIA", "amd": "AMD"}[o.Lib.Vendor]
		switch {
		case o.Err != nil && o.Info.Path == "":
			if c.relevant[o.Lib.Vendor] {
				c.add(Warn, name, o.Lib.Hint+" (2.23 or later), or set "+o.Lib.Env+" to its path",
					"not loaded (see %s), so collectives on %s GPUs are unavailable; gpu/collective runs on cpu agents only", o.Lib.Name, vendor)
			} else {
				c.add(OK, name, "", "not installed; needed only for collectives on %s GPUs", vendor)
			}
		case o.Err != nil:
			c.add(Warn, name, "", "%s: version unknown (%v)", o.Info.Path, o.Err)
		default:
			major, minor, patch := NCCLVersion(o.Info.Version)
			v := fmt.Sprintf("%s %d.%d.%d (%s)", name, major, minor, patch, o.Info.Path)
			// The symbol decides, as it does in gpu/collective; the
			// version says why it is missing.
			switch {
			case o.Info.Scalable:
				c.add(OK, name, "", "%s: collectives in one process (NewAll) and across processes (NewRank, FromEnv)", v)
			case MultiProcess(o.Info.Version):
				c.add(Warn, name, fmt.Sprintf("use another %s build, or set %s to one", name, o.Lib.Env),
					"%s: reports 2.23 or later but lacks ncclCommInitRankScalable, so collectives across processes (NewRank, FromEnv) fail; in one process (NewAll) they work", v)
			default:
				c.add(Warn, name, fmt.Sprintf("install %s 2.23 or later, or set %s to one", name, o.Lib.Env),
					"%s: collectives in one process (NewAll) work; across processes (NewRank, FromEnv) they need ncclCommInitRankScalable, from 2.23 on (ncclCommInitRank takes its ID by value, which purego cannot pass)", v)
			}
		}
	}
}
