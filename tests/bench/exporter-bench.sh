#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exporter-bench.sh: how long `faultmon exporter` takes to answer a scrape of
# RESOURCES resources (default 100) with TARGETS targets each (default 10):
# the median, least and most of SCRAPES scrapes (default 20), timed by curl
# (time_total: connect to last byte) on loopback, and the same for
# `faultmon metrics` to /dev/null (a process start included).
#
# The state files are real ones: one `faultmon run RES --cycles 2` per
# resource against TARGETS closed loopback ports (each a complete failure),
# so every file holds TARGETS targets, two records and a decision.
#
# With IDLE=N (default 0), N idle connections (opened again as the exporter
# drops them, issue 29 #8) are held against the exporter during the scrapes.
#
#   tests/bench/exporter-bench.sh            # from a build directory, or
#   FAULTMON=build/src/faultmon tests/bench/exporter-bench.sh
#   IDLE=1000 tests/bench/exporter-bench.sh
set -u
RESOURCES=${RESOURCES:-100}
TARGETS=${TARGETS:-10}
SCRAPES=${SCRAPES:-20}
IDLE=${IDLE:-0}
FAULTMON=${FAULTMON:-src/faultmon}
[ -x "$FAULTMON" ] || { echo "no faultmon at $FAULTMON (set FAULTMON)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-exporter-bench.XXXXXX") || exit 1
exporter_pid=
idle_pid=
trap '[ -n "$idle_pid" ] && kill "$idle_pid" 2>/dev/null; [ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
export FAULTMON_STATE_DIR=$tmp/state

ports=
for ((t = 1; t <= TARGETS; t++)); do
	ports+="${ports:+,}127.0.0.1:$t"     # closed on loopback: refused at once
done
# Ten loops at a time: each waits out its interval between its two cycles.
for ((r = 1; r <= RESOURCES; r++)); do
	timeout 30 "$FAULTMON" run "res$r" --no-env --no-pacemaker --cycles 2 \
		--param Port_list="$ports" --param Thorough_probe_interval=1 \
		--param Probe_timeout=1s 2>/dev/null &
	((r % 10 == 0)) && wait
done
wait
n=$(find "$FAULTMON_STATE_DIR" -type f -name state | wc -l)
[ "$n" = "$RESOURCES" ] || { echo "only $n of $RESOURCES state files written" >&2; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$FAULTMON" exporter --listen "127.0.0.1:$port" &
exporter_pid=$!
for ((i = 0; i < 100; i++)); do
	curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && break
	sleep 0.05
done

# stats: "median min max" in ms of the numbers (seconds) on stdin.
stats() {
	sort -g | awk '{ v[NR] = $1 * 1000 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.2f %.2f %.2f\n", m, v[1], v[NR] }'
}

if [ "$IDLE" -gt 0 ]; then
	[ "$(ulimit -n)" -ge $((IDLE + 64)) ] || ulimit -n $((IDLE + 64)) || exit 1
	python3 - "$port" "$IDLE" <<'PYEOF' &
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
def connect():
    s = socket.socket(); s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s
socks = [connect() for _ in range(n)]
while True:
    for i, s in enumerate(socks):
        try:
            if s.recv(1) == b"":
                s.close(); socks[i] = connect()
        except BlockingIOError:
            pass
        except OSError:
            s.close(); socks[i] = connect()
    time.sleep(0.5)
PYEOF
	idle_pid=$!
	sleep 2
fi
for ((i = 0; i < SCRAPES; i++)); do
	# A failed scrape counts as the 5 s it may take.
	t=$(curl -s -m 5 -o "$tmp/scrape.prom" -w '%{time_total}' "http://127.0.0.1:$port/metrics") || t=5
	echo "$t"
done | stats >"$tmp/scrape.ms"
for ((i = 0; i < SCRAPES; i++)); do
	s=$(date +%s%N)
	"$FAULTMON" metrics >/dev/null
	e=$(date +%s%N)
	echo "$(((e - s) / 1000))e-6"
done | stats >"$tmp/metrics.ms"

series=$(grep -vc '^#' "$tmp/scrape.prom")
bytes=$(wc -c <"$tmp/scrape.prom")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$exporter_pid/status")
read -r m lo hi <"$tmp/scrape.ms"
echo "exporter: $RESOURCES resources x $TARGETS targets, $series series, $bytes bytes"
echo "scrape (curl time_total, $SCRAPES scrapes, $IDLE idle connections): median $m ms (least $lo, most $hi)"
read -r m lo hi <"$tmp/metrics.ms"
echo "faultmon metrics >/dev/null ($SCRAPES runs, process start included): median $m ms (least $lo, most $hi)"
echo "exporter RSS after the scrapes: $rss KiB"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
