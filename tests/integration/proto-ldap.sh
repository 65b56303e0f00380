#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-ldap.sh: `faultmon probe ldap://` against a real slapd (an ordinary
# process on a free loopback port, a throwaway slapd.conf without a
# database): ok (the anonymous bind's resultCode 0), bind refused where
# anonymous binds are disallowed (complete, resultCode 48 as the reason),
# StartTLS refused by a server without TLS and taken by one with it,
# ldaps://, the root DSE search (?rootdse) answered where the bind is
# refused, paused
# with SIGSTOP (partial, at the deadline), stopped (complete).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/dbservers.sh
. "$FM_TEST_LIB/dbservers.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 120
fm_require_faultmon
if ! srv_slapd_start; then
    skip_all "slapd did not start"
fi
plan 34
open_port=$SRV_LDAP_PORT
open_pid=$SRV_LDAP_PID
ldap=ldap://127.0.0.1:$open_port

proto_case "anonymous bind: ok" 0 ok none ok fast -- "$ldap"
proto_detail_like 'anonymous bind: ok: detail' 'resultCode 0 success'
proto_case "root DSE search: ok" 0 ok none ok fast -- "$ldap/?rootdse"
proto_detail_like 'root DSE search: ok: detail' 'resultCode 0 success'
proto_case "StartTLS without TLS: refused, resultCode 2" 2 complete status refused fast -- "$ldap/?starttls"
proto_detail_like 'StartTLS without TLS: refused, resultCode 2: detail' '^StartTLS: resultCode 2 protocolError'

# A second slapd that refuses anonymous binds, with TLS for StartTLS.
cert_dir=$(srv_dir ldapcert) && ws_make_cert "$cert_dir" ||
    bail_out "no certificate for slapd"
if SRV_LDAPS=1 srv_slapd_start "disallow bind_anon" "TLSCertificateFile $cert_dir/cert.pem" \
    "TLSCertificateKeyFile $cert_dir/key.pem"; then
    proto_case "anonymous bind disallowed: refused, resultCode 48" 2 complete status refused fast -- "ldap://127.0.0.1:$SRV_LDAP_PORT"
    proto_detail_like 'anonymous bind disallowed: refused, resultCode 48: detail' '^bind: resultCode 48 inappropriateAuthentication'
    proto_case "StartTLS, then the bind over TLS: refused, resultCode 48" 2 complete status refused fast -- "ldap://127.0.0.1:$SRV_LDAP_PORT/?starttls"
    proto_detail_like 'StartTLS, then the bind over TLS: refused, resultCode 48: detail' '^bind: resultCode 48 inappropriateAuthentication'
    proto_case "ldaps://: the bind over TLS: refused, resultCode 48" 2 complete status refused fast -- "ldaps://127.0.0.1:$SRV_LDAPS_PORT"
    proto_detail_like 'ldaps://: detail' '^bind: resultCode 48 inappropriateAuthentication'
    # Anonymous binds refused, the root DSE still read: the directory is up.
    proto_case "bind refused, root DSE search: ok" 0 ok none ok fast -- \
        "ldap://127.0.0.1:$SRV_LDAP_PORT/?rootdse"
    proto_case "StartTLS, then the root DSE search over TLS: ok" 0 ok none ok fast -- \
        "ldap://127.0.0.1:$SRV_LDAP_PORT/?starttls&rootdse"
    proto_case "ldaps://, the root DSE search: ok" 0 ok none ok fast -- \
        "ldaps://127.0.0.1:$SRV_LDAPS_PORT?rootdse"
else
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        not_ok "slapd with disallow bind_anon and TLS did not start"
    done
fi

kill -STOP "$open_pid"
proto_case "paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- "$ldap"
proto_detail_like 'paused (SIGSTOP): partial at the deadline: detail' 'bind'
proto_case "paused, the root DSE search: partial at the deadline" 1 partial read read-timeout deadline -- \
    "$ldap/?rootdse"
proto_detail_like 'paused, the root DSE search: detail' 'root DSE search'
kill -CONT "$open_pid"

srv_stop "$open_pid"
proto_case "stopped: complete" 2 complete connect connect-failed fast -- "$ldap"
proto_case "stopped, ?starttls: complete" 2 complete connect connect-failed fast -- "$ldap/?starttls"
tap_done
