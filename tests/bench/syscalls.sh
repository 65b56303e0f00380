#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/syscalls.sh: system calls per probe and epoll_wait calls per
# cycle of `faultmon run` (issue 31, "one wait, not two"), from strace -c.
#
#   tests/bench/syscalls.sh                       # build/src/faultmon, 1 and 10 targets
#   FAULTMON=/path/to/other/faultmon tests/bench/syscalls.sh   # another build
#   CYCLES=30 TARGETS="1 10" tests/bench/syscalls.sh
#
# One nginx (one worker, `return 200`, keepalive off) on a free loopback
# port; target i is http://127.0.0.(i+1):PORT/ (nginx listens on every
# address).  Each load: `faultmon run --cycles CYCLES` at
# Thorough_probe_interval=1 under `strace -f -c` (every system call, every
# thread), then again under `strace -f -e trace=epoll_wait` to count the
# wake-ups.  Counts, not times: a loaded machine changes nothing but the
# wall time.  Not part of CI; needs nginx and strace.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
FAULTMON=${FAULTMON:-$TOP/build/src/faultmon}
CYCLES=${CYCLES:-30}
TARGETS=${TARGETS:-1 10}
[ -x "$FAULTMON" ] || { echo "syscalls.sh: no faultmon at $FAULTMON" >&2; exit 1; }
for tool in nginx strace python3; do
	command -v "$tool" >/dev/null || { echo "syscalls.sh: $tool not found" >&2; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-syscalls.XXXXXX")
nginx_pid=
cleanup() {
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$T/tmp"
cat >"$T/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $T/nginx.pid;
error_log $T/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_timeout 0;
    client_body_temp_path $T/tmp;
    proxy_temp_path $T/tmp;
    fastcgi_temp_path $T/tmp;
    uwsgi_temp_path $T/tmp;
    scgi_temp_path $T/tmp;
    server { listen $port; location / { return 200 "ok\n"; } }
}
NGINX
nginx -p "$T" -c "$T/nginx.conf" -e "$T/error.log" >"$T/nginx.out" 2>&1 &
nginx_pid=$!
for _ in $(seq 1 100); do
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && { exec 3<&-; break; }
	sleep 0.05
done

echo "faultmon: $FAULTMON ($("$FAULTMON" --version 2>&1 | head -n 1))"
echo "kernel: $(uname -r); $CYCLES cycles a load, Thorough_probe_interval=1"
printf '%-8s %12s %14s %16s %18s\n' targets syscalls "per probe" "epoll_wait" "epoll_wait/cycle"
for n in $TARGETS; do
	list=
	for ((i = 1; i <= n; i++)); do
		list="$list http://127.0.0.$i:$port/"
	done
	export FAULTMON_STATE_DIR=$T/state-$n
	strace -f -qq -c -o "$T/c-$n" "$FAULTMON" run bench --no-env --no-pacemaker --cycles "$CYCLES" \
		--param "Port_list=${list# }" --param Thorough_probe_interval=1 >/dev/null 2>"$T/err-$n" \
		|| { echo "syscalls.sh: faultmon run failed:" >&2; cat "$T/err-$n" >&2; exit 1; }
	FAULTMON_STATE_DIR=$T/state2-$n strace -f -qq -e trace=epoll_wait,epoll_pwait -o "$T/w-$n" \
		"$FAULTMON" run bench --no-env --no-pacemaker --cycles "$CYCLES" \
		--param "Port_list=${list# }" --param Thorough_probe_interval=1 >/dev/null 2>>"$T/err-$n"
	calls=$(awk '$NF == "total" { print $4 }' "$T/c-$n")
	waits=$(grep -cE 'epoll_p?wait\(' "$T/w-$n")
	awk -v n="$n" -v c="$CYCLES" -v calls="$calls" -v w="$waits" \
		'BEGIN { printf "%-8s %12d %14.1f %16d %18.2f\n", n, calls, calls / (n * c), w, w / c }'
done
echo "top system calls at the last load (strace -c):"
head -n 14 "$T/c-${TARGETS##* }" | tail -n 12
