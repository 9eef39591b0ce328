#!/usr/bin/env bash
# Installs the pinned MinIO server binary into the project-local tools folder when missing.
# MinIO runs only as a separate process in tests; its code is never imported (AGPL).
set -euo pipefail
cd "$(dirname "$0")/.."
MINIO_VERSION="${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
BIN="$TOOLS_DIR/bin/minio"
STAMP="$TOOLS_DIR/bin/.minio-version"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$MINIO_VERSION" ]]; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
echo "installing minio@$MINIO_VERSION into $TOOLS_DIR/bin (first time takes a few minutes)" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "github.com/minio/minio@$MINIO_VERSION"
echo "$MINIO_VERSION" > "$STAMP"
