#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-hygiene.sh: no test script can signal a process it did not start and
# check.  `kill -STOP "${pid:-0}"` with pid empty stopped the whole process
# group (make, .ci/run: CI hung); `pgrep -P 0` lists init.  Every shell
# script under tests/ (and .ci/run) is read line by line, and each of these
# is a failure, named with its file and line:
#  1. a numeric default in the arguments of kill, pkill or pgrep
#     (`${pid:-0}`, `${pid:--1}`): an empty variable becomes a real target;
#  2. kill to a literal 0, 1, -0 or -1 (the group, init, everything);
#  3. killall, and pkill by name (without -P): processes of anyone;
#  4. a kill (other than -0) whose target is a command substitution (a PID
#     read from a file or from ps, unchecked);
#  5. a raw group kill (`kill -SIG -- "-$pgid"`) of a variable the same file
#     does not assign from $! (ps or a pid file may name this script's own
#     group): use fm_signal_group, which checks it.
# The way to signal a PID the test did not get from $! is fm_signal or
# fm_signal_group (tests/lib/signal.sh).  Lines run through fm_node_exec are
# inside a cluster node's own PID namespace and are not checked by 3-4.  A
# line may end with "# hygiene: REASON" when a person checked it by hand.
# The plan's last cases check the checker: each rule flags a bad line.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
top=$(cd "$FM_TEST_LIB/../.." && pwd)

plan 7

