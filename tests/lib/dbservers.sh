# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/dbservers.sh: real PostgreSQL, MariaDB, slapd and dnsmasq servers
# on free loopback ports, for tests.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh and tests/lib/webserver.sh (fm_free_port,
# fm_wait_port) first.  Each server runs as an ordinary process (never
# through systemd), in a process group of its own, on a throwaway directory
# under ${TMPDIR:-/tmp}; its stop is registered with fm_cleanup_add, and kills
# the whole group.  A start returns non-zero (with diagnostics) when the
# server is not installed or does not come up; the scripts skip then.
#
#   srv_pg_start [-c NAME=VALUE...]   SRV_PG_PORT, SRV_PG_PID, SRV_PG_DIR
#   srv_mariadb_start [OPTION...]     SRV_MY_PORT, SRV_MY_PID, SRV_MY_DIR
#   srv_slapd_start [CONF-LINE...]    SRV_LDAP_PORT, SRV_LDAP_PID, SRV_LDAP_DIR
#                                     (SRV_LDAPS=1: also ldaps:// on SRV_LDAPS_PORT)
#   srv_dnsmasq_start [OPTION...]     SRV_DNS_PORT (UDP and TCP), SRV_DNS_PID
#   srv_redis_start [OPTION...]       SRV_REDIS_PORT, SRV_REDIS_PID, SRV_REDIS_DIR
#   srv_hold MODE PORT N SECONDS      N connections held open (MODE raw, or pg:
#                                     each sends a StartupMessage), SRV_HOLD_PID
#   srv_stop PID                      stop a server's group (also on exit)
#
# Needs: python3; postgresql (initdb, postgres under SRV_PG_BIN),
# mariadb-server (mariadb-install-db, mariadbd), slapd, dnsmasq-base.

SRV_PG_BIN=${SRV_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
SRV_PG_USER=${SRV_PG_USER:-postgres}
SRV_MARIADBD=${SRV_MARIADBD:-/usr/sbin/mariadbd}
SRV_SLAPD=${SRV_SLAPD:-/usr/sbin/slapd}
SRV_DNSMASQ=${SRV_DNSMASQ:-/usr/sbin/dnsmasq}

# srv_dir NAME [OWNER]: a fresh throwaway directory, removed on exit.
srv_dir() {
    local dir
    dir=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-$1.XXXXXX") || return 1
    fm_cleanup_add "rm -rf '$dir'"
    if [ -n "${2:-}" ]; then
        chown "$2:" "$dir" || return 1
    fi
    echo "$dir"
}

# srv_spawn LOG CMD...: start CMD in a new session (its own process group,
# so that srv_stop reaches every process it forks), stdin from /dev/null;
# its pid (the group's) in SRV_SPAWNED.
srv_spawn() {
    local log=$1
    shift
    setsid "$@" </dev/null >"$log" 2>&1 &
    SRV_SPAWNED=$!
    fm_cleanup_add "srv_stop $SRV_SPAWNED"
}

# srv_stop PID: SIGCONT (a test may have stopped it), SIGTERM to the group,
# SIGKILL after 5 s.  Idempotent.
srv_stop() {
    local pid=$1 i
    kill -0 "$pid" 2>/dev/null || return 0
    kill -CONT -- "-$pid" 2>/dev/null  # hygiene: $SRV_SPAWNED, a setsid $!
    kill -TERM -- "-$pid" 2>/dev/null  # hygiene: $SRV_SPAWNED, a setsid $!
    for i in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null  # hygiene: $SRV_SPAWNED, a setsid $!
    wait "$pid" 2>/dev/null
    return 0
}

# srv_free_port_udp: a port free for both TCP and UDP on 127.0.0.1.
srv_free_port_udp() {
    "${PYTHON3:-python3}" - <<'EOF'
import socket, sys
for _ in range(50):
    t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    t.bind(("127.0.0.1", 0))
    port = t.getsockname()[1]
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", port))
    except OSError:
        t.close()
        continue
    u.close()
    t.close()
    print(port)
    sys.exit(0)
sys.exit(1)
EOF
}

# srv_pg_start [-c NAME=VALUE...]: initdb (trust, no fsync) and postgres on
# 127.0.0.1:SRV_PG_PORT, its socket in its directory, as SRV_PG_USER.
srv_pg_start() {
    local attempt
    if [ -z "$SRV_PG_BIN" ] || [ ! -x "$SRV_PG_BIN/initdb" ] || ! id "$SRV_PG_USER" >/dev/null 2>&1; then
        diag "PostgreSQL not found (apt-get install postgresql)"
        return 1
    fi
    SRV_PG_DIR=$(srv_dir pg "$SRV_PG_USER") || return 1
    if ! setpriv --reuid="$SRV_PG_USER" --regid="$SRV_PG_USER" --clear-groups \
        "$SRV_PG_BIN/initdb" -D "$SRV_PG_DIR/data" -A trust -U postgres --no-sync \
        --no-instructions -E UTF8 --locale=C >"$SRV_PG_DIR/initdb.log" 2>&1; then
        diag "initdb failed"
        diag_file "$SRV_PG_DIR/initdb.log"
        return 1
    fi
    for attempt in 1 2 3; do
        SRV_PG_PORT=$(fm_free_port) || return 1
        srv_spawn "$SRV_PG_DIR/postgres.log" setpriv --reuid="$SRV_PG_USER" \
            --regid="$SRV_PG_USER" --clear-groups "$SRV_PG_BIN/postgres" -D "$SRV_PG_DIR/data" \
            -p "$SRV_PG_PORT" -k "$SRV_PG_DIR" -c listen_addresses=127.0.0.1 -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off "$@"
        SRV_PG_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_PG_PORT" 10 && srv_pg_ready; then
            return 0
        fi
        diag "postgres did not start (attempt $attempt)"
        diag_file "$SRV_PG_DIR/postgres.log"
        srv_stop "$SRV_PG_PID"
    done
    return 1
}

# srv_pg_ready: the server answers a startup (not "starting up").
srv_pg_ready() {
    "${PYTHON3:-python3}" - "$SRV_PG_PORT" <<'EOF'
import socket, struct, sys, time
end = time.monotonic() + 10
while time.monotonic() < end:
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
        p = b"user\0postgres\0\0"
        s.sendall(struct.pack(">II", len(p) + 8, 196608) + p)
        if s.recv(1) in (b"R",):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.05)
sys.exit(1)
EOF
}

