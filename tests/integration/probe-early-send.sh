#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-early-send.sh: the early send of a plain HTTP probe (src/probe/tcp.c).
# To a near server the kernel has done the handshake by the time connect()
# returns, so the request goes at once, with no wait to be told the socket
# is writable.  A connect that is still in progress answers that send with
# EAGAIN: the probe must then wait for the connect like any other, and give
# the verdict the connect and the reply deserve.  The server that is not
# near here is a listener whose accept queue is full, so the kernel drops the
# probe's SYN; it makes room once the early send has been refused, and the
# SYN the client sends again about a second later gets in.  (A full queue
# that never clears is probe-faults.sh's connect-timeout case.)

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 7

export FAULTMON_STATE_DIR=$FM_TMP/state
fm_fault_server_start ok || bail_out "the fault server did not start"

# traced OUT CMD...: CMD under strace (sockets' system calls), with
# LeakSanitizer off in a sanitizer build (it cannot run under ptrace).
traced() {
    local out=$1
    shift
    fm_timeout 30 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -e trace=connect,sendto,epoll_ctl -o "$out" "$@"
}

# 1-3: a near server, three cycles of the loop: every request goes out with
# the connect, and no socket is ever watched for writing.
traced "$FM_TMP/near.strace" "$FAULTMON" run near --no-env --no-pacemaker --cycles 3 \
    --param "Port_list=127.0.0.1:${FS_PORT[ok]}" --param Thorough_probe_interval=1 >/dev/null 2>&1
is "$?" 0 "a loop of 3 cycles to a near server ends with 0"
is "$(grep -c 'sendto(.*HEAD / HTTP/1.0.* = [1-9][0-9]*$' "$FM_TMP/near.strace")" 3 \
    "  each cycle's request was sent whole, at the first try"
is "$(grep -c 'EPOLLOUT' "$FM_TMP/near.strace")" 0 "  and no socket was watched for writing (early send)"

# A listener of backlog 0 with its one place taken: SYNs to it are dropped
# until the file "go" appears; then it takes the waiting connection off the
# queue and answers every later one with HTTP 200.
python3 - "$FM_TMP" >"$FM_TMP/late.port" 2>"$FM_TMP/late.err" <<'EOF' &
import os, socket, sys, time
d = sys.argv[1]
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(0)
filler = socket.create_connection(srv.getsockname())
print(srv.getsockname()[1], flush=True)
deadline = time.monotonic() + 40
while not os.path.exists(os.path.join(d, "go")) and time.monotonic() < deadline:
    time.sleep(0.01)
srv.accept()[0].close()
filler.close()
srv.settimeout(20)
while True:
    try:
        conn, _ = srv.accept()
    except OSError:
        break
    conn.recv(4096)
    conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
    conn.close()
EOF
LATE_PID=$!
fm_cleanup_add "kill $LATE_PID 2>/dev/null"
for _ in $(seq 1 100); do [ -s "$FM_TMP/late.port" ] && break; sleep 0.05; done
LATE=http://127.0.0.1:$(cat "$FM_TMP/late.port")/

# 4-7: its SYN dropped, the probe's early send is refused with EAGAIN; the
# probe waits for the connect, sends once it is up, and the reply is ok.
traced "$FM_TMP/late.strace" "$FAULTMON" probe --timeout 5s "$LATE" >"$FM_TMP/late.out" 2>&1 &
probe_pid=$!
for _ in $(seq 1 200); do
    # the early send refused, or (a loop without it) the connect waited for
    grep -qE 'sendto\(.* = -1 EAGAIN|EPOLLOUT' "$FM_TMP/late.strace" 2>/dev/null && break
    sleep 0.02
done
touch "$FM_TMP/go"
wait "$probe_pid"
is "$?" 0 "a server whose SYN-ACK comes late is judged ok"
like "$(cat "$FM_TMP/late.out")" "http-head +ok .*HTTP 200" "  with the reply's verdict"
is "$(grep -c 'sendto(.* = -1 EAGAIN' "$FM_TMP/late.strace")" 1 \
    "  the early send was tried once and refused (the connect still in progress)"
like "$(sed -n '/= -1 EAGAIN/,$p' "$FM_TMP/late.strace" | tr '\n' ' ')" \
    "EPOLLOUT.*sendto\\(.*HEAD / HTTP/1.0.* = [1-9][0-9]*" \
    "  then the probe waited to be writable and sent the request whole"

tap_done
