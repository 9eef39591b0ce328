#!/usr/bin/env bash
# Installs the pinned nats CLI into the project-local tools folder when missing. A test runs the
# README's "nats CLI" commands with it, as a user types them (integration/natscli_test.go).
set -euo pipefail
exec "$(dirname "$0")/go-install-tool.sh" nats github.com/nats-io/natscli/nats "${NATSCLI_VERSION:-v0.5.0}"
