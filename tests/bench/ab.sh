#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ab.sh - CPU per health check, contenders alternated A/B/A/B over long
# windows: the production loop (`faultmon run`) against HAProxy's health
# checks (one thread, the same targets, the same interval) and against the
# floor of each schedule; then `faultmon probe` at 5000 targets a second.
#
# One nginx serves every target (one listen socket per address 127.77.X.Y;
# the host-name load uses `localhost` on consecutive ports of 127.0.0.1).
# For each load, ROUNDS rounds; in each round every contender runs alone in
# turn (the order reversed every other round, A B C D / D C B A / A B C D,
# so a steady drift of the machine hits every contender alike), is measured
# over WINDOW seconds after its warm-up, and is stopped.  CPU time is the
# contender's process CPU clock (every thread, the exited ones included;
# clock_gettime on its CPU-time clock id, ns) plus the CPU of its reaped
# children (cutime + cstime of /proc/PID/stat); utime + stime of
# /proc/PID/stat is shown as a cross-check.  Checks are the requests nginx
# logged in the window, a server-side count; faultmon's own count (cycles x
# targets from `faultmon status --json`) and the floor's (its ok counter)
# are shown beside it.  The table gives medians with [min-max] over the
# rounds, and ratios taken round by round (contenders of one round ran
# minutes apart, not hours).  See README.md.
#
# Usage: tests/bench/ab.sh               (as root, from anywhere; after make)
# Knobs (environment):
#   WINDOW=60            measured seconds per contender and round (>= 60 for
#                        figures worth quoting; QUICK=1 allows less)
#   ROUNDS=3             rounds per load (>= 3; QUICK=1 allows 1)
#   QUICK=0              1: a check of the harness, not a measurement; the
#                        output says so
#   WARMUP=5             seconds before the window (faultmon, floors)
#   HAPROXY_WARMUP=20    the same for HAProxy (its checks drift into clusters
#                        that share a wake-up over the first 20-40 s)
#   LOADS="1 10 200 1000 names10"        the headline table; namesN = N
#                        targets by host name (localhost:PORT+i); tlsN = N
#                        targets over TLS (HEAD / after the handshake, no
#                        verification; a load of its own: not in the
#                        default, e.g. LOADS="tls10 tls100")
#   CONTENDERS="faultmon-run haproxy-1t floor-burst floor-timer"
#                        (floor-batched too: spread, started on 1 ms ticks)
#                        (faultmon-run-spread is added when `faultmon run`
#                        knows a spread parameter; SPREAD_PARAMS)
#   PROBE_LOADS="5000"   the secondary table (`faultmon probe`); "" skips it
#   PROBE_CONTENDERS="faultmon-probe haproxy-1t floor-burst floor-timer"
#   PIN=1                nginx and this script on CPU 0, the contender on 1
#   FAULTMON=build/src/faultmon (relative to the repo top; else src/faultmon)
#   BUILDDIR=...         where faultmon was built, instead of FAULTMON
#   SPREAD_PARAMS="--param spread=true"  PROBE_SPREAD_OPTS="--spread"
#   HTTP_PORT=28380 NAME_PORT=28400 STUB_PORT=28381 TLS_PORT=28383   ports
#   KEEP=1               keep the temp dirs (configs, logs, every reading)
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/tests/bench
# shellcheck source=tests/bench/lib.sh
. "$bench/lib.sh"
cmdline="$0${*:+ $*}"

