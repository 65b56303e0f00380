#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-resolve.sh: host names.  A name target probes and classifies as an
# address does; a loop (faultmon probe --count, faultmon run) looks a name up
# once for all its targets and not again while the answer is kept (the
# debug log counts the lookups: "Resolving NAME"); and, in a private mount
# namespace where /etc/hosts and /etc/resolv.conf are this test's own, an
# /etc/hosts name with an IPv6 address, a name server that never answers
# (resolve-timeout at the deadline, complete) and one that refuses
# (resolve-failed, complete).  Nothing leaves the machine: the only name
# server is a silent or absent one on 127.0.0.0/8.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 16

fm_fault_server_start ok refuse || bail_out "the fault server did not start"
OK_PORT=${FS_PORT[ok]}
REFUSED_PORT=${FS_PORT[refuse]}
TO=1500ms

# lookups FILE NAME: how many lookups of NAME the debug log FILE shows.
lookups() {
    grep -c "debug: Resolving $2 " "$1"
}

# --- localhost, through /etc/hosts ----------------------------------------
if ! getent ahostsv4 localhost | grep -q '^127\.0\.0\.1'; then
    bail_out "localhost does not resolve to 127.0.0.1 here (/etc/hosts)"
fi

fm_probe --json --timeout $TO "http://localhost:$OK_PORT/"
fm_check_probe "http://localhost: ok, as by address" 0 verdict=ok targets.0.reason=ok

fm_probe --json --timeout $TO "tcp://localhost:$REFUSED_PORT"
fm_check_probe "tcp://localhost on a refused port: connect/connect-failed, complete" 2 \
    verdict=complete targets.0.layer=connect targets.0.reason=connect-failed

# Three cycles, two targets of one name (different ports, different case):
# one lookup in all, the answer kept for the next cycles.
fm_probe --count 3 --interval 200ms --timeout $TO -v -v \
    "http://localhost:$OK_PORT/" "tcp://LOCALHOST:$OK_PORT"
is "$FM_RC" 0 "three cycles of two localhost targets: exit 0"
is "$(grep -c '^verdict: ok (2 ok' "$FM_OUT")" 3 "every cycle is ok"
is "$(lookups "$FM_ERR" localhost)" 1 "localhost is looked up once for both targets and all three cycles"

# The same in the production loop: one lookup in three cycles.
export FAULTMON_STATE_DIR=$FM_TMP/state
fm_timeout 30 "$FAULTMON" run names --no-env --no-pacemaker -v -v --cycles 3 \
    --param "Port_list=localhost:$OK_PORT" --param Thorough_probe_interval=1 \
    --param Probe_timeout=2 >"$FM_TMP/run.out" 2>"$FM_TMP/run.err"
rc=$?
is "$rc" 0 "faultmon run with a localhost target, 3 cycles: exit 0"
is "$(lookups "$FM_TMP/run.err" localhost)" 1 "faultmon run looks localhost up once in 3 cycles"

# --- a private /etc/hosts and /etc/resolv.conf ------------------------------
# unshare -m as root; skipped where that is not allowed.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    for _ in 1 2 3 4 5 6 7 8 9; do
        skip "private /etc/hosts and /etc/resolv.conf" "needs root and unshare -m"
    done
    tap_done
    exit
fi

NS_ADDR=127.53.$((RANDOM % 250)).$((RANDOM % 250 + 1))
printf '127.0.0.1 localhost\n::1 fm-v6-only.test\n' >"$FM_TMP/hosts"
printf 'nameserver %s\noptions timeout:5 attempts:1\n' "$NS_ADDR" >"$FM_TMP/resolv.conf"

