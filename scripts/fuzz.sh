#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 10m), one after the other, and
# prints one summary line per target. `make fuzz`; not part of `make test`. New failing inputs are
# written by go test under the package's testdata/fuzz/<Target>/ (commit them: they become seeds).
#
#   FUZZTIME=30s scripts/fuzz.sh          # every target
#   FUZZTIME=1m scripts/fuzz.sh ./routing # the targets of one package
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10m}"
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  mapfile -t pkgs < <(go list ./...)
fi
failed=0
total=0
for pkg in "${pkgs[@]}"; do
  dir="$(go list -f '{{.Dir}}' "$pkg")" || exit 1
  # The fuzz targets of the package's test files (go test -fuzz takes one target at a time).
  mapfile -t targets < <(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u)
  for target in "${targets[@]}"; do
    total=$((total + 1))
    start=$(date +%s)
    log="$(mktemp)"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    execs="$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
    corpus="$(grep -o 'new interesting: [0-9]* (total: [0-9]*)' "$log" | tail -n 1 | grep -o 'total: [0-9]*' | cut -d' ' -f2)"
    if [[ $rc -eq 0 ]]; then
      printf 'FUZZ ok   %-45s %-22s %6ss %12s execs  corpus %s\n' "${pkg#github.com/agentworks/artifact-worker}" "$target" "$secs" "${execs:-?}" "${corpus:-?}"
    else
      failed=$((failed + 1))
      printf 'FUZZ FAIL %-45s %-22s %6ss\n' "${pkg#github.com/agentworks/artifact-worker}" "$target" "$secs"
      sed 's/^/    /' "$log"
    fi
    rm -f "$log"
  done
done
echo "FUZZ $total targets, $failed failed, FUZZTIME=$fuzztime each"
[[ $failed -eq 0 ]]
