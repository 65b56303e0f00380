#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-usage.sh: `faultmon probe` refuses bad input before probing anything:
# exit status 64 (EX_USAGE) and exactly one line on stderr that names the bad
# value.  None of these command lines may reach the network: every target
# points at a port where nothing listens.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 30
fm_require_faultmon

# A port bound but not listening: a probe that slipped through would get a
# refused connect (exit 2), never a hang.
fm_fault_server_start refuse status-500 || bail_out "the fault server did not start"
GOOD=http://127.0.0.1:${FS_PORT[refuse]}/

# usage_case NAME BAD-VALUE ARGS...: exit 64, one line on stderr naming
# BAD-VALUE, in well under a second.
usage_case() {
    local name=$1 bad=$2 nlines why=
    shift 2
    FM_PROBE_WATCHDOG_S=5 fm_probe "$@"
    nlines=$(wc -l <"$FM_ERR")
    if [ "$FM_RC" != 64 ]; then
        why="exit status $FM_RC, wanted 64"
    fi
    if [ "$nlines" != 1 ]; then
        why="${why:+$why; }$nlines lines on stderr, wanted exactly 1"
    fi
    if ! grep -qF -- "$bad" "$FM_ERR"; then
        why="${why:+$why; }stderr does not name '$bad'"
    fi
    if [ -z "$why" ]; then
        ok "$name: exit 64, one stderr line naming '$bad'"
    else
        not_ok "$name: exit 64, one stderr line naming '$bad'"
        diag "$why"
        fm_show_run
    fi
}

plan 37

usage_case "target without a host" "http://" "http://"
usage_case "port out of range" "99999" "http://127.0.0.1:99999/"
usage_case "port zero" "http://127.0.0.1:0/" "http://127.0.0.1:0/"
usage_case "unsupported scheme (ftp:// is one now: issue 12)" "gopher://x/" "gopher://x/"
usage_case "tcp:// without a port" "tcp://127.0.0.1" "tcp://127.0.0.1"
usage_case "tls:// without a port" "tls://localhost" "tls://localhost"
usage_case "unclosed IPv6 bracket" "http://[::1/" "http://[::1/"
usage_case "not a URI at all" "127.0.0.1" "127.0.0.1"
usage_case "--uri with a tcp:// URL" "tcp://127.0.0.1:1" --uri "tcp://127.0.0.1:1" "$GOOD"
usage_case "--timeout not a number" "abc" --timeout abc "$GOOD"
usage_case "--timeout negative" "-1" --timeout -1 "$GOOD"
usage_case "--timeout with an unknown unit" "5 parsecs" --timeout "5 parsecs" "$GOOD"
usage_case "--receive with a bad regex" "(" --receive '(' "$GOOD"
usage_case "--expect-status with a bad range" "20x-" --expect-status 20x- "$GOOD"
usage_case "--expect-status beyond 999" "1000" --expect-status 200-1000 "$GOOD"
usage_case "--header without a colon" "NoColonHere" --header NoColonHere "$GOOD"
usage_case "--header with a CR LF (request injection)" "X-A" --header $'X-A: 1\r\nX-B: 2' "$GOOD"
usage_case "--max-bytes not a size" "lots" --max-bytes lots "$GOOD"
usage_case "--count not a number" "many" --count many "$GOOD"
usage_case "--interval not a duration" "soon" --count 2 --interval soon "$GOOD"
usage_case "unknown option" "--no-such-option" --no-such-option "$GOOD"
usage_case "option without its value" "--timeout" "$GOOD" --timeout

# A bad value anywhere refuses the whole command line: nothing is probed.
FM_PROBE_WATCHDOG_S=5 fm_probe --json "$GOOD" "gopher://127.0.0.1/"
if [ "$FM_RC" = 64 ] && [ ! -s "$FM_OUT" ]; then
    ok "a bad target after a good one: exit 64 and no verdict printed"
else
    not_ok "a bad target after a good one: exit 64 and no verdict printed"
    fm_show_run
fi

fm_probe --help
if [ "$FM_RC" = 0 ] && grep -q -- --timeout "$FM_OUT" && grep -q -- --uri "$FM_OUT"; then
    ok "--help: exit 0, options listed on stdout"
else
    not_ok "--help: exit 0, options listed on stdout"
    fm_show_run
fi

# The boundary between good and bad: a valid line must not be refused.
fm_probe --json --timeout 500ms --expect-status 200-399,401 --max-bytes 64k \
    --header 'X-Probe: 1' --receive 'a|b' "$GOOD"
if [ "$FM_RC" = 2 ] && fm_json_check "$FM_OUT" targets.0.reason=connect-failed >/dev/null; then
    ok "a valid command line is accepted (and probes: refused connect, exit 2)"
else
    not_ok "a valid command line is accepted (and probes: refused connect, exit 2)"
    fm_show_run
fi

