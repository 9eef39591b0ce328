#!/usr/bin/env bash
# Installs the pinned staticcheck into the project-local tools folder when missing; `make lint` runs it.
set -euo pipefail
exec "$(dirname "$0")/go-install-tool.sh" staticcheck honnef.co/go/tools/cmd/staticcheck "${STATICCHECK_VERSION:-v0.8.2}"