# srv_mariadb_start [OPTION...]: mariadb-install-db and mariadbd on
# 127.0.0.1:SRV_MY_PORT (max_connections is at least 10; connect_timeout
# 60 s, so that srv_hold's unauthenticated connections stay).
srv_mariadb_start() {
    local attempt
    if [ ! -x "$SRV_MARIADBD" ] || ! command -v mariadb-install-db >/dev/null; then
        diag "MariaDB not found (apt-get install mariadb-server)"
        return 1
    fi
    SRV_MY_DIR=$(srv_dir mariadb) || return 1
    if ! mariadb-install-db --no-defaults --datadir="$SRV_MY_DIR/data" --user=root \
        --skip-test-db --auth-root-authentication-method=normal \
        >"$SRV_MY_DIR/install.log" 2>&1; then
        diag "mariadb-install-db failed"
        diag_file "$SRV_MY_DIR/install.log"
        return 1
    fi
    for attempt in 1 2 3; do
        SRV_MY_PORT=$(fm_free_port) || return 1
        srv_spawn "$SRV_MY_DIR/stdout.log" "$SRV_MARIADBD" --no-defaults \
            --datadir="$SRV_MY_DIR/data" --user=root --socket="$SRV_MY_DIR/sock" \
            --port="$SRV_MY_PORT" --bind-address=127.0.0.1 --pid-file="$SRV_MY_DIR/pid" \
            --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=8M \
            --connect-timeout=60 --log-error="$SRV_MY_DIR/error.log" "$@"
        SRV_MY_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_MY_PORT" 15; then
            return 0
        fi
        diag "mariadbd did not start (attempt $attempt)"
        diag_file "$SRV_MY_DIR/error.log"
        srv_stop "$SRV_MY_PID"
    done
    return 1
}

