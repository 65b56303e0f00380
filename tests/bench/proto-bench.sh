#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-bench.sh - CPU per health check of each protocol, the production loop
# (`faultmon run`) against HAProxy's check of the same protocol (nbthread 1),
# against the same real servers, alternated A/B/A/B over long windows.
#
# Real servers are started once, as the protocol tests start them
# (tests/lib/dbservers.sh, tests/lib/mailserver.sh: ordinary processes on
# free loopback ports, throwaway data directories): redis-server, Postfix,
# MariaDB, PostgreSQL, slapd.  For each protocol, N targets (100: the same
# server repeated, which both contenders accept) are checked every second:
#   redis     redis://               option redis-check
#   smtp      smtp://                option smtpchk EHLO localhost
#   mysql     mysql://               option mysql-check (no user)
#   postgres  postgres://            option pgsql-check user postgres
#   ldap      ldap://                option ldap-check
#   tcp       tcp:// + send_string 'PING\r\n', expect_regex EXPECT_RE
#             against redis          option tcp-check, tcp-check send
#                                    PING\r\n, tcp-check expect string +PONG
#   h2        h2c://.../index.html   mode http, option httpchk, http-check
#             against nghttpd        send meth GET uri /index.html, check-proto h2
# In each of ROUNDS rounds every contender runs alone in turn (the order
# reversed every other round), is warmed up, checked (every target up in
# both contenders, or the run fails), measured over WINDOW seconds, checked
# again, and stopped.  CPU = the contender's process CPU clock (every
# thread, exited ones included) + its reaped children (cutime + cstime, in
# clock ticks); checks = connections the server counted during the window
# (redis total_connections_received, Postfix's "connect from" lines,
# MariaDB's Connections, PostgreSQL's "connection received" lines, slapd's
# ACCEPT lines), beside the contender's own count (faultmon: cycles x N from
# `faultmon status --json`; HAProxy has no check counter: N x window /
# inter is shown).  See README.md, "Protocol benchmark".
#
# Usage: tests/bench/proto-bench.sh            (as root, after make)
# Knobs (environment):
#   WINDOW=60        measured seconds per contender and round
#   ROUNDS=3         rounds per protocol
#   PROTOS="redis smtp mysql postgres ldap tcp h2"
#   CONTENDERS="faultmon faultmon-spread haproxy"   (faultmon-spread: faultmon run with
#                    spread=true; haproxy-spread: spread-checks 5)
#   N=100            targets per protocol (each checked every second)
#   WARMUP=5         seconds before faultmon's window
#   HAPROXY_WARMUP=20  the same for HAProxy (its checks settle into clusters)
#   TIMEOUT_MS=900   check timeout of both
#   EXPECT_RE='[+]PONG'  faultmon's expect_regex for tcp
#   PIN=1            servers and this script on CPU 0, the contender on CPU 1
#   FAULTMON=build/src/faultmon (else src/faultmon)   KEEP=1 keeps the temp dir
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/../.." && pwd)
bench=$top/tests/bench
FM_TEST_LIB=$top/tests/lib
# shellcheck source=tests/bench/lib.sh
. "$bench/lib.sh"
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/dbservers.sh
. "$FM_TEST_LIB/dbservers.sh"
# shellcheck source=tests/lib/mailserver.sh
. "$FM_TEST_LIB/mailserver.sh"
cmdline="$0${*:+ $*}"

WINDOW=${WINDOW:-60}
ROUNDS=${ROUNDS:-3}
PROTOS=${PROTOS:-"redis smtp mysql postgres ldap tcp h2"}
CONTENDERS=${CONTENDERS:-"faultmon faultmon-spread haproxy"}
N=${N:-100}
WARMUP=${WARMUP:-5}
HAPROXY_WARMUP=${HAPROXY_WARMUP:-20}
TIMEOUT_MS=${TIMEOUT_MS:-900}
EXPECT_RE=${EXPECT_RE:-'[+]PONG'}
PIN=${PIN:-1}
KEEP=${KEEP:-0}
SERVER_CPU=0
CONTENDER_CPU=1
INTERVAL=1
if [ -z "${FAULTMON:-}" ]; then
	if [ -x "$top/build/src/faultmon" ]; then FAULTMON=$top/build/src/faultmon; else FAULTMON=$top/src/faultmon; fi