WINDOW=${WINDOW:-60}
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-0}
WARMUP=${WARMUP:-5}
HAPROXY_WARMUP=${HAPROXY_WARMUP:-20}
LOADS=${LOADS-"1 10 200 1000 names10"}
contenders_default=0
[ -z "${CONTENDERS:-}" ] && contenders_default=1
CONTENDERS=${CONTENDERS:-"faultmon-run haproxy-1t floor-burst floor-timer"}
PROBE_LOADS=${PROBE_LOADS-"5000"}
probe_contenders_default=0
[ -z "${PROBE_CONTENDERS:-}" ] && probe_contenders_default=1
PROBE_CONTENDERS=${PROBE_CONTENDERS:-"faultmon-probe haproxy-1t floor-burst floor-timer"}
PIN=${PIN:-1}
KEEP=${KEEP:-0}
NGINX_CPU=${NGINX_CPU:-0}
CONTENDER_CPU=${CONTENDER_CPU:-1}
INTERVAL=1 # seconds; every contender is told the same
TIMEOUT_MS=${TIMEOUT_MS:-900}
HTTP_PORT=${HTTP_PORT:-28380}
NAME_PORT=${NAME_PORT:-28400}
STUB_PORT=${STUB_PORT:-28381}
HASTATS_PORT=${HASTATS_PORT:-28382}
TLS_PORT=${TLS_PORT:-28383}
ADMIN_ADDR=127.77.255.3
SPREAD_PARAMS=${SPREAD_PARAMS:-"--param spread=true"}
PROBE_SPREAD_OPTS=${PROBE_SPREAD_OPTS:-"--spread"}
CC=${CC:-cc}
if [ -z "${FAULTMON:-}" ]; then
	if [ -n "${BUILDDIR:-}" ]; then FAULTMON=$BUILDDIR/src/faultmon
	elif [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon
	else FAULTMON=$top/src/faultmon; fi
fi

die() { echo "ab: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

case "$WINDOW$ROUNDS$WARMUP$HAPROXY_WARMUP" in *[!0-9]*) die "WINDOW, ROUNDS, WARMUP, HAPROXY_WARMUP are whole numbers" ;; esac
if [ "$QUICK" != 1 ]; then
	[ "$WINDOW" -ge 60 ] || die "WINDOW must be at least 60 s (QUICK=1 to check the harness with less)"
	[ "$ROUNDS" -ge 3 ] || die "ROUNDS must be at least 3 (QUICK=1 to check the harness with less)"
fi
{ [ "$WINDOW" -ge 2 ] && [ "$ROUNDS" -ge 1 ]; } || die "WINDOW >= 2, ROUNDS >= 1"

[ "$(id -u)" = 0 ] || note "not root: raising the fd limit may fail"
nofile=$(ulimit -Hn)
{ [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
ulimit -n "$nofile" 2>/dev/null || die "cannot raise the fd limit to $nofile"
for tool in nginx haproxy taskset timeout ss awk python3 "$CC"; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install nginx-light haproxy python3 gcc libssl-dev)"
done
[ -x "$FAULTMON" ] || die "no faultmon at $FAULTMON (make; or set FAULTMON or BUILDDIR)"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || PIN=0

# spread mode, when this build has it
if "$FAULTMON" probe --help 2>&1 | grep -q -- '--spread'; then have_probe_spread=1; else have_probe_spread=0; fi
[ "$have_probe_spread" = 1 ] && [ "$probe_contenders_default" = 1 ] &&
	PROBE_CONTENDERS="$PROBE_CONTENDERS faultmon-probe-spread"

# ---- loads -------------------------------------------------------------------
max_n=1 max_names=0 max_tls=0
for load in $LOADS $PROBE_LOADS; do
	case $load in
	names[0-9]*) n=${load#names}; [ "$n" -gt "$max_names" ] && max_names=$n ;;
	tls[0-9]*) n=${load#tls}; [ "$n" -gt "$max_tls" ] && max_tls=$n; [ "$n" -gt "$max_n" ] && max_n=$n ;;
	[0-9]*) n=$load; [ "$n" -gt "$max_n" ] && max_n=$n ;;
	*) die "bad load '$load' (N, namesN or tlsN)" ;;
	esac
done
{ [ "$max_n" -le 5000 ] && [ "$max_names" -le 100 ]; } || die "at most 5000 targets, 100 by name"
[ $((2 * max_n + 300)) -le "$nofile" ] || die "fd limit $nofile too low for $max_n targets"
getent hosts localhost | grep -q '^127\.0\.0\.1 ' ||
	{ [ "$max_names" = 0 ] || die "localhost does not resolve to 127.0.0.1 here (/etc/hosts)"; }

