#!/usr/bin/env bash
# Installs the pinned nats CLI into the project-local tools folder when missing. A test runs the
# README's "nats CLI" commands with it, as a user types them (integration/natscli_test.go).
set -euo pipefail
cd "$(dirname "$0")/.."
NATSCLI_VERSION="${NATSCLI_VERSION:-v0.5.0}"
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
BIN="$TOOLS_DIR/bin/nats"
STAMP="$TOOLS_DIR/bin/.nats-version"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$NATSCLI_VERSION" ]]; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
echo "installing the nats CLI @$NATSCLI_VERSION into $TOOLS_DIR/bin (first time takes a minute or two)" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "github.com/nats-io/natscli/nats@$NATSCLI_VERSION"
echo "$NATSCLI_VERSION" > "$STAMP"
