# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/tap.sh: tiny TAP helpers for faultmon's bash tests.
# shellcheck shell=bash
#
# Source it, call `plan N`, then one of ok/not_ok/check/is/like/skip per test
# case.  Numbers are counted for you.  Diagnostics go to stdout as "# ..."
# lines, where automake's tap-driver copies them into the test's .log file.
#
#   . "$FM_TEST_LIB/tap.sh"
#   tap_watchdog 60          # the whole script, however it hangs
#   plan 3
#   check "true works" true
#   is "$(echo hi)" "hi" "echo says hi"
#   fm_timeout 5 some-command ...   # one command under its own watchdog

TAP_COUNT=0
TAP_FAILED=0
TAP_PLANNED=

plan() {
    TAP_PLANNED=$1
    echo "1..$1"
}

# diag LINE...: each argument (and each line in it) becomes a "# " line.
diag() {
    printf '%s\n' "$@" | sed 's/^/# /'
}

# Print a file (or the named files) as diagnostics, cut at 40 lines each.
diag_file() {
    local f
    for f in "$@"; do
        if [ -s "$f" ]; then
            diag "--- ${f##*/}:"
            head -n 40 "$f" | sed 's/^/#   /'
        fi
    done
}

ok() {
    TAP_COUNT=$((TAP_COUNT + 1))
    echo "ok $TAP_COUNT - $*"
}

not_ok() {
    TAP_COUNT=$((TAP_COUNT + 1))
    TAP_FAILED=$((TAP_FAILED + 1))
    echo "not ok $TAP_COUNT - $*"
}

# ok_if STATUS NAME: ok when STATUS is 0.
ok_if() {
    local status=$1
    shift
    if [ "$status" -eq 0 ]; then
        ok "$@"
    else
        not_ok "$@"
    fi
}

# check NAME CMD...: ok when the command succeeds.
check() {
    local name=$1
    shift
    if "$@"; then
        ok "$name"
    else
        not_ok "$name"
        diag "command failed: $*"
    fi
}

# is GOT EXPECTED NAME
is() {
    if [ "$1" = "$2" ]; then
        ok "$3"
    else
        not_ok "$3"
        diag "got:      '$1'" "expected: '$2'"
    fi
}

# like GOT EXTENDED-REGEX NAME
like() {
    if printf '%s' "$1" | grep -Eq -- "$2"; then
        ok "$3"
    else
        not_ok "$3"
        diag "got:      '$1'" "expected to match: /$2/"
    fi
}

# is_count GOT EXPECTED NAME: ok when a loop went over exactly EXPECTED
# items and EXPECTED is more than 0: a loop over an empty or cut-short list
# would otherwise check nothing and pass.
is_count() {
    if [ "$2" -gt 0 ] 2>/dev/null && [ "$1" = "$2" ]; then
        ok "$3"
    else
        not_ok "$3"
        diag "counted:  '$1'" "expected: '$2' (more than 0)"
    fi
}

# fm_xml_param_count FILE: the number of <parameter> elements of an OCF
# meta-data document (stdin when FILE is -), counted without xmllint, so
# that it checks a list parsed with xmllint.
fm_xml_param_count() {
    grep -c '<parameter[[:space:]]' "$1"
}

skip() {
    TAP_COUNT=$((TAP_COUNT + 1))
    echo "ok $TAP_COUNT - $1 # SKIP ${2:-}"
}

# skip_all REASON: the whole script skips ("1..0 # SKIP REASON") and ends.
# With CI=true, where every dependency is installed (tests/install-deps.sh),
# a server that did not start is a failure, not a skip: the script bails out
# with the reason instead.
skip_all() {
    if [ "${CI:-}" = true ]; then
        bail_out "$1 (CI=true: this would be a skip, and CI must run it)"
    fi
    echo "1..0 # SKIP $1"
    exit 0
}

bail_out() {
    echo "Bail out! $*"
    exit 1
}

# End of a script.  tap-driver judges by the TAP lines (a failed test is
# already a FAIL), so the exit status is non-zero only when the plan was not
# followed, which is an ERROR of the script itself.
tap_done() {
    if [ -n "$TAP_PLANNED" ] && [ "$TAP_COUNT" -ne "$TAP_PLANNED" ]; then
        diag "planned $TAP_PLANNED tests but ran $TAP_COUNT"
        exit 1
    fi
    if [ "$TAP_FAILED" -ne 0 ]; then
        diag "$TAP_FAILED of $TAP_COUNT tests failed"
    fi
    exit 0
}

# fm_timeout SECONDS CMD...: run one command under a watchdog; it gets
# SIGTERM at SECONDS and SIGKILL one second later.  Exit status 124 (or 137)
# means the watchdog fired.
fm_timeout() {
    local secs=$1
    shift
    timeout -k 1 "$secs" "$@"
}

# tap_watchdog SECONDS: if this script is still running after SECONDS, print
# "Bail out!", end the command it is waiting for and the script itself (its
# EXIT trap still runs the cleanup).
tap_watchdog() {
    local secs=$1 script_pid=$$
    (
        sleep "$secs" &
        sleeper=$!
        trap 'kill $sleeper 2>/dev/null; exit 0' TERM
        wait $sleeper
        echo "Bail out! watchdog: test script still running after ${secs}s"
        for child in $(ps -o pid= --ppid "$script_pid"); do
            [ "$child" = "$BASHPID" ] || kill -TERM "$child" 2>/dev/null
        done
        kill -TERM "$script_pid" 2>/dev/null
    ) &
    TAP_WATCHDOG_PID=$!
    fm_cleanup_add "kill $TAP_WATCHDOG_PID 2>/dev/null"
}

# --- cleanup: run every registered command on exit, failure or signal ----

FM_CLEANUP_CMDS=()

fm_cleanup_add() {
    FM_CLEANUP_CMDS+=("$1")
}

fm_cleanup_run() {
    local i
    for ((i = ${#FM_CLEANUP_CMDS[@]} - 1; i >= 0; i--)); do
        eval "${FM_CLEANUP_CMDS[$i]}" || true
    done
    FM_CLEANUP_CMDS=()
}

trap 'fm_cleanup_run' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# --- time -----------------------------------------------------------------

# Wall-clock milliseconds, for measuring how long a command took.
fm_now_ms() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
        local t=${EPOCHREALTIME/[.,]/}
        echo $((10#$t / 1000))
    else
        echo $(($(date +%s%N) / 1000000))
    fi
}

# --- signals: only to a process this test started and checked ------------
# shellcheck source=tests/lib/signal.sh
. "${BASH_SOURCE[0]%/*}/signal.sh"
