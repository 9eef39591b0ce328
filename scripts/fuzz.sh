#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 10m) and prints one summary line
# per target. `make fuzz`; not part of `make test`. New failing inputs are written by go test under
# the package's testdata/fuzz/<Target>/ (commit them: they become seeds).
#
# FUZZJOBS (default 1) targets run at a time; with more than one, each target gets one fuzzing
# worker (-parallel 1) so the jobs share the cores instead of fighting over them, and the summary
# lines come in the order the targets finish.
#
#   FUZZTIME=30s scripts/fuzz.sh            # every target
#   FUZZTIME=1m scripts/fuzz.sh ./routing   # the targets of one package
#   FUZZJOBS=2 scripts/fuzz.sh              # two targets at a time, one core each
#
# FUZZMINIMIZETIME (default 10s) bounds how long go test minimizes each new interesting input (its
# own default, 60s, made pdfpages' FuzzRender look stalled: every run there opens a fresh
# WebAssembly instance, a few milliseconds, and a worker minimizing a 20 KB input reported no
# executions for a minute at a time).
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime="${FUZZTIME:-10m}"
jobs="${FUZZJOBS:-1}"
minimize="${FUZZMINIMIZETIME:-10s}"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "FUZZJOBS must be a positive integer, got '$jobs'" >&2; exit 2; }
# go test's default -timeout (10m) ends a 10-minute fuzzing run with "context deadline exceeded"
# just as it finishes: give the test binary FUZZTIME plus 10 minutes (baseline coverage, building)
# when FUZZTIME is a whole number of s, m or h; other forms (1h30m, 1000x) run without a timeout.
timeout=0
if [[ "$fuzztime" =~ ^([0-9]+)([smh])$ ]]; then
  n=$((10#${BASH_REMATCH[1]}))
  case "${BASH_REMATCH[2]}" in s) timeout=$n ;; m) timeout=$((n * 60)) ;; h) timeout=$((n * 3600)) ;; esac
  timeout="$((timeout + 600))s"
fi
parallel=()
if [[ "$jobs" -gt 1 ]]; then
  parallel=(-parallel 1)
fi
pkgs=("$@")
if [[ ${#pkgs[@]} -eq 0 ]]; then
  mapfile -t pkgs < <(go list ./...)
fi
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT

# fuzz_one PKG TARGET: runs one target and writes its summary (and its log when it failed) to
# $results/<n>.ok or $results/<n>.fail.
fuzz_one() {
  local pkg="$1" target="$2" n="$3" start rc secs execs corpus log
  start=$(date +%s)
  log="$results/$n.log"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -timeout "$timeout" "${parallel[@]}" "$pkg" >"$log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - start ))
  execs="$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)"
  corpus="$(grep -o 'new interesting: [0-9]* (total: [0-9]*)' "$log" | tail -n 1 | grep -o 'total: [0-9]*' | cut -d' ' -f2)"
  if [[ $rc -eq 0 ]]; then
    printf 'FUZZ ok   %-45s %-22s %6ss %12s execs  corpus %s\n' "${pkg#github.com/agentworks/artifact-worker}" "$target" "$secs" "${execs:-?}" "${corpus:-?}" | tee "$results/$n.ok"
  else
    { printf 'FUZZ FAIL %-45s %-22s %6ss\n' "${pkg#github.com/agentworks/artifact-worker}" "$target" "$secs"
      sed 's/^/    /' "$log"; } | tee "$results/$n.fail"
  fi
}

total=0
for pkg in "${pkgs[@]}"; do
  dir="$(go list -f '{{.Dir}}' "$pkg")" || exit 1
  # The fuzz targets of the package's test files (go test -fuzz takes one target at a time).
  mapfile -t targets < <(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u)
  for target in "${targets[@]}"; do
    total=$((total + 1))
    while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do
      wait -n
    done
    fuzz_one "$pkg" "$target" "$total" &
  done
done
wait
failed=$(find "$results" -name '*.fail' | wc -l)
echo "FUZZ $total targets, $failed failed, FUZZTIME=$fuzztime each, FUZZJOBS=$jobs"
[[ $failed -eq 0 && $(find "$results" -name '*.ok' | wc -l) -eq $total ]]
