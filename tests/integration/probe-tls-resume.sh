#!/bin/bash
# probe-tls-resume.sh: repeated TLS probes resume their sessions (TLS 1.3,
# whose tickets arrive after the handshake and are single-use), so that a
# loop pays for a full handshake only once.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 40
fm_require_faultmon
ws_nginx_start || bail_out "nginx did not start"
plan 4

out=$FM_TMP/resume.out
fm_timeout 20 "$FAULTMON" probe --count 4 --interval 50ms "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
ok_if $? "four handshake-only probes: exit 0"
like "$(grep -c 'TLSv1.3 handshake' "$out")" '^4$' "the handshakes are TLS 1.3"
is "$(grep -c '(resumed)' "$out")" 3 "every handshake after the first is resumed"

fm_timeout 20 "$FAULTMON" probe --count 3 --interval 50ms "https://127.0.0.1:$WS_HTTPS_PORT/" \
    "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
is "$(grep -c '(resumed)' "$out")" 4 "two targets on one server each keep their own session"

tap_done
