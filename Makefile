# forge-conform: common tasks. `make help` lists them.
GO ?= go
BINARY ?=
# The specification documents (SRDs) are inputs you supply: SEEDS_DIR holds
# the ones that have a catalog in spec/catalog/. It defaults to
# $(FORGE_CONFORM_SRD_DIR), the variable the tests read.
SEEDS_DIR ?= $(FORGE_CONFORM_SRD_DIR)
SEEDS = LIST_DIRECTORY_SRD.md CODEX_LIST_DIR.md TOOL_EXECUTOR_SRD.md WRITE_FILE_SRD.md LP1.md SEARCH_FILES_SRD.md

.PHONY: help test conform golden fixtures spec-check lint bench mutate forge-ref clean

help:
	@echo "make test        go test ./... (the Ginkgo suite, testscript CLI tests, unit tests)"
	@echo "make conform     run the suite against the built-in reference (BINARY='cmd args' for another implementation)"
	@echo "make golden      regenerate golden/ from the reference, then review git diff golden/"
	@echo "make fixtures    materialize every fixture under ./_fixtures for inspection"
	@echo "make spec-check  diff the catalogs against the SRDs in SEEDS_DIR (default: \$$FORGE_CONFORM_SRD_DIR)"
	@echo "make lint        gofmt + go vet"
	@echo "make bench       benchmarks (corpus through the protocol, tools, sandbox, fixtures)"
	@echo "make mutate      mutation testing of impl/ against the corpus (~15 min; SEED=N, MUTATE_ARGS='-pkg impl/journal -v')"
	@echo "make forge-ref   build ./forge-ref, the reference alone over FCP/1 (static: CGO_ENABLED=0)"

test:
	$(GO) test ./...

conform:
ifeq ($(BINARY),)
	$(GO) run ./cmd/forge-conform
else
	$(GO) run ./cmd/forge-conform --binary '$(BINARY)'
endif

golden:
	$(GO) run ./cmd/forge-conform golden update --dir golden

fixtures:
	rm -rf _fixtures && mkdir -p _fixtures
	$(GO) run ./scripts/gen-fixtures -out _fixtures

spec-check:
	@if [ -z "$(SEEDS_DIR)" ]; then \
		echo "spec-check: SEEDS_DIR is empty: set FORGE_CONFORM_SRD_DIR (or pass SEEDS_DIR) to the folder holding the SRDs ($(SEEDS)), e.g. make spec-check SEEDS_DIR=path/to/seeds"; exit 2; fi
	@if [ ! -d "$(SEEDS_DIR)" ]; then \
		echo "spec-check: SEEDS_DIR=$(SEEDS_DIR) is not a directory: pass the folder holding the SRDs ($(SEEDS)), e.g. make spec-check SEEDS_DIR=path/to/seeds"; exit 2; fi
	$(GO) run ./cmd/forge-conform spec check $(addprefix --srd $(SEEDS_DIR)/,$(SEEDS))

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 5x ./conformance/runner/
	$(GO) test -run '^$$' -bench . ./impl/... ./scripts/... ./spec/...

SEED ?= 1
MUTATE_ARGS ?=
mutate:
	$(GO) run ./scripts/mutate -seed $(SEED) $(MUTATE_ARGS)

forge-ref:
	CGO_ENABLED=0 $(GO) build -o forge-ref ./cmd/forge-ref

clean:
	rm -rf _fixtures forge-ref
