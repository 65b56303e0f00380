#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-nginx.sh: `faultmon probe` against a real nginx on loopback, over HTTP
# and HTTPS (a throwaway self-signed certificate).  nginx's access log shows
# what the probe really sent.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 50
fm_require_faultmon
ws_nginx_start || bail_out "nginx did not start"

TO=2s
H=127.0.0.1:$WS_HTTP_PORT
S=127.0.0.1:$WS_HTTPS_PORT

# log_has NAME FIXED-STRING: one TAP line, the access log has the string.
log_has() {
    if ws_access_log_has "$2"; then
        ok "$1"
    else
        not_ok "$1"
        diag "no '$2' in the access log:"
        diag_file "$WS_ACCESS_LOG"
    fi
}

plan 40

# Seed step 2: HTTP/1.0 HEAD.
fm_probe --json --timeout $TO "http://$H/?head"
fm_check_probe "http:// target: HEAD ok, status 200" 0 \
    verdict=ok targets.0.kind=http-head targets.0.reason=ok targets.0.layer=none targets.0.status=200
log_has "http:// target: nginx saw an HTTP/1.0 HEAD" "HEAD /?head HTTP/1.0|"

# Seed step 4: TLS handshake only.
fm_probe --json --timeout $TO --tls-no-verify "https://$S/?handshake"
fm_check_probe "https:// target, --tls-no-verify: handshake ok" 0 \
    verdict=ok targets.0.kind=tls-connect targets.0.reason=ok
if ws_access_log_has "/?handshake"; then
    not_ok "https:// target without --tls-request sends no HTTP request"
    diag_file "$WS_ACCESS_LOG"
else
    ok "https:// target without --tls-request sends no HTTP request"
fi
fm_probe --json --timeout $TO "https://localhost:$WS_HTTPS_PORT/"
fm_check_probe "https:// target, self-signed, no verification by default (the seed's connect check): ok" 0 \
    verdict=ok targets.0.layer=none targets.0.reason=ok
fm_probe --json --timeout $TO --tls-verify "https://localhost:$WS_HTTPS_PORT/"
fm_check_probe "https:// target, self-signed, --tls-verify without a CA file: complete tls-verify" 2 \
    verdict=complete targets.0.layer=tls targets.0.reason=tls-verify
fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" "https://localhost:$WS_HTTPS_PORT/"
fm_check_probe "https://localhost with --tls-ca-file: verified handshake ok" 0 \
    verdict=ok targets.0.reason=ok
fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" --tls-sni localhost "https://$S/"
fm_check_probe "https://127.0.0.1 with --tls-ca-file and --tls-sni localhost: ok" 0 \
    verdict=ok targets.0.reason=ok
fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" --tls-sni wrong.example "https://$S/"
fm_check_probe "--tls-ca-file with a --tls-sni the certificate does not name: complete tls-verify" 2 \
    verdict=complete targets.0.layer=tls targets.0.reason=tls-verify
fm_probe --json --timeout $TO --tls-no-verify "tls://$S"
fm_check_probe "tls:// target: handshake ok" 0 verdict=ok targets.0.kind=tls-connect targets.0.reason=ok
fm_probe --json --timeout $TO --tls-no-verify "https://$H/"
fm_check_probe "https:// to the plain HTTP port: complete, layer tls" 2 \
    verdict=complete targets.0.layer=tls targets.0.reason=tls-failed

# --tls-request: the HEAD goes over TLS too.
fm_probe --json --timeout $TO --tls-no-verify --tls-request "https://$S/health?tlsreq"
fm_check_probe "--tls-request: HEAD over TLS ok, status 200" 0 \
    verdict=ok targets.0.reason=ok targets.0.status=200
log_has "--tls-request: nginx saw the HEAD on its HTTPS port" "HEAD /health?tlsreq HTTP/1.0|"

# Seed step 3: HTTP/1.1 GET of URIs.
fm_probe --json --timeout $TO --uri "http://$H/health?uri"
fm_check_probe "--uri http:// GET /health: ok, status 200" 0 \
    verdict=ok targets.0.kind=http-get targets.0.reason=ok targets.0.status=200
log_has "--uri: nginx saw an HTTP/1.1 GET" "GET /health?uri HTTP/1.1|"
fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" --uri "https://localhost:$WS_HTTPS_PORT/health?urls"
fm_check_probe "--uri https:// GET /health with --tls-ca-file: ok, status 200" 0 \
    verdict=ok targets.0.kind=http-get targets.0.reason=ok targets.0.status=200
log_has "--uri https://: nginx saw the GET" "GET /health?urls HTTP/1.1|"
fm_probe --json --timeout $TO --uri "http://$H/boom"
fm_check_probe "--uri /boom: 500 is complete, layer status" 2 \
    verdict=complete targets.0.layer=status targets.0.reason=status targets.0.status=500
fm_probe --json --timeout $TO --uri "http://$H/missing"
fm_check_probe "--uri /missing: 404 is no page (GET default 200-399): complete, layer status" 2 \
    verdict=complete targets.0.layer=status targets.0.reason=status targets.0.status=404
fm_probe --json --timeout $TO "http://$H/missing"
fm_check_probe "HEAD /missing: 404 is an answer (HEAD default 100-499): ok" 0 \
    verdict=ok targets.0.kind=http-head targets.0.status=404