ports="$HTTP_PORT $STUB_PORT $HASTATS_PORT $TLS_PORT"
for ((i = 0; i < max_names; i++)); do ports="$ports $((NAME_PORT + i))"; done
busy=$(ss -Hltn 2>/dev/null | awk -v list="$ports" '
	BEGIN { n = split(list, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
	{ a = $4; sub(/.*:/, "", a); if (a in want) print $4 }')
[ -z "$busy" ] || die "already listening: $(echo "$busy" | paste -sd' ' -) (set HTTP_PORT, NAME_PORT, STUB_PORT, HASTATS_PORT)"

T=$(mktemp -d "${TMPDIR:-/tmp}/ab-bench.XXXXXX") || die "mktemp failed"
chmod 755 "$T"
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then sp=/dev/shm; else sp=${TMPDIR:-/tmp}; fi
S=$(mktemp -d "$sp/ab-bench-state.XXXXXX") || die "mktemp in $sp failed"
export FAULTMON_STATE_DIR=$S # a tmpfs, as /run is in production
fm_id() { echo "sha256 $(sha256sum "$1" | cut -c1-12), built $(date -u -r "$1" +%Y-%m-%dT%H:%MZ)"; }
faultmon_id=$(fm_id "$FAULTMON")
cp -p "$FAULTMON" "$T/faultmon" || die "cannot copy $FAULTMON"
faultmon_src=$FAULTMON
FAULTMON=$T/faultmon # a rebuild of the tree during the run changes nothing here

nginx_pid='' cur_pid='' cur_wrap=''
cleanup() {
	[ -n "$cur_pid" ] && kill -TERM "$cur_pid" 2>/dev/null
	[ -n "$cur_wrap" ] && wait "$cur_wrap" 2>/dev/null
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	if [ "$KEEP" = 1 ]; then note "kept $T and $S"; else rm -rf "$T" "$S"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pin() { [ "$PIN" = 1 ] && echo "taskset -c $1"; }
[ "$PIN" = 1 ] && taskset -pc "$NGINX_CPU" $$ >/dev/null

addr() { echo "127.77.$(($1 / 250)).$(($1 % 250 + 1))"; } # 0-based index
for ((i = 0; i < max_n; i++)); do addr $i; done >"$T/addrs"
# "host:port" per target, one a line
hostports() { # load
	case $1 in
	names*) for ((i = 0; i < ${1#names}; i++)); do echo "localhost:$((NAME_PORT + i))"; done ;;
	tls*) head -n "${1#tls}" "$T/addrs" | sed "s|\$|:$TLS_PORT|" ;;
	*) head -n "$1" "$T/addrs" | sed "s|\$|:$HTTP_PORT|" ;;
	esac
}
# the same targets by address (for the floor, which does not resolve names)
hostports_numeric() { hostports "$1" | sed 's|^localhost:|127.0.0.1:|'; }
load_n() { case $1 in names*) echo "${1#names}" ;; tls*) echo "${1#tls}" ;; *) echo "$1" ;; esac; }
scheme() { case $1 in tls*) echo https ;; *) echo http ;; esac; }
# a throwaway certificate for the TLS loads
if [ "$max_tls" -gt 0 ]; then
	command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost \
		-keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1 || die "openssl req failed"
fi

