#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-ftp.sh: ftp:// and ftp://...?starttls (AUTH TLS) against a real
# vsftpd (started here on a free loopback port, in the foreground, in its own
# process group, stopped on exit) and the fault server: a 220 greeting is ok;
# vsftpd's own 421 with max_clients used up is refused, complete; a paused
# vsftpd times out, partial; a stopped one refuses the connection, complete.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

VSFTPD=${VSFTPD:-$(command -v vsftpd || echo /usr/sbin/vsftpd)}
if [ ! -x "$VSFTPD" ] || [ "$(id -u)" != 0 ]; then
    echo "1..0 # SKIP vsftpd cannot run here (apt-get install vsftpd; needs root)"
    exit 0
fi
tap_watchdog 90
fm_require_faultmon
plan 19

dir=$FM_TMP/vsftpd
mkdir -p "$dir/empty"
ws_make_cert "$dir" || bail_out "openssl failed"
port=$(fm_free_port) || bail_out "no free port"
cat >"$dir/vsftpd.conf" <<EOC
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=$port
background=NO
anonymous_enable=NO
local_enable=YES
secure_chroot_dir=$dir/empty
seccomp_sandbox=NO
isolate=NO
isolate_network=NO
xferlog_enable=NO
vsftpd_log_file=$dir/log
ssl_enable=YES
rsa_cert_file=$dir/cert.pem
rsa_private_key_file=$dir/key.pem
max_clients=2
ftpd_banner=faultmon-test FTP
EOC
setsid "$VSFTPD" "$dir/vsftpd.conf" >"$dir/stdout" 2>&1 </dev/null &
pgid=$!
fm_cleanup_add "kill -CONT -- -$pgid 2>/dev/null; kill -TERM -- -$pgid 2>/dev/null"
fm_wait_port 127.0.0.1 "$port" 5 || { diag_file "$dir/stdout"; bail_out "vsftpd did not start"; }
fm_fault_server_start banner-530 banner-220 greet-trickle silent ||
    bail_out "the fault server did not start"
ftp=ftp://127.0.0.1:$port

PROTO_EXTRA=("targets.0.kind=ftp")
proto_case "vsftpd: greeting, QUIT: ok" 0 ok none ok fast -- "$ftp"
proto_detail_like "the detail is the greeting" '^220 faultmon-test FTP'
proto_case "vsftpd ?starttls: AUTH TLS, FEAT over TLS: ok" 0 ok none ok fast -- "$ftp?starttls"

# max_clients used up: vsftpd answers 421 where the 220 would be.
exec 7<>"/dev/tcp/127.0.0.1/$port" 8<>"/dev/tcp/127.0.0.1/$port"
sleep 0.3
proto_case "vsftpd with max_clients used up: 421, refused" 2 complete status refused fast -- "$ftp"
proto_detail_like "the detail is the 421 line" '^greeting: 421 '
exec 7>&- 8>&-

fs() {
    echo "ftp://127.0.0.1:${FS_PORT[$1]}$2"
}
proto_case "530 greeting: refused" 2 complete status refused fast -- "$(fs banner-530)"
proto_case "?starttls: a greeting, then no answer to AUTH TLS: partial at the deadline" 1 partial \
    read read-timeout deadline -- "$(fs banner-220 '?starttls')"
proto_detail_like "the timeout names the step" 'waiting for the AUTH TLS reply'
proto_case "a greeting trickled: partial at the deadline" 1 partial read read-timeout deadline -- \
    "$(fs greet-trickle)"

kill -STOP -- "-$pgid"
proto_case "vsftpd paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- \
    "$ftp"
kill -CONT -- "-$pgid"
kill -TERM -- "-$pgid"
# Wait for the listener to go (a busy machine runs the TERM late), then kill.
if ! fm_wait_port_closed "$port" 5; then
    kill -KILL -- "-$pgid" 2>/dev/null
    fm_wait_port_closed "$port" 2 || diag "port $port still listens"
fi
proto_case "vsftpd stopped: connect refused, complete" 2 complete connect connect-failed fast -- "$ftp"
tap_done
