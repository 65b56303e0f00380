#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-loop-bench.sh - the fault-monitor loop (`faultmon run`) over a long run,
# beside HAProxy's health checks on the same kind of targets: CPU per check,
# resident and private memory, memory per added target, fds, growth over the
# run, and the loop's cost while idle between probes.
#
# One nginx serves every target (one listen socket per target address,
# 127.77.X.Y, one port per contender).  Six contenders run side by side for
# the whole run: faultmon run and HAProxy (nbthread 1), each with 1, 10 and
# 1000 HTTP targets (HEAD /, every second); a seventh, faultmon run with
# Thorough_probe_interval=60 and 1 target, shows the idle loop.  Every SAMPLE
# seconds each process's CPU time (/proc schedstat and stat), memory
# (/proc/PID/smaps_rollup), fds and checks done (nginx's per-port access log,
# faultmon's cycle count from `faultmon status --json`, HAProxy's stats) are
# read; CPU per check is taken over the window after WARMUP.  See README.md.
#
# Usage: tests/bench/run-loop-bench.sh             (as root, from anywhere)
# Knobs (environment):
#   DURATION=600        measured window, seconds (90 for a quick check)
#   WARMUP=60           seconds before the window (HAProxy's checks settle)
#   SAMPLE=60           seconds between samples of the growth series
#   SIZES="1 10 1000"   target counts of the faultmon and HAProxy rows
#   IDLE=1              the idle row (faultmon, 1 target, interval 60 s)
#   SOLO=1              first, 10 targets alone for a few seconds each (memory
#                       without other faultmon processes sharing its pages)
#   PIN=1               nginx (and this script) on NGINX_CPU (0), every
#                       contender on CONTENDER_CPU (1)
#   FAULTMON=src/faultmon            the binary (relative to the repo top)
#   FAULTMON_PARAMS="--param Probe_timeout=900ms"   more options of faultmon run
#   STATE_PARENT=/dev/shm            where the temp FAULTMON_STATE_DIR goes (a
#                       tmpfs, as /run is in production; else TMPDIR)
#   TARGET_PORT=28190 (one per contender: 28190...28196), STUB_PORT=28181,
#   HASTATS_PORT=28182 (one per HAProxy: 28182...)   ports on 127.77.x.y
#   KEEP=1              keep the temp dirs (configs, logs, samples)
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/bench/lib.sh
. "$top/tests/bench/lib.sh"

DURATION=${DURATION:-600}
WARMUP=${WARMUP:-60}
SAMPLE=${SAMPLE:-60}
SIZES=${SIZES:-"1 10 1000"}
IDLE=${IDLE:-1}
SOLO=${SOLO:-1}
PIN=${PIN:-1}
KEEP=${KEEP:-0}
NGINX_CPU=${NGINX_CPU:-0}
CONTENDER_CPU=${CONTENDER_CPU:-1}
INTERVAL=1          # seconds, every busy contender
IDLE_INTERVAL=60    # seconds, the idle row
TIMEOUT_MS=${TIMEOUT_MS:-900}
TARGET_PORT=${TARGET_PORT:-28190}
STUB_PORT=${STUB_PORT:-28181}
HASTATS_PORT=${HASTATS_PORT:-28182}
ADMIN_ADDR=127.77.255.2 # nginx stub_status and HAProxy's stats sockets
# an out-of-tree build in build/ first, else an in-tree one
if [ -z "${FAULTMON:-}" ] && [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; fi
FAULTMON=${FAULTMON:-$top/src/faultmon}
FAULTMON_PARAMS=${FAULTMON_PARAMS:-"--param Probe_timeout=${TIMEOUT_MS}ms"}
STATE_PARENT=${STATE_PARENT:-}

die() { echo "run-loop-bench: $*" >&2; exit 1; }
note() { echo "# $*" >&2; }

case "$DURATION$WARMUP$SAMPLE" in *[!0-9]*) die "DURATION, WARMUP and SAMPLE are whole seconds" ;; esac
[ "$DURATION" -ge 30 ] || die "DURATION must be at least 30 s"
[ "$SAMPLE" -ge 10 ] || die "SAMPLE must be at least 10 s"
[ "$WARMUP" -ge 5 ] || die "WARMUP must be at least 5 s"
for n in $SIZES; do
	case $n in *[!0-9]* | "" | 0) die "bad size '$n' in SIZES" ;; esac
	[ "$n" -le 5000 ] || die "at most 5000 targets per contender"
done
# the idle row needs a window of 56 s between its probes, from 30 s on
if [ "$IDLE" = 1 ] && [ $((WARMUP + DURATION)) -lt 90 ]; then
	note "WARMUP + DURATION < 90 s: no idle row"
	IDLE=0
fi

[ "$(id -u)" = 0 ] || note "not root: raising the fd limit may fail"
nofile=$(ulimit -Hn)
{ [ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ]; } && nofile=65536
ulimit -n "$nofile" 2>/dev/null || die "cannot raise the fd limit to $nofile"
for tool in nginx haproxy taskset timeout ss awk; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install nginx-light haproxy util-linux iproute2)"
done
[ -x "$FAULTMON" ] || die "no faultmon at $FAULTMON (run make, or set FAULTMON)"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || PIN=0

