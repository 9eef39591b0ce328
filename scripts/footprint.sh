#!/usr/bin/env bash
# footprint.sh: what the worker costs before it does anything, for two builds side by side: the
# static binary's size (CGO_ENABLED=0), the time from start to a 200 on /readyz, and the resident
# memory (VmRSS) after it sat idle. Each start is `worker run` on its embedded default (in-process
# nats-server, local store) with a fresh DATA_DIR; the two builds start in turn, RUNS times each.
#
#   scripts/footprint.sh BASE [RUNS] [IDLE_SECONDS]
#
# BASE is a commit (e.g. the one before a feature landed); it is compared with HEAD. Compare the two
# columns of one run, never figures of different runs: the machine's load moves them.
set -euo pipefail

base=${1:?usage: scripts/footprint.sh BASE [RUNS] [IDLE_SECONDS]}
runs=${2:-3}
idle=${3:-20}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git -C "$root" worktree add --detach -q "$work/src" "$base"
(cd "$work/src" && CGO_ENABLED=0 go build -o "$work/worker-base" ./cmd/worker)
(cd "$root" && CGO_ENABLED=0 go build -o "$work/worker-head" ./cmd/worker)

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# start BIN: prints "ready_ms rss_kb" for one start of BIN.
start() {
	local bin=$1 dir http nats pid t0 ms rss
	dir=$(mktemp -d -p "$work")
	http=127.0.0.1:$(port)
	nats=127.0.0.1:$(port)
	t0=$(date +%s%N)
	DATA_DIR=$dir HTTP_ADDR=$http EMBEDDED_NATS_ADDR=$nats "$bin" run >"$dir/log" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		if curl -fso /dev/null "http://$http/readyz"; then break; fi
		if ! kill -0 "$pid" 2>/dev/null; then echo "$bin exited:" >&2; cat "$dir/log" >&2; exit 1; fi
		sleep 0.01
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	sleep "$idle"
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	echo "$ms $rss"
}

size() { stat -c %s "$1"; }
echo "footprint of $(git -C "$root" rev-parse --short "$base") (base) and $(git -C "$root" rev-parse --short HEAD) (head); $runs starts each, $idle s idle; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %14s %14s\n' "" base head
printf '%-22s %14s %14s\n' "static binary (B)" "$(size "$work/worker-base")" "$(size "$work/worker-head")"
for i in $(seq 1 "$runs"); do
	read -r bms brss < <(start "$work/worker-base")
	read -r hms hrss < <(start "$work/worker-head")
	printf '%-22s %14s %14s\n' "start $i: ready (ms)" "$bms" "$hms" "start $i: idle RSS (KB)" "$brss" "$hrss"
done
