#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-probe-bench.sh - CPU and memory per health check: faultmon beside
# HAProxy's health checks and a minimal hand-written probe loop (floor.c).
#
# One nginx serves N distinct loopback targets (one listen socket per target
# address 127.77.X.Y); each contender in turn probes the same targets every
# INTERVAL seconds; its CPU time comes from its own accounting in /proc
# (schedstat of every thread, in ns) over a window after a warm-up, the checks
# it really did from nginx's connection counter over the same window.
# Contenders run one after another, never side by side.  See README.md.
#
# Usage: tests/bench/run-probe-bench.sh            (as root, from anywhere)
# Knobs (environment):
#   WINDOW=10 WARMUP=3         measured seconds per row, warm-up before it
#   HAPROXY_WARMUP=20          warm-up of the HAProxy rows (see below)
#   LOADS="100 1000 5000 tls100"
#   CONTENDERS="floor-timer floor-batched floor-burst haproxy-1t haproxy-default faultmon
#               faultmon-handshake"      (the last on TLS loads only)
#   PIN=1                      nginx on CPU 0, the contender on CPU 1
#   FAULTMON=src/faultmon      the binary (default relative to the repo top)
#   FAULTMON_CMD=...           the faultmon command line (see below)
#   CERT_KEY=rsa:2048          key of the throwaway server certificate
#   KEEP=1                     keep the temp dir (configs, logs)
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/tests/bench
# shellcheck source=tests/bench/lib.sh
. "$bench/lib.sh"

WINDOW=${WINDOW:-10}
WARMUP=${WARMUP:-3}
# HAProxy's checks start evenly spread and drift into clusters that share a
# wake-up (the next check is due an interval after the previous one *ends*,
# on a ms clock); its CPU per check falls by about a fifth over the first
# 20-40 s, then holds.  Its rows are measured after that.
HAPROXY_WARMUP=${HAPROXY_WARMUP:-20}
INTERVAL=1 # seconds; every contender is told the same
TIMEOUT_MS=${TIMEOUT_MS:-900}
LOADS=${LOADS:-"100 1000 5000 tls100"}
CONTENDERS=${CONTENDERS:-"floor-timer floor-batched floor-burst haproxy-1t haproxy-default faultmon faultmon-handshake"}
PIN=${PIN:-1}
CERT_KEY=${CERT_KEY:-rsa:2048}
KEEP=${KEEP:-0}
NGINX_CPU=${NGINX_CPU:-0}
CONTENDER_CPU=${CONTENDER_CPU:-1}
HTTP_PORT=${HTTP_PORT:-28080}
HTTPS_PORT=${HTTPS_PORT:-28443}
ADMIN_ADDR=127.77.255.1 # nginx stub_status and HAProxy's stats socket
STUB_PORT=${STUB_PORT:-28081}
HASTATS_PORT=${HASTATS_PORT:-28082}
CC=${CC:-cc}