fi

die() { echo "proto-bench: FAILED: $*" >&2; exit 1; }
note() { echo "# $(date +%H:%M:%S) $*" >&2; }

case "$WINDOW$ROUNDS$WARMUP$HAPROXY_WARMUP$N" in *[!0-9]*) die "WINDOW, ROUNDS, WARMUP, HAPROXY_WARMUP, N are whole numbers" ;; esac
[ "$WINDOW" -ge 5 ] && [ "$ROUNDS" -ge 1 ] || die "WINDOW >= 5, ROUNDS >= 1"
[ "$(id -u)" = 0 ] || die "run as root (Postfix, PostgreSQL as its user)"
for tool in haproxy taskset timeout python3 redis-cli mariadb; do
	command -v "$tool" >/dev/null || die "$tool not found"
done
[ -x "$FAULTMON" ] || die "no faultmon at $FAULTMON (make; or set FAULTMON)"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || PIN=0
ulimit -n 65536 2>/dev/null
pin() { [ "$PIN" = 1 ] && echo "taskset -c $1"; }
pin_group() { # pgid: every process of the group on the servers' CPU
	local p
	[ "$PIN" = 1 ] || return 0
	for p in $(ps -o pid= -g "$1"); do taskset -a -p -c "$SERVER_CPU" "$p" >/dev/null 2>&1; done
}

T=$(mktemp -d "${TMPDIR:-/tmp}/proto-bench.XXXXXX") || die "mktemp"
[ "$KEEP" = 1 ] || fm_cleanup_add "rm -rf '$T'"
chmod 755 "$T" # the postfix user reaches its queue through it
export FM_TMP=$T/srv
mkdir -p "$FM_TMP"
# the state on a tmpfs, as /run is in production
S=$(mktemp -d /dev/shm/proto-bench-state.XXXXXX) || die "mktemp /dev/shm"
fm_cleanup_add "rm -rf '$S'"
export FAULTMON_STATE_DIR=$S
# a copy, so that a rebuild during the run does not change the contender
cp -p "$FAULTMON" "$T/faultmon" || die "cannot copy $FAULTMON"
faultmon_src=$FAULTMON
FAULTMON=$T/faultmon
HASTATS_PORT=$(fm_free_port) || die "no free port"
[ "$PIN" = 1 ] && taskset -p -c "$SERVER_CPU" $$ >/dev/null

# ---- the servers ---------------------------------------------------------------
want() { [[ " $PROTOS " == *" $1 "* ]]; }
if want redis || want tcp; then
	srv_redis_start --maxclients 10000 >&2 || die "redis-server did not start"
	pin_group "$SRV_REDIS_PID"
	note "redis-server on $SRV_REDIS_PORT"
fi
if want smtp; then
	ms_have_postfix || die "Postfix cannot run here"
	MS_POSTFIX_MAIN_EXTRA="default_process_limit = 400" ms_postfix_start >&2 || die "Postfix did not start"
	pin_group "$MS_PGID"
	note "Postfix on $MS_SMTP_PORT"
fi
if want mysql; then
	srv_mariadb_start --max-connections=500 --max-connect-errors=4294967295 --thread-cache-size=200 >&2 ||
		die "MariaDB did not start"
	pin_group "$SRV_MY_PID"
	note "MariaDB on $SRV_MY_PORT"
fi
if want postgres; then
	srv_pg_start -c max_connections=400 -c log_connections=on >&2 || die "PostgreSQL did not start"
	pin_group "$SRV_PG_PID"
	note "PostgreSQL on $SRV_PG_PORT"
fi
if want ldap; then
	SRV_SLAPD_DEBUG=256 srv_slapd_start >&2 || die "slapd did not start"
	pin_group "$SRV_LDAP_PID"
	note "slapd on $SRV_LDAP_PORT"
