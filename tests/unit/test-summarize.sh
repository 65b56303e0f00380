#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-summarize.sh: tests/summarize.sh fails a suite that shrank or skipped
# in CI.  Fed made-up .trs results: a script that ran fewer cases than its
# line in the minimums table fails (a tier minimum alone missed it), a
# script not in the table is not checked, a skipped script fails with
# CI=true unless the allow-list names it with a reason, tests/packages is a
# tier with its minimum, and --write-minimums writes the table from a run.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
SUMMARIZE=$FM_TEST_LIB/../summarize.sh

plan 13

tmp=$(mktemp -d)
fm_cleanup_add "rm -rf '$tmp'"
export FM_MINIMUMS=$tmp/minimums.txt FM_ALLOWED_SKIPS=$tmp/allowed.txt
# Every tier minimum 0: this tests the per-script table and the skips.
export FM_MIN_UNIT=0 FM_MIN_INTEGRATION=0 FM_MIN_AGENTS=0 FM_MIN_CLUSTER=0 FM_MIN_PACKAGES=0 \
    FM_MIN_ASAN=0 FM_MIN_FUZZ=0

# trs DIR SCRIPT PASSED [SKIPPED]: a .trs file of PASSED passing cases
# (automake names the results of x.sh x.trs; the tables may say x.sh).
trs() {
    local f=$1/$2.trs i
    mkdir -p "${f%/*}"
    : >"$f"
    for ((i = 0; i < $3; i++)); do echo ":test-result: PASS" >>"$f"; done
    for ((i = 0; i < ${4:-0}; i++)); do echo ":test-result: SKIP" >>"$f"; done
}
run() {
    out=$(bash "$SUMMARIZE" "$@" 2>&1)
    rc=$?
    out=$(printf '%s' "$out" | tr '\n' ' ')   # one line, for like "^rc/.*"
}

b=$tmp/build
trs "$b" tests/unit/test_state 30
trs "$b" tests/integration/proto-redis 20
trs "$b" tests/integration/proto-ldap 0 1
printf '# comment\ntests/unit/test_state 30\ntests/integration/proto-redis.sh 20\n' >"$FM_MINIMUMS"

CI=false run "$b"
like "$rc/$out" "^0/.* 50 passed, 0 failed, 1 skipped$" "every script at its minimum, not in CI: success"

trs "$b" tests/unit/test_state 20
CI=false run "$b"
is "$rc" 1 "a script that ran 20 of its 30 cases: failure"
like "$out" "tests/unit/test_state ran 20 cases, fewer than its minimum of 30" "and it is named"
trs "$b" tests/unit/test_state 30

rm "$b/tests/integration/proto-redis.trs"
CI=false run "$b"
like "$rc/$out" "^1/.*proto-redis ran 0 cases" "a script of the table that did not run at all: failure"
trs "$b" tests/integration/proto-redis 20

trs "$b" tests/integration/new-script 3
CI=false run "$b"
is "$rc" 0 "a script not in the table (another branch's new one) is not checked"

CI=true run "$b"
like "$rc/$out" "^1/.*proto-ldap skipped 1 case" "in CI a skipped script fails"
printf 'tests/integration/proto-ldap.sh\n' >"$FM_ALLOWED_SKIPS"
CI=true run "$b"
is "$rc" 1 "an allow-list line without its reason allows nothing"
printf 'tests/integration/proto-ldap.sh   slapd is not in this image\n' >"$FM_ALLOWED_SKIPS"
CI=true run "$b"
like "$rc/$out" "^0/.*allowed skip: tests/integration/proto-ldap \\(1\\): slapd is not in this image" \
    "a skip the allow-list names with its reason passes, and is shown"
trs "$tmp/asan" tests/unit/test_state 0 2
CI=true run "$b" --asan "$tmp/asan"
like "$rc/$out" "^1/.*test_state skipped 2" "a skip in the ASan run counts too"

trs "$b" tests/packages/deb 0 1
CI=false FM_MIN_PACKAGES=10 run "$b"
like "$rc/$out" "^1/.*tier packages: +0 ran.*fewer than the minimum of 10" "tests/packages is a tier with its minimum"
CI=false run "$b"
like "$out" "tier packages:" "and is counted when it has no minimum"

# --write-minimums: the counts of this run, the lines of scripts not run kept.
printf '# kept\ntests/cluster/smoke.sh 9\ntests/unit/test_state 25\n' >"$FM_MINIMUMS"
run --write-minimums "$b"
is "$(cat "$FM_MINIMUMS")" "# kept
tests/cluster/smoke 9
tests/integration/new-script 3
tests/integration/proto-redis 20
tests/unit/test_state 30" "--write-minimums writes this run's counts and keeps the scripts it did not run"
printf 'tests/unit/test_state many\n' >"$FM_MINIMUMS"
CI=false run "$b"
is "$rc" 1 "a minimum that is not a number is a failure, not ignored"

tap_done
