#!/usr/bin/env bash
# Makes pdftoppm (Debian's poppler-utils) available for `make bench`: the PDF page benchmarks compare
# the worker's renderer with it at the same pixel size (a benchmark anchor only; the worker never runs
# it). Nothing when it is installed, else apt-get as root; without either the comparison is skipped.
set -euo pipefail
if command -v pdftoppm >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || [[ "$(id -u)" != 0 ]]; then
  echo "pdftoppm is not installed (Debian: apt-get install poppler-utils): the pdftoppm benchmarks are skipped" >&2
  exit 0
fi
echo "installing poppler-utils (apt-get) for the pdftoppm benchmarks" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null