fi
if want h2; then
	# nghttpd in clear (h2c); -v logs one SETTINGS it sends per connection.
	command -v nghttpd >/dev/null || die "nghttpd not found (apt-get install nghttp2-server)"
	mkdir -p "$T/h2www" && echo ok >"$T/h2www/index.html"
	H2_PORT=$(fm_free_port) || die "no free port"
	setsid nghttpd -v --no-tls --address=127.0.0.1 -d "$T/h2www" "$H2_PORT" >"$T/nghttpd.log" 2>&1 </dev/null &
	H2_PID=$!
	fm_cleanup_add "kill -TERM -- -$H2_PID 2>/dev/null"
	fm_wait_port 127.0.0.1 "$H2_PORT" 5 || die "nghttpd did not start"
	pin_group "$H2_PID"
	note "nghttpd on $H2_PORT"
fi

# proto -> the server's port
port_of() {
	case $1 in
	redis | tcp) echo "$SRV_REDIS_PORT" ;;
	smtp) echo "$MS_SMTP_PORT" ;;
	mysql) echo "$SRV_MY_PORT" ;;
	postgres) echo "$SRV_PG_PORT" ;;
	ldap) echo "$SRV_LDAP_PORT" ;;
	h2) echo "$H2_PORT" ;;
	esac
}
# proto -> connections the server has counted so far
server_count() {
	case $1 in
	redis | tcp) redis-cli -p "$SRV_REDIS_PORT" info stats | tr -d '\r' | sed -n 's/^total_connections_received://p' ;;
	smtp) grep -c 'smtpd\[[0-9]*\]: connect from' "$MS_DIR/log" ;;
	mysql) mariadb --no-defaults -S "$SRV_MY_DIR/sock" -uroot -N -B -e "show global status like 'Connections'" | awk '{ print $2 }' ;;
	postgres) grep -c 'connection received:' "$SRV_PG_DIR/postgres.log" ;;
	ldap) grep -c ' ACCEPT from ' "$SRV_LDAP_DIR/slapd.log" ;;
	h2) grep -c 'send SETTINGS frame <length=[0-9]*, flags=0x00' "$T/nghttpd.log" ;;
	esac
}
# how many connections server_count itself makes (subtracted)
self_count() { case $1 in redis | tcp | mysql) echo 1 ;; *) echo 0 ;; esac; }

