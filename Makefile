# Thin wrappers over the go command; CI (.ci/run) calls the same targets.
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 10m
BENCHTIME ?= 1s
COUNT     ?= 1
# build: where the binary goes
BIN       ?= bin


.PHONY: test-bench-module fuzz-arm64 test-redis

## test-redis: the seen/redis tests against the servers .ci/redis.sh starts (apt-get install redis-server)
test-redis:
	env_=$$(.ci/redis.sh) && eval "$$env_" && URISCAN_REDIS_REQUIRE=1 $(GO) test -count=1 -v ./seen/redis
.PHONY: test-race
.PHONY: test-avx512-mutants
.PHONY: all build build-pebble install install-pebble check check-tidy test test-go test-nodata test-purego test-nosimd test-arm64 vet fmt check-fmt generate check-generate bench bench-kernels bench-smoke fuzz fuzz-smoke demo clean

# What each leg expects dispatch to choose; TestExpectedPaths checks all
# four (URISCAN_EXPECT_*) and the path tests below count the work each
# fast path takes. Natively: the kernel avx512 > avx2 > generic; the batch
# assembly where the CPU has BMI2; the normalizer's AVX2 hints pass where
# it has AVX2 and BMI2; HighwayHash's AVX2 assembly where it has AVX2.
has = $(shell grep -qw $(1) /proc/cpuinfo 2>/dev/null && echo yes)
NATIVE_KERNEL := $(if $(and $(call has,avx512vbmi),$(call has,avx512bw),$(call has,gfni)),avx512,$(if $(call has,avx2),avx2,generic))
NATIVE_BATCH  := $(if $(call has,bmi2),bmi2,go)
NATIVE_HINTS  := $(if $(and $(call has,avx2),$(call has,bmi2)),avx2,go)
NATIVE_HASH   := $(if $(call has,avx2),avx2,go)
# expect: URISCAN_EXPECT_* for kernel, batch path, hints path, hash path.
expect = URISCAN_EXPECT_KERNEL=$(1) URISCAN_EXPECT_BATCH=$(2) URISCAN_EXPECT_HINTS=$(3) URISCAN_EXPECT_HASH=$(4)
# The path tests count records per path; they need the uriscan_pathstats
# tag, which compiles the counters in (internal/pathstats).
PATH_TAGS  := -tags uriscan_pathstats
PATH_TESTS := Expected|FastPath|FastBatch|BatchAsm|HashPaths|SumPath
PATH_PKGS  := . ./urikey ./internal/highway
KERNEL_TESTS := Kernel|LineScanner|Parse|Classify|Agree

all: test

## build: the one binary, uriscan, into $(BIN) (every command and store but
## Pebble, which costs every run's start-up; build-pebble: with it)
build:
	$(GO) build -o $(BIN)/ ./cmd/uriscan
build-pebble:
	$(GO) build -tags pebble -o $(BIN)/ ./cmd/uriscan

## install: uriscan into $(go env GOBIN) or $(go env GOPATH)/bin (what
## go install github.com/uriscan/uriscan/cmd/uriscan@latest gives);
## install-pebble: the same with the Pebble store (pebble:DIR)
install:
	$(GO) install ./cmd/uriscan
install-pebble:
	$(GO) install -tags pebble ./cmd/uriscan

## check: the quick check before a commit (about 2 minutes on 2 cores):
## formatting, vet, and the library's tests with the best kernel (-short)
check: check-fmt
	$(GO) vet ./...
	$(GO) test -short -count=1 . ./domain ./format ./normalize/... ./urikey ./seen ./frontier

## test: everything CI checks: formatting, generated code, vet (amd64 and arm64),
## tests with every kernel this CPU has, the GODEBUG and purego legs, arm64 under qemu
test: check-fmt check-tidy check-generate vet test-go test-nodata test-nosimd test-purego test-arm64 test-race test-avx512-mutants bench-smoke test-bench-module fuzz-smoke

## check-tidy: every go.mod and go.sum of the repository is what go mod tidy
## writes (CI sets no GOFLAGS=-mod=mod, so an untidy module fails the build
## as it would for a user; this names the module and shows the change)
GOMODS := $(shell find . -name go.mod -not -path './testdata/*' -not -path '*/testdata/*' | sort)
check-tidy:
	@for m in $(GOMODS); do d=$$(dirname $$m); \
	  (cd $$d && $(GO) mod tidy -diff) || { echo "$$m is not tidy: run (cd $$d && go mod tidy)"; exit 1; }; done