fm_probe --json --timeout $TO --expect-status 200 --uri "http://$H/missing"
fm_check_probe "--expect-status 200, 404 reply: complete, layer status" 2 \
    verdict=complete targets.0.layer=status targets.0.reason=status targets.0.status=404
fm_probe --json --timeout $TO --expect-status 200-399,404 --uri "http://$H/missing"
fm_check_probe "--expect-status 200-399,404, 404 reply: ok" 0 verdict=ok targets.0.status=404

# --receive and --reverse.
fm_probe --json --timeout $TO --receive "^$WS_HEALTH_MARKER" --uri "http://$H/health"
fm_check_probe "--receive matching the body: ok" 0 verdict=ok targets.0.reason=ok
fm_probe --json --timeout $TO --receive 'no-such-marker' --uri "http://$H/health"
fm_check_probe "--receive not matching: complete, content-mismatch" 2 \
    verdict=complete targets.0.layer=content targets.0.reason=content-mismatch
fm_probe --json --timeout $TO --reverse --receive 'health-mark[e]r' --uri "http://$H/health"
fm_check_probe "--reverse with a match: complete, content-reverse" 2 \
    verdict=complete targets.0.layer=content targets.0.reason=content-reverse
fm_probe --json --timeout $TO --reverse --receive 'no-such-marker' --uri "http://$H/health"
fm_check_probe "--reverse without a match: ok" 0 verdict=ok targets.0.reason=ok
fm_probe --json --timeout $TO --receive 'Server: nginx' "http://$H/"
fm_check_probe "--receive on a HEAD target matches the headers" 0 verdict=ok targets.0.reason=ok

# Other options.
fm_probe --json --timeout $TO --header 'X-Faultmon-Test: hdr-42' --uri "http://$H/health?hdr"
fm_check_probe "--header: GET ok" 0 verdict=ok
log_has "--header: nginx received the header" "GET /health?hdr HTTP/1.1|hdr-42|200"
fm_probe --json --timeout $TO --method GET "http://$H/?method"
fm_check_probe "--method GET on a target: ok" 0 verdict=ok targets.0.status=200
log_has "--method GET: nginx saw a GET instead of a HEAD" "GET /?method HTTP/1.0|"
fm_probe --json --timeout $TO --max-bytes 64 --uri "http://$H/health"
fm_check_probe "--max-bytes 64: nginx's headers exceed the cap: partial read-too-large" 1 \
    verdict=partial targets.0.layer=read targets.0.reason=read-too-large
fm_probe --timeout $TO --count 2 --interval 100ms "http://$H/?count"
n=$(grep -cF "HEAD /?count HTTP/1.0|" "$WS_ACCESS_LOG")
if [ "$FM_RC" = 0 ] && [ "$n" = 2 ]; then
    ok "--count 2 --interval 100ms: two probes, exit 0"
else
    not_ok "--count 2 --interval 100ms: two probes, exit 0"
    diag "nginx saw $n probes"
    fm_show_run
fi

# Addresses and names.
fm_probe --json --timeout $TO "tcp://$H"
fm_check_probe "tcp:// target: connect ok" 0 verdict=ok targets.0.kind=tcp-connect targets.0.reason=ok
fm_probe --json --timeout $TO "http://localhost:$WS_HTTP_PORT/"
fm_check_probe "host name localhost: HEAD ok" 0 verdict=ok targets.0.reason=ok targets.0.status=200
if [ "$WS_HAVE_IPV6" = 1 ]; then
    fm_probe --json --timeout $TO "http://[::1]:$WS_HTTP_PORT/"
    fm_check_probe "IPv6 [::1]: HEAD ok" 0 verdict=ok targets.0.reason=ok targets.0.status=200
    fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" --uri "https://[::1]:$WS_HTTPS_PORT/health"
    fm_check_probe "IPv6 [::1]: verified HTTPS GET ok" 0 verdict=ok targets.0.reason=ok targets.0.status=200
else
    skip "IPv6 [::1]: HEAD ok" "no IPv6 loopback"
    skip "IPv6 [::1]: verified HTTPS GET ok" "no IPv6 loopback"
fi

# Everything at once.
fm_probe --json --timeout $TO --tls-ca-file "$WS_CERT" \
    "http://$H/" "https://localhost:$WS_HTTPS_PORT/" "tcp://$H" \
    --uri "http://$H/health" --uri "https://localhost:$WS_HTTPS_PORT/health"
fm_check_probe "five targets of every kind: all ok" 0 verdict=ok targets.length=5 \
    targets.0.verdict=ok targets.1.verdict=ok targets.2.verdict=ok targets.3.verdict=ok targets.4.verdict=ok
why=$(fm_json_contract "$FM_OUT" 2000 5)
ok_if $? "five targets of every kind: the JSON has the contract's keys and values"
[ -n "$why" ] && diag "$why"
fm_probe --timeout $TO --tls-ca-file "$WS_CERT" "http://$H/" --uri "http://$H/boom"
if [ "$FM_RC" = 2 ] && [ "$(wc -l <"$FM_OUT")" = 4 ] && [[ $(tail -n 1 "$FM_OUT") == verdict:*complete* ]]; then
    ok "text output: a header, a line per target and 'verdict: complete', exit 2"
else
    not_ok "text output: a header, a line per target and 'verdict: complete', exit 2"
    fm_show_run
fi

tap_done
