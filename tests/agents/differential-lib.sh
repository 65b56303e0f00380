# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# differential-lib.sh: what the differential tests (agent-differential.sh
# for apache, agent-nginx-differential.sh for nginx) share: running one
# action of either agent under its operation timeout, faultmon's level-0
# monitor asked until the loop's next cycle, the names of the exit codes,
# and the rule each case asserts.
#
# The caller sets DT_HEARTBEAT (the heartbeat agent), DT_FAULTMON (the
# built faultmon agent), DT_OP_TIMEOUT_S, DT_HB_NAME (for messages) and
# DT_LEVELS (the OCF_CHECK_LEVELs above 0 to monitor at), and defines
# dt_reset_config, dt_params and dt_stop_all AGENT for dt_case.

# dt_run AGENT ACTION [LEVEL]: DT_RC, bounded by the operation timeout
# (124 when it is cut off there).  Each agent gets the operation timeout in
# OCF_RESKEY_CRM_meta_timeout, as from Pacemaker.
dt_run() {
    local path=$DT_FAULTMON
    [ "$1" = hb ] && path=$DT_HEARTBEAT
    # shellcheck disable=SC2034 # read by the caller's diagnostics
    FA_OUT=$(OCF_CHECK_LEVEL=${3:-0} timeout -k 1 "$DT_OP_TIMEOUT_S" "$path" "$2" 2>&1)
    DT_RC=$?
}

# faultmon's level-0 monitor answers the loop's verdict, which sees a fault
# injected after start at its next cycle (Thorough_probe_interval 2s,
# Probe_timeout 2s): ask until it fails, for at most one cycle and a second.
dt_monitor0_fm() {
    local end=$((SECONDS + 6))
    while :; do
        dt_run fm monitor 0
        case $DT_RC in
            0|190) ;;
            *) return ;;
        esac
        [ "$SECONDS" -ge "$end" ] && return
        sleep 0.5
    done
}

# Wait until URL answers STATUS (000 for no answer), at most 5 s.
dt_wait_status_url() {
    local want=$1 url=$2 got
    for _ in $(seq 1 50); do
        got=$(curl -s -o /dev/null -m 1 -w '%{http_code}' "$url" 2>/dev/null)
        [ "$got" = "$want" ] && return 0
        sleep 0.1
    done
    diag "$url answers $got, not $want"
    return 1
}

dt_name() {
    case $1 in
        0) echo "0 ok" ;;
        1) echo "1 generic" ;;
        2) echo "2 args" ;;
        5) echo "5 installed" ;;
        6) echo "6 configured" ;;
        7) echo "7 not-running" ;;
        124|137) echo "timeout" ;;
        190) echo "190 degraded" ;;
        *) echo "$1" ;;
    esac
}

dt_is_success() {
    [ "$1" = 0 ] || [ "$1" = 190 ]
}

# dt_assert NAME ACTION...: one TAP line per action of DT_RESULT (set by the
# caller's case), with both codes: faultmon never answers success where the
# heartbeat agent fails.
declare -A DT_RESULT
dt_assert() {
    local name=$1 action hb fm line
    shift
    for action in "$@"; do
        hb=${DT_RESULT[hb,$action]} fm=${DT_RESULT[fm,$action]}
        line="$name: $action: heartbeat $(dt_name "$hb"), faultmon $(dt_name "$fm")"
        if dt_is_success "$fm" && ! dt_is_success "$hb"; then
            not_ok "$line"
            diag "faultmon answers success where $DT_HB_NAME fails"
        else
            ok "$line"
        fi
    done
}

# dt_start_slow_server DIR: a fault server on loopback that accepts and
# never answers; DT_SLOW_PORT, stopped on exit.
dt_start_slow_server() {
    local ports=$1/slow.ports pid
    "${PYTHON3:-python3}" "$FM_TEST_LIB/../fault_server.py" --host 127.0.0.1 --port-file "$ports" \
        --max-seconds 900 silent 2>"$1/fault_server.log" &
    pid=$!
    fm_cleanup_add "kill $pid 2>/dev/null"
    for _ in $(seq 1 50); do
        [ -s "$ports" ] && break
        sleep 0.1
    done
    DT_SLOW_PORT=$(awk '$1 == "silent" { print $2 }' "$ports")
    [ -n "$DT_SLOW_PORT" ] || bail_out "the fault server did not start"
}

# dt_case NAME SETUP INJECT: run the case through both agents (validate-all,
# start, monitor at level 0 and at each of DT_LEVELS) and assert the rule
# for each action.  SETUP changes the configuration or the parameters before
# validate-all; INJECT (inject_none for nothing) breaks the service after a
# start that must have succeeded.
DT_INJECTED_OK=true
dt_case() {
    local name=$1 setup=$2 inject=$3 agent level actions="validate-all start monitor"
    for level in $DT_LEVELS; do
        actions="$actions monitor-$level"
    done
    for agent in hb fm; do
        dt_reset_config
        dt_params
        $setup
        dt_run "$agent" validate-all
        DT_RESULT[$agent,validate-all]=$DT_RC
        dt_run "$agent" start
        DT_RESULT[$agent,start]=$DT_RC
        if [ "$inject" != inject_none ] && [ "$DT_RC" != 0 ]; then
            DT_INJECTED_OK=false
            diag "$name: $agent's start answered $DT_RC on the healthy set-up"
        fi
        $inject
        if [ "$agent" = fm ] && [ "$inject" != inject_none ]; then
            dt_monitor0_fm
        else
            dt_run "$agent" monitor 0
        fi
        DT_RESULT[$agent,monitor]=$DT_RC
        for level in $DT_LEVELS; do
            dt_run "$agent" monitor "$level"
            DT_RESULT[$agent,monitor-$level]=$DT_RC
        done
        dt_stop_all "$agent"
    done
    # shellcheck disable=SC2086 # the list of actions
    dt_assert "$name" $actions
}

# The last test of each: the faults injected after start took effect.
dt_injected_report() {
    if [ "$DT_INJECTED_OK" = true ]; then
        ok "every fault injected after a good start took effect"
    else
        not_ok "every fault injected after a good start took effect"
    fi
}
