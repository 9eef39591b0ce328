#!/usr/bin/env bash
# Installs the pinned staticcheck into the project-local tools folder when missing; `make lint` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
STATICCHECK_VERSION="${STATICCHECK_VERSION:-v0.8.2}"
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
BIN="$TOOLS_DIR/bin/staticcheck"
STAMP="$TOOLS_DIR/bin/.staticcheck-version"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$STATICCHECK_VERSION" ]]; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
echo "installing staticcheck @$STATICCHECK_VERSION into $TOOLS_DIR/bin" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
echo "$STATICCHECK_VERSION" > "$STAMP"