# ---- the contenders --------------------------------------------------------------
haproxy_cfg() { # proto file
	local p=$1 port proto_opt=''
	port=$(port_of "$p")
	[ "$p" = h2 ] && proto_opt='check-proto h2'
	{
		echo "global"
		echo "  maxconn 4000"
		echo "  nbthread 1"
		echo "  stats socket ipv4@127.0.0.1:$HASTATS_PORT level user"
		case $2 in *-spread.cfg) echo "  spread-checks 5" ;; esac
		echo "defaults"
		echo "  mode tcp"
		echo "  timeout connect ${TIMEOUT_MS}ms"
		echo "  timeout check ${TIMEOUT_MS}ms"
		echo "  timeout client 10s"
		echo "  timeout server 10s"
		echo "backend targets"
		case $p in
		redis) echo "  option redis-check" ;;
		smtp) echo "  option smtpchk EHLO localhost" ;;
		mysql) echo "  option mysql-check" ;;
		postgres) echo "  option pgsql-check user postgres" ;;
		ldap) echo "  option ldap-check" ;;
		h2)
			# Not "option httpchk GET /index.html": that request is
			# HTTP/1.0, which HAProxy 2.6's h2 check cannot carry
			# (every server DOWN, "Socket error").
			echo "  mode http"
			echo "  option httpchk"
			echo "  http-check send meth GET uri /index.html ver HTTP/1.1 hdr host localhost"
			;;
		tcp)
			echo "  option tcp-check"
			echo '  tcp-check send PING\r\n'
			echo "  tcp-check expect string +PONG"
			;;
		esac
		for ((i = 1; i <= N; i++)); do
			echo "  server s$i 127.0.0.1:$port check inter ${INTERVAL}s${proto_opt:+ $proto_opt}"
		done
	} >"$2"
}
fm_list() { # proto -> Port_list
	local p=$1 scheme=$1 path='' port i
	port=$(port_of "$p")
	[ "$p" = h2 ] && scheme=h2c path=/index.html
	for ((i = 0; i < N; i++)); do echo "$scheme://127.0.0.1:$port$path"; done | paste -sd, -
}
runs=0
start_contender() { # contender proto secs
	local c=$1 p=$2 secs=$3
	runs=$((runs + 1))
	cur_log=$T/run-$runs-$c-$p
	cur_res=pb-$runs
	case $c in
	haproxy | haproxy-spread)
		haproxy_cfg "$p" "$cur_log-$c.cfg"
		set -- haproxy -db -f "$cur_log-$c.cfg"
		;;
	faultmon | faultmon-spread)
		set -- "$FAULTMON" run "$cur_res" --no-env --no-pacemaker \
			--param "Port_list=$(fm_list "$p")" \
			--param "Thorough_probe_interval=$INTERVAL" --param "Probe_timeout=${TIMEOUT_MS}ms"
		[ "$p" = tcp ] && set -- "$@" --param 'send_string=PING\r\n' --param "expect_regex=$EXPECT_RE"
		[ "$c" = faultmon-spread ] && set -- "$@" --param spread=true
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
cur_pid='' cur_wrap=''
fm_cleanup_add '[ -n "$cur_pid" ] && kill -TERM "$cur_pid" 2>/dev/null; [ -n "$cur_wrap" ] && wait "$cur_wrap" 2>/dev/null'
stop_contender() {
	kill -TERM "$cur_pid" 2>/dev/null
	wait "$cur_wrap" 2>/dev/null
	cur_pid='' cur_wrap=''
	sleep 1 # let the last connections drain before the next contender
}
fm_json() { timeout 5 "$FAULTMON" status "$1" --json 2>/dev/null; }
fm_cycles() { fm_json "$1" | grep -o '"cycles":[0-9]*' | head -n 1 | sed 's/.*://'; }
# resource -> "state ok listed" (the state keeps a bounded list of targets)
fm_health() {
	fm_json "$1" | awk '{
		s = $0; sub(/.*"state":"/, "", s); sub(/".*/, "", s)
		n = gsub(/"verdict":"ok","reason"/, "&"); t = gsub(/"target":/, "&")
		print s, n, t }'
}
haproxy_cli() {
	{ exec 4<>"/dev/tcp/127.0.0.1/$HASTATS_PORT"; } 2>/dev/null || return 1
	printf '%s\n' "$1" >&4
	timeout 5 cat <&4
	exec 4<&-
}
# -> "up servers chkfail checkstatuses"
haproxy_health() {
	haproxy_cli "show stat" | awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) { h = $i; sub(/^# /, "", h); col[h] = i }; next }
		$2 != "BACKEND" && $2 != "FRONTEND" && NF > 30 {
			n++; if ($col["status"] == "UP") up++; f += $col["chkfail"]; st[$col["check_status"]]++ }
		END { s = ""; for (k in st) s = s k ":" st[k] ";"; print up + 0, n + 0, f + 0, s }'
}
# fail loudly unless every target is up in the running contender
health_check() { # contender proto when -> "own-counter" (cycles or chkfail)
	local c=$1 p=$2 when=$3 h
	case $c in
	faultmon*)
		read -r -a h <<<"$(fm_health "$cur_res")"
		if [ "${h[0]:-}" != up ] || [ "${h[1]:-0}" = 0 ] || [ "${h[1]:-0}" != "${h[2]:-x}" ]; then
			note "$c $p $when: state '${h[0]:-}', ${h[1]:-0}/${h[2]:-0} listed targets ok"
			fm_json "$cur_res" | head -c 1500 >&2
			echo >&2
			tail -n 5 "$cur_log.err" >&2
			note "FAILED: $c $p: not every target up ($when): no figure for this round"
			return 1
		fi
		fm_cycles "$cur_res"
		;;
	haproxy*)
		read -r -a h <<<"$(haproxy_health)"
		if [ "${h[1]:-0}" != "$N" ] || [ "${h[0]:-0}" != "$N" ]; then
			note "$c $p $when: ${h[0]:-0}/${h[1]:-0} servers UP, chkfail ${h[2]:-}, check_status ${h[3]:-}"
			tail -n 5 "$cur_log.err" >&2
			note "FAILED: $c $p: not every server up ($when): no figure for this round"
			return 1
		fi
		echo "${h[2]}"
		;;
	esac
}