# The checker, in awk: each command that starts with kill, pkill, pgrep or
# killall (at the start of a line, after ; & | ( { ! then do else, or a
# quote: a command kept for fm_cleanup_add) is cut at the next ; & or | and
# checked alone, so that "kill -9" in a message is no command.
# shellcheck disable=SC2016 # awk text
HYGIENE_AWK='
function flag(rule, why) {
    printf "%s:%d: rule %d (%s): %s\n", FILENAME, FNR, rule, why, $0
    flagged = 1
}
function check(cmd, node,   v, rest) {
    if (cmd ~ /^(kill|pkill|pgrep)[^$]*(\$[^{]|\$\{[^}]*\}[^$]*)*\$\{[A-Za-z_][A-Za-z0-9_]*:?-[-0-9]/ && cmd ~ /\$\{[A-Za-z_][A-Za-z0-9_]*:?-[-0-9]/) {
        flag(1, "a numeric default is a real target when the variable is empty")
    }
    if (cmd ~ /^kill[ \t]+(-[A-Za-z0-9]+[ \t]+|-s[ \t]+[A-Z0-9]+[ \t]+)?(--[ \t]+)?["\047]?[01]["\047]?([ \t)]|$)/ ||
        cmd ~ /^kill[ \t]+((-[A-Za-z0-9]+|-s[ \t]+[A-Z0-9]+)[ \t]+(--[ \t]+)?|--[ \t]+)["\047]?-[01]["\047]?([ \t)]|$)/) {
        flag(2, "a literal 0, 1 or -1 target")
    }
    if (!node && cmd ~ /^killall/) {
        flag(3, "killall: processes of anyone")
    }
    if (!node && cmd ~ /^pkill/ && cmd !~ /[ \t]-P[ \t]/) {
        flag(3, "pkill by name: processes of anyone")
    }
    if (!node && cmd ~ /^kill/ && cmd !~ /^kill[ \t]+-0[ \t]/ && cmd ~ /(^|[^\\])(\$\([^(]|`)/) {
        flag(4, "a PID from a command substitution, unchecked")
    }
    rest = cmd
    while (match(rest, /^kill[ \t]+-[A-Za-z0-9]+[ \t]+--[ \t]+"?-\$\{?[A-Za-z_][A-Za-z0-9_]*/)) {
        v = substr(rest, RSTART, RLENGTH)
        sub(/.*-\$\{?/, "", v)
        if (!(v in fromjob)) {
            flag(5, "a group kill of $" v ", not from $!")
        }
        rest = ""
    }
}
# A lower-case name belongs to its file; an upper-case one (MS_PGID=$! in a
# library, used by the scripts that source it) is global.
# Two passes over the files (pass=1 FILES pass=2 FILES): the first only
# collects the global names.
FNR == 1 { for (v in fromjob) { if (v ~ /^[a-z_]/) { delete fromjob[v] } } }
# NAME=$! (also "local NAME=$!"): a PID this script started.
pass == 1 {
    line = $0
    while (match(line, /[A-Z][A-Z0-9_]*=\$!/)) {
        v = substr(line, RSTART, RLENGTH)
        sub(/=.*/, "", v)
        fromjob[v] = 1
        line = substr(line, RSTART + RLENGTH)
    }
    next
}
{
    line = $0
    while (match(line, /[A-Za-z_][A-Za-z0-9_]*=\$!/)) {
        v = substr(line, RSTART, RLENGTH)
        sub(/=.*/, "", v)
        fromjob[v] = 1
        line = substr(line, RSTART + RLENGTH)
    }
}
/^[ \t]*#/ || /# hygiene: / { next }
{
    code = $0
    node = (code ~ /fm_node_exec/)
    flagged = 0
    while (!flagged && match(code, /(^|[;&|({!"\047][ \t]*|[ \t](then|do|else)[ \t]+|^[ \t]+)(kill|pkill|pgrep|killall)([ \t]|$)/)) {
        m = substr(code, RSTART, RLENGTH)
        sub(/[ \t]+$/, "", m)
        at = RSTART
        next_at = RSTART + RLENGTH
        match(m, /(killall|pkill|pgrep|kill)$/)
        word = substr(code, at + RSTART - 1)
        code = substr(code, next_at)
        if (match(word, /[;&|]/)) {
            word = substr(word, 1, RSTART - 1)
        }
        check(word, node)
    }
}
'

# hygiene_scan FILE...: print "FILE:LINE: rule N (WHY): TEXT" per violation.
hygiene_scan() {
    awk "$HYGIENE_AWK" pass=1 "$@" pass=2 "$@"
}

mapfile -t scripts < <(
    cd "$top" && {
        find tests -type f -name '*.sh' ! -path tests/lib/signal.sh ! -path tests/unit/test-hygiene.sh
        [ -f .ci/run ] && echo .ci/run
    } | sort
)
found=$(cd "$top" && hygiene_scan "${scripts[@]}")
if [ "${#scripts[@]}" -gt 50 ] && [ -z "$found" ]; then
    ok "no script under tests/ signals a PID it did not start and check (${#scripts[@]} scripts)"
else
    not_ok "no script under tests/ signals a PID it did not start and check (${#scripts[@]} scripts)"
    diag "$found"
fi

# The checker's positive controls: each rule flags what it is for.
bad=$(mktemp)
fm_cleanup_add "rm -f '$bad'"
check_rule() {
    local rule=$1 line=$2
    printf '%s\n' "$line" >"$bad"
    like "$(hygiene_scan "$bad")" "rule $rule " "rule $rule flags: $line"
}
# shellcheck disable=SC2016 # the lines are the checked text
{
    check_rule 1 'kill -STOP "${hp:-0}" $kids'
    check_rule 2 'kill -TERM -- -1'
    check_rule 3 'pkill -KILL -x nginx'
    check_rule 4 'kill -HUP "$(cat "$dir/nginx.pid")"'
    check_rule 5 'pgid=$(ps -o pgid= -p "$m"); kill -STOP -- "-$pgid"'
}
# shellcheck disable=SC2016 # the lines are the checked text
printf '%s\n' 'sleep 9 & p=$!' 'kill -0 "$(cat f)"; kill -KILL -- "-$p"; fm_signal STOP "$x" --child' >"$bad"
is "$(hygiene_scan "$bad")" "" "and passes a probe (-0), a group from \$! and fm_signal"

tap_done