# ---- nginx: the targets ----------------------------------------------------
# Every request writes one byte and a newline to hits.log: the checks done.
token=ab-bench-$$-$RANDOM
{
	echo "worker_processes 1;"
	echo "worker_rlimit_nofile $nofile;"
	echo "daemon off;"
	echo "pid $T/nginx.pid;"
	echo "error_log $T/nginx-error.log warn;"
	echo "events { worker_connections $((nofile - max_n - 200)); }"
	echo "http {"
	echo "  access_log off;"
	echo "  keepalive_timeout 0;"
	echo "  log_format hit '.';"
	echo "  log_format tlshit '\$ssl_session_reused';" # r: resumed, .: a full handshake
	echo "  server {"
	sed "s|.*|    listen &:$HTTP_PORT;|" "$T/addrs"
	for ((i = 0; i < max_names; i++)); do echo "    listen 127.0.0.1:$((NAME_PORT + i));"; done
	echo "    access_log $T/hits.log hit;"
	echo "    location / { return 200; }"
	echo "  }"
	if [ "$max_tls" -gt 0 ]; then
		# TLS 1.3 with session tickets (nginx's default) and a session cache:
		# a client that keeps its session resumes
		echo "  server {"
		head -n "$max_tls" "$T/addrs" | sed "s|.*|    listen &:$TLS_PORT ssl;|"
		echo "    ssl_certificate $T/cert.pem;"
		echo "    ssl_certificate_key $T/key.pem;"
		echo "    ssl_protocols TLSv1.2 TLSv1.3;"
		echo "    ssl_session_cache shared:SSL:4m;"
		echo "    access_log $T/hits.log tlshit;"
		echo "    location / { return 200; }"
		echo "  }"
	fi
	echo "  server {"
	echo "    listen $ADMIN_ADDR:$STUB_PORT;"
	echo "    location = /id { return 200 \"$token\"; }"
	echo "  }"
	echo "}"
} >"$T/nginx.conf"
# shellcheck disable=SC2086 # lists of words
{ set -- $LOADS; n_loads=$#; set -- $PROBE_LOADS; n_loads=$((n_loads + $#)); set -- $CONTENDERS faultmon-run-spread faultmon-probe-spread; }
budget=$(( n_loads * $# * ROUNDS * (HAPROXY_WARMUP + WINDOW + 5) + 300 ))
# shellcheck disable=SC2046 # empty or "taskset -c CPU"
timeout -s TERM -k 5 "$budget" $(pin "$NGINX_CPU") nginx -p "$T" -c "$T/nginx.conf" \
	-e "$T/nginx-error.log" >"$T/nginx.out" 2>&1 &
nginx_pid=$!
for ((i = 0; i < 100; i++)); do
	nginx_alive && break
	kill -0 "$nginx_pid" 2>/dev/null || break
	sleep 0.1
done
nginx_alive || { tail -n 5 "$T/nginx-error.log" "$T/nginx.out" >&2; die "nginx did not start"; }

# spread mode for the loop, when this build has it (an unknown parameter is a
# usage error, 64)
have_run_spread=0
# shellcheck disable=SC2086 # SPREAD_PARAMS is several words
timeout 10 "$FAULTMON" run ab-spread-check --no-env --no-pacemaker --cycles 1 \
	--param "Port_list=127.77.0.1:$HTTP_PORT" --param Thorough_probe_interval=1 $SPREAD_PARAMS >/dev/null 2>&1
[ $? != 64 ] && have_run_spread=1
[ "$have_run_spread" = 1 ] && [ "$contenders_default" = 1 ] && CONTENDERS="$CONTENDERS faultmon-run-spread"

"$CC" -O2 -o "$T/floor" "$bench/floor.c" -lssl -lcrypto || die "building floor.c failed (libssl-dev?)"

# ---- reading a process --------------------------------------------------------
# One reading, all at one instant (a python start-up on a busy machine takes
# long enough to matter): pid ->
# "ns ticks child_ticks hits t_ns busy_ticks resumed dirty_kib": the process
# CPU clock (all threads, exited ones included; ns), utime+stime and
# cutime+cstime (clock ticks), the requests nginx has logged, the monotonic
# time, the ticks the contender's CPU was busy (user nice system irq softirq
# steal; "-" unpinned): what of it is not the contender's is other work, the
# noise; the requests over a resumed TLS session nginx has logged; the
# contender's private dirty memory (smaps_rollup; its threads share it).
reading() { # pid [tls]
	python3 - "$1" "$T/hits.log" "$([ "$PIN" = 1 ] && echo "cpu$CONTENDER_CPU")" "${2:-}" <<'EOF'
import os, sys, time
pid = int(sys.argv[1])
def busy():
    if not sys.argv[3]:
        return "-"
    for line in open("/proc/stat"):
        f = line.split()
        if f[0] == sys.argv[3]:
            return str(sum(int(x) for x in (f[1], f[2], f[3], f[6], f[7], f[8])))
    return "-"
def dirty():
    try:
        for line in open("/proc/%d/smaps_rollup" % pid):
            if line.startswith("Private_Dirty:"):
                return line.split()[1]
    except OSError:
        pass
    return "-"
try:
    if sys.argv[4] == "tls":    # read it all only when it can hold an r
        with open(sys.argv[2], "rb") as log:
            data = log.read()
        hits, resumed = len(data) // 2, data.count(b"r")
    else:
        hits, resumed = os.stat(sys.argv[2]).st_size // 2, 0
except OSError:
    hits, resumed = 0, 0
try:
    ns = time.clock_gettime_ns(((~pid) << 3) | 2)   # CPUCLOCK_SCHED of the process
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    print(ns, int(f[11]) + int(f[12]), int(f[13]) + int(f[14]), hits, time.monotonic_ns(), busy(), resumed, dirty())
except (OSError, ValueError):
    print("- - -", hits, time.monotonic_ns(), busy(), resumed, "-")
EOF
}
hz=$(getconf CLK_TCK)

# ---- contenders -----------------------------------------------------------------
haproxy_cfg() { # load file
	{
		echo "global"
		echo "  maxconn 2000"
		echo "  nbthread 1"
		echo "  stats socket $2.sock level user" # HAProxy will not run without a listener
		echo "defaults"
		echo "  mode http"
		echo "  timeout connect ${TIMEOUT_MS}ms"
		echo "  timeout check ${TIMEOUT_MS}ms"
		echo "  timeout client 10s"
		echo "  timeout server 10s"
		echo "backend targets"
		echo "  option httpchk HEAD /"
		local ssl=''
		[ "$(scheme "$1")" = https ] && ssl=' check-ssl verify none'
		hostports "$1" | awk -v i="${INTERVAL}s" -v ssl="$ssl" '{ printf "  server s%d %s check inter %s%s\n", NR, $1, i, ssl }'
	} >"$2"
}
# runs: a serial number, so every faultmon run starts from an empty state
runs=0
start_contender() { # contender load secs
	local c=$1 load=$2 secs=$3
	runs=$((runs + 1))
	cur_log=$T/run-$runs-$c-$load
	cur_res=''
	case $c in
	floor-*)
		hostports_numeric "$load" | sed "s|.*|$(scheme "$load")://&/|" >"$cur_log.targets"
		set -- "$T/floor" -i $((INTERVAL * 1000)) -T "$TIMEOUT_MS" -d "$secs" -f "$cur_log.targets"
		[ "$c" = floor-burst ] && set -- "$@" -B
		[ "$c" = floor-batched ] && set -- "$@" -b
		;;
	haproxy-1t)
		haproxy_cfg "$load" "$cur_log.cfg"
		set -- haproxy -db -f "$cur_log.cfg"
		;;
	faultmon-run | faultmon-run-spread | faultmon-run-addr)
		cur_res=ab-$runs
		local list
		list=$(hostports "$load" | paste -sd, -)
		[ "$c" = faultmon-run-addr ] && list=$(hostports_numeric "$load" | paste -sd, -)
		local tls=()
		# HEAD / over TLS, as HAProxy's httpchk with check-ssl and the floor
		[ "$(scheme "$load")" = https ] && list=$(hostports "$load" | sed 's|.*|https://&/|' | paste -sd, -) &&
			tls=(--param tls_request=true --param tls_verify=false)
		set -- "$FAULTMON" run "$cur_res" --no-env --no-pacemaker \
			--param "Port_list=$list" "${tls[@]}" \
			--param "Thorough_probe_interval=$INTERVAL" --param "Probe_timeout=${TIMEOUT_MS}ms"
		# shellcheck disable=SC2086 # SPREAD_PARAMS is several words
		[ "$c" = faultmon-run-spread ] && set -- "$@" $SPREAD_PARAMS
		;;
	faultmon-probe | faultmon-probe-spread)
		hostports "$load" | sed "s|.*|$(scheme "$load")://&/|" >"$cur_log.targets"
		set -- "$FAULTMON" probe --count $((secs / INTERVAL + 2)) --interval "${INTERVAL}s" \
			--timeout "${TIMEOUT_MS}ms" --targets-file "$cur_log.targets"
		# shellcheck disable=SC2086
		[ "$c" = faultmon-probe-spread ] && set -- "$@" $PROBE_SPREAD_OPTS
		[ "$(scheme "$load")" = https ] && set -- "$@" --tls-request --tls-no-verify
		;;
	*) die "unknown contender $c" ;;
	esac
	echo "$*" >"$cur_log.cmd"
	# shellcheck disable=SC2046 # empty or "taskset -c CPU"
	timeout -s TERM -k 5 "$secs" $(pin "$CONTENDER_CPU") "$@" >"$cur_log.out" 2>"$cur_log.err" &
	cur_wrap=$!
	cur_pid=$(bench_child_of "$cur_wrap")
	[ -n "$cur_pid" ] || cur_pid=$cur_wrap
}
stop_contender() {
	kill -TERM "$cur_pid" 2>/dev/null
	wait "$cur_wrap" 2>/dev/null
	cur_pid='' cur_wrap=''
	sleep 0.5 # let the last connections drain before the next contender
}
fm_cycles() {
	local out
	out=$(timeout 5 "$FAULTMON" status "$1" --json 2>/dev/null | grep -o '"cycles":[0-9]*' | head -n 1)
	echo "${out#*:}"
}
# SIGUSR1 to the floor, then its ok counter once the new counters line is out
floor_ok() { # pid log
	local before i
	before=$(grep -c '^floor stats' "$2")
	kill -USR1 "$1"
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c '^floor stats' "$2")" -gt "$before" ] && break
		sleep 0.02
	done
	grep '^floor stats' "$2" | tail -n 1 | tr ' ' '\n' | sed -n 's/^ok=//p'
}

