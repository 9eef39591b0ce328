# The targets CI runs. `make run` starts the worker on its embedded default; `make test` runs every test.
GO       ?= go
BIN      := bin
TOOLS    := $(CURDIR)/.tools
export GOFLAGS := -buildvcs=false

.PHONY: all build run check test unit integration deploy-check sdk-check image image-check fuzz bench footprint bench-floor soak lint tools js-deps mcp-deps py-deps clean
.PHONY: tool-minio tool-versitygw tool-natscli buildah-install test-lanes test-race-lane test-integration-lane test-image-lane

all: lint test

# The commit `worker version` prints (GOFLAGS=-buildvcs=false keeps Go from stamping it).
LDFLAGS := -X github.com/agentworks/artifact-worker/internal/buildinfo.Commit=$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

## build: bin/worker, static (CGO_ENABLED=0): it runs on any Linux and in the scratch image
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/worker ./cmd/worker

## run: the worker with an embedded nats-server (127.0.0.1:4222) and a local store under ./data
run: build
	./$(BIN)/worker run

## tools: the pinned MinIO server, versitygw and nats CLI binaries used by tests (built once into .tools/, ~5 min;
## `make -j3 tools` builds them side by side, as `make test` does)
tools: tool-minio tool-versitygw tool-natscli
tool-minio:
	./scripts/install-minio.sh
tool-versitygw:
	./scripts/install-versitygw.sh
tool-natscli:
	./scripts/install-natscli.sh

