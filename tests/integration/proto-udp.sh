#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-udp.sh: udp:// with send_string and expect_regex against UDP
# responders on loopback (a Python process started here): a matching
# datagram is ok; a closed port's ICMP port unreachable is a complete
# failure; silence is a partial one at the deadline; a datagram that does
# not match is a content mismatch, complete.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 60
fm_require_faultmon
plan 26

# One process, three sockets: echo, silent, and one that answers "nope";
# and the number of a port where nothing listens.
ports=$FM_TMP/udp-ports
"$PYTHON3" - "$ports" <<'PY' &
import os, select, socket, sys
socks = {}
for mode in ("echo", "silent", "nope"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    socks[s] = mode
closed = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
closed.bind(("127.0.0.1", 0))
closed_port = closed.getsockname()[1]
closed.close()
with open(sys.argv[1] + ".tmp", "w") as f:
    for s, mode in socks.items():
        f.write("%s %d\n" % (mode, s.getsockname()[1]))
    f.write("closed %d\n" % closed_port)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    for s in select.select(list(socks), [], [], 120)[0]:
        data, peer = s.recvfrom(65536)
        if socks[s] == "echo":
            s.sendto(b"echo:" + data, peer)
        elif socks[s] == "nope":
            s.sendto(b"nope\n", peer)
PY
responder=$!
fm_cleanup_add "kill $responder 2>/dev/null"
for _ in $(seq 1 100); do
    [ -s "$ports" ] && break
    sleep 0.05
done
declare -A UDP=()
while read -r mode port; do
    UDP[$mode]=$port
done <"$ports"
[ -n "${UDP[echo]}" ] || bail_out "the UDP responder did not start"

udp() {
    echo "udp://127.0.0.1:${UDP[$1]}"
}
PROTO_EXTRA=("targets.0.kind=udp")
proto_case "a matching datagram: ok" 0 ok none ok fast -- --send 'PING\x21' --expect '^echo:PING!$' \
    "$(udp echo)"
proto_detail_like "the detail is the reply" '^reply: echo:PING!$'
proto_case "any datagram without expect_regex: ok" 0 ok none ok fast -- --send 'x' "$(udp nope)"
proto_case "a datagram that does not match: complete" 2 complete content content-mismatch fast -- \
    --send 'x' --expect '^echo:' "$(udp nope)"
proto_case "ICMP port unreachable: complete" 2 complete connect connect-failed fast -- \
    --send 'x' --expect '^echo:' "$(udp closed)"
proto_detail_like "the detail says so" 'port unreachable'
proto_case "no answer: partial at the deadline" 1 partial read read-timeout deadline -- \
    --send 'x' --expect '^echo:' "$(udp silent)"
# --reverse turns expect_regex around: a matching datagram fails, another passes.
proto_case "--reverse, a matching datagram: complete" 2 complete content content-reverse fast -- \
    --reverse --send 'x' --expect '^echo:' "$(udp echo)"
proto_detail_like "--reverse: the detail says so" '^reply matches expect_regex \(reverse mode\): echo:x$'
proto_case "--reverse, a datagram that does not match: ok" 0 ok none ok fast -- \
    --reverse --send 'x' --expect '^echo:' "$(udp nope)"
proto_case "--reverse, no answer: still partial at the deadline" 1 partial read read-timeout deadline -- \
    --reverse --send 'x' --expect '^echo:' "$(udp silent)"
# --maintenance-regex on the datagram, only when it passes.
proto_case "--maintenance-regex, a matching datagram that asks to drain: ok, maintenance" 0 ok none \
    maintenance fast -- --send 'drain' --expect '^echo:' --maintenance-regex 'drain$' "$(udp echo)"
proto_case "--maintenance-regex, a datagram without it: ok" 0 ok none ok fast -- \
    --send 'up' --expect '^echo:' --maintenance-regex 'drain$' "$(udp echo)"
proto_case "--maintenance-regex on a datagram that does not match --expect: still complete" 2 \
    complete content content-mismatch fast -- --send 'x' --expect '^echo:' --maintenance-regex 'nope' \
    "$(udp nope)"
fm_probe "udp://127.0.0.1"
is "$FM_RC" 64 "udp:// needs a port"
tap_done
