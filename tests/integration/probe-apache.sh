#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-apache.sh: `faultmon probe` against a real Apache httpd on loopback,
# the server the seed's fault monitor was written for.  Skipped when Apache
# is not installed.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

if ! ws_have_apache; then
    echo "1..0 # SKIP Apache httpd is not installed (apt-get install apache2)"
    exit 0
fi
tap_watchdog 40
fm_require_faultmon
ws_apache_start || bail_out "Apache did not start"

TO=2s
H=127.0.0.1:$WA_HTTP_PORT

plan 8

fm_probe --json --timeout $TO "http://$H/?head"
fm_check_probe "http:// target: HEAD ok, status 200" 0 \
    verdict=ok targets.0.kind=http-head targets.0.reason=ok targets.0.status=200
if grep -qF "HEAD /?head HTTP/1.0|" "$WA_ACCESS_LOG"; then
    ok "http:// target: Apache saw an HTTP/1.0 HEAD"
else
    not_ok "http:// target: Apache saw an HTTP/1.0 HEAD"
    diag_file "$WA_ACCESS_LOG"
fi
fm_probe --json --timeout $TO --receive "^$WS_HEALTH_MARKER" --uri "http://$H/health"
fm_check_probe "--uri GET /health (a file) with --receive: ok, status 200" 0 \
    verdict=ok targets.0.kind=http-get targets.0.reason=ok targets.0.status=200
fm_probe --json --timeout $TO --uri "http://$H/boom"
fm_check_probe "--uri /boom: 500 is complete, layer status" 2 \
    verdict=complete targets.0.layer=status targets.0.reason=status targets.0.status=500
fm_probe --json --timeout $TO --tls-ca-file "$WA_CERT" "https://localhost:$WA_HTTPS_PORT/"
fm_check_probe "https:// target with --tls-ca-file: verified handshake ok" 0 \
    verdict=ok targets.0.kind=tls-connect targets.0.reason=ok
fm_probe --json --timeout $TO --tls-ca-file "$WA_CERT" --tls-request "https://localhost:$WA_HTTPS_PORT/health"
fm_check_probe "--tls-request: HEAD over TLS ok, status 200" 0 \
    verdict=ok targets.0.reason=ok targets.0.status=200
fm_probe --json --timeout $TO --tls-ca-file "$WA_CERT" --uri "https://localhost:$WA_HTTPS_PORT/boom"
fm_check_probe "--uri https:// /boom: complete, layer status" 2 \
    verdict=complete targets.0.reason=status targets.0.status=500
fm_probe --json --timeout $TO --tls-ca-file "$WA_CERT" "http://$H/" "https://localhost:$WA_HTTPS_PORT/" \
    --uri "http://$H/health" --uri "https://localhost:$WA_HTTPS_PORT/health"
fm_check_probe "the seed's full check (both ports, both URIs): ok" 0 verdict=ok targets.length=4

tap_done
