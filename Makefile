# hipgo: a HIP-style GPU compute framework for Go.
GO       ?= go
PKGS     ?= ./...
GPU_OUT  ?= gpu-tests
GPU_PKGS ?= ./...
BENCH_COUNT ?= 6
BENCH_CPU   ?= 1,2

.PHONY: fftrand-pack gokernels-pack prims-pack run test test-allocs test-json vet bench lint kernels kernels-check gpu-tests gpu-tests-pack stress fuzz

# The vector add of the HIP programming guide, on the default device.
run:
	$(GO) run ./examples/vector_add

# The benchmark report is its own module, so plotting and its fonts stay out
# of the library's go.mod; ./... does not reach it, so vet and test name it.
REPORT   ?= benchmarks/report

# vet, every test under the race detector, then the allocation tests,
# which skip under it.
test: vet
	$(GO) test -race -count=1 -timeout 30m $(PKGS)
	$(GO) -C $(REPORT) test -count=1 ./...
	$(MAKE) --no-print-directory test-allocs
	$(MAKE) --no-print-directory test-json

# Every allocation test is named Test...Allocs and skips under -race, whose
# instrumentation allocates: they run here without it.
ALLOCS_RUN ?= Allocs$$
test-allocs:
	$(GO) test -count=1 -run '$(ALLOCS_RUN)' $(PKGS)

# go test -json, as IDEs and gotestsum run tests, makes os.Stderr
# os.Stdout; a package whose tests capture what it prints runs under it,
# so that they keep passing there. The JSON goes to JSON_OUT. It runs under
# -race, as make test does: the allocation tests, which count every
# goroutine's allocations, run alone in test-allocs.
JSON_PKGS ?= ./gpu/module
JSON_OUT  ?= $(or $(TMPDIR),/tmp)/hipgo-test-json.out
test-json:
	@$(GO) test -race -json -count=1 $(JSON_PKGS) > $(JSON_OUT) || { \
	  grep '"Action":"fail"' $(JSON_OUT); echo "test-json: go test -json failed; its output is in $(JSON_OUT)" >&2; exit 1; }
	@echo "test-json: $$(grep -c '"Action":"pass"' $(JSON_OUT)) passed under go test -json ($(JSON_PKGS))"

vet:
	$(GO) vet $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)
	$(GO) -C $(REPORT) vet ./...
	CGO_ENABLED=0 $(GO) -C $(REPORT) build -o /dev/null .

# The benchmark suite; raw output goes to benchmarks/results/<machine>-<date>/,
# the results folder scheme, and the report is written beside it.
BENCH_MACHINE ?= cpu
BENCH_DIR     ?= benchmarks/results/$(BENCH_MACHINE)-$(shell date -u +%Y%m%d)
bench: BENCH_OUT := $(BENCH_DIR)/suite-$(shell date -u +%H%M%S).txt
bench:
	mkdir -p $(BENCH_DIR)
	$(GO) test -run '^$$' -bench . -benchmem -count $(BENCH_COUNT) -cpu $(BENCH_CPU) -timeout 0 ./benchmarks/... | tee $(BENCH_OUT)
	$(GO) -C $(REPORT) run . $(CURDIR)/$(BENCH_OUT)

# staticcheck is part of lint, not optional: without it lint fails and says
# how to install it. .ci/run installs the same version.
STATICCHECK         ?= staticcheck
STATICCHECK_VERSION ?= v0.8.2
lint: vet
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)
	$(GO) mod tidy -diff
	$(GO) -C $(REPORT) mod tidy -diff
	@command -v $(STATICCHECK) >/dev/null || { \
	  echo "lint: $(STATICCHECK) not found; install it with" >&2; \
	  echo "  go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)" >&2; \
	  echo "and put $$($(GO) env GOPATH)/bin (or GOBIN) on PATH" >&2; exit 1; }
	$(STATICCHECK) ./...
	cd $(REPORT) && $(STATICCHECK) ./...