# R[load,c,round] = "us_per_check checks expected own us_ticks"
declare -A R
measure() { # contender load round
	local c=$1 load=$2 r=$3 n wu=$WARMUP t0 t1 h0 h1 b0 b1 cy0='' cy1='' own='' f0 f1
	local ns0 tk0 ck0 ns1 tk1 ck1
	n=$(load_n "$load")
	case $c in haproxy-*) wu=$HAPROXY_WARMUP ;; esac
	if [ "$c" = faultmon-run-spread ] && [ "$have_run_spread" = 0 ]; then R[$load,$c,$r]="- - - not-run - -"; return; fi
	nginx_alive || die "our nginx is gone"
	start_contender "$c" "$load" $((wu + WINDOW + 5))
	# half an interval more: a burst contender's cycles fall mid-window
	sleep "$wu.5"
	if ! kill -0 "$cur_pid" 2>/dev/null; then
		note "$c $load: exited during warm-up: $(tail -n 1 "$cur_log.err")"
		R[$load,$c,$r]="- - - exited - -"
		stop_contender
		return
	fi
	case $c in floor-*) f0=$(floor_ok "$cur_pid" "$cur_log.err") ;; faultmon-run*) cy0=$(fm_cycles "$cur_res") ;; esac
	local tlsarg='' rs0 rs1 pd1
	[ "$(scheme "$load")" = https ] && tlsarg=tls
	read -r ns0 tk0 ck0 h0 t0 b0 rs0 _ <<<"$(reading "$cur_pid" $tlsarg)"
	sleep "$WINDOW"
	read -r ns1 tk1 ck1 h1 t1 b1 rs1 pd1 <<<"$(reading "$cur_pid" $tlsarg)"
	case $c in floor-*) f1=$(floor_ok "$cur_pid" "$cur_log.err") ;; faultmon-run*) cy1=$(fm_cycles "$cur_res") ;; esac
	stop_contender
	if [ "$ns1" = - ] || [ "$ns0" = - ]; then
		R[$load,$c,$r]="- - - exited - -"
		note "$c $load: exited during the window: $(tail -n 1 "$cur_log.err")"
		return
	fi
	case $c in
	floor-*) own="ok:$(( ${f1:-0} - ${f0:-0} ))" ;;
	faultmon-run*) [ -n "$cy0" ] && [ -n "$cy1" ] && own="cycles:$((cy1 - cy0))x$n" ;;
	esac
	local checks=$((h1 - h0)) expect=$(( n * (t1 - t0) / (INTERVAL * 1000000000) ))
	local other=-
	[ "$b0" != - ] && [ -n "$b1" ] && other=$(awk -v b=$((b1 - b0)) -v ns=$((ns1 - ns0)) -v hz="$hz" -v el=$((t1 - t0)) \
		'BEGIN { o = (b * 1e9 / hz - ns) / el * 100; printf "%.1f", o < 0 ? 0 : o }')
	# TLS: the share of the window's checks made over a resumed session
	local rsh=-
	[ -n "$tlsarg" ] && [ "$checks" -gt 0 ] && rsh=$(( 100 * (rs1 - rs0) / checks ))
	R[$load,$c,$r]=$(awk -v ns=$((ns1 - ns0)) -v ck=$((ck1 - ck0)) -v tk=$((tk1 - tk0)) -v hz="$hz" \
		-v d="$checks" -v e="$expect" -v o="${own:--}" -v ot="$other" -v rs="$rsh" -v pd="${pd1:--}" 'BEGIN {
		if (d <= 0) { print "-", d, e, o, "-", ot, rs, pd; exit }
		printf "%.1f %d %d %s %.0f %s %s %s\n", (ns / 1000 + ck * 1e6 / hz) / d, d, e, o, (tk + ck) * 1e6 / hz / d, ot, rs, pd }')
	echo "$load $c round $r: ${R[$load,$c,$r]}" >>"$T/readings"
	# shellcheck disable=SC2086 # a reading is a list of words
	note "$load $c round $r: $(set -- ${R[$load,$c,$r]}; echo "$1 us/check, $2/$3 checks, own $4, other work on the CPU $6 %, resumed ${7:--} %, private dirty ${8:--} KiB")"
}

