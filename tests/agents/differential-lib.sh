# shellcheck shell=bash
# differential-lib.sh: what the differential tests (agent-differential.sh
# for apache, agent-nginx-differential.sh for nginx) share: running one
# action of either agent under its operation timeout, faultmon's level-0
# monitor asked until the loop's next cycle, the names of the exit codes,
# and the rule each case asserts.
#
# The caller sets DT_HEARTBEAT (the heartbeat agent), DT_FAULTMON (the
# built faultmon agent), DT_OP_TIMEOUT_S and DT_HB_NAME (for messages).

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
