#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-tls-client.sh: what the probe says of itself in a TLS handshake.
# A client certificate for a server that asks for one (mutual TLS), the
# oldest TLS version it accepts, and the ALPN protocols it offers (an offer a
# server may ignore, RFC 7301) or requires (--tls-alpn-require), against a
# real nginx (client verification, a TLS 1.2-only server without http2,
# HTTP/2) and openssl s_server (without -alpn: a server that ignores ALPN;
# with -alpn http/1.1).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 90
fm_require_faultmon
[ -x "$WS_NGINX" ] || bail_out "nginx not found at $WS_NGINX"

dir=$FM_TMP/pki
mkdir -p "$dir"
# A CA, a client certificate it signed, and a stranger's self-signed one.
mk() { openssl "$@" >>"$dir/openssl.log" 2>&1 || bail_out "openssl $1 failed"; }
mk req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=faultmon-test-ca \
    -keyout "$dir/ca.key" -out "$dir/ca.pem"
mk req -newkey rsa:2048 -nodes -subj /CN=faultmon-probe -keyout "$dir/client.key" -out "$dir/client.csr"
mk x509 -req -days 2 -in "$dir/client.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
    -CAcreateserial -out "$dir/client.pem"
mk req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=stranger \
    -keyout "$dir/stranger.key" -out "$dir/stranger.pem"
cat "$dir/client.pem" "$dir/client.key" >"$dir/client-both.pem"
ws_make_cert "$dir" || bail_out "no server certificate"

MTLS=$(fm_free_port 0) && V12=$(fm_free_port 0) && H2=$(fm_free_port 0) && IGN=$(fm_free_port 0) &&
    ALP=$(fm_free_port 0) || bail_out "no free ports"
ws_nginx_custom "$FM_TMP/nginx" "
    ssl_certificate $dir/cert.pem;
    ssl_certificate_key $dir/key.pem;
    server {
        listen 127.0.0.1:$MTLS ssl;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_verify_client on;
        ssl_client_certificate $dir/ca.pem;
        location / { return 200 'mtls ok\\n'; }
    }
    server {
        listen 127.0.0.1:$V12 ssl;
        ssl_protocols TLSv1.2;
        location / { return 200 'tls 1.2 only\\n'; }
    }
    server {
        listen 127.0.0.1:$H2 ssl http2;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { return 200 'h2\\n'; }
    }" || bail_out "cannot write nginx's configuration"
openssl s_server -quiet -accept "127.0.0.1:$IGN" -cert "$dir/cert.pem" -key "$dir/key.pem" -www \
    </dev/null >"$FM_TMP/s_server.log" 2>&1 &
s_server_pid=$!
fm_cleanup_add "kill $s_server_pid 2>/dev/null; wait $s_server_pid 2>/dev/null"
openssl s_server -quiet -accept "127.0.0.1:$ALP" -cert "$dir/cert.pem" -key "$dir/key.pem" -www \
    -alpn http/1.1 </dev/null >"$FM_TMP/s_server_alpn.log" 2>&1 &
s_server_alpn_pid=$!
fm_cleanup_add "kill $s_server_alpn_pid 2>/dev/null; wait $s_server_alpn_pid 2>/dev/null"
for port in $MTLS $V12 $H2 $IGN $ALP; do
    fm_wait_port 127.0.0.1 "$port" 5 || { diag_file "$FM_TMP/nginx/error.log"; bail_out "port $port never opened"; }
done
plan 28

uri=https://127.0.0.1:$MTLS/
# --- mutual TLS ------------------------------------------------------------
fm_probe --json --timeout 2000ms --tls-cert "$dir/client.pem" --tls-key "$dir/client.key" --uri "$uri"
fm_check_probe "client certificate the server trusts: GET 200, ok" 0 \
    verdict=ok targets.0.status=200
fm_probe --json --timeout 2000ms --tls-cert "$dir/client-both.pem" --uri "$uri"
fm_check_probe "certificate and key in one file (no --tls-key): ok" 0 verdict=ok targets.0.status=200
fm_probe --json --timeout 2000ms --uri "$uri"
fm_check_probe "no client certificate: the server's 400 is a complete failure" 2 \
    verdict=complete targets.0.status=400
fm_probe --json --timeout 2000ms --tls-cert "$dir/stranger.pem" --tls-key "$dir/stranger.key" --uri "$uri"
fm_check_probe "a certificate the server does not trust: complete failure" 2 \
    verdict=complete targets.0.status=400
fm_probe --timeout 2000ms --count 3 --interval 100ms --tls-cert "$dir/client.pem" \
    --tls-key "$dir/client.key" --uri "$uri"
is "$FM_RC:$(grep -c 'HTTP 200' "$FM_OUT")" 0:3 "three probes with a client certificate: all ok"
is "$(grep -c '(resumed)' "$FM_OUT")" 2 "  and the later ones resume the session made with the certificate"

fm_probe --tls-cert "$dir/client.pem" --tls-key "$dir/stranger.key" --uri "$uri"
is "$FM_RC" 64 "a key that does not match the certificate: a usage error (64)"
like "$(cat "$FM_ERR")" "does not match the certificate" "  that says so"
fm_probe --tls-cert "$dir/no-such.pem" --uri "$uri"
ok_if "$([ "$FM_RC" = 64 ] && grep -q "cannot load client certificate '$dir/no-such.pem'" "$FM_ERR"; echo $?)" \
    "a missing certificate file: usage error naming it"
