#!/usr/bin/env bash
# Installs the pinned MinIO server binary into the project-local tools folder when missing.
# MinIO runs only as a separate process in tests; its code is never imported (AGPL).
set -euo pipefail
exec "$(dirname "$0")/go-install-tool.sh" minio github.com/minio/minio "${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
