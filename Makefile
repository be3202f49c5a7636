# Thin wrappers over the go command; CI (.ci/run) calls the same targets.
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 10m
BENCHTIME ?= 1s
COUNT     ?= 1


.PHONY: test-bench-module fuzz-arm64 test-redis

## test-redis: the seen.Redis tests against the servers .ci/redis.sh starts (apt-get install redis-server)
test-redis:
	env_=$$(.ci/redis.sh) && eval "$$env_" && URISCAN_REDIS_REQUIRE=1 $(GO) test -count=1 -run Redis -v ./seen
.PHONY: test-race
.PHONY: all test test-go test-purego test-nosimd test-arm64 vet fmt check-fmt generate check-generate bench bench-kernels bench-smoke fuzz fuzz-smoke demo clean

# The kernel dispatch should pick natively: avx512 > avx2 > generic.
NATIVE_KERNEL := $(shell grep -qw avx512vbmi /proc/cpuinfo 2>/dev/null && grep -qw avx512bw /proc/cpuinfo && echo avx512 || (grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo avx2 || echo generic))
# The batch assembly runs wherever the CPU has BMI2 (amd64).
NATIVE_BATCH := $(shell grep -qw bmi2 /proc/cpuinfo 2>/dev/null && echo bmi2 || echo go)
KERNEL_TESTS := 'Kernel|Expected|LineScanner|Parse|Classify|Agree'

all: test

## test: everything CI checks: formatting, generated code, vet (amd64 and arm64),
## tests with every kernel this CPU has, the GODEBUG and purego legs, arm64 under qemu
test: check-fmt check-generate vet test-go test-nosimd test-purego test-arm64 test-race bench-smoke test-bench-module

# Native: every kernel the CPU offers is tested against the scalar one in
# each Kernel* test; URISCAN_EXPECT_KERNEL checks dispatch picked the best.
test-go:
	$(GO) run ./cmd/uriscan cpu
	URISCAN_EXPECT_KERNEL=$(NATIVE_KERNEL) URISCAN_EXPECT_BATCH=$(NATIVE_BATCH) $(GO) test -count=1 $(PKGS)

# Dispatch honours GODEBUG: each knob takes the kernels above it away.
test-nosimd:
ifeq ($(NATIVE_KERNEL),avx512)
	GODEBUG=cpu.avx512f=off URISCAN_EXPECT_KERNEL=avx2 $(GO) test -count=1 -run $(KERNEL_TESTS) .
endif
	GODEBUG=cpu.avx2=off URISCAN_EXPECT_KERNEL=generic URISCAN_EXPECT_BATCH=$(NATIVE_BATCH) $(GO) test -count=1 -run $(KERNEL_TESTS) .
	GODEBUG=cpu.bmi2=off URISCAN_EXPECT_BATCH=go $(GO) test -count=1 -run $(KERNEL_TESTS) .

# No assembly at all.
test-purego:
	URISCAN_EXPECT_KERNEL=generic URISCAN_EXPECT_BATCH=go $(GO) test -count=1 -short -tags purego,noasm $(PKGS)

# The race detector over the short tests (it needs cgo, so a C compiler).
test-race:
	$(GO) test -count=1 -short -race . ./cmd/... ./normalize/... ./seen/...

## test-arm64: the NEON kernel under qemu-aarch64-static (apt-get install qemu-user-static)
test-arm64:
	URISCAN_TEST_EXEC=qemu-aarch64-static URISCAN_EXPECT_KERNEL=neon URISCAN_EXPECT_BATCH=go GOARCH=arm64 $(GO) test -count=1 -short -exec qemu-aarch64-static $(PKGS)

## vet: go vet (asmdecl included) for both assembly architectures, default and purego
vet:
	GOARCH=amd64 $(GO) vet $(PKGS)
	GOARCH=arm64 $(GO) vet $(PKGS)
	GOARCH=amd64 $(GO) vet -tags purego,noasm $(PKGS)
	GOARCH=arm64 $(GO) vet -tags purego,noasm $(PKGS)

fmt:
	gofmt -w .

check-fmt:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

generate:
	$(GO) generate ./classify

## check-generate: the committed generated files equal what the generators write
check-generate:
	@cp classify/tables.go /tmp/uriscan-tables.go.$$$$ && \
	  (cd classify && $(GO) run gen_tables.go) && \
	  if ! cmp -s classify/tables.go /tmp/uriscan-tables.go.$$$$; then \
	    echo "classify/tables.go is stale: run make generate"; cp /tmp/uriscan-tables.go.$$$$ classify/tables.go; rm -f /tmp/uriscan-tables.go.$$$$; exit 1; fi; \
	  rm -f /tmp/uriscan-tables.go.$$$$

## bench: the benchmarks, with net/url in the same run (needs ../shared/data)
bench:
	$(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(COUNT) -benchmem .

## bench-kernels: per-kernel table (benchstat -col /impl)
bench-kernels:
	$(GO) test -run '^$$' -bench 'Classify|ScanLines' -benchtime $(BENCHTIME) -count $(COUNT) . | tee /tmp/uriscan-bench.txt
	$(GO) run golang.org/x/perf/cmd/benchstat@latest -col /impl /tmp/uriscan-bench.txt

bench-smoke:
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)

# The peer comparison module (bench/): vet and one pass of every benchmark,
# with the uriparser (cgo) peers when liburiparser-dev is installed.
BENCH_TAGS := $(shell test -e /usr/include/uriparser/Uri.h && echo uriparser)
test-bench-module:
	cd bench && $(GO) vet -tags '$(BENCH_TAGS)' ./... && $(GO) test -tags '$(BENCH_TAGS)' -count=1 -run . -bench . -benchtime 1x ./...

## fuzz: each fuzz target for FUZZTIME (FuzzKernels covers every kernel this CPU has)
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseVsOracle$$' -fuzztime $(FUZZTIME) ./fuzz
	$(GO) test -run '^$$' -fuzz '^FuzzKernels$$' -fuzztime $(FUZZTIME) ./fuzz
	$(GO) test -run '^$$' -fuzz '^FuzzLineScanner$$' -fuzztime $(FUZZTIME) ./fuzz
	$(GO) test -run '^$$' -fuzz '^FuzzHighway$$' -fuzztime $(FUZZTIME) ./fuzz
	$(GO) test -run '^$$' -fuzz '^FuzzHints$$' -fuzztime $(FUZZTIME) ./normalize

## fuzz-arm64: FuzzKernels for the NEON kernel under qemu. The fuzzer
## re-executes its own binary, so arm64 binaries must run directly: this
## registers qemu-aarch64 with binfmt_misc (root; qemu-user-static).
fuzz-arm64:
	test -e /proc/sys/fs/binfmt_misc/qemu-aarch64 || { mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register; }
	GOARCH=arm64 $(GO) test -run '^$$' -fuzz '^FuzzKernels$$' -fuzztime $(FUZZTIME) ./fuzz

fuzz-smoke:
	$(MAKE) fuzz FUZZTIME=20s

## demo: split and validate the bundled sample
demo:
	$(GO) run ./cmd/uriscan split testdata/sample.txt | head -n 5
	@echo ...
	-$(GO) run ./cmd/uriscan validate testdata/sample.txt
	@echo "(validate exits 1 because the sample holds invalid lines on purpose)"

clean:
	$(GO) clean -testcache