# ---- statistics ------------------------------------------------------------------
# values... -> "median min max" (or "- - -")
stats() {
	printf '%s\n' "$@" | awk '/^[0-9.]+$/ { v[n++] = $1 }
		END { if (!n) { print "- - -"; exit }
		      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		      m = (n % 2) ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
		      printf "%s %s %s\n", m, v[0], v[n - 1] }'
}
fmt_stats() { # "median min max" digits -> "M [a-b]"
	echo "$1" | awk -v d="$2" '$1 == "-" { print "-"; exit }
		{ if ($2 == $3) printf "%.*f\n", d, $1; else printf "%.*f [%.*f-%.*f]\n", d, $1, d, $2, d, $3 }'
}
# shellcheck disable=SC2086 # a reading is a list of words
field() { local i=$2; set -- $1; eval "echo \${$i:--}"; } # "a b c" i -> i-th word
round_ratios() { # load a b -> the ratio a/b of every round
	local r x y
	for ((r = 1; r <= ROUNDS; r++)); do
		x=$(field "${R[$1,$2,$r]:--}" 1) y=$(field "${R[$1,$3,$r]:--}" 1)
		awk -v x="$x" -v y="$y" 'BEGIN { if (x ~ /^[0-9.]+$/ && y ~ /^[0-9.]+$/ && y > 0) printf "%.3f\n", x / y; else print "-" }'
	done
}

