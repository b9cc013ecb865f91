package bad

import "github.com/hipgo/hipgo/rocr/kernel"

func five() (int32, int32, int32, int32, int32) { return 1, 2, 3, 4, 5 }

func pair() (int32, int32) { return 1, 2 }

func sum2(a, b int32) int32 { return a + b }

//hipgo:kernel
func Results(t kernel.Thread, x []int32) {
	a, _, _, _, _ := five()
	x[0] = a + sum2(pair())
}