# in_ns SERVER ARGS...: `faultmon probe ARGS` in a mount namespace with this
# test's hosts and resolv.conf; SERVER "silent" runs a name server on
# NS_ADDR:53 that reads queries and never answers, "none" runs none.
in_ns() {
    local server=$1 start end
    shift
    FM_LAST_CMD="faultmon probe $* (name server: $server)"
    start=$(fm_now_ms)
    rm -f "$FM_TMP/ns.ready"
    fm_timeout 20 unshare -m "$BASH" -c '
        mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf || exit 99
        if [ "$3" = silent ]; then
            "$4" -c "import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
open(sys.argv[2], \"w\").close()
time.sleep(15)" "$5" "$6" &
            for _ in $(seq 1 100); do [ -e "$6" ] && break; sleep 0.05; done
            [ -e "$6" ] || exit 98
        fi
        shift 6
        "$@"
        rc=$?
        kill %1 2>/dev/null
        exit $rc' in_ns "$FM_TMP/hosts" "$FM_TMP/resolv.conf" "$server" "$PYTHON3" "$NS_ADDR" \
        "$FM_TMP/ns.ready" "$FAULTMON" probe "$@" >"$FM_OUT" 2>"$FM_ERR" </dev/null
    FM_RC=$?
    end=$(fm_now_ms)
    FM_ELAPSED_MS=$((end - start))
}

if fm_have_ipv6 && fm_fault_server_start --host ::1 ok; then
    in_ns none --json --timeout $TO "http://fm-v6-only.test:${FS_PORT[v6:ok]}/"
    fm_check_probe "a name with only an IPv6 address in /etc/hosts: ok" 0 verdict=ok targets.0.reason=ok
else
    skip "a name with only an IPv6 address" "no IPv6 loopback"
fi

# The answer is kept (10 s for an /etc/hosts answer, which has no TTL): a
# name taken out of /etc/hosts between two cycles a second apart still
# probes in the second (the name goes as soon as the first verdict is
# printed).  Looked up every cycle, it would fail there.
printf '127.0.0.1 localhost\n127.0.0.1 fm-moving.test\n' >"$FM_TMP/hosts"
: >"$FM_OUT"
(for _ in $(seq 1 100); do grep -q '^verdict' "$FM_OUT" 2>/dev/null && break; sleep 0.05; done
 printf '127.0.0.1 localhost\n' >"$FM_TMP/hosts") &
in_ns none --count 2 --interval 2s --timeout $TO "http://fm-moving.test:$OK_PORT/"
wait $!
is "$FM_RC $(grep -c '^verdict: ok' "$FM_OUT")" "0 2" \
    "a name dropped from /etc/hosts after the first cycle is still probed from the cache in the second"
in_ns none --json --timeout $TO "http://fm-moving.test:$OK_PORT/"
fm_check_probe "a new run looks it up again: resolve/resolve-failed" 2 \
    verdict=complete targets.0.layer=resolve targets.0.reason=resolve-failed

in_ns silent --json --timeout $TO "http://fm-nowhere.test:$OK_PORT/" "http://localhost:$OK_PORT/"
fm_check_probe "a name server that never answers: resolve/resolve-timeout, complete; localhost still ok" 2 \
    verdict=complete targets.0.layer=resolve targets.0.reason=resolve-timeout targets.1.reason=ok
like "$(fm_json_get "$FM_OUT" targets.0.detail)" '^no answer within Probe_timeout 1500 ms' \
    "the timeout's detail words are the engine's, as for any step"
lat=$(fm_json_get "$FM_OUT" targets.0.latency_us)
[ "${lat:-0}" -ge 1490000 ] && [ "${lat:-0}" -le 2500000 ]
ok_if $? "the lookup is cut off at the deadline, 1500 ms (its latency: $lat us)"

# resolv.conf edited between two cycles: the second cycle asks the new
# name server (silent: resolve-timeout), not the old one (absent:
# resolve-failed).  c-ares reads the file once; the resolver reads it again.
printf 'nameserver 127.53.0.0\n' >"$FM_TMP/resolv.conf"
: >"$FM_OUT"
(for _ in $(seq 1 100); do grep -q '^verdict' "$FM_OUT" 2>/dev/null && break; sleep 0.05; done
 printf 'nameserver %s\noptions timeout:5 attempts:1\n' "$NS_ADDR" >"$FM_TMP/resolv.conf") &
in_ns silent --count 2 --interval 2s --timeout $TO "http://fm-nowhere.test:$OK_PORT/"
wait $!
is "$(grep -o 'resolve/resolve-[a-z]*' "$FM_OUT" | tr '\n' ' ')" "resolve/resolve-failed resolve/resolve-timeout " \
    "an edited resolv.conf is read again before the next lookup"
printf 'nameserver %s\noptions timeout:5 attempts:1\n' "$NS_ADDR" >"$FM_TMP/resolv.conf"

in_ns none --json --timeout $TO "http://fm-nowhere.test:$OK_PORT/"
fm_check_probe "no name server listening: resolve/resolve-failed, complete" 2 \
    verdict=complete targets.0.layer=resolve targets.0.reason=resolve-failed
like "$(fm_json_get "$FM_OUT" targets.0.detail)" '^cannot resolve fm-nowhere\.test: ' \
    "the failure's detail names the host"

tap_done