# The private dirty memory each added target costs, from the smallest and
# the largest TLS load (medians of the rounds): what a loop keeps for a target
# between its cycles (a burst contender's window ends between two cycles).
mem_per_target() { # "loads" "contenders"
	local load lo='' hi='' c r
	for load in $1; do
		case $load in tls*) ;; *) continue ;; esac
		{ [ -z "$lo" ] || [ "${load#tls}" -lt "${lo#tls}" ]; } && lo=$load
		{ [ -z "$hi" ] || [ "${load#tls}" -gt "${hi#tls}" ]; } && hi=$load
	done
	{ [ -n "$lo" ] && [ "$lo" != "$hi" ]; } || return 0
	echo
	echo "Private dirty memory per added TLS target, (median at $hi - median at $lo) / $(( ${hi#tls} - ${lo#tls} )), KiB:"
	echo
	for c in $2; do
		local a=() b=()
		for ((r = 1; r <= ROUNDS; r++)); do
			a+=("$(field "${R[$lo,$c,$r]:--}" 8)") b+=("$(field "${R[$hi,$c,$r]:--}" 8)")
		done
		local ma mb
		ma=$(field "$(stats "${a[@]}")" 1) mb=$(field "$(stats "${b[@]}")" 1)
		echo "- $c: $(awk -v a="$ma" -v b="$mb" -v n=$(( ${hi#tls} - ${lo#tls} )) 'BEGIN {
			if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) printf "%.1f (%s -> %s KiB)", (b - a) / n, a, b; else print "-" }')"
	done
}

# ---- one table -------------------------------------------------------------------
run_table() { # title "loads" "contenders"
	local title=$1 loads=$2 cs=$3 load c r order rev all_cs
	all_cs=$cs
	# by name: the same loop on the same targets by address shows what
	# resolving costs
	[[ " $loads " == *" names"* ]] && [[ " $cs " == *" faultmon-run "* ]] && all_cs="$cs faultmon-run-addr"
	for load in $loads; do
		cs=$all_cs
		case $load in names*) ;; *) cs=${cs/ faultmon-run-addr/} ;; esac
		for ((r = 1; r <= ROUNDS; r++)); do
			order=$cs
			if [ $((r % 2)) = 0 ]; then
				rev=''
				for c in $cs; do rev="$c $rev"; done
				order=$rev
			fi
			for c in $order; do measure "$c" "$load" "$r"; done
		done
	done
	{
		echo
		echo "### $title"
		echo
		echo "| load | contender | µs CPU per check, median [min-max] | from ticks | checks per window: nginx / expected | own count | other work on CPU $CONTENDER_CPU, % | TLS: checks resumed, % | private dirty KiB at the window's end |"
		echo "|---|---|---|---|---|---|---|---|---|"
		for load in $loads; do
			for c in $all_cs; do
				case "$c/$load" in faultmon-run-addr/names*) ;; faultmon-run-addr/*) continue ;; esac
				local us=() tk=() ck=() ot=() rs=() pd=() own=''
				for ((r = 1; r <= ROUNDS; r++)); do
					# shellcheck disable=SC2086 # a reading is a list of words
					set -- ${R[$load,$c,$r]:-- - - - - - - -}
					us+=("$1") ck+=("$2/$3") tk+=("$5") ot+=("${6:--}") rs+=("${7:--}") pd+=("${8:--}") own=$4
				done
				local label=$load
				case $load in names*) label="${load#names} by name";; esac
				case "$c/$load" in floor-*/names*) c="$c (by address)" ;; faultmon-run-addr/*) c="faultmon-run (by address)" ;; esac
				echo "| $label | $c | $(fmt_stats "$(stats "${us[@]}")" 1) | $(fmt_stats "$(stats "${tk[@]}")" 0) | $(printf '%s ' "${ck[@]}") | $own | $(fmt_stats "$(stats "${ot[@]}")" 1) | $(fmt_stats "$(stats "${rs[@]}")" 0) | $(fmt_stats "$(stats "${pd[@]}")" 0) |"
			done
		done
		echo
		echo "Ratios of CPU per check, taken round by round: median [min-max] over $ROUNDS rounds"
		echo
		local pairs="" p a b
		for a in faultmon-run faultmon-probe faultmon-run-spread faultmon-probe-spread; do
			[[ " $cs " == *" $a "* ]] || continue
			pairs="$pairs $a/haproxy-1t"
			case $a in *-spread) pairs="$pairs $a/floor-timer" ;; *) pairs="$pairs $a/floor-burst" ;; esac
		done
		[[ " $cs " == *" haproxy-1t "* ]] && pairs="$pairs haproxy-1t/floor-timer haproxy-1t/floor-burst"
		[[ " $cs " == *" haproxy-1t "* ]] && [[ " $cs " == *" floor-batched "* ]] && pairs="$pairs haproxy-1t/floor-batched"
		[[ " $all_cs " == *" faultmon-run-addr "* ]] && pairs="$pairs faultmon-run/faultmon-run-addr"
		local hdr="| load |" sep="|---|"
		for p in $pairs; do hdr="$hdr ${p%/*} / ${p#*/} |" sep="$sep---|"; done
		echo "$hdr"
		echo "$sep"
		for load in $loads; do
			local line="| $load |"
			for p in $pairs; do
				a=${p%/*} b=${p#*/}
				if [[ " $all_cs " == *" $b "* ]]; then
					# shellcheck disable=SC2046 # one ratio a word
					line="$line $(fmt_stats "$(stats $(round_ratios "$load" "$a" "$b"))" 2) |"
				else
					line="$line - |"
				fi
			done
			echo "$line"
		done
		mem_per_target "$loads" "$all_cs"
	} >>"$T/report"
}