# ---- the contenders ------------------------------------------------------
# index -> name, kind (faultmon, haproxy, idle), targets, port
C_NAME=() C_KIND=() C_N=() C_PORT=()
add_contender() { # name kind n
	C_NAME+=("$1") C_KIND+=("$2") C_N+=("$3")
	C_PORT+=($((TARGET_PORT + ${#C_PORT[@]})))
}
for n in $SIZES; do add_contender "faultmon-$n" faultmon "$n"; done
for n in $SIZES; do add_contender "haproxy-1t-$n" haproxy "$n"; done
[ "$IDLE" = 1 ] && add_contender "faultmon-idle-1" idle 1
NC=${#C_NAME[@]}
max_n=1
for n in $SIZES; do [ "$n" -gt "$max_n" ] && max_n=$n; done
total_targets=0
for ((j = 0; j < NC; j++)); do total_targets=$((total_targets + C_N[j])); done
[ $((2 * total_targets + 500)) -le "$nofile" ] || die "fd limit $nofile too low for $total_targets targets"

# ---- ports: fail loudly if anything else listens on ours -----------------
n_ha=0
for ((j = 0; j < NC; j++)); do [ "${C_KIND[j]}" = haproxy ] && n_ha=$((n_ha + 1)); done
ports="$STUB_PORT"
for ((j = 0; j < NC; j++)); do ports="$ports ${C_PORT[j]}"; done
for ((j = 0; j < n_ha; j++)); do ports="$ports $((HASTATS_PORT + j))"; done
busy=$(ss -Hltn 2>/dev/null | awk -v list="$ports" '
	BEGIN { n = split(list, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
	{ a = $4; sub(/.*:/, "", a); if (a in want) print $4 }')
[ -z "$busy" ] && [ "$(printf '%s\n' $ports | sort -u | wc -l)" = "$(printf '%s\n' $ports | wc -l)" ] ||
	die "port conflict: already listening: $(echo $busy) (ports used: $ports; set TARGET_PORT, STUB_PORT, HASTATS_PORT)"

# ---- temp dirs -------------------------------------------------------------
T=$(mktemp -d "${TMPDIR:-/tmp}/loop-bench.XXXXXX") || die "mktemp failed"
chmod 755 "$T"
if [ -z "$STATE_PARENT" ]; then
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then STATE_PARENT=/dev/shm; else STATE_PARENT=${TMPDIR:-/tmp}; fi
fi
S=$(mktemp -d "$STATE_PARENT/loop-bench-state.XXXXXX") || die "mktemp in $STATE_PARENT failed"
export FAULTMON_STATE_DIR=$S
state_fs=$(stat -f -c %T "$S")
# Run a copy: a rebuild of the tree during the run changes nothing here.
faultmon_src=$FAULTMON
FAULTMON=$T/faultmon
cp -p "$faultmon_src" "$FAULTMON" || die "cannot copy $faultmon_src"

nginx_pid=
C_PID=() C_WRAP=()
kill_all() {
	local j
	for ((j = 0; j < NC; j++)); do
		[ -n "${C_PID[j]:-}" ] && kill -TERM "${C_PID[j]}" 2>/dev/null
	done
	for ((j = 0; j < NC; j++)); do
		[ -n "${C_WRAP[j]:-}" ] && wait "${C_WRAP[j]}" 2>/dev/null
		C_PID[j]='' C_WRAP[j]=''
	done
}
cleanup() {
	kill_all
	[ -n "${solo_wrap:-}" ] && kill -TERM "$solo_pid" 2>/dev/null && wait "$solo_wrap" 2>/dev/null
	[ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
	if [ "$KEEP" = 1 ]; then note "kept $T and $S"; else rm -rf "$T" "$S"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

addr() { echo "127.77.$(($1 / 250)).$(($1 % 250 + 1))"; } # 0-based index
all_addrs=$T/addrs
for ((i = 0; i < max_n; i++)); do addr $i; done >"$all_addrs"

pin() { [ "$PIN" = 1 ] && echo "taskset -c $1"; }
# keep this script's own work (sampling) off the contenders' CPU
[ "$PIN" = 1 ] && taskset -pc "$NGINX_CPU" $$ >/dev/null

# ---- nginx: the targets ----------------------------------------------------
# One server per contender, on its own port, with an access log of one byte
# and a newline per request: the count of checks that contender made.
token=loop-bench-$$-$RANDOM
{
	echo "worker_processes 1;"
	echo "worker_rlimit_nofile $nofile;"
	echo "daemon off;"
	echo "pid $T/nginx.pid;"
	echo "error_log $T/nginx-error.log warn;"
	echo "events { worker_connections $((nofile - total_targets - 200)); }"
	echo "http {"
	echo "  access_log off;"
	echo "  keepalive_timeout 0;"
	echo "  log_format hit '.';"
	for ((j = 0; j < NC; j++)); do
		echo "  server {"
		head -n "${C_N[j]}" "$all_addrs" | sed "s|.*|    listen &:${C_PORT[j]};|"
		echo "    access_log $T/hits-${C_PORT[j]}.log hit;"
		echo "    location / { return 200; }"
		echo "  }"
	done
	echo "  server {"
	echo "    listen $ADMIN_ADDR:$STUB_PORT;"
	echo "    location / { stub_status; }"
	echo "    location = /id { return 200 \"$token\"; }"
	echo "  }"
	echo "}"
} >"$T/nginx.conf"
run_secs=$((WARMUP + DURATION))
budget=$((run_secs + 180))
# shellcheck disable=SC2046 # empty or "taskset -c CPU"
timeout -s TERM -k 5 "$budget" $(pin "$NGINX_CPU") nginx -p "$T" -c "$T/nginx.conf" \
	-e "$T/nginx-error.log" >"$T/nginx.out" 2>&1 &
nginx_pid=$!

for ((i = 0; i < 100; i++)); do
	nginx_alive && break
	kill -0 "$nginx_pid" 2>/dev/null || break
	sleep 0.1
done
nginx_alive || {
	grep -h 'already in use' "$T/nginx-error.log" "$T/nginx.out" 2>/dev/null | head -n 3 >&2
	grep -hv 'already in use' "$T/nginx-error.log" "$T/nginx.out" 2>/dev/null | tail -n 5 >&2
	die "nginx did not start (port conflict on 127.77.x.y? set TARGET_PORT, STUB_PORT)"
}
hits() { # port -> requests nginx has logged on it
	local s
	s=$(stat -c %s "$T/hits-$1.log" 2>/dev/null) || s=0
	echo $((s / 2))
}

# ---- reading a process -------------------------------------------------------
nginx_master=$(bench_child_of "$nginx_pid")
nginx_cpu() { # on-CPU ns of nginx's master and workers
	local p s=0 a
	for p in $nginx_master $(cat "/proc/$nginx_master/task/$nginx_master/children" 2>/dev/null); do
		read -r a _ <"/proc/$p/schedstat" 2>/dev/null && s=$((s + a))
	done
	echo "$s"
}
proc_cpu() { # pid -> "cpu_ns ticks timeslices vol_ctxt threads"
	local p=$1 f s=0 sl=0 a b c st vol thr
	for f in /proc/"$p"/task/*/schedstat; do
		read -r a b c <"$f" 2>/dev/null && s=$((s + a)) sl=$((sl + c))
	done
	st=$(cat "/proc/$p/stat" 2>/dev/null) || { echo "- - - - -"; return; }
	st=${st##*) }
	set -- $st
	vol=$(awk '/^voluntary_ctxt_switches:/ { print $2 }' "/proc/$p/status")
	thr=$(awk '/^Threads:/ { print $2 }' "/proc/$p/status")
	echo "$s $(( ${12} + ${13} )) $sl $vol $thr"
}
# Memory and fds change within a probe cycle (faultmon opens every
# connection of a cycle at once), so they are read MEM_PASSES times over a
# bit more than an interval: the least is the figure at rest (between
# cycles, for faultmon), the most the peak.
MEM_PASSES=${MEM_PASSES:-25}
mem_read() { # "j:pid ..." -> lines "j rss priv dirty anon fds", MEM_PASSES times
	local pass jp fds files
	for ((pass = 0; pass < MEM_PASSES; pass++)); do
		files=()
		for jp in $1; do
			fds=(/proc/"${jp#*:}"/fd/*)
			[ -e "${fds[0]}" ] || continue
			echo "${jp%%:*} fds ${#fds[@]}"
			files+=("/proc/${jp#*:}/smaps_rollup")
		done
		[ ${#files[@]} -gt 0 ] && awk '
			FNR == 1 { if (f) out(); f = FILENAME; r = p = d = a = 0 }
			/^Rss:/ { r = $2 } /^Private_(Clean|Dirty):/ { p += $2 }
			/^Private_Dirty:/ { d = $2 } /^Anonymous:/ { a = $2 }
			function out() { print f, "mem", r, p, d, a }
			END { if (f) out() }' "${files[@]}" 2>/dev/null
		sleep 0.04
	done
}
fm_cycles() { # resource -> cycles from faultmon status --json
	local out
	out=$(timeout 5 "$FAULTMON" status "$1" --json 2>/dev/null)
	out=$(echo "$out" | grep -o '"cycles":[0-9]*' | head -n 1)
	echo "${out#*:}"
}
fm_state() { # resource -> its state and how many of the listed targets are ok
	timeout 5 "$FAULTMON" status "$1" --json 2>/dev/null | awk '{
		s = $0; sub(/.*"state":"/, "", s); sub(/".*/, "", s)
		n = gsub(/"verdict":"ok","reason"/, "&"); t = gsub(/"target":/, "&")
		printf "%s, %d/%d listed targets ok", s, n, t }'
}
haproxy_cli() { # port command
	{ exec 4<>"/dev/tcp/$ADMIN_ADDR/$1"; } 2>/dev/null || return
	printf '%s\n' "$2" >&4
	timeout 5 cat <&4
	exec 4<&-
}
haproxy_stat() { # port -> "l7ok servers chkfail"
	haproxy_cli "$1" "show stat" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) { h = $i; sub(/^# /, "", h); col[h] = i }; next }
		$2 != "BACKEND" && $2 != "FRONTEND" && NF > 30 {
			n++; if ($col["check_status"] ~ /L7OK/) ok++; f += $col["chkfail"] }
		END { print ok + 0, n + 0, f + 0 }'
}

haproxy_cfg() { # n port stats-port file
	{
		echo "global"
		echo "  maxconn 2000"
		echo "  nbthread 1"
		echo "  stats socket ipv4@$ADMIN_ADDR:$3 level user"
		echo "defaults"
		echo "  mode http"
		echo "  timeout connect ${TIMEOUT_MS}ms"
		echo "  timeout check ${TIMEOUT_MS}ms"
		echo "  timeout client 10s"
		echo "  timeout server 10s"
		echo "backend targets"
		echo "  option httpchk HEAD /"
		head -n "$1" "$all_addrs" | awk -v p="$2" -v i="${INTERVAL}s" \
			'{ printf "  server s%d %s:%d check inter %s\n", NR, $1, p, i }'
	} >"$4"
}
port_list() { # n port -> Port_list value
	head -n "$1" "$all_addrs" | sed "s|\$|:$2|" | paste -sd, -
}
# start contender j; its process runs at most SECS seconds
C_HA_PORT=()
start_contender() { # j secs
	local j=$1 secs=$2 log=$T/${C_NAME[$1]} ha_i=0 k
	case ${C_KIND[j]} in
	haproxy)
		for ((k = 0; k < j; k++)); do [ "${C_KIND[k]}" = haproxy ] && ha_i=$((ha_i + 1)); done
		C_HA_PORT[j]=$((HASTATS_PORT + ha_i))
		haproxy_cfg "${C_N[j]}" "${C_PORT[j]}" "${C_HA_PORT[j]}" "$log.cfg"
		set -- haproxy -db -f "$log.cfg"
		;;
	faultmon | idle)
		local iv=$INTERVAL
		[ "${C_KIND[j]}" = idle ] && iv=$IDLE_INTERVAL
		# shellcheck disable=SC2086 # FAULTMON_PARAMS is several words
		set -- "$FAULTMON" run "bench-${C_NAME[j]}" --no-env --no-pacemaker \
			--param "Port_list=$(port_list "${C_N[j]}" "${C_PORT[j]}")" \
			--param "Thorough_probe_interval=$iv" $FAULTMON_PARAMS
		;;
	esac
	echo "$*" >"$log.cmd"
	# shellcheck disable=SC2046 # empty or "taskset -c CPU"
	timeout -s TERM -k 5 "$secs" $(pin "$CONTENDER_CPU") "$@" >"$log.out" 2>&1 &
	C_WRAP[j]=$!
	C_PID[j]=$(bench_child_of "${C_WRAP[j]}")
	[ -n "${C_PID[j]}" ] || die "${C_NAME[j]} did not start: $(tail -n 2 "$log.out")"
}
# SIGTERM and the time until it is gone, in ms (the loop must exit within 1 s)
stop_timed() { # j -> ms
	local j=$1 p=${C_PID[$1]} t0 t1 i
	t0=$(date +%s%N)
	kill -TERM "$p" 2>/dev/null
	for ((i = 0; i < 300; i++)); do
		[ -d "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] || break
		sleep 0.01
	done
	t1=$(date +%s%N)
	wait "${C_WRAP[j]}" 2>/dev/null
	C_PID[j]='' C_WRAP[j]=''
	echo $(( (t1 - t0) / 1000000 ))
}

fm_id() { echo "sha256 $(sha256sum "$1" | cut -c1-12), built $(date -u -r "$1" +%Y-%m-%dT%H:%MZ)"; }
faultmon_id=$(fm_id "$FAULTMON")
started=$(date +%s)
note "nginx pid $nginx_pid, targets on 127.77.x.y ports ${C_PORT[0]}-${C_PORT[NC-1]}; FAULTMON_STATE_DIR on $state_fs; pinning: $([ "$PIN" = 1 ] && echo "nginx and this script CPU $NGINX_CPU, contenders CPU $CONTENDER_CPU" || echo off)"

declare -A V # V[j,key,F]: contender j at sample key; V[t,key]: its time
# V[j,key,F] the least (at rest), V[j,key,F_max] the most, over MEM_PASSES
sample_mem() { # key j...
	local key=$1 list="" j what a b c d e
	shift
	declare -A byfile
	for j in "$@"; do
		list="$list $j:${C_PID[j]}"
		byfile[/proc/${C_PID[j]}/smaps_rollup]=$j
	done
	while read -r j what a b c d e; do
		if [ "$what" = mem ]; then
			j=${byfile[$j]:-}
			[ -n "$j" ] || continue
			set -- rss "$a" priv "$b" dirty "$c" anon "$d"
		else
			set -- fds "$a"
		fi
		while [ $# -gt 0 ]; do
			if [ -z "${V[$j,$key,$1]:-}" ] || [ "$2" -lt "${V[$j,$key,$1]}" ]; then V[$j,$key,$1]=$2; fi
			if [ -z "${V[$j,$key,$1_max]:-}" ] || [ "$2" -gt "${V[$j,$key,$1_max]}" ]; then V[$j,$key,$1_max]=$2; fi
			shift 2
		done
	done < <(mem_read "$list")
}
sample() { # key
	local key=$1 j vals f i now live=()
	now=$(date +%s%N)
	V[t,$key]=$(( (now - T0) / 1000000 ))
	V[acc,$key]=$(bench_nginx_counts | cut -d" " -f1)
	V[ngx,$key]=$(nginx_cpu)
	V[cpus,$key]=$(awk -v c="cpu$([ "$PIN" = 1 ] && echo "$CONTENDER_CPU")" '$1 == c { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
	for ((j = 0; j < NC; j++)); do
		[ -n "${C_PID[j]:-}" ] || continue
		if ! kill -0 "${C_PID[j]}" 2>/dev/null; then
			V[$j,$key,dead]=1
			continue
		fi
		vals=$(proc_cpu "${C_PID[j]}")
		i=0
		for f in cpu ticks slices vol thr; do
			i=$((i + 1))
			V[$j,$key,$f]=$(echo "$vals" | cut -d' ' -f$i)
		done
		V[$j,$key,hits]=$(hits "${C_PORT[j]}")
		case ${C_KIND[j]} in
		faultmon | idle) V[$j,$key,cycles]=$(fm_cycles "bench-${C_NAME[j]}") ;;
		haproxy) V[$j,$key,hastat]=$(haproxy_stat "${C_HA_PORT[j]}") ;;
		esac
		live+=("$j")
	done
	[ ${#live[@]} -gt 0 ] && sample_mem "$key" "${live[@]}"
}

# ---- solo: 10 targets, each contender alone ----------------------------------
# Side by side, the three faultmon processes share the pages of the binary
# and its libraries, which then count as shared, not private.  Alone, they
# are private: the figure the 2 MiB goal is held to.
declare -A solo
solo_n=10
case " $SIZES " in *" 10 "*) ;; *) solo_n=${SIZES%% *} ;; esac
if [ "$SOLO" = 1 ]; then
	for kind in faultmon haproxy; do
		for ((j = 0; j < NC; j++)); do
			[ "${C_KIND[j]}" = "$kind" ] && [ "${C_N[j]}" = "$solo_n" ] || continue
			start_contender "$j" 30
			solo_pid=${C_PID[j]} solo_wrap=${C_WRAP[j]}
			sleep 8
			sample_mem solo "$j"
			solo[$kind]="${V[$j,solo,rss]} ${V[$j,solo,priv]} ${V[$j,solo,dirty]} ${V[$j,solo,anon]} ${V[$j,solo,fds]}"
			stop_timed "$j" >/dev/null
			solo_wrap=
			rm -rf "${S:?}/bench-${C_NAME[j]}"
		done
	done
	note "solo ($solo_n targets): faultmon ${solo[faultmon]:-}, haproxy ${solo[haproxy]:-} (rss priv dirty anon fds)"
	sleep 1
fi
for ((j = 0; j < NC; j++)); do : >"$T/hits-${C_PORT[j]}.log"; done # nginx appends (O_APPEND)

# ---- the run ---------------------------------------------------------------
# Events, in seconds from the start: samples at 5 s (just after start-up),
# at WARMUP (the window starts), every SAMPLE after, and at WARMUP+DURATION;
# the idle row starts at 30 s (so that its probes, every 60 s, fall between
# samples) and is read 2 s and 58 s after its start (strictly between its
# first two probes).
ev=$T/events
{
	echo "5 sample early"
	k=0
	for ((t = WARMUP; t < run_secs; t += SAMPLE)); do echo "$t sample $k"; k=$((k + 1)); done
	echo "$run_secs sample $k"
	if [ "$IDLE" = 1 ]; then
		echo "30 idle_start -"
		echo "32 idle_a -"
		echo "88 idle_b -"
	fi
} >"$ev.unsorted"
sort -n -k1,1 "$ev.unsorted" >"$ev"
n_samples=$((k + 1))


T0=$(date +%s%N)
for ((j = 0; j < NC; j++)); do
	[ "${C_KIND[j]}" = idle ] && continue
	start_contender "$j" $((run_secs + 60))
	sleep 0.13 # spread the start phases a little over the interval
done
idle_j=-1
for ((j = 0; j < NC; j++)); do [ "${C_KIND[j]}" = idle ] && idle_j=$j; done

while read -r at what arg; do
	now=$(date +%s%N)
	wait_ms=$(( at * 1000 - (now - T0) / 1000000 ))
	[ "$wait_ms" -gt 0 ] && sleep "$(awk -v m="$wait_ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	case $what in
	sample)
		sample "$arg"
		[ "$arg" = early ] || note "sample $arg at $(( (${V[t,$arg]} + 500) / 1000 )) s of $run_secs s"
		;;
	idle_start) start_contender "$idle_j" $((run_secs + 30)) ;;
	idle_a | idle_b)
		V[$what,t]=$(date +%s%N)
		V[$what,p]=$(proc_cpu "${C_PID[idle_j]}")
		V[$what,cycles]=$(fm_cycles "bench-${C_NAME[idle_j]}")
		;;
	esac
done <"$ev"
last=$((n_samples - 1))

# the window's state of each faultmon, and stop every contender
declare -A stop_ms fstate
for ((j = 0; j < NC; j++)); do
	case ${C_KIND[j]} in faultmon | idle) fstate[$j]=$(fm_state "bench-${C_NAME[j]}") ;; esac
done
for ((j = 0; j < NC; j++)); do
	[ -n "${C_PID[j]:-}" ] && stop_ms[$j]=$(stop_timed "$j")
done

# ---- the report ----------------------------------------------------------------
v() { echo "${V[$1]:--}"; }
num() { [[ $1 =~ ^-?[0-9]+([.][0-9]+)?$ ]]; }
sub() { if num "$1" && num "$2"; then echo $(( $1 - $2 )); else echo -; fi; }
fmt_signed() { if num "$1" && [ "$1" -gt 0 ]; then echo "+$1"; else echo "$1"; fi; }
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^-?[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else print "-" }'
}
win_s=$(awk -v a="$(v t,0)" -v b="$(v t,$last)" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
declare -A us_chk rss_of priv_of dirty_of pt_priv pt_dirty

echo
echo "faultmon run vs HAProxy health checks: every target every ${INTERVAL}s (HEAD /), all contenders side by side;"
echo "window ${win_s} s after ${WARMUP} s warm-up; $(date -u +%Y-%m-%dT%H:%MZ); $ncpu CPUs; pinning $([ "$PIN" = 1 ] && echo "on (nginx CPU $NGINX_CPU, contenders CPU $CONTENDER_CPU)" || echo off); state dir on $state_fs"
echo
echo "| contender | targets | threads | µs CPU per check (from ticks) | timeslices per check | checks in window: nginx / expected | own count | RSS KiB (peak) | private KiB (peak) | private dirty KiB | fds (peak) | growth first→last sample: RSS / private / fds | exit after SIGTERM |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for ((j = 0; j < NC; j++)); do
	[ "${C_KIND[j]}" = idle ] && continue
	n=${C_N[j]} name=${C_NAME[j]}
	if [ -n "${V[$j,$last,dead]:-}" ] || [ -z "${V[$j,$last,cpu]:-}" ] || [ -z "${V[$j,0,cpu]:-}" ]; then
		echo "| $name | $n | - | - | - | - | exited before the window ended: $(tail -n 1 "$T/$name.out" | cut -c1-80) | | | | | | |"
		continue
	fi
	cns=$(sub "${V[$j,$last,cpu]}" "${V[$j,0,cpu]}")
	tk=$(sub "${V[$j,$last,ticks]}" "${V[$j,0,ticks]}")
	done_n=$(sub "${V[$j,$last,hits]}" "${V[$j,0,hits]}")
	el_ms=$(sub "$(v t,$last)" "$(v t,0)")
	expect=$(( n * el_ms / (INTERVAL * 1000) ))
	us=$(awk -v c="$cns" -v d="$done_n" 'BEGIN { if (d > 0) printf "%.1f", c / 1000 / d; else print "-" }')
	tus=$(awk -v k="$tk" -v d="$done_n" -v hz="$(getconf CLK_TCK)" 'BEGIN { if (d > 0) printf "%.0f", k * 1e6 / hz / d; else print "-" }')
	spc=$(awk -v s="$(sub "${V[$j,$last,slices]}" "${V[$j,0,slices]}")" -v d="$done_n" 'BEGIN { if (d > 0) printf "%.3f", s / d; else print "-" }')
	us_chk[$j]=$us rss_of[$j]=${V[$j,$last,rss]} priv_of[$j]=${V[$j,$last,priv]} dirty_of[$j]=${V[$j,$last,dirty]}
	case ${C_KIND[j]} in
	faultmon)
		cy=$(sub "${V[$j,$last,cycles]:-}" "${V[$j,0,cycles]:-}")
		own="cycles $cy x $n = $(( ${cy/-/0} * n )) probes; ${fstate[$j]:-}"
		;;
	haproxy)
		read -r l7 ns cf0 <<<"${V[$j,0,hastat]}"
		read -r l7 ns cf1 <<<"${V[$j,$last,hastat]}"
		own="L7OK $l7/$ns servers, failed checks in window $(sub "$cf1" "$cf0")"
		;;
	esac
	g="$(fmt_signed "$(sub "${V[$j,$last,rss]}" "${V[$j,0,rss]}")") / $(fmt_signed "$(sub "${V[$j,$last,priv]}" "${V[$j,0,priv]}")") / $(fmt_signed "$(sub "${V[$j,$last,fds]}" "${V[$j,0,fds]}")")"
	echo "| $name | $n | ${V[$j,$last,thr]} | $us ($tus) | $spc | $done_n / $expect | $own | ${V[$j,$last,rss]} (${V[$j,$last,rss_max]}) | ${V[$j,$last,priv]} (${V[$j,$last,priv_max]}) | ${V[$j,$last,dirty]} | ${V[$j,$last,fds]} (${V[$j,$last,fds_max]}) | $g | ${stop_ms[$j]:--} ms |"
done
echo
read -r b0 t0 <<<"${V[cpus,0]}"
read -r b1 t1 <<<"${V[cpus,$last]}"
echo "Over the window, nginx used $(awk -v c="$(sub "${V[ngx,$last]}" "${V[ngx,0]}")" -v w="$(sub "$(v t,$last)" "$(v t,0)")" 'BEGIN { printf "%.1f", c / 1e6 / w * 100 }') % of a CPU; $([ "$PIN" = 1 ] && echo "CPU $CONTENDER_CPU (the contenders') was" || echo "the CPUs were") busy $(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { if (t > 0) printf "%.1f", b * 100 / t; else print "-" }') % of the time (/proc/stat)."
echo "RSS, private, fds: the least of $MEM_PASSES readings over about 1.5 s at the last sample (at rest: between cycles for faultmon), in parentheses the most."
echo "nginx accepted $(sub "$(v acc,$last)" "$(v acc,0)") connections in the window, $last of them our own stub_status reads; the contenders' logged requests add up to $(
	s=0; for ((j = 0; j < NC; j++)); do s=$((s + $(sub "${V[$j,$last,hits]:-0}" "${V[$j,0,hits]:-0}"))); done; echo $s
)."
jc=0
for ((j = 0; j < NC; j++)); do [ "${C_KIND[j]}" = faultmon ] && jc=$j; done
echo "faultmon: binary $faultmon_id; command, e.g. $(sed "s|$T/faultmon|${faultmon_src#"$top"/}|g; s|$T/||g; s|$top/||g; s|Port_list=\([^,]*\),[^ ]*|Port_list=\1,...|" "$T/${C_NAME[jc]}.cmd" 2>/dev/null)"
[ "$(fm_id "$faultmon_src")" = "$faultmon_id" ] || echo "(the binary at \$FAULTMON was rebuilt during the run, now $(fm_id "$faultmon_src"); this run used a copy taken at its start)"

# memory per added target, between the two largest sizes
set -- $SIZES
if [ $# -ge 2 ]; then
	lo=0
	for n in $SIZES; do [ "$n" -lt "$max_n" ] && [ "$n" -gt "$lo" ] && lo=$n; done
	echo
	echo "Memory per added target, ($max_n targets - $lo targets) / $((max_n - lo)), at the end of the window (KiB):"
	echo
	echo "| contender | RSS | private | private dirty |"
	echo "|---|---|---|---|"
	for kind in faultmon haproxy; do
		jl='' jh=''
		for ((j = 0; j < NC; j++)); do
			[ "${C_KIND[j]}" = "$kind" ] || continue
			[ "${C_N[j]}" = "$lo" ] && jl=$j
			[ "${C_N[j]}" = "$max_n" ] && jh=$j
		done
		[ -n "$jl" ] && [ -n "$jh" ] && [ -n "${rss_of[$jl]:-}" ] && [ -n "${rss_of[$jh]:-}" ] || continue
		d=$((max_n - lo))
		pr=$(awk -v a="${priv_of[$jh]}" -v b="${priv_of[$jl]}" -v d=$d 'BEGIN { printf "%.2f", (a - b) / d }')
		pt_priv[$kind]=$pr
		pt_dirty[$kind]=$(awk -v a="${dirty_of[$jh]}" -v b="${dirty_of[$jl]}" -v d=$d 'BEGIN { printf "%.2f", (a - b) / d }')
		echo "| $kind | $(awk -v a="${rss_of[$jh]}" -v b="${rss_of[$jl]}" -v d=$d 'BEGIN { printf "%.2f", (a - b) / d }') | $pr | ${pt_dirty[$kind]} |"
	done
fi
if [ "$SOLO" = 1 ]; then
	echo
	echo "Alone with $solo_n targets (8 s after start, before the run; no other process of the same program sharing its pages):"
	echo
	echo "| contender | RSS KiB | private KiB | private dirty KiB | anonymous KiB | fds |"
	echo "|---|---|---|---|---|---|"
	for kind in faultmon haproxy; do
		[ -n "${solo[$kind]:-}" ] || continue
		read -r a b c d e <<<"${solo[$kind]}"
		echo "| $kind | $a | $b | $c | $d | $e |"
	done
fi

echo
echo "Ratios faultmon / HAProxy (1 thread):"
echo
echo "| targets | CPU per check | RSS | private |"
echo "|---|---|---|---|"
for n in $SIZES; do
	jf='' jh=''
	for ((j = 0; j < NC; j++)); do
		[ "${C_N[j]}" = "$n" ] || continue
		[ "${C_KIND[j]}" = faultmon ] && jf=$j
		[ "${C_KIND[j]}" = haproxy ] && jh=$j
	done
	echo "| $n | $(ratio "${us_chk[$jf]:-}" "${us_chk[$jh]:-}") | $(ratio "${rss_of[$jf]:-}" "${rss_of[$jh]:-}") | $(ratio "${priv_of[$jf]:-}" "${priv_of[$jh]:-}") |"
done
[ -n "${pt_priv[faultmon]:-}" ] && [ -n "${pt_priv[haproxy]:-}" ] &&
	echo "| per added target | | | $(ratio "${pt_priv[faultmon]}" "${pt_priv[haproxy]}") |"

# ---- growth series ---------------------------------------------------------
echo
echo "Growth: samples every ${SAMPLE} s; t = seconds since start (the window starts at ${WARMUP} s; the first column, 5 s after start, is outside it);"
echo "each figure the least of $MEM_PASSES readings over about 1.5 s (at rest), except where it says peak (the most)."
keys="early"
for ((k = 0; k < n_samples; k++)); do keys="$keys $k"; done
hdr="| contender |" sep="|---|"
for key in $keys; do
	hdr="$hdr $(( ($(v t,$key) + 500) / 1000 )) |" sep="$sep---|"
done
hdr="$hdr last - first |" sep="$sep---|"
series() { # title field
	echo
	echo "$1"
	echo
	echo "$hdr"
	echo "$sep"
	for ((j = 0; j < NC; j++)); do
		local line="| ${C_NAME[j]} |" key
		for key in $keys; do line="$line ${V[$j,$key,$2]:--} |"; done
		line="$line $(fmt_signed "$(sub "${V[$j,$last,$2]:-}" "${V[$j,0,$2]:-}")") |"
		echo "$line"
	done
}
series "RSS, KiB:" rss
series "Private (clean + dirty), KiB:" priv
series "Private dirty, KiB:" dirty
series "Anonymous (heap, stacks, anonymous mmaps), KiB:" anon
series "Open fds (at rest):" fds
series "Open fds (peak):" fds_max
series "Anonymous, peak, KiB:" anon_max
# per interval between samples: checks and CPU per check
echo
echo "Per interval between samples: checks done (nginx) and µs CPU per check (faultmon: and cycles):"
echo
h2="| contender |" s2="|---|"
for ((k = 1; k < n_samples; k++)); do
	h2="$h2 $(( ($(v t,$((k - 1))) + 500) / 1000 ))-$(( ($(v t,$k) + 500) / 1000 )) |" s2="$s2---|"
done
echo "$h2"
echo "$s2"
for ((j = 0; j < NC; j++)); do
	line="| ${C_NAME[j]} |"
	for ((k = 1; k < n_samples; k++)); do
		c=$(sub "${V[$j,$k,cpu]:-}" "${V[$j,$((k - 1)),cpu]:-}")
		h=$(sub "${V[$j,$k,hits]:-}" "${V[$j,$((k - 1)),hits]:-}")
		cell="$h: $(awk -v c="$c" -v h="$h" 'BEGIN { if (h ~ /^[0-9]+$/ && h > 0) printf "%.1f µs", c / 1000 / h; else if (c ~ /^[0-9]+$/) printf "%.0f µs CPU", c / 1000; else print "-" }')"
		case ${C_KIND[j]} in faultmon | idle)
			cell="$cell, $(sub "${V[$j,$k,cycles]:-}" "${V[$j,$((k - 1)),cycles]:-}") cycles" ;;
		esac
		line="$line $cell |"
	done
	echo "$line"
done

# ---- 100 000 probes ----------------------------------------------------------
for ((j = 0; j < NC; j++)); do
	[ "${C_KIND[j]}" = faultmon ] && [ "${C_N[j]}" = "$max_n" ] || continue
	c0=${V[$j,0,cycles]:-}
	num "$c0" || break
	echo
	echo "${C_NAME[j]}: $max_n probes per cycle; fds / RSS / private / anonymous KiB at the window's first sample, at the first sample"
	echo "100 000 probes later, and at the last sample:"
	echo
	echo "| sample | t s | cycles | probes since the first | fds | RSS | private | anonymous |"
	echo "|---|---|---|---|---|---|---|---|"
	shown=
	for ((k = 0; k < n_samples; k++)); do
		cy=${V[$j,$k,cycles]:-}
		num "$cy" || continue
		pr=$(( (cy - c0) * max_n ))
		if [ "$k" = 0 ] || { [ -z "$shown" ] && [ "$pr" -ge 100000 ]; } || [ "$k" = "$last" ]; then
			[ "$k" != 0 ] && [ "$pr" -ge 100000 ] && shown=1
			echo "| $k | $(( ($(v t,$k) + 500) / 1000 )) | $cy | $pr | ${V[$j,$k,fds]} | ${V[$j,$k,rss]} | ${V[$j,$k,priv]} | ${V[$j,$k,anon]} |"
		fi
	done
done

# ---- idle ----------------------------------------------------------------------
if [ "$IDLE" = 1 ] && [ -n "${V[idle_a,p]:-}" ] && [ -n "${V[idle_b,p]:-}" ]; then
	read -r ca _ sa va _ <<<"${V[idle_a,p]}"
	read -r cb _ sb vb _ <<<"${V[idle_b,p]}"
	secs=$(awk -v a="${V[idle_a,t]}" -v b="${V[idle_b,t]}" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	echo
	echo "Idle (faultmon run, 1 target, Thorough_probe_interval=${IDLE_INTERVAL}): between its first two probes, ${secs} s"
	echo "(2 s to 58 s after its start; cycles ${V[idle_a,cycles]} then ${V[idle_b,cycles]}, so no probe inside):"
	echo "CPU $(( (cb - ca) / 1000 )) µs, timeslices (schedstat) $((sb - sa)), voluntary context switches $((vb - va))."
	echo "Over the run, per interval between samples (each holds one probe cycle): µs CPU and timeslices:"
	line=""
	for ((k = 1; k < n_samples; k++)); do
		c=$(sub "${V[$idle_j,$k,cpu]:-}" "${V[$idle_j,$((k - 1)),cpu]:-}")
		sl=$(sub "${V[$idle_j,$k,slices]:-}" "${V[$idle_j,$((k - 1)),slices]:-}")
		cy=$(sub "${V[$idle_j,$k,cycles]:-}" "${V[$idle_j,$((k - 1)),cycles]:-}")
		line="$line $(awk -v c="$c" 'BEGIN { if (c ~ /^[0-9]+$/) printf "%.0f", c / 1000; else print "-" }') µs/$sl ($cy cycles);"
	done
	echo "${line# }"
fi

# ---- goals ---------------------------------------------------------------------
echo
echo "Goals (issue 3, Speed):"
for n in $SIZES; do
	jf='' jh=''
	for ((j = 0; j < NC; j++)); do
		[ "${C_N[j]}" = "$n" ] || continue
		[ "${C_KIND[j]}" = faultmon ] && jf=$j
		[ "${C_KIND[j]}" = haproxy ] && jh=$j
	done
	r=$(ratio "${us_chk[$jf]:-}" "${us_chk[$jh]:-}")
	echo "- less CPU per check than HAProxy, $n targets: ${us_chk[$jf]:--} vs ${us_chk[$jh]:--} µs: $(awk -v r="$r" 'BEGIN { print (r ~ /^[0-9.]+$/ && r < 1) ? "met" : "NOT met" }')"
done
for ((j = 0; j < NC; j++)); do
	[ "${C_KIND[j]}" = faultmon ] && [ "${C_N[j]}" = 10 ] || continue
	sp='' sd=''
	[ -n "${solo[faultmon]:-}" ] && [ "$solo_n" = 10 ] && read -r _ sp sd _ <<<"${solo[faultmon]}"
	worst=${dirty_of[$j]:-}
	num "$sd" && num "$worst" && [ "$sd" -gt "$worst" ] && worst=$sd
	echo "- private memory under 2 MiB (2048 KiB) with 10 targets: private dirty ${dirty_of[$j]:--} KiB side by side${sd:+, $sd KiB alone}: $(num "$worst" && [ "$worst" -lt 2048 ] && echo met || echo "NOT met")"
	echo "  (private clean + dirty: ${priv_of[$j]:--} KiB side by side${sp:+, $sp KiB alone}; the clean part is library pages read from disk, private only while no other process maps the same libraries)"
done
[ -n "${pt_priv[faultmon]:-}" ] &&
	echo "- under 2 KiB private per added target: private dirty ${pt_dirty[faultmon]} KiB (clean + dirty ${pt_priv[faultmon]}): $(awk -v p="${pt_dirty[faultmon]}" -v q="${pt_priv[faultmon]}" 'BEGIN { print (p < 2 && q < 2) ? "met" : "NOT met" }')"
grow="" other=""
for ((j = 0; j < NC; j++)); do
	case ${C_KIND[j]} in faultmon | idle) ;; *) continue ;; esac
	for f in anon dirty fds rss priv; do
		d=$(sub "${V[$j,$last,$f]:-}" "${V[$j,0,$f]:-}")
		num "$d" && [ "$d" -ne 0 ] || continue
		case $f in
		anon | dirty | fds) grow="$grow ${C_NAME[j]} $f $(fmt_signed "$d");" ;;
		*) other="$other ${C_NAME[j]} $f $(fmt_signed "$d");" ;;
		esac
	done
done
echo "- no growth (first → last sample of the window: anonymous, private dirty, fds): $([ -z "$grow" ] && echo "none: met" || echo "NOT met:$grow")"
[ -z "$other" ] || echo "  (other changes:$other RSS and private clean also move when library pages are first touched or reclaimed and read again)"
if [ "$IDLE" = 1 ] && [ -n "${V[idle_b,p]:-}" ]; then
	echo "- idle between probes: $(( (cb - ca) / 1000 )) µs CPU and $((sb - sa)) timeslices in $secs s"
fi
echo
note "took $(( $(date +%s) - started ))s"
