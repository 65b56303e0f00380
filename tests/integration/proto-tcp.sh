#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-tcp.sh: tcp:// with send_string and expect_regex (--send, --expect),
# F5's TCP send/receive and HAProxy's tcp-check send/expect, against
# tests/fault_server.py: the class, layer and reason of each case, and its
# verdict within the deadline (tests/lib/proto.sh).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 90
fm_require_faultmon
plan 78

fm_fault_server_start ok status-500 silent trickle garbage reset-request greet-reset \
    huge-headers refuse echo banner-220 || bail_out "the fault server did not start"

tcp() {
    echo "tcp://127.0.0.1:${FS_PORT[$1]}"
}
HEAD='HEAD / HTTP/1.0\r\n\r\n'
OK='^HTTP/1\.[01] 200'

proto_case "ok: the reply matches" 0 ok none ok fast -- \
    --send "$HEAD" --expect "$OK" "$(tcp ok)"
proto_detail_like "ok: the detail shows the reply's first line" '^reply matches: HTTP/1\.1 200 OK$'
PROTO_EXTRA=("targets.0.kind=tcp-send")
proto_case "escapes: \\x49 and \\0 are decoded before sending" 0 ok none ok fast -- \
    --send 'P\x49NG\0' --expect '^echo:PING' "$(tcp echo)"
# A plain expect_regex is searched in-process in linear time (regex_linear.h),
# any other by regexec() in a child: the same verdicts, a NUL in the reply a
# byte like any other for both (test_probe_opts checks which path a pattern
# takes).
PROTO_EXTRA=("targets.0.kind=tcp-send")
proto_case "plain --expect, matching: ok" 0 ok none ok fast -- \
    --send 'xab\r\n' --expect 'echo:x[ab]b' "$(tcp echo)"
proto_case "plain --expect, not matching: complete" 2 complete content content-mismatch fast -- \
    --send 'xac\r\n' --expect 'echo:x[ab]b' "$(tcp echo)"
proto_case "plain --expect after a NUL in the reply: ok" 0 ok none ok fast -- \
    --send 'A\0B' --expect 'A*B' "$(tcp echo)"
proto_case "non-plain --expect (a|b){2}, matching: ok" 0 ok none ok fast -- \
    --send 'xab\r\n' --expect 'echo:x(a|b){2}' "$(tcp echo)"
proto_case "non-plain --expect (a|b){2}, not matching: complete" 2 complete content content-mismatch \
    fast -- --send 'xac\r\n' --expect 'echo:x(a|b){2}' "$(tcp echo)"
proto_case "non-plain --expect after a NUL in the reply: ok" 0 ok none ok fast -- \
    --send 'A\0B' --expect '(B|C)' "$(tcp echo)"
# --reverse turns expect_regex around (F5's reverse receive string): a match
# is the failure; a reply that ends without one passes, and so does one
# still open at the deadline (a banner that keeps the connection), while a
# server that says nothing at all still times out.
proto_case "--reverse, the reply matches: complete" 2 complete content content-reverse fast -- \
    --reverse --send 'ERROR\r\n' --expect 'ERROR' "$(tcp echo)"
proto_detail_like "--reverse: the detail says so" '^reply matches expect_regex \(reverse mode\): echo:ERROR'
proto_case "--reverse, non-plain pattern, the reply matches: complete" 2 complete content \
    content-reverse fast -- --reverse --send 'ERROR\r\n' --expect '^echo:(ERROR|FAIL)' "$(tcp echo)"
proto_case "--reverse, the reply ends without a match: ok" 0 ok none ok fast -- \
    --reverse --send 'fine\r\n' --expect 'ERROR' "$(tcp echo)"
proto_case "--reverse, a banner without a match, the server keeps the connection: ok at the deadline" \
    0 ok none ok deadline -- --reverse --expect '^554' "$(tcp banner-220)"
proto_detail_like "--reverse: the detail says no match came by the deadline" \
    '^no match by the deadline \(reverse mode\): 220'
proto_case "--reverse, a server that says nothing: partial at the deadline" 1 partial read \
    read-timeout deadline -- --reverse --send 'x\r\n' --expect 'ERROR' "$(tcp silent)"
# --maintenance-regex on the reply read (F5's receive-disable string): a
# reply that passes and asks to be drained is maintenance (class ok); one
# that fails keeps its failure whatever it says.
proto_case "--maintenance-regex, a passing reply that asks to drain: ok, maintenance" 0 ok none \
    maintenance fast -- --send 'drain\r\n' --expect '^echo:' --maintenance-regex 'dra[i]n' "$(tcp echo)"
