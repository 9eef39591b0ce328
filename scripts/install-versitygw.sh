#!/usr/bin/env bash
# Installs the pinned versitygw (Versity S3 Gateway, Apache-2.0) into the project-local tools folder
# when missing. Tests run it as a separate process with its posix backend, as a second S3 next to MinIO.
set -euo pipefail
exec "$(dirname "$0")/go-install-tool.sh" versitygw github.com/versity/versitygw/cmd/versitygw "${VERSITYGW_VERSION:-v1.8.0}"
