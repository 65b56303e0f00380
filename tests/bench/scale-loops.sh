#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scale-loops.sh - many faultmon resources on one node (issue 15's scale
# goal: 50 loops under 1 % of one core and under 100 MiB in all, at a 2 s
# interval).  For each size N in SIZES, N `faultmon run` loops (one process
# each, as the agents start them, --no-pacemaker) probe one nginx of the
# script's own (HEAD /, one target each, Thorough_probe_interval=2s) for
# WINDOW seconds after WARMUP; the script reports their CPU together (the
# sum of their threads' schedstat run time over the window, as a share of
# one core), their
# resident and proportional memory (smaps_rollup: RSS counts the shared
# library pages once per process, PSS shares them out, so PSS is what they
# cost the node together), and per loop.  Rounds alternate the sizes
# (ROUNDS times), and the medians with their ranges are printed.
#
# Usage: tests/bench/scale-loops.sh               (as root, from anywhere)
# Knobs: SIZES="10 50 100" WINDOW=60 WARMUP=10 ROUNDS=3 INTERVAL=2
#        PORT=28290 (nginx, on 127.0.0.1) FAULTMON=build/src/faultmon
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
SIZES=${SIZES:-"10 50 100"}
WINDOW=${WINDOW:-60}
WARMUP=${WARMUP:-10}
ROUNDS=${ROUNDS:-3}
INTERVAL=${INTERVAL:-2}
PORT=${PORT:-28290}
if [ -z "${FAULTMON:-}" ] && [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; fi
FAULTMON=${FAULTMON:-$top/src/faultmon}
die() { echo "scale-loops.sh: $*" >&2; exit 1; }
[ -x "$FAULTMON" ] || die "no faultmon at $FAULTMON (run make, or set FAULTMON)"
command -v nginx >/dev/null || die "nginx is not installed"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-scale.XXXXXX") || die "mktemp failed"
loops=()
cleanup() {
    [ "${#loops[@]}" -gt 0 ] && kill "${loops[@]}" 2>/dev/null
    # Only the nginx of this run (its configuration in $tmp), never what a
    # stale pid file names by now.
    local npid
    npid=$(cat "$tmp/nginx.pid" 2>/dev/null)
    case $npid in '' | 0* | *[!0-9]*) ;; *)
        tr '\0' ' ' <"/proc/$npid/cmdline" 2>/dev/null | grep -qF -- "$tmp/" && kill "$npid" ;;
    esac
    sleep 0.5
    rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/www" "$tmp/state"
echo ok >"$tmp/www/index.html"
cat >"$tmp/nginx.conf" <<EOF
pid $tmp/nginx.pid;
error_log $tmp/error.log;
worker_processes 1;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    server { listen 127.0.0.1:$PORT; root $tmp/www; }
}
EOF
nginx -c "$tmp/nginx.conf" || die "nginx did not start"

# cpu_ns PID...: the CPU time of the processes' threads, in ns (the first
# field of /proc/PID/task/TID/schedstat).  Not utime+stime: a loop spends a
# few ms a minute, under one clock tick (10 ms), and the per-process tick
# counts, truncated, summed to 0 for 100 loops of the event loop's build.
# A thread that exited during the window is not counted (a loop with
# numeric targets starts none).
cpu_ns() {
    local p
    for p in "$@"; do
        cat "/proc/$p/task/"*/schedstat 2>/dev/null
    done | awk '{ s += $1 } END { printf "%d\n", s }'
}
# mem KEY PID...: the sum of smaps_rollup's KEY (kB).
mem() {
    local key=$1 p sum=0 v
    shift
    for p in "$@"; do
        v=$(awk -v k="$key:" '$1 == k { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null)
        sum=$((sum + ${v:-0}))
    done
    echo "$sum"
}

# one N: prints "N cpu_pct rss_kb pss_kb"
one_round() {
    local n=$1 i t0 t1 c0 c1
    loops=()
    for ((i = 0; i < n; i++)); do
        FAULTMON_STATE_DIR=$tmp/state "$FAULTMON" run "scale$i" --no-env --no-pacemaker \
            --param "Port_list=127.0.0.1:$PORT" --param "Thorough_probe_interval=$INTERVAL" \
            >"$tmp/loop$i.log" 2>&1 &
        loops+=("$!")
    done
    sleep "$WARMUP"
    for p in "${loops[@]}"; do kill -0 "$p" 2>/dev/null || die "a loop exited: $(tail -n 2 "$tmp"/loop*.log | head -n 4)"; done
    c0=$(cpu_ns "${loops[@]}") t0=$(date +%s%N)
    sleep "$WINDOW"
    c1=$(cpu_ns "${loops[@]}") t1=$(date +%s%N)
    awk -v n="$n" -v dc=$((c1 - c0)) -v dt=$((t1 - t0)) \
        -v rss="$(mem Rss "${loops[@]}")" -v pss="$(mem Pss "${loops[@]}")" \
        'BEGIN { printf "%d %.3f %d %d\n", n, 100 * dc / dt, rss, pss }'
    kill "${loops[@]}" 2>/dev/null
    wait "${loops[@]}" 2>/dev/null
    loops=()
    rm -rf "$tmp/state"/scale*
}

: >"$tmp/rows"
for ((r = 1; r <= ROUNDS; r++)); do
    order=$SIZES
    # Alternate the order of the sizes from round to round.
    [ $((r % 2)) -eq 0 ] && order=$(echo "$SIZES" | tr ' ' '\n' | tac | tr '\n' ' ')
    for n in $order; do
        one_round "$n" >>"$tmp/rows"
    done
done

echo "faultmon run: N loops, 1 HTTP target each (HEAD /, nginx on loopback), Thorough_probe_interval=${INTERVAL}s,"
echo "$ROUNDS rounds of ${WINDOW}s (after ${WARMUP}s), sizes alternating; medians [min-max]; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: SIZES=\"$SIZES\" WINDOW=$WINDOW ROUNDS=$ROUNDS tests/bench/scale-loops.sh"
printf '%-6s %-26s %-26s %-26s %-16s\n' loops "CPU, % of one core" "RSS, MiB (all)" "PSS, MiB (all)" "PSS/loop, KiB"
for n in $SIZES; do
    awk -v n="$n" '$1 == n { print }' "$tmp/rows" | sort -k2,2n | awk -v n="$n" '
        { cpu[NR] = $2; rss[NR] = $3; pss[NR] = $4 }
        function med(a, k,   t, i, j) { for (i = 1; i <= k; i++) t[i] = a[i]; for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x } return (k % 2) ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2 }
        function lo(a, k,   m, i) { m = a[1]; for (i = 2; i <= k; i++) if (a[i] < m) m = a[i]; return m }
        function hi(a, k,   m, i) { m = a[1]; for (i = 2; i <= k; i++) if (a[i] > m) m = a[i]; return m }
        END {
            printf "%-6d %-26s %-26s %-26s %-16.0f\n", n,
                sprintf("%.3f [%.3f-%.3f]", med(cpu, NR), lo(cpu, NR), hi(cpu, NR)),
                sprintf("%.1f [%.1f-%.1f]", med(rss, NR) / 1024, lo(rss, NR) / 1024, hi(rss, NR) / 1024),
                sprintf("%.1f [%.1f-%.1f]", med(pss, NR) / 1024, lo(pss, NR) / 1024, hi(pss, NR) / 1024),
                med(pss, NR) / n
        }'
done