# srv_slapd_start [CONF-LINE...]: slapd with no database (an anonymous bind
# and the root DSE need none) on ldap://127.0.0.1:SRV_LDAP_PORT/; each
# argument is one more line of slapd.conf ("disallow bind_anon").
# SRV_SLAPD_DEBUG (default 0) is its -d level: 256 (stats) logs a line per
# connection to slapd.log, which the benchmarks count.
srv_slapd_start() {
    local attempt line urls
    if [ ! -x "$SRV_SLAPD" ]; then
        diag "slapd not found (apt-get install slapd)"
        return 1
    fi
    SRV_LDAP_DIR=$(srv_dir slapd) || return 1
    {
        echo "include /etc/ldap/schema/core.schema"
        echo "pidfile $SRV_LDAP_DIR/slapd.pid"
        echo "argsfile $SRV_LDAP_DIR/slapd.args"
        for line in "$@"; do
            echo "$line"
        done
    } >"$SRV_LDAP_DIR/slapd.conf"
    for attempt in 1 2 3; do
        SRV_LDAP_PORT=$(fm_free_port) || return 1
        SRV_LDAPS_PORT=$(fm_free_port) || return 1
        [ "$SRV_LDAP_PORT" != "$SRV_LDAPS_PORT" ] || continue
        urls="ldap://127.0.0.1:$SRV_LDAP_PORT/"
        if [ -n "${SRV_LDAPS:-}" ]; then
            urls="$urls ldaps://127.0.0.1:$SRV_LDAPS_PORT/"
        fi
        srv_spawn "$SRV_LDAP_DIR/slapd.log" "$SRV_SLAPD" -h "$urls" \
            -f "$SRV_LDAP_DIR/slapd.conf" -d "${SRV_SLAPD_DEBUG:-0}"
        SRV_LDAP_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_LDAP_PORT" 10 &&
            { [ -z "${SRV_LDAPS:-}" ] || fm_wait_port 127.0.0.1 "$SRV_LDAPS_PORT" 10; }; then
            return 0
        fi
        diag "slapd did not start (attempt $attempt)"
        diag_file "$SRV_LDAP_DIR/slapd.log"
        srv_stop "$SRV_LDAP_PID"
    done
    return 1
}

# srv_dnsmasq_start [OPTION...]: dnsmasq as an authoritative-only server on
# 127.0.0.1:SRV_DNS_PORT (UDP and TCP), no upstream, no /etc/hosts; the
# options say what it answers (--address=/x.test/127.0.0.5,
# --address=/nx.test/ for NXDOMAIN, --mx-host=...).
srv_dnsmasq_start() {
    local attempt
    if [ ! -x "$SRV_DNSMASQ" ]; then
        diag "dnsmasq not found (apt-get install dnsmasq-base)"
        return 1
    fi
    SRV_DNS_DIR=$(srv_dir dnsmasq) || return 1
    for attempt in 1 2 3; do
        SRV_DNS_PORT=$(srv_free_port_udp) || return 1
        srv_spawn "$SRV_DNS_DIR/dnsmasq.log" "$SRV_DNSMASQ" -k --conf-file=/dev/null \
            -p "$SRV_DNS_PORT" --listen-address=127.0.0.1 --bind-interfaces --no-resolv \
            --no-hosts --pid-file="$SRV_DNS_DIR/pid" --user=root --group=root "$@"
        SRV_DNS_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_DNS_PORT" 10; then
            return 0
        fi
        diag "dnsmasq did not start (attempt $attempt)"
        diag_file "$SRV_DNS_DIR/dnsmasq.log"
        srv_stop "$SRV_DNS_PID"
    done
    return 1
}