# R[proto,c,round] = "us_per_check checks expected own us_ticks other%"
declare -A R
hz=$(getconf CLK_TCK)
measure() { # contender proto round
	local c=$1 p=$2 r=$3 wu=$WARMUP own0 own1 n0 n1 self own
	local ns0 tk0 ck0 t0 b0 ns1 tk1 ck1 t1 b1
	case $c in haproxy*) wu=$HAPROXY_WARMUP ;; esac
	start_contender "$c" "$p" $((wu + WINDOW + 15))
	sleep "$wu.5"
	if ! kill -0 "$cur_pid" 2>/dev/null; then
		local rc=0
		wait "$cur_wrap" 2>/dev/null || rc=$?
		note "FAILED: $c $p: exited during warm-up (status $rc): $(tail -n 2 "$cur_log.err")"
		cur_pid='' cur_wrap='' R[$p,$c,$r]="- - - NOT-UP - -" failed=1
		return
	fi
	if ! own0=$(health_check "$c" "$p" "before the window"); then
		stop_contender; R[$p,$c,$r]="- - - NOT-UP - -"; failed=1; return
	fi
	n0=$(server_count "$p")
	read -r ns0 tk0 ck0 t0 b0 <<<"$(bench_cpu "$cur_pid" "$([ "$PIN" = 1 ] && echo $CONTENDER_CPU)")"
	sleep "$WINDOW"
	read -r ns1 tk1 ck1 t1 b1 <<<"$(bench_cpu "$cur_pid" "$([ "$PIN" = 1 ] && echo $CONTENDER_CPU)")"
	n1=$(server_count "$p")
	if ! own1=$(health_check "$c" "$p" "after the window"); then
		stop_contender; R[$p,$c,$r]="- - - NOT-UP - -"; failed=1; return
	fi
	stop_contender
	if [ "$ns0" = - ] || [ "$ns1" = - ]; then
		note "FAILED: $c $p: exited during the window"
		R[$p,$c,$r]="- - - NOT-UP - -" failed=1
		return
	fi
	self=$(self_count "$p")
	local checks=$((n1 - n0 - self)) expect=$((N * (t1 - t0) / (INTERVAL * 1000000000)))
	case $c in
	faultmon*) own="cycles:$((own1 - own0))x$N" ;;
	haproxy*) own="chkfail:$((own1 - own0))" ;;
	esac
	if [ "$own" != "${own#chkfail:}" ] && [ "${own#chkfail:}" != 0 ]; then
		note "FAILED: $c $p: ${own#chkfail:} checks failed in the window: no figure for this round"
		R[$p,$c,$r]="- - - NOT-UP - -"; failed=1; return
	fi
	# a server that counted far fewer connections than the schedule asks
	# means checks that did not run: the figure would be meaningless
	[ $((checks * 10)) -ge $((expect * 9)) ] || die "$c $p: the server counted $checks connections, $expect expected"
	local other=-
	[ "$b0" != - ] && [ -n "$b1" ] && other=$(awk -v b=$((b1 - b0)) -v ns=$((ns1 - ns0)) -v hz="$hz" -v el=$((t1 - t0)) \
		'BEGIN { o = (b * 1e9 / hz - ns) / el * 100; printf "%.1f", o < 0 ? 0 : o }')
	R[$p,$c,$r]=$(awk -v ns=$((ns1 - ns0)) -v ck=$((ck1 - ck0)) -v tk=$((tk1 - tk0)) -v hz="$hz" \
		-v d="$checks" -v e="$expect" -v o="$own" -v ot="$other" 'BEGIN {
		printf "%.1f %d %d %s %.0f %s\n", (ns / 1000 + ck * 1e6 / hz) / d, d, e, o, (tk + ck) * 1e6 / hz / d, ot }')
	echo "$p $c round $r: ${R[$p,$c,$r]} load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$T/readings"
	# shellcheck disable=SC2086 # a reading is a list of words
	note "$p $c round $r: $(set -- ${R[$p,$c,$r]}; echo "$1 us/check, $2/$3 checks, own $4, other work on the CPU $6 %"), load $(cut -d' ' -f1 /proc/loadavg)"
}