# Regenerate the kernel library's code objects and the reliability tests'
# PTX (needs clang-19).
kernels:
	sh internal/reliability/testdata/gen.sh
	bash examples/hip_kernel/build.sh
	$(GO) generate ./kernels ./examples/own_kernel ./benchmarks/gokernels ./gpu/gokernel/internal/faulty ./gpu/gokernel/internal/lockstep ./internal/conformancetest ./internal/gosemantics ./gpu/prim ./gpu/rand ./gpu/array ./examples/fuse

# Fail if the committed code objects differ from a fresh build.
kernels-check:
	sh internal/reliability/testdata/gen.sh
	bash examples/hip_kernel/build.sh
	$(GO) generate ./kernels ./examples/own_kernel ./benchmarks/gokernels ./gpu/gokernel/internal/faulty ./gpu/gokernel/internal/lockstep ./internal/conformancetest ./internal/gosemantics ./gpu/prim ./gpu/rand ./gpu/array ./examples/fuse
	git diff --exit-code -- kernels/gen kernels/kernels_gen.go internal/reliability/testdata examples/hip_kernel examples/own_kernel benchmarks/gokernels gpu/gokernel/internal/faulty gpu/gokernel/internal/lockstep internal/conformancetest internal/gosemantics gpu/prim gpu/rand gpu/array examples/fuse

# Test binaries of every package for a machine without Go (the H200). A
# package whose test binary does not build fails the target (after every
# package was tried, each failure with its compiler output); a package
# with no tests is listed in left-out.txt with the reason, as
# gpu-tests-pack lists the ones it drops.
gpu-tests:
	rm -rf $(GPU_OUT) && mkdir -p $(GPU_OUT)
	@failed=""; for p in $$($(GO) list $(GPU_PKGS)); do \
	  d=$$(echo $$p | sed 's|^github.com/hipgo/hipgo$$|.|; s|github.com/hipgo/hipgo/||'); \
	  n=$$(echo $$p | sed 's|github.com/hipgo/hipgo/||; s|/|_|g'); \
	  if ! CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o $(GPU_OUT)/$$n.test $$p > $(GPU_OUT)/build.log 2>&1; then \
	    echo "gpu-tests: the test binary of $$d does not build:" >&2; cat $(GPU_OUT)/build.log >&2; \
	    failed="$$failed $$d"; continue; \
	  fi; \
	  echo "$$n $$d" >> $(GPU_OUT)/packages.txt; \
	  [ -f $(GPU_OUT)/$$n.test ] || echo "$$n $$d: no test files" >> $(GPU_OUT)/left-out.txt; \
	done; rm -f $(GPU_OUT)/build.log; \
	if [ -n "$$failed" ]; then echo "gpu-tests: test binaries that do not build:$$failed" >&2; exit 1; fi
	cp kernels/gen/kernels_sm90.ptx $(GPU_OUT)/
	CGO_ENABLED=0 $(GO) build -ldflags='-s -w' -o $(GPU_OUT)/vector_add ./examples/vector_add
	@echo "gpu-tests: $$(ls $(GPU_OUT)/*.test 2>/dev/null | wc -l) test binaries; left out:"; cat $(GPU_OUT)/left-out.txt 2>/dev/null || true

# The test binaries compressed to fit the device tool's 64 MiB transfer;
# on the H200: OUT=out bash benchmarks/peers/gpu_suite.sh gpu-pack/gpu-tests.tar.xz
# Packages that never open a device stay out (CI runs them): with them
# the pack is over the limit. Each is named in left-out.txt, which the
# suite copies into its results.
CPU_ONLY ?= rocr_codeobj internal_cabitest cmd_hipgo-gen internal_clangtool \
	internal_kernelgen internal_errtext internal_clayout internal_hostref \
	internal_rocrhook internal_testenv internal_visible internal_devprintf \
	internal_vendorlib rocr_hsa rocr_aql \
	rocr_internal_amdgpu rocr_internal_shm gpu_internal_debug
