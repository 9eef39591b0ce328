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
current() { [[ -x "$BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$VERSION" ]]; }
if current; then
  exit 0
fi
mkdir -p "$TOOLS_DIR/bin"
# `make test` installs its tools side by side while test binaries may install the same one on
# demand (internal/testing/miniotest): one install at a time per tool, and whoever waited finds it
# done. (miniotest holds a lock of its own, .NAME-install.lock, around this script: this one is
# another file, so that the script does not wait for its own caller.)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$TOOLS_DIR/.$NAME.lock"
  flock 9
  if current; then
    exit 0
  fi
fi
echo "installing $NAME ($PACKAGE@$VERSION) into $TOOLS_DIR/bin (the first time can take minutes)" >&2
GOBIN="$TOOLS_DIR/bin" GOFLAGS=-buildvcs=false go install "$PACKAGE@$VERSION"
echo "$VERSION" > "$STAMP"