## test-nodata: the tests of every package that reads ../shared/data, again
## with URISCAN_DATA=none (as on a clone with nothing beside it), so that
## each fallback to the bundled sample runs in CI too
NODATA_PKGS = $(shell $(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' $(PKGS) | awk '/internal\/(shareddata|urlcorpus)( |$$)/ {print $$1}')
test-nodata:
	URISCAN_DATA=none $(GO) test -count=1 -short $(NODATA_PKGS)

# Native: every kernel the CPU offers is tested against the scalar one in
# each Kernel* test; the URISCAN_EXPECT_* variables check dispatch picked
# the best of each.
NATIVE_EXPECT = $(call expect,$(NATIVE_KERNEL),$(NATIVE_BATCH),$(NATIVE_HINTS),$(NATIVE_HASH))
test-go: build
	$(BIN)/uriscan cpu
	$(NATIVE_EXPECT) $(GO) test -count=1 $(PKGS)
	$(NATIVE_EXPECT) $(GO) test -count=1 $(PATH_TAGS) -run '$(PATH_TESTS)' $(PATH_PKGS)
	$(GO) test -count=1 $(PATH_TAGS) -run 'FastPathNothingUnasked' ./internal/cli
	$(GO) test -count=1 -tags pebble ./internal/cli ./cmd/uriscan

# Dispatch honours GODEBUG: each knob takes the paths that need it away.
# These legs run the kernel and path tests with the counters compiled in.
test-nosimd:
ifeq ($(NATIVE_KERNEL),avx512)
	GODEBUG=cpu.avx512f=off $(call expect,avx2,$(NATIVE_BATCH),$(NATIVE_HINTS),$(NATIVE_HASH)) $(GO) test -count=1 $(PATH_TAGS) -run '$(KERNEL_TESTS)|$(PATH_TESTS)' $(PATH_PKGS)
endif
	GODEBUG=cpu.avx2=off $(call expect,generic,$(NATIVE_BATCH),go,go) $(GO) test -count=1 $(PATH_TAGS) -run '$(KERNEL_TESTS)|$(PATH_TESTS)' $(PATH_PKGS)
	GODEBUG=cpu.bmi2=off $(call expect,$(NATIVE_KERNEL),go,go,$(NATIVE_HASH)) $(GO) test -count=1 $(PATH_TAGS) -run '$(KERNEL_TESTS)|$(PATH_TESTS)' $(PATH_PKGS)

# No assembly at all.
PUREGO_EXPECT = $(call expect,generic,go,go,go)
# One tag, purego, in every package; noasm is its alias (the path tests run
# under it, so that a file that names only one of them fails here).
test-purego:
	$(PUREGO_EXPECT) $(GO) test -count=1 -short -tags purego $(PKGS)
	$(PUREGO_EXPECT) $(GO) test -count=1 -tags noasm,uriscan_pathstats -run '$(PATH_TESTS)' $(PATH_PKGS)

## test-avx512-mutants: the interpreted AVX-512 test (TestAVX512Interpreted,
## which runs in test-go on every amd64 CPU) must fail on each of a set of
## broken copies of the kernel, and pass on the unchanged one.
test-avx512-mutants:
	$(GO) run ./internal/avx512sim/mutants

# The race detector over the short tests (it needs cgo, so a C compiler),
# in the packages that start goroutines or share state between them. The
# root package starts none (its tests are a third of this leg's time).
test-race:
	$(GO) test -count=1 -short -race ./cmd/... ./internal/cli/... ./internal/lineio/... ./frontier/... ./normalize/... ./urikey/... ./seen/...

## test-arm64: the NEON kernel under qemu-aarch64-static (apt-get install qemu-user-static)
## The child processes of tests (seen's crash test) run through the same
## wrapper (internal/testexec), so no binfmt_misc entry is needed. The
## command's package (internal/cli, pure Go above the library) runs only
## its arm64-specific test here (TestCPU: the features dispatch reads):
## the rest of it takes four minutes under qemu and tests nothing the
## library's own tests under qemu and the amd64 legs do not.
ARM64_EXPECT = URISCAN_TEST_EXEC=qemu-aarch64-static $(call expect,neon,go,go,go) GOARCH=arm64
ARM64_PKGS   = $(shell $(GO) list $(PKGS) | grep -v '/internal/cli$$')
test-arm64:
	$(ARM64_EXPECT) $(GO) test -count=1 -short -exec qemu-aarch64-static $(ARM64_PKGS)
	$(ARM64_EXPECT) $(GO) test -count=1 -short -exec qemu-aarch64-static -run '^TestCPU$$' ./internal/cli
	$(ARM64_EXPECT) $(GO) test -count=1 $(PATH_TAGS) -exec qemu-aarch64-static -run '$(PATH_TESTS)' $(PATH_PKGS)

## vet: go vet (asmdecl included) for both assembly architectures, default and purego
vet:
	GOARCH=amd64 $(GO) vet $(PKGS)
	GOARCH=arm64 $(GO) vet $(PKGS)
	GOARCH=amd64 $(GO) vet -tags purego $(PKGS)
	GOARCH=arm64 $(GO) vet -tags noasm $(PKGS)
	GOARCH=amd64 $(GO) vet -tags pebble ./internal/cli/... ./cmd/...

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

## fuzz: every fuzz target of the module for FUZZTIME each. .ci/fuzz.sh fails
## unless FUZZ_TARGETS is exactly what go test -list finds. FuzzKernels covers
## every kernel this CPU has, FuzzAVX512Interpreted the interpreted AVX-512
## kernel on any amd64 CPU.
FUZZ_TARGETS := .:FuzzAVX512Interpreted .:FuzzFastBatch .:FuzzKernels .:FuzzParseFast .:FuzzScanInvalid \
	./fuzz:FuzzParseVsOracle ./fuzz:FuzzLineScanner ./fuzz:FuzzHighway \
	./fuzz:FuzzNormalize ./fuzz:FuzzRepair ./fuzz:FuzzStream ./fuzz:FuzzLineLimit ./fuzz:FuzzExtract ./fuzz:FuzzResolve ./fuzz:FuzzWarnings ./normalize:FuzzHints \
	./fuzz:FuzzParse2396 ./fuzz:FuzzResolve2396 ./fuzz:FuzzW3lib ./fuzz:FuzzSafeBrowsing ./fuzz:FuzzSURT \
	./logformat:FuzzParseCombined ./logformat:FuzzCombinedRoundTrip ./logformat:FuzzJSONField ./format:FuzzFormat ./internal/cli:FuzzAppendQuote
fuzz:
	GO=$(GO) .ci/fuzz.sh $(FUZZTIME) $(FUZZ_TARGETS)

## fuzz-arm64: FuzzKernels for the NEON kernel under qemu. The fuzzer
## re-executes its own binary, so arm64 binaries must run directly: this
## registers qemu-aarch64 with binfmt_misc (root; qemu-user-static).
fuzz-arm64:
	test -e /proc/sys/fs/binfmt_misc/qemu-aarch64 || { mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; cat /usr/lib/binfmt.d/qemu-aarch64.conf > /proc/sys/fs/binfmt_misc/register; }
	GOARCH=arm64 $(GO) test -run '^$$' -fuzz '^FuzzKernels$$' -fuzztime $(FUZZTIME) .

## fuzz-smoke: every fuzz target for 30000 executions (a few seconds; CI), so
## that one that no longer builds or fails at once fails CI. A count, not a
## duration: go1.26's coordinator can fail a duration run at its deadline with
## "context deadline exceeded" and no input (golang/go#75804); a count has no
## deadline to race.
FUZZ_SMOKE ?= 30000x
fuzz-smoke:
	GO=$(GO) .ci/fuzz.sh $(FUZZ_SMOKE) $(FUZZ_TARGETS)

## demo: split and validate the bundled sample (with a binary built once,
## so that head closing the pipe and validate's exit status 1 read cleanly)
DEMO_BIN := $(or $(TMPDIR),/tmp)/uriscan-demo
demo:
	@$(GO) build -o $(DEMO_BIN) ./cmd/uriscan
	@echo '$$ uriscan split testdata/sample.txt | head -n 3'
	@$(DEMO_BIN) split testdata/sample.txt | head -n 3
	@echo '$$ uriscan validate testdata/sample.txt'
	@$(DEMO_BIN) validate testdata/sample.txt; status=$$?; \
	  echo "(exit status $$status: the sample holds invalid lines on purpose)"; test $$status -eq 1

clean:
	$(GO) clean -testcache