fm_probe --tls-key "$dir/client.key" --uri "$uri"
ok_if "$([ "$FM_RC" = 64 ] && grep -q -- "--tls-key needs --tls-cert" "$FM_ERR"; echo $?)" \
    "--tls-key without --tls-cert: usage error"

# --- the oldest version ----------------------------------------------------
fm_probe --json --timeout 2000ms "https://127.0.0.1:$V12/"
fm_check_probe "a TLS 1.2-only server, default minimum 1.2: ok" 0 verdict=ok
fm_probe --json --timeout 2000ms --tls-min-version 1.3 "https://127.0.0.1:$V12/"
fm_check_probe "the same server with --tls-min-version 1.3: complete TLS failure" 2 \
    verdict=complete targets.0.reason=tls-failed
fm_probe --tls-min-version 1.1 "https://127.0.0.1:$V12/"
ok_if "$([ "$FM_RC" = 64 ] && grep -q "expected 1.2 or 1.3" "$FM_ERR"; echo $?)" \
    "--tls-min-version 1.1: refused, naming what is accepted"

# --- ALPN ------------------------------------------------------------------
fm_probe --json --timeout 2000ms --tls-alpn h2 "https://127.0.0.1:$H2/"
fm_check_probe "--tls-alpn h2 against an HTTP/2 server: ok" 0 verdict=ok
fm_probe --json --timeout 2000ms --tls-alpn h2 "https://127.0.0.1:$V12/"
fm_check_probe "--tls-alpn h2 alone to nginx without http2: its alert (no application protocol), complete" 2 \
    verdict=complete targets.0.reason=tls-failed
# Issue 29, defect 11: an ALPN list is an offer.
fm_probe --json --timeout 2000ms --tls-alpn h2,http/1.1 "https://127.0.0.1:$IGN/"
fm_check_probe "a server that ignores ALPN (s_server without -alpn): ok, an offer is no requirement" 0 \
    verdict=ok targets.0.verdict=ok
fm_probe --json --timeout 2000ms --tls-alpn h2,http/1.1 "https://127.0.0.1:$ALP/"
fm_check_probe "s_server -alpn http/1.1 offered h2,http/1.1: ok" 0 verdict=ok
fm_probe --json --timeout 2000ms --tls-alpn-require h2 "https://127.0.0.1:$IGN/"
fm_check_probe "--tls-alpn-require h2 to a server that ignores ALPN: complete TLS failure" 2 \
    verdict=complete targets.0.reason=tls-failed
like "$(fm_json_get "$FM_OUT" targets.0.detail)" "selected no ALPN protocol; tls_alpn_require asks for 'h2'" \
    "  saying the server selected none, and what is required"
fm_probe --json --timeout 2000ms --tls-alpn-require h2 "https://127.0.0.1:$H2/"
fm_check_probe "--tls-alpn-require h2 to nginx with http2: ok" 0 verdict=ok
fm_probe --json --timeout 2000ms --tls-alpn h2,http/1.1 --tls-alpn-require h2 "https://127.0.0.1:$V12/"
fm_check_probe "h2,http/1.1 offered, h2 required, nginx without http2 selects http/1.1: complete" 2 \
    verdict=complete targets.0.reason=tls-failed
like "$(fm_json_get "$FM_OUT" targets.0.detail)" "selected ALPN 'http/1.1'; tls_alpn_require asks for 'h2'" \
    "  saying which protocol the server selected instead"
fm_probe --json --timeout 2000ms --tls-alpn-require http/1.1 "https://127.0.0.1:$ALP/"
fm_check_probe "--tls-alpn-require http/1.1 to s_server -alpn http/1.1: ok" 0 verdict=ok
fm_probe --json --timeout 2000ms --tls-alpn-require http/1.1 --tls-request "https://127.0.0.1:$V12/"
fm_check_probe "--tls-alpn-require http/1.1 with --tls-request to nginx: HEAD 200, ok" 0 \
    verdict=ok targets.0.status=200
fm_probe --tls-alpn-require 'h2,' "https://127.0.0.1:$H2/"
is "$FM_RC" 64 "an empty name in the required ALPN list: a usage error"
fm_probe --json --timeout 2000ms --tls-alpn h2 --tls-request "https://127.0.0.1:$H2/"
fm_check_probe "--tls-alpn h2 with --tls-request: the server chose h2, HTTP/1 cannot follow: complete" 2 \
    verdict=complete targets.0.reason=tls-failed
fm_probe --json --timeout 2000ms --tls-alpn http/1.1 --tls-request "https://127.0.0.1:$H2/"
fm_check_probe "--tls-alpn http/1.1 with --tls-request to that server: HEAD 200, ok" 0 verdict=ok targets.0.status=200
fm_probe --tls-alpn 'h2,,http/1.1' "https://127.0.0.1:$H2/"
is "$FM_RC" 64 "an empty name in the ALPN list: a usage error"

tap_done
