#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-regex-nofork.sh: no fork per reply (issue 31).  A receive regex that an
# automaton decides (alternation, groups, anchors, intervals, classes: see
# include/faultmon/regex_linear.h) is searched in the loop's own process: a
# cycle of `faultmon run` against a real nginx forks nothing, traced with
# strace.  Before, any pattern but a plain sequence ("(ok|OK)", "^HTTP") was
# matched by regexec() in a child process per reply.  A pattern only
# regexec() reads (an anchor under repetition) still works, in its child.
# UTF-8 text and equivalence classes in a pattern fork nothing either.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 120
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 14

if ! command -v strace >/dev/null; then
    for _ in $(seq 1 14); do skip "no fork per reply" "no strace"; done
    tap_done
    exit 0
fi
ws_nginx_start || bail_out "nginx did not start"
export FAULTMON_STATE_DIR=$FM_TMP/state
CYCLES=4
URL="http://127.0.0.1:$WS_HTTP_PORT/health"
n=0

# traced_run NAME REGEX [ARGS...]: CYCLES cycles of `faultmon run` with REGEX as its
# receive regex (it must match the body), every process-making call traced (threads are clones with
# CLONE_THREAD: the resolver's, not a child process).  Sets RUN_RC and
# FORKS.  LeakSanitizer is off in a sanitizer build: it cannot run under
# ptrace.  STATE is what `faultmon status` says of the target and how many
# cycles logged a failure (a GET: Monitor_Uri_List; each cycle must pass).
traced_run() {
    local name=$1 regex=$2
    shift 2
    fm_timeout 60 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=clone,fork,vfork,clone3 -o "$FM_TMP/$name.strace" \
        "$FAULTMON" run "$name" -v --no-env --no-pacemaker --cycles $CYCLES \
        --param "Monitor_Uri_List=$URL" --param Thorough_probe_interval=1 \
        --param "receive_regex=$regex" "$@" >"$FM_TMP/$name.out" 2>"$FM_TMP/$name.err"
    RUN_RC=$?
    STATE="$("$FAULTMON" status "$name" | awk '$1 == "reason:" { print $2 }')/$(grep -c 'state down' "$FM_TMP/$name.err")"
    FORKS=$(grep -E '(clone3?|v?fork)\(' "$FM_TMP/$name.strace" | grep -vc 'CLONE_THREAD')
}

# 1-6: patterns administrators write, each in process: no child at all.
for regex in "($WS_HEALTH_MARKER|OK)" "^faultmon-(health|status)-marker\$" \
        'health-[[:alpha:]]{6}[^a-z]?$'; do
    name=nofork-$((++n))
    traced_run "$name" "$regex"
    is "$RUN_RC/$STATE" "0/ok/0" "receive_regex '$regex': exit 0, ok in each of $CYCLES cycles"
    [ "$RUN_RC/$STATE" = "0/ok/0" ] || diag_file "$FM_TMP/$name.err"
    is "$FORKS" 0 "receive_regex '$regex': no process forked in $CYCLES cycles"
    [ "$FORKS" = 0 ] || diag_file "$FM_TMP/$name.strace"
done

# 7-8: the maintenance regex, asked of every HTTP reply that passed, is
# searched in process too (it forked a child per reply, whatever it was).
traced_run maint "($WS_HEALTH_MARKER|OK)" --param 'maintenance_regex=^(drain|maintenance)$'
is "$RUN_RC/$STATE" "0/ok/0" "with a maintenance_regex not matching: exit 0, ok in each of $CYCLES cycles"
[ "$RUN_RC/$STATE" = "0/ok/0" ] || diag_file "$FM_TMP/maint.err"
is "$FORKS" 0 "with a maintenance_regex: no process forked in $CYCLES cycles"
[ "$FORKS" = 0 ] || diag_file "$FM_TMP/maint.strace"

# 9-10: what only regexec() reads (an anchor inside a repeated group, which
# glibc answers its own way) still matches, in a child process per reply.
traced_run fallback '(faultmon|x$y)+-health'
is "$RUN_RC/$STATE" "0/ok/0" "receive_regex with an anchor under repetition: exit 0, ok in each of $CYCLES cycles"
[ "$RUN_RC/$STATE" = "0/ok/0" ] || diag_file "$FM_TMP/fallback.err"
ok_if "$([ "$FORKS" -ge 1 ] && echo 0 || echo 1)" \
    "receive_regex with an anchor under repetition: matched in a child ($FORKS forks in $CYCLES cycles)"

# 11-12: UTF-8 text ("café", as a French site's page has it) and an
# equivalence class in a pattern are searched in process too: each forked a
# child per reply before.
utf8="(caf$(printf '\303\251')|[[=f=]]aultmon-health-marker)"
traced_run utf8 "$utf8"
is "$RUN_RC/$STATE" "0/ok/0" "receive_regex with UTF-8 text and [[=f=]]: exit 0, ok in each of $CYCLES cycles"
[ "$RUN_RC/$STATE" = "0/ok/0" ] || diag_file "$FM_TMP/utf8.err"
is "$FORKS" 0 "receive_regex with UTF-8 text and [[=f=]]: no process forked in $CYCLES cycles"
[ "$FORKS" = 0 ] || diag_file "$FM_TMP/utf8.strace"

# 13-14: the verdicts of `faultmon probe` say the in-process search answers:
# an alternation that matches passes, one that does not is a content failure.
fm_probe --json --receive "(nomatch|$WS_HEALTH_MARKER)" --uri "$URL"
fm_check_probe "probe, an alternation matching the body: ok" 0 targets.0.reason=ok
fm_probe --json --receive '(nomatch|absent)' --uri "$URL"
fm_check_probe "probe, an alternation matching nothing: content-mismatch" 2 \
    targets.0.reason=content-mismatch

tap_done