gpu-tests-pack: gpu-tests
	mkdir -p gpu-pack && rm -f gpu-pack/gpu-tests.tar.xz
	for n in $(CPU_ONLY); do \
	  if [ -f $(GPU_OUT)/$$n.test ]; then rm $(GPU_OUT)/$$n.test; \
	    echo "$$n $$(awk -v n=$$n '$$1 == n { print $$2 }' $(GPU_OUT)/packages.txt): opens no device (CPU_ONLY; CI runs it)" >> $(GPU_OUT)/left-out.txt; fi; \
	done
	tar -cf - $(GPU_OUT) | xz -T8 -9e > gpu-pack/gpu-tests.tar.xz
	ls -l gpu-pack/gpu-tests.tar.xz

# The Go kernels' tests and benchmarks for the H200, beside their nvcc
# peer; there: tar -xJf gpu-pack/gokernels.tar.xz && OUT=out bash gokernels-pack/gokernels.sh
GOKERNEL_PKGS ?= ./benchmarks/gokernels ./examples/own_kernel ./rocr/kernel ./gpu/gokernel
gokernels-pack:
	rm -rf gokernels-pack && mkdir -p gokernels-pack gpu-pack
	for p in $$($(GO) list $(GOKERNEL_PKGS)); do \
	  d=$$(echo $$p | sed 's|github.com/hipgo/hipgo/||'); n=$$(echo $$d | sed 's|/|_|g'); \
	  CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o gokernels-pack/$$n.test $$p || exit 1; \
	  echo "$$n $$d" >> gokernels-pack/packages.txt; \
	done
	cp benchmarks/peers/gokernels.sh benchmarks/peers/gokernels_peer.cu benchmarks/peers/gokernels_summary.py gokernels-pack/
	tar -cJf gpu-pack/gokernels.tar.xz gokernels-pack

# gpu/prim's tests and benchmarks beside CUB and CuPy, for a GPU machine
# (benchmarks/peers/prims.sh says what comes back); there:
# OUT=out bash prims-pack/prims.sh, with CPU_BENCH=1 for the cpu agent too.
prims-pack:
	rm -rf prims-pack && mkdir -p prims-pack
	CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o prims-pack/prim.test ./gpu/prim
	xz -T2 -6 prims-pack/prim.test
	cp benchmarks/peers/prims.sh benchmarks/peers/profile_prims.sh benchmarks/peers/prims_cub.cu benchmarks/peers/prims_cupy.py benchmarks/peers/prims_summary.py prims-pack/

# gpu/fft's and gpu/rand's tests and benchmarks beside cupy.fft (cuFFT) and
# cuRAND's Philox through CuPy, interleaved, for a GPU machine
# (benchmarks/peers/fftrand.sh says what comes back); there:
# OUT=out bash fftrand-pack/fftrand.sh
fftrand-pack:
	rm -rf fftrand-pack && mkdir -p fftrand-pack
	CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o fftrand-pack/fft.test ./gpu/fft
	CGO_ENABLED=0 $(GO) test -c -ldflags='-s -w' -o fftrand-pack/rand.test ./gpu/rand
	xz -T2 -6 fftrand-pack/fft.test fftrand-pack/rand.test
	cp benchmarks/peers/fftrand.sh benchmarks/peers/fftrand_cupy.py benchmarks/peers/fftrand_summary.py fftrand-pack/
	@test $$(cat fftrand-pack/* | wc -c) -lt 30000000 || { echo "fftrand-pack: over 30 MB" >&2; exit 1; }
	@echo "fftrand-pack: $$(cat fftrand-pack/* | wc -c) bytes"

stress:
	HIPGO_STRESS=large $(GO) test -race -count=1 -run Stress -timeout 60m ./...

fuzz:
	bash .ci/fuzz
