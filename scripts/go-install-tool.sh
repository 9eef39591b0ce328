#!/usr/bin/env bash
# go-install-tool.sh NAME PACKAGE VERSION: installs the Go command PACKAGE@VERSION as NAME into the
# project-local tools folder ($TOOLS_DIR, default .tools/bin) unless that version is there already
# (a stamp file records it). The install-*.sh scripts pin what they install and call this.
set -euo pipefail
NAME="$1" PACKAGE="$2" VERSION="$3"
cd "$(dirname "$0")/.."
TOOLS_DIR="${TOOLS_DIR:-$PWD/.tools}"
BIN="$TOOLS_DIR/bin/$NAME"
STAMP="$TOOLS_DIR/bin/.$NAME-version"
if [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$VERSION" ]]; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
echo "installing $NAME ($PACKAGE@$VERSION) into $TOOLS_DIR/bin (the first time can take minutes)" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "$PACKAGE@$VERSION"
echo "$VERSION" > "$STAMP"
