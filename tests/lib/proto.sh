# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/proto.sh: what the protocol tests (tests/integration/proto-*.sh)
# share: one case is a probe whose class, layer and reason are checked, and
# whose verdict must come at the deadline (and at most PROTO_LATE ms after
# it) for a fault seen only by running out of time, or within PROTO_FAST ms
# otherwise, by the JSON's own elapsed_us (the probe's monotonic clock, not
# the wall clock of a loaded machine).
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh and tests/lib/probe.sh first.

PROTO_T=${PROTO_T:-1000}        # --timeout, in ms
PROTO_LATE=${PROTO_LATE:-100}   # how late past the deadline a timeout may be
PROTO_FAST=${PROTO_FAST:-500}   # the bound on a fault seen without waiting
PROTO_WALL=${PROTO_WALL:-3000}  # how long the process may outlive the deadline

# proto_elapsed NAME TIMING: one TAP line on the last run's elapsed_us.
proto_elapsed() {
    local name=$1 lo=0 hi=$((PROTO_FAST * 1000)) us
    if [ "$2" = deadline ]; then
        lo=$((PROTO_T * 1000))
        hi=$(((PROTO_T + PROTO_LATE) * 1000))
    fi
    us=$(fm_json_get "$FM_OUT" elapsed_us 2>/dev/null)
    if [[ $us =~ ^[0-9]+$ ]] && [ "$us" -ge "$lo" ] && [ "$us" -le "$hi" ] &&
        [ "$FM_ELAPSED_MS" -le $((PROTO_T + PROTO_WALL)) ]; then
        ok "$name: verdict in time ($2)"
        diag "elapsed_us $us; the process took $FM_ELAPSED_MS ms"
    else
        not_ok "$name: verdict in time ($2)"
        diag "elapsed_us '$us', wanted $lo..$hi; the process took $FM_ELAPSED_MS ms"
        fm_show_run
    fi
}

# proto_case NAME RC VERDICT LAYER REASON TIMING -- PROBE-ARGS...: two TAP
# lines: the classification (and exit status), and the timing.  Extra JSON
# checks may follow in PROTO_EXTRA (an array of PATH=VALUE).
proto_case() {
    local name=$1 rc=$2 verdict=$3 layer=$4 reason=$5 timing=$6
    shift 7
    fm_probe --json --timeout "${PROTO_T}ms" "$@"
    fm_check_probe "$name: $verdict, $layer/$reason, exit $rc" "$rc" \
        "verdict=$verdict" "targets.length=1" "targets.0.verdict=$verdict" \
        "targets.0.layer=$layer" "targets.0.reason=$reason" "${PROTO_EXTRA[@]}"
    PROTO_EXTRA=()
    proto_elapsed "$name" "$timing"
}
PROTO_EXTRA=()

# proto_detail_like NAME REGEX: the last run's first target's detail matches.
proto_detail_like() {
    local detail
    detail=$(fm_json_get "$FM_OUT" targets.0.detail 2>/dev/null)
    if [[ $detail =~ $2 ]]; then
        ok "$1"
    else
        not_ok "$1"
        diag "detail '$detail' does not match /$2/"
        fm_show_run
    fi
}

# proto_kill_tree PID: stop a server we started, and its children.
proto_kill_tree() {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -CONT "$pid" 2>/dev/null
    pkill -TERM -P "$pid" 2>/dev/null
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
    pkill -KILL -P "$pid" 2>/dev/null
    kill -KILL "$pid" 2>/dev/null
}

# proto_server_start NAME ARGS...: start tests/proto_server.py with ARGS
# (a scripted server; see its help) and set PS_PORT[NAME], its log in
# $FM_TMP/ps-NAME.log.  Stopped on exit.
declare -A PS_PORT
proto_server_start() {
    local name=$1 pid portfile=$FM_TMP/ps-$1.port
    shift
    "$PYTHON3" "$FM_TESTS_DIR/proto_server.py" --port-file "$portfile" \
        --log "$FM_TMP/ps-$name.log" "$@" 2>"$FM_TMP/ps-$name.err" &
    pid=$!
    fm_cleanup_add "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
    for _ in $(seq 1 100); do
        [ -s "$portfile" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if [ ! -s "$portfile" ]; then
        diag "proto_server $name did not start"
        diag_file "$FM_TMP/ps-$name.err"
        return 1
    fi
    PS_PORT[$name]=$(cat "$portfile")
}