## js-deps: the pinned npm packages of clients/js (npm ci from package-lock.json; again only when it changes)
JS := clients/js
js-deps: $(JS)/node_modules/.installed
$(JS)/node_modules/.installed: $(JS)/package.json $(JS)/package-lock.json
	cd $(JS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## mcp-deps: the pinned npm packages of mcpserver/conformance (the 2.x MCP client, the MCP
## conformance suite and the Node.js 22 it needs; npm ci from package-lock.json)
MCPJS := mcpserver/conformance
mcp-deps: $(MCPJS)/node_modules/.installed
$(MCPJS)/node_modules/.installed: $(MCPJS)/package.json $(MCPJS)/package-lock.json
	cd $(MCPJS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## py-deps: python3 (3.9+) for the Python client's tests, from Debian when missing; no pip packages
## (nats-py comes from clients/python/third_party when it is not installed)
py-deps:
	./scripts/install-python.sh

## test: every test, against a real embedded nats-server and a real MinIO process; the objectstore
## contract suite and the get_artifact and file_written e2e tests also against versitygw.
## Three lanes run side by side (each lane's output is printed whole when the lane ends):
##   race:        go vet, the race-enabled unit and e2e tests of every package but integration/
##                (their MinIO and versitygw installed on demand by internal/testing/miniotest);
##   integration: the tools, npm and python3 installs, then `make integration`, deploy-check, sdk-check,
##                the versitygw pass of service (off the race lane, the longest), and the pdfpages test
##                that compiles the renderer's module cold (about 50 s under -race, 5 s without);
##   image:       buildah installed meanwhile, then image-check once the integration lane is done.
## Most of these tests wait on processes, sockets and timers more than they compute: one after the
## other they kept one of two cores busy on average (BENCHMARKS.md, "Gates").
test:
	@$(MAKE) --no-print-directory -j4 --output-sync=target test-lanes

test-lanes: test-race-lane test-integration-lane test-image-lane

UNIT_PKGS = $$($(GO) list ./... | grep -v /integration)
# The race lane's packages, longest first (go test starts them in this order, two at a time), so
# that the run does not end on one long package alone: the five that took longest under -race
# (BENCHMARKS.md, "Gates"), then every other.
SLOW_PKGS := ./service ./historyimage ./replay ./cmd/worker ./messaging
RACE_PKGS = $$({ $(GO) list $(SLOW_PKGS) && $(GO) list ./... | grep -v /integration; } | awk '!seen[$$0]++')

test-race-lane:
	$(GO) vet ./...
	$(GO) test -race -timeout 30m $(RACE_PKGS)

test-integration-lane: tool-minio tool-natscli tool-versitygw js-deps mcp-deps py-deps
	$(INTEGRATION_TEST)
	$(DEPLOY_CHECK)
	$(SDK_CHECK)
	S3_TEST_SERVER=versitygw $(GO) test -race -count=1 -timeout 15m -run '^(TestGetArtifact|TestWorkspace)' ./service
	$(GO) test -count=1 -timeout 5m -run '^TestRestartReadsTheCompiledModule$$' ./pdfpages

test-image-lane: test-integration-lane buildah-install
	$(IMAGE_CHECK)

# buildah from Debian's packages, when missing (after py-deps: apt-get runs one at a time)
buildah-install: py-deps
	@./scripts/install-buildah.sh >/dev/null

## unit: the fast tier: every test of the worker's module but integration/, with -short: the tests that
## need a MinIO process, a NATS cluster, buildah or npm packages skip (each says why), nothing is
## installed; embedded nats-servers run. Under 2 minutes on a 2-core machine (BENCHMARKS.md).
unit:
	$(GO) test -short -count=1 -timeout 5m $(UNIT_PKGS)

## check: what to run before a commit, without installing anything: gofmt, go vet and `make unit`
## (staticcheck is `make lint`, which installs it)
check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(MAKE) unit

## integration: the multi-process suite only (also part of `make test`)
integration: tools js-deps mcp-deps py-deps
	$(INTEGRATION_TEST)
INTEGRATION_TEST = ARTIFACT_WORKER_REQUIRE_JS=1 ARTIFACT_WORKER_REQUIRE_PYTHON=1 $(GO) test -timeout 30m -count=1 -parallel 5 -v ./integration/...

## bench: benchmarks; results and the command go to BENCHMARKS.md
## deploy-check: deployment files parse strictly and line up with the code (nested module deployments/)
deploy-check:
	$(DEPLOY_CHECK)
DEPLOY_CHECK = cd deployments && $(GO) vet ./... && $(GO) test -count=1 ./...

## sdk-check: every dialect's assembly decodes into the providers' official SDK types (nested module
## sdkcheck/, so the worker never links the SDKs)
sdk-check:
	$(SDK_CHECK)
SDK_CHECK = cd sdkcheck && $(GO) vet ./... && $(GO) test -count=1 ./...

## image: the container image artifact-worker:dev from the static bin/worker (deployments/Dockerfile.prebuilt);
## buildah is installed (Debian package) when missing, as for image-check
image: build
	@reason="$$(./scripts/install-buildah.sh)"; if [ -n "$$reason" ]; then echo "make image: $$reason" >&2; exit 1; fi
	./scripts/image-context.sh $(BIN)/worker $(BIN)/image
	buildah bud --isolation chroot -f deployments/Dockerfile.prebuilt -t artifact-worker:dev $(BIN)/image

## image-check: builds the image with buildah (the Debian package, installed when missing), checks the
## Compose file and manifests against it, runs `worker version` and `worker run` from it against a test
## NATS and MinIO until a get_artifact is answered (skips, saying why, only when buildah cannot be installed).
## Its 20m include the static (CGO_ENABLED=0) build of the worker (on a fresh clone it can rebuild most dependencies,
## minutes on a loaded 2-core machine).
image-check: tools
	$(IMAGE_CHECK)
IMAGE_CHECK = @reason="$$(./scripts/install-buildah.sh)"; \
	ARTIFACT_WORKER_IMAGE_CHECK=1 ARTIFACT_WORKER_BUILDAH_UNAVAILABLE="$$reason" \
	  $(GO) test -count=1 -v -timeout 20m -run '^TestImage$$' ./integration/

## fuzz: every fuzz target for FUZZTIME each (default 10m; about 2.5 h for the 15 targets one after
## the other, half that with FUZZJOBS=2); not part of `make test`. Failing inputs land in the
## package's testdata/fuzz/.
FUZZTIME ?= 10m
FUZZJOBS ?= 1
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZJOBS=$(FUZZJOBS) ./scripts/fuzz.sh

bench: tools
	./scripts/install-poppler.sh
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s -timeout 30m ./bench/... ./handlers/... ./routing/... ./historyimage/... ./imaging/... ./extract/... ./llmservices/... ./pdfpages/...

## footprint: the static binary's size, start to ready and idle RSS of `worker run` for two builds side
## by side (scripts/footprint.sh): FOOTPRINT_BASE (default ff722b1^, the commit before the PDF renderer)
## against HEAD, three starts each. Not part of `make test`.
FOOTPRINT_BASE ?= ff722b1^
footprint:
	./scripts/footprint.sh '$(FOOTPRINT_BASE)' 3 20

## bench-floor: the worker (`worker run`) against a hand-built pipeline (bench/floor/cmd/floor), both
## separate processes on one nats-server process (built from go.mod's version) and one MinIO; not part
## of `make test`. BENCH_FLOOR_ARGS passes flags, e.g. -only latency -rounds 10 (see bench/floor/main.go);
## WORKER_TAGS=pprof with BENCH_FLOOR_ARGS='-worker-env PPROF_ADDR=127.0.0.1:6060' serves /debug/pprof.
WORKER_TAGS ?=
bench-floor: tools
	$(GO) build -o $(TOOLS)/bin/nats-server.$$$$ github.com/nats-io/nats-server/v2 && mv -f $(TOOLS)/bin/nats-server.$$$$ $(TOOLS)/bin/nats-server
	$(GO) build -tags "$(WORKER_TAGS)" -o $(BIN)/worker ./cmd/worker
	$(GO) build -o $(BIN)/floor ./bench/floor/cmd/floor
	$(GO) run ./bench/floor -bin $(BIN) -nats-server $(TOOLS)/bin/nats-server $(BENCH_FLOOR_ARGS)

## soak: `worker run` on its embedded default under 15 minutes of mixed traffic (claim-checked
## images both ways, context.preprocess, file_written, history-cache hits and misses, unknown model
## names, dead letters), then 45 s idle; reports the claim-check
## bucket's size, goroutines and RSS every 30 s and fails when one is not bounded (bench/soak). Not
## part of `make test`. SOAK_ARGS passes flags, e.g. SOAK_ARGS='-duration 2m -every 15s' for a short run.
SOAK_ARGS ?=
soak:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/worker ./cmd/worker
	$(GO) run ./bench/soak -worker $(BIN)/worker $(SOAK_ARGS)

## lint: gofmt, go vet and staticcheck (pinned, installed into .tools/ by scripts/install-staticcheck.sh)
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	./scripts/install-staticcheck.sh
	$(TOOLS)/bin/staticcheck ./...

clean:
	rm -rf $(BIN)