# srv_unbound_start: unbound, a real recursive resolver, on
# 127.0.0.1:SRV_UB_PORT (UDP and TCP), whose only forward zone,
# fail.faultmon., points at a port where nothing listens: it answers
# SERVFAIL for every name there (after one try of 50 ms at most), and
# serves www.ok.faultmon. itself.  Every other name is refused: no root
# server is ever asked.
srv_unbound_start() {
    local attempt conf
    if [ ! -x "${SRV_UNBOUND:=/usr/sbin/unbound}" ]; then
        diag "unbound not found (apt-get install unbound)"
        return 1
    fi
    SRV_UB_DIR=$(srv_dir unbound) || return 1
    conf=$SRV_UB_DIR/unbound.conf
    for attempt in 1 2 3; do
        SRV_UB_PORT=$(srv_free_port_udp) || return 1
        cat >"$conf" <<EOF
server:
    interface: 127.0.0.1@$SRV_UB_PORT
    port: $SRV_UB_PORT
    do-daemonize: no
    use-syslog: no
    logfile: ""
    username: ""
    chroot: ""
    directory: "$SRV_UB_DIR"
    pidfile: "$SRV_UB_DIR/pid"
    access-control: 127.0.0.0/8 allow
    do-not-query-localhost: no
    module-config: "iterator"
    num-threads: 1
    outgoing-range: 16
    so-reuseport: no
    infra-keep-probing: no
    infra-cache-max-rtt: 50
    outbound-msg-retry: 1
    local-zone: "." refuse
    local-zone: "fail.faultmon." transparent
    local-zone: "ok.faultmon." static
    local-data: "www.ok.faultmon. 60 IN A 127.0.0.7"
forward-zone:
    name: "fail.faultmon."
    forward-addr: 127.0.0.1@1
remote-control:
    control-enable: no
EOF
        srv_spawn "$SRV_UB_DIR/unbound.log" "$SRV_UNBOUND" -d -c "$conf"
        SRV_UB_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_UB_PORT" 10; then
            return 0
        fi
        diag "unbound did not start (attempt $attempt)"
        diag_file "$SRV_UB_DIR/unbound.log"
        srv_stop "$SRV_UB_PID"
    done
    return 1
}

# srv_redis_start [OPTION...]: redis-server on 127.0.0.1:SRV_REDIS_PORT,
# nothing saved, its log in its directory; the options are redis-server's.
srv_redis_start() {
    local attempt redis=${SRV_REDIS_SERVER:-$(command -v redis-server || echo /usr/bin/redis-server)}
    if [ ! -x "$redis" ]; then
        diag "redis-server not found (apt-get install redis-server)"
        return 1
    fi
    SRV_REDIS_DIR=$(srv_dir redis) || return 1
    for attempt in 1 2 3; do
        SRV_REDIS_PORT=$(fm_free_port) || return 1
        srv_spawn "$SRV_REDIS_DIR/stdout.log" "$redis" --port "$SRV_REDIS_PORT" --bind 127.0.0.1 \
            --save '' --appendonly no --daemonize no --dir "$SRV_REDIS_DIR" \
            --logfile "$SRV_REDIS_DIR/log" "$@"
        SRV_REDIS_PID=$SRV_SPAWNED
        if fm_wait_port 127.0.0.1 "$SRV_REDIS_PORT" 10; then
            return 0
        fi
        diag "redis-server did not start (attempt $attempt)"
        diag_file "$SRV_REDIS_DIR/log"
        srv_stop "$SRV_REDIS_PID"
    done
    return 1
}

# srv_hold MODE PORT N SECONDS: open N connections to 127.0.0.1:PORT and
# keep them for SECONDS (or until stopped): MODE raw only connects and reads
# the greeting; pg sends a StartupMessage as postgres and waits for
# ReadyForQuery, so that each takes a backend slot.  Returns once all are
# open (or fails); the holder's pid in SRV_HOLD_PID.
srv_hold() {
    local ready
    ready=$(mktemp "${TMPDIR:-/tmp}/faultmon-hold.XXXXXX") || return 1
    fm_cleanup_add "rm -f '$ready'"
    "${PYTHON3:-python3}" - "$@" "$ready" <<'EOF' &
import socket, struct, sys, time
mode, port, n, secs, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
held = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if mode == "pg":
        p = b"user\0postgres\0\0"
        s.sendall(struct.pack(">II", len(p) + 8, 196608) + p)
        buf = b""
        while b"Z\0\0\0\x05" not in buf:
            chunk = s.recv(4096)
            if not chunk or chunk[:1] == b"E":
                sys.exit(1)
            buf += chunk
    else:
        s.recv(4096)
    held.append(s)
open(ready, "w").write("ready\n")
time.sleep(secs)
EOF
    SRV_HOLD_PID=$!
    fm_cleanup_add "kill $SRV_HOLD_PID 2>/dev/null; wait $SRV_HOLD_PID 2>/dev/null"
    for _ in $(seq 1 100); do
        [ -s "$ready" ] && return 0
        kill -0 "$SRV_HOLD_PID" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}
