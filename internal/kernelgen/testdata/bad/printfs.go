package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Printfs(t kernel.Thread, x []float32, n int32) {
	kernel.Printf(t, "%v\n", x[0])
	kernel.Printf(t, "%x\n", n)
	kernel.Printf(t, "%d %d\n", n)
	kernel.Printf(t, "%d\n", n, n)
	kernel.Printf(t, "%g\n", x[0])
	kernel.Printf(t, "%#x\n", uint32(n))
}
