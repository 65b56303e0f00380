#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cli-style.sh: every command speaks the same command line.  Each --help fits
# 80 columns (faultmon --help also 30 lines); every usage error is one line
# that names the bad value, with exit status 64 ("--json=yes" included); a
# missing CA file is named with the system's reason; `status` with nothing
# monitored says so; `run` shows simulate's planning warning; `simulate
# --replay` takes simulate's own option spellings.  No network beyond a
# refused loopback port.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"

FAULTMON=${FAULTMON:-$FM_TEST_LIB/../../src/faultmon}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-cli-style.XXXXXX") || exit 1
# shellcheck disable=SC2016 # expanded when the cleanup runs
fm_cleanup_add 'rm -rf "$TMP"'
COMMANDS="probe run status resume reset migrate simulate metrics exporter"

plan 50
tap_watchdog 120
if [ ! -x "$FAULTMON" ]; then
    bail_out "no faultmon binary at $FAULTMON (build it, or set FAULTMON)"
fi

# fm ARGS...: run faultmon with an empty state directory; OUT, ERR, RC.
fm() {
    FAULTMON_STATE_DIR=$TMP/state fm_timeout 20 "$FAULTMON" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    OUT=$(cat "$TMP/out")
    ERR=$(cat "$TMP/err")
}
mkdir -p "$TMP/state"

fm --help
lines=$(wc -l <"$TMP/out")
ok_if "$(( lines > 30 ))" "faultmon --help fits 30 lines ($lines)"
n=0
for c in "" $COMMANDS; do
    # shellcheck disable=SC2086 # "" is faultmon's own help
    fm $c --help
    wide=$(awk 'length($0) > 80' "$TMP/out")
    is "$RC:$wide" "0:" "faultmon $c --help fits 80 columns"
    n=$((n + 1))
done
is_count "$n" 10 "every command's help was measured"

# One line, the bad value named, 64: an unknown option, a flag given a
# value, an option without its value.
for c in $COMMANDS; do
    fm "$c" --no-such-option
    is "$RC:$(wc -l <"$TMP/err")" "64:1" "$c: an unknown option is one line, exit 64"
    like "$ERR" "^faultmon $c: .*'--no-such-option'" "$c: the error names the option"
done
for c in probe simulate status; do
    fm "$c" --json=yes
    is "$RC:$(wc -l <"$TMP/err")" "64:1" "$c --json=yes is refused in one line, exit 64"
    like "$ERR" "option '--json' takes no value: '--json=yes'" "$c --json=yes: the line says why"
done
for c in "metrics --output" "exporter --listen" "probe --count" "migrate --timeout"; do
    # shellcheck disable=SC2086 # the command and its option
    fm $c
    is "$RC:$(wc -l <"$TMP/err")" "64:1" "$c without its value: one line, exit 64"
    like "$ERR" "'--[a-z]+' needs a value" "$c without its value: the line names the option"
done

fm probe --tls-ca-file "$TMP/no-such-ca.pem" https://127.0.0.1:1/
like "$ERR" "cannot read CA file $TMP/no-such-ca.pem: No such file or directory" \
    "a missing CA file is named with the system's reason"

fm status
is "$RC:$OUT" "4:no resource is monitored on this node (no state in $TMP/state)" \
    "status with nothing monitored says so in one line (exit 4)"

fm run plan --no-env --no-pacemaker --cycles 1 --param Port_list=127.0.0.1:1 \
    --param Retry_count=2 --param Retry_interval=200
like "$ERR" "^faultmon run: warning: Retry_interval 200 s is shorter" \
    "run shows the planning warning simulate gives for the same settings"
printf '0 ok\n' | FAULTMON_STATE_DIR=$TMP/state "$FAULTMON" simulate --retry-count 2 \
    --retry-interval 200 >/dev/null 2>"$TMP/sim.err"
is "${ERR#faultmon run: }" "$(sed 's/^faultmon simulate: //' "$TMP/sim.err")" \
    "the warning of run and of simulate is the same line"

fm simulate --replay web --retry-count 5 --fall 2
is "$RC" 66 "simulate --replay takes --retry-count and --fall (no history: 66, not 64)"
fm simulate --replay web --retry-count
is "$RC:$(wc -l <"$TMP/err")" "64:1" "simulate --replay --retry-count without a value: one line, 64"

tap_done
