// Package benchmarks is hipgo's benchmark suite: the numbers a user compares
// frameworks by, measured on whatever device hipgo selects (gpu.Default;
// HIPGO_DRIVER=cpu|cuda|rocm forces a driver) and set beside the peer a user
// would use instead, in the same run.
//
// Every benchmark is named Benchmark<Family>/impl=<impl>/<param>=<value>.
// An impl whose name starts with "hipgo" is hipgo's; any other is a peer
// (goloop, gonum, memmove, goheap, goroutine). The program in report pairs
// them by family and parameters and writes tables and plots:
//
//	mkdir -p benchmarks/results/cpu-$(date -u +%Y%m%d)
//	go test -run '^$' -bench . -benchmem -count 3 -cpu 1,2 -timeout 0 ./benchmarks | tee benchmarks/results/cpu-$(date -u +%Y%m%d)/suite.txt
//	go -C benchmarks/report run . ../results/cpu-YYYYMMDD/suite.txt
//
// Each run's files go into one folder, benchmarks/results/<machine>-<date>/.
//
// The package has no code outside its tests; this file documents it. See
// README.md for what each benchmark measures.
package benchmarks
