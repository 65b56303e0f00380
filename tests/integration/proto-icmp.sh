#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-icmp.sh: `faultmon probe icmp://` on loopback, and in a network
# namespace of its own (unshare -n, so that no packet leaves the machine)
# where one address is routed where nothing answers (no reply: partial at
# the deadline) and one is unreachable (the send fails: complete).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 60
fm_require_faultmon
fm_probe --timeout 1s icmp://127.0.0.1
if [ "$FM_RC" != 0 ] && grep -q "cannot open an ICMP socket" "$FM_OUT"; then
    echo "1..0 # SKIP no ICMP socket: neither ping_group_range nor root"
    exit 0
fi
plan 13

proto_case "127.0.0.1" 0 ok none ok fast -- icmp://127.0.0.1
proto_detail_like "127.0.0.1: the echo reply" '^echo reply$'
proto_case "localhost, IPv4 only" 0 ok none ok fast -- "icmp://localhost?family=inet"
if fm_have_ipv6; then
    proto_case "[::1]" 0 ok none ok fast -- "icmp://[::1]"
else
    skip "no IPv6 loopback"
    skip "no IPv6 loopback"
fi
fm_probe --count 3 --interval 50ms --json --timeout 1s icmp://127.0.0.1
if [ "$FM_RC" = 0 ] && [ "$(grep -c '"verdict":"ok"' "$FM_OUT")" -ge 3 ]; then
    ok "three cycles, each ok (a new sequence number each)"
else
    not_ok "three cycles, each ok (a new sequence number each)"
    fm_show_run
fi

# A network namespace of the probe's own: 198.51.100.1 is routed to the
# loopback, which is not its address, so the request is dropped (nothing
# answers); 203.0.113.1 is unreachable.
real=$FAULTMON
wrapper=$FM_TMP/faultmon-netns
cat >"$wrapper" <<EOF2
#!/bin/sh
exec unshare -n sh -c 'ip link set lo up && ip route add 198.51.100.1/32 dev lo &&
    ip route add unreachable 203.0.113.1 && exec "\$0" "\$@"' '$real' "\$@"
EOF2
chmod +x "$wrapper"
if unshare -n true 2>/dev/null && command -v ip >/dev/null; then
    FAULTMON=$wrapper
    proto_case "no reply: partial at the deadline" 1 partial read read-timeout deadline -- \
        icmp://198.51.100.1
    proto_detail_like "no reply: what it waited for" 'waiting for the echo reply'
    proto_case "unreachable: complete" 2 complete send send-failed fast -- icmp://203.0.113.1
    FAULTMON=$real
else
    for _ in 1 2 3 4 5; do
        skip "no network namespace (unshare -n, ip)"
    done
fi
tap_done
