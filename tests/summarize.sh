#!/usr/bin/env bash
# Count the TAP results that automake's test harness left in .trs files
# under the given directories and print the closing line CI reads.
set -uo pipefail
passed=0 failed=0 skipped=0
while IFS= read -r line; do
    case "$line" in
        ":test-result: PASS"*|":test-result: XFAIL"*) passed=$((passed + 1)) ;;
        ":test-result: FAIL"*|":test-result: XPASS"*|":test-result: ERROR"*) failed=$((failed + 1)) ;;
        ":test-result: SKIP"*) skipped=$((skipped + 1)) ;;
    esac
done < <(find "$@" -name '*.trs' -exec cat {} + 2>/dev/null)
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
