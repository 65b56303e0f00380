#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-timeout.sh: Probe_timeout has one rule (issue 32): the same values
# given to every entry point (faultmon probe --timeout, faultmon run's
# --param, the agents' parameter through faultmon-ocf-probe, and httpmon's
# validate-all) are taken or refused alike, with the same message.  No
# service runs: the probes go to a closed loopback port, and the loop
# stops after its first cycle.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

BUILD=${FM_TOP_BUILDDIR:-$FM_TEST_LIB/../..}
FAULTMON=${FAULTMON:-$BUILD/src/faultmon}
OCF_PROGRAM=${FM_OCF_PROGRAM:-$BUILD/agents/faultmon-ocf}
OCF_PROBE=${FM_OCF_PROBE:-$BUILD/agents/faultmon-ocf-probe}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-probe-timeout.XXXXXX") || exit 1
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'rm -rf "$TMP"'
TARGET=http://127.0.0.1:1/

tap_watchdog 120
for p in "$FAULTMON" "$OCF_PROGRAM" "$OCF_PROBE"; do
    [ -x "$p" ] || bail_out "$p is not built"
done
ln -s "$OCF_PROGRAM" "$TMP/httpmon"
mkdir -p "$TMP/state"
export FAULTMON FAULTMON_STATE_DIR=$TMP/state OCF_ROOT=${OCF_ROOT:-/usr/lib/ocf}

# Each entry point prints "taken" or "refused: MESSAGE", the message being
# the one line that names Probe_timeout (less the command's own prefix).
refusal() {
    grep -m1 -o "invalid value.*" "$1"
}

via_cli() {
    fm_timeout 20 "$FAULTMON" probe --timeout "$1" "$TARGET" >"$TMP/out" 2>&1
    if [ $? = 64 ]; then
        echo "refused: $(refusal "$TMP/out")"
    else
        echo taken
    fi
}

via_run() {
    fm_timeout 20 "$FAULTMON" run fmtimeout --no-env --no-pacemaker --cycles 1 \
        --param "Monitor_Uri_List=$TARGET" --param "Probe_timeout=$1" >"$TMP/out" 2>&1
    if [ $? = 64 ]; then
        echo "refused: $(refusal "$TMP/out")"
    else
        echo taken
    fi
}

via_agent_parameter() {
    OCF_RESKEY_Monitor_Uri_List=$TARGET OCF_RESKEY_Probe_timeout=$1 \
        fm_timeout 20 "$OCF_PROBE" >"$TMP/out" 2>&1
    if [ $? = 64 ]; then
        echo "refused: $(refusal "$TMP/out")"
    else
        echo taken
    fi
}

via_validate_all() {
    OCF_RESOURCE_INSTANCE=fmtimeout OCF_RESKEY_Monitor_Uri_List=$TARGET OCF_RESKEY_Probe_timeout=$1 \
        fm_timeout 20 "$TMP/httpmon" validate-all >"$TMP/out" 2>&1
    if [ $? = 6 ]; then
        echo "refused: $(refusal "$TMP/out")"
    else
        echo taken
    fi
}

# VALUE EXPECTED: "taken", or "refused" (with a message, the same everywhere).
cases=(
    "50ms refused" "99ms refused" "0 refused" "soon refused" "2h refused" "-1s refused"
    "100ms taken" "500ms taken" "2 taken" "1h taken"
)
plan $(( ${#cases[@]} * 2 ))

for c in "${cases[@]}"; do
    value=${c% *}
    want=${c#* }
    cli=$(via_cli "$value")
    run=$(via_run "$value")
    agent=$(via_agent_parameter "$value")
    validate=$(via_validate_all "$value")
    if [ "$cli" = "$run" ] && [ "$run" = "$agent" ] && [ "$agent" = "$validate" ]; then
        ok "Probe_timeout '$value': the same verdict and message everywhere ($cli)"
    else
        not_ok "Probe_timeout '$value': the same verdict and message everywhere"
        diag "faultmon probe --timeout: $cli" "faultmon run --param: $run" \
            "faultmon-ocf-probe (agent parameter): $agent" "httpmon validate-all: $validate"
    fi
    case $want in
        taken) is "$cli" taken "Probe_timeout '$value' is taken" ;;
        refused)
            case $cli in
                "refused: invalid value '$value' for Probe_timeout: "*"from 100 ms to 3600 s"*)
                    ok "Probe_timeout '$value' is refused, the bounds said" ;;
                *) not_ok "Probe_timeout '$value' is refused, the bounds said"; diag "$cli" ;;
            esac ;;
    esac
done
