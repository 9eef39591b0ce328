# The targets CI runs. `make run` starts the worker on its embedded default; `make test` runs every test.
GO       ?= go
BIN      := bin
TOOLS    := $(CURDIR)/.tools
export GOFLAGS := -buildvcs=false

.PHONY: all build run test unit integration deploy-check bench lint tools js-deps clean

all: lint test

build:
	$(GO) build -o $(BIN)/worker ./cmd/worker

## run: the worker with an embedded nats-server (127.0.0.1:4222) and a local store under ./data
run: build
	./$(BIN)/worker run

## tools: the pinned MinIO server binary used by tests (built once into .tools/, ~3 min)
tools:
	./scripts/install-minio.sh

## js-deps: the pinned npm packages of clients/js (npm ci from package-lock.json; again only when it changes)
JS := clients/js
js-deps: $(JS)/node_modules/.installed
$(JS)/node_modules/.installed: $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## test: every test, against a real embedded nats-server and a real MinIO process
test: tools js-deps
	$(GO) vet ./...
	$(GO) test -race -timeout 30m $$($(GO) list ./... | grep -v /integration)
	$(MAKE) integration
	$(MAKE) deploy-check

## integration: the multi-process suite only (also part of `make test`)
integration: tools js-deps
	ARTIFACT_WORKER_REQUIRE_JS=1 $(GO) test -timeout 30m -count=1 -v ./integration/...

## bench: benchmarks; results and the command go to BENCHMARKS.md
## deploy-check: deployment files parse strictly and line up with the code (nested module deployments/)
deploy-check:
	cd deployments && $(GO) vet ./... && $(GO) test -count=1 ./...

bench: tools
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s -timeout 30m ./bench/... ./handlers/... ./routing/... ./historyimage/...

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

clean:
	rm -rf $(BIN)
