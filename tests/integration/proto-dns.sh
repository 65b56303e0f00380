#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-dns.sh: `faultmon probe dns://` against a real dnsmasq (an ordinary
# process on a free loopback port, UDP and TCP, no upstream, no /etc/hosts):
# ok (A, MX, TXT; ?answer= matching), refusing answers (complete, the rcode
# as reason: NXDOMAIN, REFUSED for a name it does not serve, NODATA,
# NOMATCH), ?rcode=NXDOMAIN passing, paused with SIGSTOP (partial, at the
# deadline), stopped (complete: the port unreachable), and repeated cycles;
# and a real SERVFAIL from unbound, whose forwarder is down.

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
if ! srv_dnsmasq_start --address=/x.test/127.0.0.5 --address=/nx.test/ \
    --mx-host=x.test,mail.x.test,10 --txt-record=t.x.test,"faultmon txt"; then
    skip_all "dnsmasq did not start"
fi
plan 37

dns=dns://127.0.0.1:$SRV_DNS_PORT
proto_case "A" 0 ok none ok fast -- "$dns/x.test"
proto_detail_like "A: the address as detail" '^127\.0\.0\.5$'
proto_case "MX" 0 ok none ok fast -- "$dns/x.test?type=MX"
proto_detail_like "MX: preference and exchange" '^10 mail\.x\.test$'
proto_case "TXT" 0 ok none ok fast -- "$dns/t.x.test?type=TXT"
proto_detail_like "TXT: the text" '^faultmon txt$'
proto_case "?answer= matches" 0 ok none ok fast -- "$dns/x.test?answer=^127%5C.0%5C.0%5C.5$"
proto_case "?answer= does not match: refused" 2 complete status refused fast -- \
    "$dns/x.test?answer=^10%5C."
proto_detail_like "?answer= does not match: NOMATCH" '^rcode NOMATCH 127\.0\.0\.5$'
proto_case "NXDOMAIN: refused" 2 complete status refused fast -- "$dns/nx.test"
proto_detail_like "NXDOMAIN: the rcode as detail" '^rcode NXDOMAIN$'
proto_case "?rcode=NXDOMAIN: ok" 0 ok none ok fast -- "$dns/nx.test?rcode=NXDOMAIN"
proto_case "a name it does not serve: REFUSED" 2 complete status refused fast -- "$dns/other.test"
proto_detail_like "REFUSED: the rcode as detail" '^rcode REFUSED$'

# Three cycles in one process: one channel per target, reused.
fm_probe --count 3 --interval 100ms --json --timeout "${PROTO_T}ms" "$dns/x.test"
if [ "$FM_RC" = 0 ] && [ "$(grep -c '"verdict":"ok"' "$FM_OUT")" -ge 3 ]; then
    ok "three cycles, each ok"
else
    not_ok "three cycles, each ok"
    fm_show_run
fi

kill -STOP "$SRV_DNS_PID"
proto_case "paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- \
    "$dns/x.test"
proto_detail_like "paused: says what it waited for" 'waiting for the answer'
kill -CONT "$SRV_DNS_PID"
proto_case "resumed: ok again" 0 ok none ok fast -- "$dns/x.test"

# SERVFAIL, from a real resolver that cannot reach the zone's server.
if srv_unbound_start; then
    ub=dns://127.0.0.1:$SRV_UB_PORT
    proto_case "unbound: a name it serves: ok" 0 ok none ok fast -- "$ub/www.ok.faultmon"
    proto_case "unbound, the forwarder down: SERVFAIL, complete" 2 complete status refused fast -- \
        "$ub/www.fail.faultmon"
    proto_detail_like "SERVFAIL: the rcode as detail" '^rcode SERVFAIL$'
    srv_stop "$SRV_UB_PID"
else
    for _ in 1 2 3 4 5; do
        skip "unbound's SERVFAIL" "unbound did not start"
    done
fi

srv_stop "$SRV_DNS_PID"
proto_case "stopped: complete (port unreachable)" 2 complete connect connect-failed fast -- \
    "$dns/x.test"
proto_case "stopped, MX: complete" 2 complete connect connect-failed fast -- "$dns/x.test?type=MX"
tap_done
