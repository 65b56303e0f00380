#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
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
plan 11

out=$FM_TMP/resume.out
fm_timeout 20 "$FAULTMON" probe --count 4 --interval 50ms "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
ok_if $? "four handshake-only probes: exit 0"
like "$(grep -c 'TLSv1.3 handshake' "$out")" '^4$' "the handshakes are TLS 1.3"
is "$(grep -c '(resumed)' "$out")" 3 "every handshake after the first is resumed"

fm_timeout 20 "$FAULTMON" probe --count 3 --interval 50ms "https://127.0.0.1:$WS_HTTPS_PORT/" \
    "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
is "$(grep -c '(resumed)' "$out")" 4 "two targets on one server both resume (they share its session)"

# A kept session holds no certificate (src/probe/tls_session.c): a resumed
# probe still reports the certificate's expiry, noted with the session.
# The interval is longer than the probe's wait for its ticket (1 s,
# FM_TICKET_WAIT_US in src/probe/engine.c), which the next cycle cuts
# short: at 50 ms a ticket late under load was not waited for, and the next
# handshake was not resumed.  Now each probe waits for it, up to 1 s.
fm_timeout 20 "$FAULTMON" probe --json --count 3 --interval 1100ms "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
is "$(grep -c '(resumed)' "$out")" 2 "--json: the second and third handshakes are resumed"
is "$(grep -o '"cert_not_after":[1-9][0-9]*' "$out" | sort -u | wc -l)$(grep -c '"cert_not_after":[1-9]' "$out")" \
    13 "--json: every probe, resumed or not, reports the same certificate expiry"

# Verification: a resumed session was verified when it was made, under the
# same name; a handshake that fails verification leaves nothing to resume.
fm_timeout 20 "$FAULTMON" probe --count 3 --interval 50ms --tls-ca-file "$WS_CERT" --tls-request \
    "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
ok_if $? "--tls-ca-file, HEAD over TLS: three probes ok"
is "$(grep -c '(resumed)' "$out")" 2 "--tls-ca-file: verified sessions are resumed"
fm_timeout 20 "$FAULTMON" probe --count 3 --interval 50ms --tls-ca-file "$WS_CERT" \
    --tls-sni wrong.example "https://127.0.0.1:$WS_HTTPS_PORT/" >"$out"
is "$?" 2 "--tls-sni naming another host: complete failure"
is "$(grep -c 'tls/tls-verify' "$out")" 3 "every probe fails verification"
is "$(grep -c '(resumed)' "$out")" 0 "nothing resumed"

tap_done
