# Thin wrappers over the go command; CI (.ci/run) calls the same targets.
GO        ?= go
PKGS      ?= ./...
FUZZTIME  ?= 10m
BENCHTIME ?= 1s
COUNT     ?= 1

.PHONY: all test test-go test-purego vet fmt check-fmt generate check-generate bench bench-smoke fuzz fuzz-smoke demo clean

all: test

## test: everything CI checks: formatting, generated code, vet (amd64 and arm64), tests (default and purego)
test: check-fmt check-generate vet test-go test-purego bench-smoke

test-go:
	$(GO) test -count=1 $(PKGS)

test-purego:
	$(GO) test -count=1 -short -tags purego,noasm $(PKGS)

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

bench-smoke:
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)

## fuzz: each fuzz target for FUZZTIME
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseVsOracle$$' -fuzztime $(FUZZTIME) ./fuzz

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
