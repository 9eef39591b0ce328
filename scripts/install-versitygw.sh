#!/usr/bin/env bash
# Installs the pinned versitygw (Versity S3 Gateway, Apache-2.0) into the project-local tools folder
# when missing. Tests run it as a separate process with its posix backend, as a second S3 next to MinIO.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSITYGW_VERSION="${VERSITYGW_VERSION:-v1.8.0}"
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
BIN="$TOOLS_DIR/bin/versitygw"
STAMP="$TOOLS_DIR/bin/.versitygw-version"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$VERSITYGW_VERSION" ]]; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
echo "installing versitygw@$VERSITYGW_VERSION into $TOOLS_DIR/bin (first time takes a few minutes)" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
echo "$VERSITYGW_VERSION" > "$STAMP"