# an out-of-tree build in build/ first, else an in-tree one
if [ -z "${FAULTMON:-}" ] && [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; fi
FAULTMON=${FAULTMON:-$top/src/faultmon}
# The faultmon command line, evaluated by the shell for every row.  Available:
#   $FAULTMON  $COUNT (runs: warm-up + window + margin)  $INTERVAL (seconds)
#   $TIMEOUT_MS  $TLS_OPTS (FAULTMON_TLS_OPTS for the TLS row, else empty)
#   $TARGETS (the target URLs, space separated)  $TARGETS_FILE (one a line)
# Its stdout goes to a file in the temp dir (read for the "own view" column:
# lines whose third field is "ok", the others, and "(resumed)"), its stderr
# to the log.
# The TLS row sends HEAD over TLS like HAProxy and the floor (--tls-request);
# the contender faultmon-handshake (TLS loads only) runs with
# FAULTMON_HANDSHAKE_OPTS instead: faultmon's default, a handshake only.
FAULTMON_TLS_OPTS=${FAULTMON_TLS_OPTS:---tls-request --tls-no-verify}
FAULTMON_HANDSHAKE_OPTS=${FAULTMON_HANDSHAKE_OPTS:---tls-no-verify}
FAULTMON_CMD=${FAULTMON_CMD:-'"$FAULTMON" probe --count "$COUNT" --interval "${INTERVAL}s" --timeout "${TIMEOUT_MS}ms" $TLS_OPTS --targets-file "$TARGETS_FILE"'}

die() { echo "run-probe-bench: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

[ "$(id -u)" = 0 ] || note "not root: raising the fd limit may fail"
nofile=$(ulimit -Hn)
{ [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
ulimit -n "$nofile" 2>/dev/null || die "cannot raise the fd limit to $nofile"
for tool in nginx openssl taskset timeout "$CC"; do
	command -v "$tool" >/dev/null || die "$tool not found"
done
case " $CONTENDERS " in *" haproxy-"*)
	command -v haproxy >/dev/null ||
		die "haproxy not found (apt-get install haproxy)" ;;
esac
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || PIN=0
case "$WINDOW$WARMUP$HAPROXY_WARMUP" in *[!0-9]*)
	die "WINDOW, WARMUP and HAPROXY_WARMUP are whole seconds" ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/probe-bench.XXXXXX") || die "mktemp failed"
chmod 755 "$T"
nginx_pid=
cur_pid=
cur_wrap=
cleanup() {
	[ -n "$cur_pid" ] && kill -TERM "$cur_pid" 2>/dev/null
	[ -n "$cur_wrap" ] && wait "$cur_wrap" 2>/dev/null
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null &&
		wait "$nginx_pid" 2>/dev/null
	if [ "$KEEP" = 1 ]; then note "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- targets -------------------------------------------------------------
addr() { echo "127.77.$(($1 / 250)).$(($1 % 250 + 1))"; } # 0-based index

max_http=1 max_tls=1
for load in $LOADS; do
	case $load in
	tls[0-9]*) n=${load#tls}; [ "$n" -gt "$max_tls" ] && max_tls=$n ;;
	[0-9]*) n=$load; [ "$n" -gt "$max_http" ] && max_http=$n ;;
	*) die "bad load: $load (e.g. 1000 or tls100)" ;;
	esac
done
[ "$max_http" -le 5000 ] && [ "$max_tls" -le 5000 ] ||
	die "at most 5000 targets per load"
[ $((2 * max_http + max_tls + 200)) -le "$nofile" ] ||
	die "fd limit $nofile too low for $max_http + $max_tls targets"

all_addrs=$T/addrs
for ((i = 0; i < (max_http > max_tls ? max_http : max_tls); i++)); do
	addr $i
done >"$all_addrs"
targets_file() { # proto n -> file with n URLs
	local f=$T/targets-$1-$2
	if [ ! -f "$f" ]; then
		if [ "$1" = https ]; then
			head -n "$2" "$all_addrs" | sed "s|.*|https://&:$HTTPS_PORT/|"
		else
			head -n "$2" "$all_addrs" | sed "s|.*|http://&:$HTTP_PORT/|"
		fi >"$f"
	fi
	echo "$f"
}

# ---- nginx: the targets --------------------------------------------------
token=probe-bench-$$-$RANDOM # tells our nginx from any other on the port
# shellcheck disable=SC2086 # CERT_KEY may be several words
openssl req -x509 -newkey $CERT_KEY -nodes -days 2 -subj /CN=localhost \
	-keyout "$T/key.pem" -out "$T/cert.pem" 2>/dev/null ||
	die "openssl req failed"
{
	echo "worker_processes 1;"
	echo "worker_rlimit_nofile $nofile;"
	echo "daemon off;"
	echo "pid $T/nginx.pid;"
	echo "error_log $T/nginx-error.log warn;"
	echo "events { worker_connections $((nofile - 100)); }" # listen sockets count
	echo "http {"
	echo "  access_log off;"
	echo "  keepalive_timeout 0;"
	echo "  server {"
	head -n "$max_http" "$all_addrs" | sed "s|.*|    listen &:$HTTP_PORT;|"
	echo "    location / { return 200; }"
	echo "  }"
	echo "  server {"
	head -n "$max_tls" "$all_addrs" | sed "s|.*|    listen &:$HTTPS_PORT ssl;|"
	echo "    ssl_certificate $T/cert.pem;"
	echo "    ssl_certificate_key $T/key.pem;"
	echo "    ssl_protocols TLSv1.2 TLSv1.3;"
	echo "    ssl_session_cache shared:SSL:4m;"
	echo "    location / { return 200; }"
	echo "  }"
	echo "  server {"
	echo "    listen $ADMIN_ADDR:$STUB_PORT;"
	echo "    location / { stub_status; }"
	echo "    location = /id { return 200 \"$token\"; }"
	echo "  }"
	echo "}"
} >"$T/nginx.conf"

pin() { # cpu-list: prefix for a command
	if [ "$PIN" = 1 ]; then echo "taskset -c $1"; fi
}
# the budget after which nginx stops by itself, whatever happens to us
set -- $LOADS; nl=$#; set -- $CONTENDERS
budget=$(( (nl + 2) * $# * (HAPROXY_WARMUP + WINDOW + 12) + 120 ))
pfx=$(pin "$NGINX_CPU")
timeout -s TERM -k 5 "$budget" $pfx nginx -p "$T" -c "$T/nginx.conf" \
	-e "$T/nginx-error.log" >"$T/nginx.out" 2>&1 &
nginx_pid=$!

for ((i = 0; i < 50; i++)); do
	nginx_alive && break
	kill -0 "$nginx_pid" 2>/dev/null || break
	sleep 0.1
done
nginx_alive || {
	grep -v 'already in use' "$T/nginx-error.log" "$T/nginx.out" | tail -n 5 >&2
	grep -m 3 'already in use' "$T/nginx.out" >&2
	die "nginx did not start (another one on $ADMIN_ADDR? set HTTP_PORT, HTTPS_PORT, STUB_PORT)"
}

# ---- measuring a process ----------------------------------------------------
cpu_ns() { # on-CPU ns of all threads (user + system)
	local f s=0 v
	for f in /proc/"$1"/task/*/schedstat; do
		read -r v _ <"$f" 2>/dev/null && s=$((s + v))
	done
	echo "$s"
}
cpu_ticks() { # utime + stime, clock ticks (cross-check)
	local st
	st=$(cat "/proc/$1/stat") || return
	st=${st##*) }
	set -- $st
	echo $(( ${12} + ${13} ))
}
mem_kib() { # -> "rss private private_dirty" in KiB
	awk '/^Rss:/ { r = $2 } /^Private_(Clean|Dirty):/ { p += $2 }
	     /^Private_Dirty:/ { d = $2 } END { print r + 0, p + 0, d + 0 }' \
		"/proc/$1/smaps_rollup"
}
threads() { awk '/^Threads:/ { print $2 }' "/proc/$1/status"; }
haproxy_cli() { # command -> HAProxy's answer on its stats socket
	exec 4<>"/dev/tcp/$ADMIN_ADDR/$HASTATS_PORT" || return
	printf '%s\n' "$1" >&4
	timeout 5 cat <&4
	exec 4<&-
}
haproxy_l7ok() { # servers whose last check passed at layer 7
	local out
	out=$(haproxy_cli "show stat")
	echo "$out" | awk -F, '$1 !~ /^#/ && $2 != "BACKEND" && $2 != "FRONTEND" && NF > 30 {
		n++; if ($37 ~ /L7OK/) ok++ } END { printf "%d/%d", ok, n }'
}
floor_stats() { # the last counters line floor printed
	grep '^floor stats' "$1" | tail -n 1
}
field() { # name line
	local w
	for w in $2; do
		case $w in "$1"=*) echo "${w#*=}"; return ;; esac
	done
	echo 0
}

haproxy_cfg() { # proto n nbthread-or-empty file
	local i=0 a check
	check="check inter ${INTERVAL}s"
	[ "$1" = https ] && check="$check check-ssl verify none"
	{
		echo "global"
		echo "  maxconn 2000" # checks do not count; keeps its fd need low
		[ -n "$3" ] && echo "  nbthread $3"
		echo "  stats socket ipv4@$ADMIN_ADDR:$HASTATS_PORT level user"
		echo "defaults"
		echo "  mode http"
		echo "  timeout connect ${TIMEOUT_MS}ms"
		echo "  timeout check ${TIMEOUT_MS}ms"
		echo "  timeout client 10s"
		echo "  timeout server 10s"
		echo "backend targets"
		echo "  option httpchk HEAD /"
		head -n "$2" "$all_addrs" | while read -r a; do
			i=$((i + 1))
			echo "  server s$i $a:$( [ "$1" = https ] && echo "$HTTPS_PORT" || echo "$HTTP_PORT") $check"
		done
	} >"$4"
}

floor_bin=$T/floor
"$CC" -O2 -o "$floor_bin" "$bench/floor.c" -lssl -lcrypto ||
	die "building floor.c failed (libssl-dev installed?)"

have_faultmon=0 faultmon_id=
fm_id() { echo "sha256 $(sha256sum "$FAULTMON" | cut -c1-12), built $(date -u -r "$FAULTMON" +%Y-%m-%dT%H:%MZ)"; }
[ -x "$FAULTMON" ] && have_faultmon=1 faultmon_id=$(fm_id)

# start CONTENDER on PROTO x N targets; sets cur_pid (the measured process)
# and cur_wrap (the timeout wrapping it)
start_contender() { # contender proto n seconds
	local c=$1 proto=$2 n=$3 secs=$4 tf cpus=$CONTENDER_CPU pfx
	tf=$(targets_file "$proto" "$n")
	cur_log=$T/$c-$proto-$n.log
	case $c in
	floor-*)
		set -- "$floor_bin" -i $((INTERVAL * 1000)) -T "$TIMEOUT_MS" \
			-d "$secs" -f "$tf"
		[ "$c" = floor-batched ] && set -- "$@" -b
		[ "$c" = floor-burst ] && set -- "$@" -B
		;;
	haproxy-1t | haproxy-default)
		local cfg=$T/$c-$proto-$n.cfg
		if [ "$c" = haproxy-1t ]; then
			haproxy_cfg "$proto" "$n" 1 "$cfg"
		else
			haproxy_cfg "$proto" "$n" "" "$cfg"
			cpus=0-$((ncpu - 1)) # its default thread count needs every CPU
		fi
		set -- haproxy -db -f "$cfg"
		;;
	faultmon*)
		local COUNT TARGETS_FILE TARGETS TLS_OPTS=""
		# shellcheck disable=SC2034 # all used by the eval of FAULTMON_CMD
		{
			COUNT=$(( secs / INTERVAL + 2 )) TARGETS_FILE=$tf
			TARGETS=$(tr '\n' ' ' <"$tf")
			[ "$proto" = https ] && TLS_OPTS=$FAULTMON_TLS_OPTS
			[ "$c" = faultmon-handshake ] && TLS_OPTS=$FAULTMON_HANDSHAKE_OPTS
		}
		eval "set -- $FAULTMON_CMD"
		;;
	esac
	echo "$*" | cut -c1-300 >"$cur_log.cmd"
	pfx=$(pin "$cpus") # not in the background job: it would fork there
	if [ "${c#faultmon}" != "$c" ]; then
		timeout -s TERM -k 5 "$((secs + 10))" $pfx "$@" \
			>"$cur_log.out" 2>"$cur_log" &
	else
		timeout -s TERM -k 5 "$((secs + 10))" $pfx "$@" >"$cur_log" 2>&1 &
	fi
	cur_wrap=$!
	cur_pid=$(bench_child_of "$cur_wrap")
	[ -n "$cur_pid" ] || cur_pid=$cur_wrap
}
stop_contender() {
	kill -TERM "$cur_pid" 2>/dev/null
	wait "$cur_wrap" 2>/dev/null
	cur_pid=
	sleep 0.5 # let the last connections drain before the next contender
}

# memory of a contender with one target, to take off its fixed part
declare -A base_rss base_priv base_dirty
base_key() { # contender proto: the floor's schedules share one baseline
	case $1 in floor-*) echo "floor-$2" ;; *) echo "$1-$2" ;; esac
}
baseline() { # contender proto
	local key
	key=$(base_key "$1" "$2")
	[ -n "${base_priv[$key]:-}" ] && return
	start_contender "$1" "$2" 1 $((WARMUP + 10))
	sleep "$WARMUP"
	if kill -0 "$cur_pid" 2>/dev/null; then
		read -r base_rss[$key] base_priv[$key] base_dirty[$key] \
			<<<"$(mem_kib "$cur_pid")"
	else
		note "$1 with 1 target exited: $(tail -n 1 "$cur_log")"
		base_rss[$key]="?" base_priv[$key]="?" base_dirty[$key]="?"
	fi
	stop_contender
}

declare -A cpu_us mem_pt
rows=()
run_row() { # load contender
	local load=$1 c=$2 proto=http n=$1 key
	local t0 t1 c0 c1 k0 k1 a0 a1 r0 r1 f0="" f1="" rss priv dirty thr own="" ok el
	local wu=$WARMUP
	case $load in tls*) proto=https n=${load#tls} ;; esac
	key=$load/$c
	[ "$c" = faultmon-handshake ] && [ "$proto" = http ] && return
	if [ "${c#faultmon}" != "$c" ] && [ "$have_faultmon" = 0 ]; then
		rows+=("| $load | $c | - | - | - | - | - | - | not run: no executable at \$FAULTMON |")
		return
	fi
	nginx_alive || die "our nginx is gone"
	baseline "$c" "$proto"
	case $c in haproxy-*) wu=$HAPROXY_WARMUP ;; esac
	start_contender "$c" "$proto" "$n" $((wu + WINDOW + 5))
	# half an interval more: a contender that probes every target at once
	# (floor-burst, faultmon) has its bursts in mid-window, not on its edges
	sleep "$wu.5"
	if ! kill -0 "$cur_pid" 2>/dev/null; then
		rows+=("| $load | $c | - | - | - | - | - | - | exited during warm-up: $(tail -n 1 "$cur_log" | cut -c1-80) |")
		stop_contender
		return
	fi
	case $c in floor-*) kill -USR1 "$cur_pid" ;; esac
	t0=$(date +%s%N) c0=$(cpu_ns "$cur_pid") k0=$(cpu_ticks "$cur_pid")
	read -r a0 r0 <<<"$(bench_nginx_counts | cut -d" " -f1,3)"
	case $c in floor-*) sleep 0.05; f0=$(floor_stats "$cur_log") ;; esac
	sleep "$WINDOW"
	case $c in floor-*) kill -USR1 "$cur_pid" ;; esac
	t1=$(date +%s%N) c1=$(cpu_ns "$cur_pid") k1=$(cpu_ticks "$cur_pid")
	read -r a1 r1 <<<"$(bench_nginx_counts | cut -d" " -f1,3)"
	if ! kill -0 "$cur_pid" 2>/dev/null || [ -z "$c1" ]; then
		rows+=("| $load | $c | - | - | - | - | - | - | exited before the window ended |")
		stop_contender
		return
	fi
	read -r rss priv dirty <<<"$(mem_kib "$cur_pid")"
	thr=$(threads "$cur_pid")
	case $c in
	floor-*)
		sleep 0.05
		f1=$(floor_stats "$cur_log")
		ok=$(( $(field ok "$f1") - $(field ok "$f0") ))
		own="own count: ok $ok"
		local bad=0 w
		for w in err_connect err_send err_read err_tls bad_status timeout skipped; do
			bad=$((bad + $(field $w "$f1") - $(field $w "$f0")))
		done
		own="$own, failed $bad"
		if [ "$proto" = https ]; then
			local rs=$(( $(field tls_resumed "$f1") - $(field tls_resumed "$f0") ))
			own="$own, resumed $rs"
		fi
		;;
	haproxy-*)
		own="servers L7OK: $(haproxy_l7ok)"
		[ "$proto" = https ] && own="$own, full handshakes/s: $(haproxy_cli "show info" |
			awk -F': ' '/^SslBackendKeyRate:/ { print $2 }')"
		;;
	esac
	stop_contender
	case $c in
	faultmon*) # its result lines over the whole run (stdout is buffered)
		own=$(awk '
			/^verdict/ { runs++; next } NF < 3 { next }
			$3 == "ok" { ok++ } $3 != "ok" { bad++ } /\(resumed\)/ { rs++ }
			END { printf "own lines, whole run (%d runs): ok %d, not ok %d", runs, ok, bad
			      if (rs) printf ", resumed %d", rs }' "$cur_log.out")
		[ "$proto" = https ] || own=${own%, resumed*}
		;;
	esac

	el=$((t1 - t0))                # ns
	local ndone=$(( a1 - a0 - 1 ))  # less our own stub_status request
	local reqs=$(( r1 - r0 - 1 ))
	local expect=$(( n * el / (INTERVAL * 1000000000) ))
	local cns=$((c1 - c0))
	local us="-"
	[ "$ndone" -gt 0 ] && us=$(awk -v c="$cns" -v d="$ndone" 'BEGIN { printf "%.1f", c / 1000 / d }')
	local tick_us
	tick_us=$(awk -v k=$((k1 - k0)) -v d="$ndone" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { if (d > 0) printf "%.0f", k * 1e6 / hz / d; else print "-" }')
	local bk pt_dirty="-" pt_rss="-"
	bk=$(base_key "$c" "$proto")
	if [ "$n" -gt 1 ] && [ "${base_priv[$bk]}" != "?" ]; then
		pt_dirty=$(awk -v a="$dirty" -v b="${base_dirty[$bk]}" -v n="$n" 'BEGIN { printf "%.2f", (a - b) / (n - 1) }')
		pt_rss=$(awk -v a="$rss" -v b="${base_rss[$bk]}" -v n="$n" 'BEGIN { printf "%.2f", (a - b) / (n - 1) }')
	fi
	cpu_us[$key]=$us mem_pt[$key]=$pt_rss
	# faultmon-handshake sends none; others differ only at the window's edges
	if [ $(( (reqs - ndone) * (reqs - ndone) )) -gt $(( (ndone / 100 + 2) ** 2 )) ]; then
		own="${own:+$own; }HTTP requests $reqs"
	fi
	rows+=("| $load | $c | $thr | $us ($tick_us) | $ndone / $expect | $rss / $priv / $dirty | $pt_rss / $pt_dirty | ${base_rss[$bk]} / ${base_priv[$bk]} / ${base_dirty[$bk]} | $own |")
	note "$load $c: ${us} us/check, $ndone/$expect checks"
}

started=$(date +%s)
note "targets on 127.77.x.y, nginx pid $nginx_pid; window ${WINDOW}s after ${WARMUP}s warm-up (HAProxy ${HAPROXY_WARMUP}s); pinning: $([ "$PIN" = 1 ] && echo "nginx CPU $NGINX_CPU, contender CPU $CONTENDER_CPU" || echo off)"
[ "$have_faultmon" = 1 ] || note "no faultmon at $FAULTMON: its rows are skipped"
for load in $LOADS; do
	for c in $CONTENDERS; do
		run_row "$load" "$c"
	done
done

echo
echo "Probe cost, every target probed every ${INTERVAL}s; window ${WINDOW}s after ${WARMUP}s warm-up (HAProxy ${HAPROXY_WARMUP}s); $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) CPUs; pinning $([ "$PIN" = 1 ] && echo on || echo off)"
echo
echo "| load | contender | threads | µs CPU per check (from ticks) | checks done / expected | RSS / private / private dirty KiB | KiB per target above 1 target: RSS / private dirty | with 1 target: RSS / private / private dirty KiB | contender's own view |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ "$have_faultmon" = 1 ]; then
	echo
	echo "faultmon: binary $faultmon_id; command, e.g. $(sed "s|$T/||g; s|$top/||g" "$T/faultmon-http-$max_http.log.cmd" 2>/dev/null)"
	[ "$(fm_id)" = "$faultmon_id" ] ||
		echo "**faultmon changed during the run** (now $(fm_id)): its rows may mix two builds"
fi
echo
ratio() { # a b -> a/b or -
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}
if [[ " $CONTENDERS " == *" faultmon"* ]]; then
	echo "Ratios, faultmon / other: CPU per check, and RSS per target"
	echo "(floor-burst has faultmon probe's schedule: every target at once each interval)"
	echo
	echo "| load | contender | CPU / haproxy-1t | CPU / haproxy-default | CPU / floor-timer | CPU / floor-batched | CPU / floor-burst | RSS per target / haproxy-1t | RSS per target / floor-burst |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for load in $LOADS; do
		for f in faultmon faultmon-handshake; do
			[ -n "${cpu_us[$load/$f]:-}" ] || continue
			line="| $load | $f"
			for o in haproxy-1t haproxy-default floor-timer floor-batched floor-burst; do
				line="$line | $(ratio "${cpu_us[$load/$f]}" "${cpu_us[$load/$o]:-}")"
			done
			for o in haproxy-1t floor-burst; do
				line="$line | $(ratio "${mem_pt[$load/$f]}" "${mem_pt[$load/$o]:-}")"
			done
			echo "$line |"
		done
	done
	echo
fi
echo "Ratios, HAProxy / floor (CPU per check):"
echo
echo "| load | haproxy-1t / floor-timer | haproxy-1t / floor-batched | haproxy-1t / floor-burst | haproxy-default / floor-timer |"
echo "|---|---|---|---|---|"
for load in $LOADS; do
	echo "| $load | $(ratio "${cpu_us[$load/haproxy-1t]:-}" "${cpu_us[$load/floor-timer]:-}") | $(ratio "${cpu_us[$load/haproxy-1t]:-}" "${cpu_us[$load/floor-batched]:-}") | $(ratio "${cpu_us[$load/haproxy-1t]:-}" "${cpu_us[$load/floor-burst]:-}") | $(ratio "${cpu_us[$load/haproxy-default]:-}" "${cpu_us[$load/floor-timer]:-}") |"
done
echo
note "took $(( $(date +%s) - started ))s"
