#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# accesslog-bench.sh: what one access log line costs (access_log).
#  1. the parser and the window alone: N combined-format lines in memory
#     (accesslog_bench.c, compiled here with the build's config.h, -O2);
#  2. the whole path in `faultmon run`: the loop's CPU time (utime + stime
#     from /proc) while N lines are appended to the log it follows
#     (inotify wake-ups, reads of at most 64 KiB, parse, window).
# Usage: tests/bench/accesslog-bench.sh [N]   (default 1000000); BUILDDIR (build).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILDDIR:-$top/build}
n=${1:-1000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-alog-bench.XXXXXX") || exit 1
loop_pid=
cleanup() {
    [ -n "$loop_pid" ] && kill -TERM "$loop_pid" 2>/dev/null && wait "$loop_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

${CC:-cc} -O2 -I"$build" -I"$top/include" -o "$tmp/bench" "$top/tests/bench/accesslog_bench.c" \
    "$top/src/util/accesslog_parse.c" "$top/src/monitor/accesslog_window.c" || exit 1
echo "parser + window: $("$tmp/bench" "$n")"

export FAULTMON_STATE_DIR=$tmp/state
: >"$tmp/access.log"
"$build/src/faultmon" run bench --no-env --param Probe_command=/bin/true --param Thorough_probe_interval=1s \
    --param "access_log=$tmp/access.log" 2>"$tmp/run.err" &
loop_pid=$!
sleep 1
ticks() { awk '{ print $14 + $15 }' "/proc/$loop_pid/stat"; }
before=$(ticks)
python3 - "$tmp/access.log" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
line = ('192.0.2.7 - - [05/Dec/2026:22:40:01 +0000] "GET /api/v1/items/42 HTTP/1.1" 200 5120 '
        '"https://example.org/page" "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"\n')
with open(path, 'a') as f:
    for i in range(0, n, 1000):
        f.write(line * min(1000, n - i))
        f.flush()
PY
for _ in $(seq 1 300); do
    got=$(sed -n 's/^requests=//p' "$FAULTMON_STATE_DIR/bench/accesslog" 2>/dev/null)
    [ "${got:-0}" -ge "$n" ] && break
    sleep 0.1
done
after=$(ticks)
hz=$(getconf CLK_TCK)
awk -v t=$((after - before)) -v hz="$hz" -v n="$n" -v got="${got:-0}" 'BEGIN {
    printf "faultmon run: %d lines followed (%d counted), %.2f s of CPU: %.0f ns a line (including its idle cycles)\n",
           n, got, t / hz, t / hz * 1e9 / n }'
