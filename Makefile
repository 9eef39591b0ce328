# The targets CI runs. `make run` starts the worker on its embedded default; `make test` runs every test.
GO       ?= go
BIN      := bin
TOOLS    := $(CURDIR)/.tools
export GOFLAGS := -buildvcs=false

.PHONY: all build run test unit integration deploy-check bench lint tools clean

all: lint test

build:
	$(GO) build -o $(BIN)/worker ./cmd/worker

## run: the worker with an embedded nats-server (127.0.0.1:4222) and a local store under ./data
run: build
	./$(BIN)/worker run

## tools: the pinned MinIO server binary used by tests (built once into .tools/, ~3 min)
tools:
	./scripts/install-minio.sh

## test: every test, against a real embedded nats-server and a real MinIO process
test: tools
	$(GO) vet ./...
	$(GO) test -race -timeout 30m $$($(GO) list ./... | grep -v /integration)
	$(MAKE) integration
	$(MAKE) deploy-check

## integration: the multi-process suite only (also part of `make test`)
integration: tools
	$(GO) test -timeout 30m -count=1 -v ./integration/...

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
