#!/usr/bin/env bash
# Lays out the build context of deployments/Dockerfile.prebuilt, as GoReleaser does for its image
# builds: a prebuilt static worker binary and the few files the image needs besides it.
#
#   scripts/image-context.sh BINARY DIR
#
# BINARY must be static (CGO_ENABLED=0; `make image` builds it); DIR is created or emptied.
set -euo pipefail
bin="${1:?usage: image-context.sh BINARY DIR}"
dir="${2:?usage: image-context.sh BINARY DIR}"
root="$(cd "$(dirname "$0")/.." && pwd)"
certs=/etc/ssl/certs/ca-certificates.crt
[[ -f "$certs" ]] || { echo "image-context: $certs missing (install the ca-certificates package)" >&2; exit 1; }
# A static Go binary has no program interpreter (PT_INTERP): refuse one that would not start on scratch.
if LC_ALL=C grep -qa "/lib64/ld-linux\|/lib/ld-linux\|/lib/ld-musl" "$bin"; then
  echo "image-context: $bin is dynamically linked; build it with CGO_ENABLED=0" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir/data"
cp "$bin" "$dir/worker"
cp "$certs" "$dir/ca-certificates.crt"
cp "$root/config/llmservices.json" "$dir/llmservices.json"
echo 'nonroot:x:65532:65532:nonroot:/nonexistent:/sbin/nologin' > "$dir/passwd"
