#!/usr/bin/env bash
# Makes python3 (3.9 or later) available for the Python client's tests: nothing when it is
# installed, else Debian's python3 (apt-get, as root). No Python package is installed: the tests
# use nats-py from clients/python/third_party when it is not installed.
set -euo pipefail
if command -v python3 >/dev/null 2>&1 && python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" != 0 ]]; then
  echo "python3 3.9 or later is needed for the Python client's tests (clients/python); install it (Debian: apt-get install python3)" >&2
  exit 1
fi
echo "installing python3 (apt-get)" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 >/dev/null