# ---- statistics -------------------------------------------------------------------
stats() { # values... -> "median min max"
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
field() { local i=$2; set -- $1; eval "echo \${$i:--}"; }
round_ratios() { # proto a b
	local r x y
	for ((r = 1; r <= ROUNDS; r++)); do
		x=$(field "${R[$1,$2,$r]:--}" 1) y=$(field "${R[$1,$3,$r]:--}" 1)
		awk -v x="$x" -v y="$y" 'BEGIN { if (x ~ /^[0-9.]+$/ && y ~ /^[0-9.]+$/ && y > 0) printf "%.3f\n", x / y; else print "-" }'
	done
}

# ---- the run ------------------------------------------------------------------------
failed=0
started=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
for p in $PROTOS; do
	for ((r = 1; r <= ROUNDS; r++)); do
		order=$CONTENDERS
		if [ $((r % 2)) = 0 ]; then
			order=''
			for c in $CONTENDERS; do order="$c $order"; done
		fi
		for c in $order; do measure "$c" "$p" "$r"; done
	done
done

{
	echo "Command: $(for v in WINDOW ROUNDS N WARMUP HAPROXY_WARMUP TIMEOUT_MS PIN; do printf '%s=%s ' "$v" "${!v}"; done)PROTOS=\"$PROTOS\" CONTENDERS=\"$CONTENDERS\" EXPECT_RE='$EXPECT_RE' $cmdline"
	echo "$(date -u +%Y-%m-%dT%H:%MZ); $(uname -r); $ncpu CPUs; pinning $([ "$PIN" = 1 ] && echo "servers CPU $SERVER_CPU, contender CPU $CONTENDER_CPU" || echo off); load average at start: $load_start, at the end: $(cut -d' ' -f1-3 /proc/loadavg); took $(($(date +%s) - started)) s"
	echo "faultmon: $faultmon_src ($(git -C "$top" rev-parse --short HEAD 2>/dev/null)$(git -C "$top" diff --quiet HEAD -- src 2>/dev/null || echo +changes)); $(haproxy -v | head -n 1 | cut -d' ' -f1-3); $N targets per protocol, each every ${INTERVAL}s, timeout ${TIMEOUT_MS} ms"
	echo
	echo "| protocol | contender | µs CPU per check, median [min-max] | from ticks | checks per window: server / expected | own count | other work on CPU $CONTENDER_CPU, % |"
	echo "|---|---|---|---|---|---|---|"
	for p in $PROTOS; do
		for c in $CONTENDERS; do
			us=() tk=() ck=() ot=() own='' notup=0
			for ((r = 1; r <= ROUNDS; r++)); do
				# shellcheck disable=SC2086
				set -- ${R[$p,$c,$r]:-- - - - - -}
				us+=("$1") ck+=("$2/$3") tk+=("$5") ot+=("$6")
				[ "$4" = NOT-UP ] && notup=$((notup + 1)) || own=$4
			done
			[ "$notup" = 0 ] || own="$own NOT-UP in $notup of $ROUNDS rounds"
			echo "| $p | $c | $(fmt_stats "$(stats "${us[@]}")" 1) | $(fmt_stats "$(stats "${tk[@]}")" 0) | $(printf '%s ' "${ck[@]}")| $own | $(fmt_stats "$(stats "${ot[@]}")" 1) |"
		done
	done
	echo
	echo "Ratios of CPU per check, round by round: median [min-max] over $ROUNDS rounds"
	echo
	pairs=''
	for a in $CONTENDERS; do
		case $a in faultmon*) for b in $CONTENDERS; do case $b in haproxy*) pairs="$pairs $a/$b" ;; esac; done ;; esac
	done
	hdr="| protocol |" sep="|---|"
	for pr in $pairs; do hdr="$hdr ${pr%/*} / ${pr#*/} |" sep="$sep---|"; done
	echo "$hdr"
	echo "$sep"
	for p in $PROTOS; do
		line="| $p |"
		for pr in $pairs; do
			# shellcheck disable=SC2046
			line="$line $(fmt_stats "$(stats $(round_ratios "$p" "${pr%/*}" "${pr#*/}"))" 2) |"
		done
		echo "$line"
	done
	echo
	echo "Every round (µs/check checks expected own µs-from-ticks other%, and the load average after it):"
	echo
	sed 's/^/    /' "$T/readings"
	[ "$failed" = 0 ] || echo "**FAILED: in some rounds not every target was up (NOT-UP above): those rounds have no figure.**"
} >"$T/report"
cat "$T/report"
[ "$failed" = 0 ]