started=$(date +%s)
{
	echo "Command: $(for v in WINDOW ROUNDS QUICK WARMUP HAPROXY_WARMUP PIN; do printf '%s=%s ' "$v" "${!v}"; done)LOADS=\"$LOADS\" PROBE_LOADS=\"$PROBE_LOADS\" $([ "$contenders_default" = 1 ] || printf 'CONTENDERS="%s" ' "$CONTENDERS")$([ "$probe_contenders_default" = 1 ] || printf 'PROBE_CONTENDERS="%s" ' "$PROBE_CONTENDERS")$cmdline"
	[ "$QUICK" = 1 ] && echo "**QUICK=1: a check of the harness, not a measurement; do not quote these figures.**"
	echo "$(date -u +%Y-%m-%dT%H:%MZ); $(uname -r); $ncpu CPUs; pinning $([ "$PIN" = 1 ] && echo "nginx CPU $NGINX_CPU, contender CPU $CONTENDER_CPU" || echo off); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	irq=$( { zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } | grep -E '^(# )?CONFIG_IRQ_TIME_ACCOUNTING[= ]')
	echo "Kernel: ${irq:-CONFIG_IRQ_TIME_ACCOUNTING unknown (no /proc/config.gz, no /boot/config)} (when off, softirq work such as the loopback TCP of both ends is charged to the task that happens to run)"
	echo "faultmon: $faultmon_src ($faultmon_id); haproxy $(haproxy -v | awk 'NR == 1 { print $3 }'); nginx $(nginx -v 2>&1 | sed 's|.*/||')"
	echo "Every target probed every ${INTERVAL}s (HEAD /, timeout ${TIMEOUT_MS} ms); each contender alone in turn, order reversed every other round;"
	echo "window ${WINDOW} s after ${WARMUP} s warm-up (HAProxy ${HAPROXY_WARMUP} s); CPU = process CPU clock (all threads) + reaped children; checks counted by nginx."
} >"$T/report"
[ -n "$LOADS" ] && run_table "The production loop: faultmon run vs HAProxy (nbthread 1) and the floors" "$LOADS" "$CONTENDERS"
[ -n "$PROBE_LOADS" ] && run_table "faultmon probe (one-shot runs, --count/--interval)" "$PROBE_LOADS" "$PROBE_CONTENDERS"
{
	echo
	echo "floor-burst: every target at once each interval (faultmon's schedule); floor-timer: start times spread evenly, a timer each (a spread schedule)."
	echo "A row \"N by name\" probes localhost:PORT+i; faultmon resolves the names, HAProxy resolved them once at start-up, the floors use 127.0.0.1."
	echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); took $(( $(date +%s) - started )) s."
	[ "$(fm_id "$faultmon_src")" = "$faultmon_id" ] || echo "(the faultmon at $faultmon_src was rebuilt during the run; this run used a copy taken at its start)"
} >>"$T/report"
cat "$T/report"
