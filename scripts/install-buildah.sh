#!/usr/bin/env bash
# Makes buildah available for the image check (Debian's package): nothing when it is installed,
# else apt-get update and install. When it cannot be installed here (not root, no apt-get, the
# install fails), it prints why on stdout and exits 0: the image check then skips with that reason.
set -uo pipefail
if command -v buildah >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "buildah is not installed and there is no apt-get to install it"
  exit 0
fi
if [[ "$(id -u)" != 0 ]]; then
  echo "buildah is not installed and installing the Debian package needs root (apt-get install buildah)"
  exit 0
fi
echo "installing buildah (apt-get)" >&2
log="$(mktemp)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah; } >"$log" 2>&1; then
  echo "buildah could not be installed: $(tail -n 1 "$log")"
  rm -f "$log"
  exit 0
fi
rm -f "$log"