# Secrets (issue 8, item 5): the password of a malformed URI is hidden in the
# one-line error, which shows the redacted URI (the positive control: an
# error that showed nothing would pass a grep for absence).
secret_case() {
    local name=$1 shown=$2 secret=$3 why=
    shift 3
    FM_PROBE_WATCHDOG_S=5 fm_probe "$@"
    [ "$FM_RC" = 64 ] || why="exit status $FM_RC, wanted 64"
    [ "$(wc -l <"$FM_ERR")" = 1 ] || why="${why:+$why; }not exactly one line on stderr"
    grep -qF -- "$shown" "$FM_ERR" || why="${why:+$why; }stderr does not show '$shown'"
    if grep -qF -- "$secret" "$FM_ERR" "$FM_OUT"; then
        why="${why:+$why; }the secret '$secret' shows"
    fi
    if [ -z "$why" ]; then
        ok "$name: exit 64, '$shown' and no secret"
    else
        not_ok "$name: exit 64, '$shown' and no secret"
        diag "$why"
        fm_show_run
    fi
}

S=S3c$RANDOM$RANDOM
secret_case "a '/' in the password" "http://***@127.0.0.1:1/" "ab/$S" "http://fmuser:ab/$S@127.0.0.1:1/"
secret_case "a '?' in the password" "http://***@127.0.0.1:1/" "$S" "http://fmuser:p?$S@127.0.0.1:1/"
secret_case "a '#' in the password" "http://***@127.0.0.1:1/" "$S" "http://fmuser:p#$S@127.0.0.1:1/"
secret_case "one slash after the scheme" "http:/***@127.0.0.1/" "$S" "http:/fmuser:$S@127.0.0.1/"
secret_case "a space in the password, bad port" "http://***@127.0.0.1:99999/" "$S" \
    "http://fmuser:a $S@127.0.0.1:99999/"
secret_case "--uri with a '/' in the password" "http://***@127.0.0.1:1/" "$S" \
    --uri "http://fmuser:ab/$S@127.0.0.1:1/" "$GOOD"

# Raw bytes (item 10): a newline and invalid UTF-8 in a bad value come out
# escaped, on one line.
FM_PROBE_WATCHDOG_S=5 fm_probe $'http://127.0.0.1:1/\xff\nX'
if [ "$FM_RC" = 64 ] && [ "$(wc -l <"$FM_ERR")" = 1 ] && grep -qF 'http://127.0.0.1:1/\xff\x0aX' "$FM_ERR" \
    && ! LC_ALL=C grep -q $'\xff' "$FM_ERR"; then
    ok "a newline and a byte 0xff in a target: escaped, one line"
else
    not_ok "a newline and a byte 0xff in a target: escaped, one line"
    fm_show_run
fi

# status and resume quote a bad resource name on one line, escaped.
for cmd in status resume; do
    fm_timeout 5 "$FAULTMON" "$cmd" $'bad\nname\xff' >"$FM_OUT" 2>"$FM_ERR"
    rc=$?
    if [ "$rc" = 64 ] && [ "$(wc -l <"$FM_ERR")" = 1 ] && grep -qF "'bad\x0aname\xff'" "$FM_ERR" \
        && ! LC_ALL=C grep -q $'\xff' "$FM_ERR"; then
        ok "faultmon $cmd with a newline and a byte 0xff in the name: exit 64, one line, escaped"
    else
        not_ok "faultmon $cmd with a newline and a byte 0xff in the name: exit 64, one line, escaped"
        diag "exit status $rc"
        diag_file "$FM_ERR"
    fi
done

# A password holding '@' is a valid URI (the last '@' ends it): the probe
# runs, and its output (text and JSON) and its log lines in Pacemaker's log
# file show the URI redacted, never the password.
FM_SECRET_LOG=$FM_TMP/pacemaker.log
: >"$FM_SECRET_LOG"
for fmt in text json; do
    args=()
    [ "$fmt" = json ] && args=(--json)
    PCMK_logfile=$FM_SECRET_LOG PCMK_logfacility=none FM_PROBE_WATCHDOG_S=5 \
        fm_probe "${args[@]}" --timeout 2s \
        --uri "http://fmuser:p@$S@127.0.0.1:${FS_PORT[status-500]}/x" "http://fmuser:p@$S@127.0.0.1:1/"
    if [ "$FM_RC" = 2 ] && grep -qF "http://***@127.0.0.1:1/" "$FM_OUT" \
        && grep -qF "http://***@127.0.0.1:${FS_PORT[status-500]}/x" "$FM_OUT" \
        && ! grep -qF -- "$S" "$FM_OUT" "$FM_ERR"; then
        ok "a password with '@' ($fmt output): probed, shown as ***"
    else
        not_ok "a password with '@' ($fmt output): probed, shown as ***"
        fm_show_run
    fi
done
if grep -qF "Probe of http://***@127.0.0.1:${FS_PORT[status-500]}/x failed" "$FM_SECRET_LOG" \
    && ! grep -qF -- "$S" "$FM_SECRET_LOG"; then
    ok "the log file names the failed URI redacted, never the password"
else
    not_ok "the log file names the failed URI redacted, never the password"
    diag_file "$FM_SECRET_LOG"
fi

tap_done