proto_detail_like "maintenance: the detail names the regex" "^maintenance: the reply matches 'dra\[i\]n'"
proto_case "--maintenance-regex, a passing reply without it: ok" 0 ok none ok fast -- \
    --send 'up\r\n' --expect '^echo:' --maintenance-regex 'drain' "$(tcp echo)"
proto_case "--maintenance-regex on a reply that does not match --expect: still complete" 2 complete \
    content content-mismatch fast -- --send 'drain\r\n' --expect '^ok' --maintenance-regex 'drain' \
    "$(tcp echo)"
proto_case "--maintenance-regex on a --reverse match: still complete" 2 complete content \
    content-reverse fast -- --reverse --send 'drain\r\n' --expect 'drain' --maintenance-regex 'drain' \
    "$(tcp echo)"
proto_case "--maintenance-regex, --reverse without a match: maintenance" 0 ok none maintenance fast -- \
    --reverse --send 'drain\r\n' --expect 'ERROR' --maintenance-regex '^echo:drain' "$(tcp echo)"
proto_case "no match before the server closes: complete" 2 complete content content-mismatch fast -- \
    --send "$HEAD" --expect "$OK" "$(tcp status-500)"
proto_detail_like "mismatch: the detail shows the reply" 'does not match expect_regex: HTTP/1\.1 500'
proto_case "garbage: complete (read, and not what was expected)" 2 complete content \
    content-mismatch fast -- --send "$HEAD" --expect "$OK" "$(tcp garbage)"
proto_case "silent: partial at the deadline" 1 partial read read-timeout deadline -- \
    --send "$HEAD" --expect "$OK" "$(tcp silent)"
proto_case "trickle: partial at the deadline (one deadline, never re-armed)" 1 partial read \
    read-timeout deadline -- --send "$HEAD" --expect '^pong' "$(tcp trickle)"
proto_detail_like "trickle: the detail says the reply so far does not match" 'so far does not match'
proto_case "reset after the request: partial" 1 partial read read-failed fast -- \
    --send "$HEAD" --expect "$OK" "$(tcp reset-request)"
proto_case "reset in the middle of a banner: partial" 1 partial read read-failed fast -- \
    --expect '^SSH-' "$(tcp greet-reset)"
proto_case "oversized reply without a match: partial" 1 partial read read-too-large fast -- \
    --send "$HEAD" --expect '^pong' "$(tcp huge-headers)"
proto_case "refused: complete" 2 complete connect connect-failed fast -- \
    --send "$HEAD" --expect "$OK" "$(tcp refuse)"
proto_case "expect only: the banner matches" 0 ok none ok fast -- \
    --expect '^220 ' "$(tcp banner-220)"
proto_case "send only: ok once sent" 0 ok none ok fast -- --send 'QUIT\r\n' "$(tcp echo)"
proto_case "neither: the connect check as before" 0 ok none ok fast -- "$(tcp silent)"
proto_detail_like "neither: kind tcp-connect" '^connected$'

# ?family: only the addresses of that family.  The fault server listens on
# 127.0.0.1 only: through the name localhost, inet reaches it and inet6
# cannot (whether /etc/hosts gives localhost an IPv6 address or not).
proto_case "?family=inet through a name: ok" 0 ok none ok fast -- \
    "tcp://localhost:${FS_PORT[echo]}?family=inet"
proto_case "?family=inet6 through a name, a server on IPv4 only: complete" 2 complete connect \
    connect-failed fast -- "tcp://localhost:${FS_PORT[echo]}?family=inet6"

# Load-time errors name the bad value; the run never starts.
fm_probe --send 'a\q' "$(tcp ok)"
is "$FM_RC" 64 "a bad escape is a usage error"
like "$(cat "$FM_ERR")" "unknown escape '\\\\q'" "and the message names it"
fm_probe --expect 'a{1000}{1000}' "$(tcp ok)"
is "$FM_RC" 64 "a regex the guard refuses is a usage error"
fm_probe --reverse "$(tcp ok)"
is "$FM_RC" 64 "--reverse without --receive or --expect is a usage error"
like "$(cat "$FM_ERR")" "--reverse needs --receive or --expect" "and the message says what it needs"
fm_probe "tcp://127.0.0.1:${FS_PORT[ok]}?family=inet6"
is "$FM_RC" 64 "?family=inet6 on an IPv4 literal is a usage error"
fm_probe "tcp://127.0.0.1:${FS_PORT[ok]}?bogus"
is "$FM_RC" 64 "an unknown key is a usage error"
like "$(cat "$FM_ERR")" "takes no key 'bogus'" "and the message names it"

# The run configuration takes the same rows (faultmon run --param).
fm_probe --send "$HEAD" --expect "$OK" --count 2 --interval 50ms --json "$(tcp ok)"
is "$FM_RC" 0 "two cycles reuse what was prepared at load time"
tap_done
