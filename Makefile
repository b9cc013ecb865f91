# hipgo: a HIP-style GPU compute framework for Go.
GO       ?= go
PKGS     ?= ./...
GPU_OUT  ?= gpu-tests
BENCH_COUNT ?= 6

.PHONY: run test vet bench lint kernels kernels-check gpu-tests stress fuzz

# The vector add of the HIP programming guide, on the default device.
run:
	$(GO) run ./examples/vector_add

# vet, then every test under the race detector.
test: vet
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

vet:
	$(GO) vet $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)

# The benchmark suite; raw output goes to benchmarks/results/.
bench:
	mkdir -p benchmarks/results
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) ./benchmarks/... | tee benchmarks/results/bench-$$(date -u +%Y%m%d-%H%M%S).txt

lint: vet
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	@if command -v staticcheck >/dev/null; then staticcheck ./...; else echo "staticcheck not installed: go install honnef.co/go/tools/cmd/staticcheck@latest"; fi

# Regenerate the kernel library's code objects (needs clang-19).
kernels:
	bash kernels/build.sh

# Fail if the committed code objects differ from a fresh build.
kernels-check:
	bash kernels/build.sh
	git diff --exit-code -- kernels/gen

# Test binaries of every package for a machine without Go (the H200).
gpu-tests:
	rm -rf $(GPU_OUT) && mkdir -p $(GPU_OUT)
	for p in $$($(GO) list ./...); do \
	  n=$$(echo $$p | sed 's|github.com/hipgo/hipgo/||; s|/|_|g'); \
	  CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o $(GPU_OUT)/$$n.test $$p 2>/dev/null || true; \
	done
	ls $(GPU_OUT)

stress:
	HIPGO_STRESS=large $(GO) test -race -count=1 -run Stress -timeout 60m ./...

fuzz:
	bash .ci/fuzz
