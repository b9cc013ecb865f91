package undef

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func box3(t kernel.Thread, x []float32) {
	if i := t.GlobalX(); i < len(x) {
		x[i] *= 3
	}
}

// Box3 calls the launcher hipgo-gen writes, from the kernel's own file.
func Box3() error { return LaunchBox3() }
