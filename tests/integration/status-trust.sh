#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# status-trust.sh: the loop and every reader of its files believe only what
# the loop's user wrote (issue 30, item 11): `faultmon status` gives no
# verdict for a state file owned by nobody or mode 0666, a resource directory
# owned by nobody or mode 0777, or a symlinked resource directory; `simulate
# --replay` refuses a history owned by nobody; the loop refuses a directory
# pre-created by nobody (and leaves it as it was).  Each refusal has a
# positive control: the same files as the loop wrote them are believed.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
if [ "$(id -u)" != 0 ]; then
    echo "1..0 # SKIP giving files to another user (chown) needs root"
    exit 0
fi
NOBODY=$(id -u nobody 2>/dev/null) || NOBODY=65534
plan 11

export FAULTMON_STATE_DIR=$FM_TMP/state
mkdir -p "$FAULTMON_STATE_DIR"
fm_fault_server_start refuse || bail_out "the fault server did not start"
REFUSED=127.0.0.1:${FS_PORT[refuse]}

fm_timeout 30 "$FAULTMON" run good --no-env --no-pacemaker --cycles 2 --param "Port_list=$REFUSED" \
    --param Thorough_probe_interval=100ms --param Probe_timeout=1 2>"$FM_TMP/run.err" ||
    { diag_file "$FM_TMP/run.err"; bail_out "the loop did not run"; }

# variant NAME: a copy of the loop's directory as NAME, its state naming
# NAME (the reader refuses the state of another resource).
variant() {
    cp -a "$FAULTMON_STATE_DIR/good" "$FAULTMON_STATE_DIR/$1"
    sed -i "s/^resource=good\$/resource=$1/" "$FAULTMON_STATE_DIR/$1/state"
}

# refused NAME WHAT: `faultmon status NAME` exits 4, says "no verdict" and
# why, and prints no state.
refused() {
    local out rc
    out=$(fm_timeout 10 "$FAULTMON" status "$1" 2>&1)
    rc=$?
    if [ "$rc" = 4 ] && printf '%s' "$out" | grep -q "no verdict: .*not trusted" &&
        ! printf '%s' "$out" | grep -q "down\|restart"; then
        ok "status: $2: no verdict, exit 4"
    else
        not_ok "status: $2: no verdict, exit 4"
        diag "exit $rc" "$out"
    fi
}

variant copy
out=$(fm_timeout 10 "$FAULTMON" status good 2>&1; fm_timeout 10 "$FAULTMON" status copy 2>&1)
ok_if "$(! printf '%s' "$out" | grep -q 'no verdict'; echo $?)" \
    "positive control: the loop's own files, and a copy of them, give a verdict"

variant fileowner
chown "$NOBODY" "$FAULTMON_STATE_DIR/fileowner/state"
refused fileowner "a state file owned by nobody"

variant filemode
chmod 0666 "$FAULTMON_STATE_DIR/filemode/state"
refused filemode "a state file of mode 0666"

variant dirowner
chown "$NOBODY" "$FAULTMON_STATE_DIR/dirowner"
refused dirowner "a resource directory owned by nobody"

variant dirmode
chmod 0777 "$FAULTMON_STATE_DIR/dirmode"
refused dirmode "a resource directory of mode 0777"

# The link's target holds a state naming the link: only the link is wrong.
variant linktarget
sed -i "s/^resource=linktarget\$/resource=linked/" "$FAULTMON_STATE_DIR/linktarget/state"
ln -s linktarget "$FAULTMON_STATE_DIR/linked"
refused linked "a symlinked resource directory"

# The metrics exporter reads through the same rule: no verdict for it either.
metrics=$(fm_timeout 10 "$FAULTMON" metrics 2>&1)
is "$(printf '%s\n' "$metrics" | grep -E '^faultmon_state_valid\{resource="(copy|fileowner|dirmode)"\}' | sort | tr '\n' ' ')" \
    'faultmon_state_valid{resource="copy"} 1 faultmon_state_valid{resource="dirmode"} 0 faultmon_state_valid{resource="fileowner"} 0 ' \
    "faultmon metrics: the loop's own state valid, the untrusted ones not"

# simulate --replay: the loop's history, then one owned by nobody.
fm_timeout 20 "$FAULTMON" simulate --replay copy >"$FM_TMP/replay.out" 2>"$FM_TMP/replay.err"
is "$?" 0 "positive control: simulate --replay of the loop's history (a copy) exits 0"
variant histowner
chown "$NOBODY" "$FAULTMON_STATE_DIR/histowner/history"
fm_timeout 20 "$FAULTMON" simulate --replay histowner >"$FM_TMP/replay.out" 2>"$FM_TMP/replay.err"
rc=$?
if [ "$rc" = 65 ] && grep -q "not trusted" "$FM_TMP/replay.err" && ! grep -q "cycles replayed" "$FM_TMP/replay.out"; then
    ok "simulate --replay: a history owned by nobody is refused (exit 65), nothing replayed"
else
    not_ok "simulate --replay: a history owned by nobody is refused (exit 65), nothing replayed"
    diag "exit $rc"
    diag_file "$FM_TMP/replay.err"
fi
variant paramsowner
chown "$NOBODY" "$FAULTMON_STATE_DIR/paramsowner/history.params"
fm_timeout 20 "$FAULTMON" simulate --replay paramsowner >"$FM_TMP/replay.out" 2>"$FM_TMP/replay.err"
rc=$?
is "$rc/$(grep -c 'not trusted' "$FM_TMP/replay.err")" "65/1" \
    "simulate --replay: history.params owned by nobody is refused (exit 65)"

# The loop: a directory pre-created by nobody is not taken over.
mkdir -m 0755 "$FAULTMON_STATE_DIR/taken"
chown "$NOBODY" "$FAULTMON_STATE_DIR/taken"
fm_timeout 30 "$FAULTMON" run taken --no-env --no-pacemaker --cycles 1 --param "Port_list=$REFUSED" \
    --param Probe_timeout=1 >"$FM_TMP/taken.out" 2>&1
rc=$?
is "$([ "$rc" != 0 ] && echo fails)/$(stat -c '%u %a' "$FAULTMON_STATE_DIR/taken")/$(ls -A "$FAULTMON_STATE_DIR/taken" | wc -l)" \
    "fails/$NOBODY 755/0" "the loop refuses a directory pre-created by nobody, and leaves it as it was"
grep -q "cannot create .*taken: Operation not permitted" "$FM_TMP/taken.out" || diag_file "$FM_TMP/taken.out"
tap_done
