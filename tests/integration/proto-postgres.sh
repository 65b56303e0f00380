#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-postgres.sh: `faultmon probe postgres://` against a real PostgreSQL
# (initdb + postgres as an ordinary process on a free loopback port): ok
# (ready for query, and an authentication request), refusing replies
# (complete, the SQLSTATE as reason: no such role, too many clients with
# superuser_reserved_connections=0), the same targets in a Port_list of
# `faultmon run`, sslmode=require against a server
# without and with TLS, paused with SIGSTOP (partial, at the deadline), and
# stopped (complete).

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
if ! srv_pg_start -c max_connections=3 -c superuser_reserved_connections=0; then
    skip_all "PostgreSQL did not start"
fi
plan 32

pg=postgres://127.0.0.1:$SRV_PG_PORT
proto_case "ready for query (trust)" 0 ok none ok fast -- "$pg/"
proto_detail_like 'ready for query (trust): detail' '^ready for query$'
proto_case "the database in the path" 0 ok none ok fast -- "$pg/postgres"
proto_detail_like 'the database in the path: detail' '^ready for query$'
proto_case "no such role: refused, SQLSTATE 28000" 2 complete status refused fast -- "postgres://nobody@127.0.0.1:$SRV_PG_PORT/"
proto_detail_like 'no such role: refused, SQLSTATE 28000: detail' '^startup: SQLSTATE 28000 role "nobody" does not exist$'
proto_case "no such database: refused, SQLSTATE 3D000" 2 complete status refused fast -- "$pg/nodb"
proto_detail_like 'no such database: refused, SQLSTATE 3D000: detail' '^startup: SQLSTATE 3D000 database "nodb" does not exist$'
proto_case "sslmode=require, the server without TLS: refused" 2 complete status refused fast -- "$pg/?sslmode=require"
proto_detail_like 'sslmode=require, the server without TLS: refused: detail' 'SSLRequest: the server does not offer TLS'

# The same targets as the agents' Port_list: one cycle of the loop.
export FAULTMON_STATE_DIR=$FM_TMP/state
fm_timeout 30 "$FAULTMON" run pgrun --no-env --cycles 1 --param "Port_list=$pg/ $pg/nodb" \
    --param Probe_timeout=2 >"$FM_TMP/run.out" 2>&1
status=$("$FAULTMON" status pgrun 2>&1)
if printf '%s\n' "$status" | grep -Eq "^ +$pg/ +ok +ok " &&
    printf '%s\n' "$status" | grep -Eq "^ +$pg/nodb +complete +refused "; then
    ok "Port_list: faultmon run probes postgres:// targets"
else
    not_ok "Port_list: faultmon run probes postgres:// targets"
    diag "$status"
    diag_file "$FM_TMP/run.out"
fi

# TLS on (reloadable since PostgreSQL 10): the startup goes over it.
if ws_make_cert "$SRV_PG_DIR" && chown "$SRV_PG_USER:" "$SRV_PG_DIR/cert.pem" "$SRV_PG_DIR/key.pem" &&
    chmod 600 "$SRV_PG_DIR/key.pem"; then
    printf "ssl = on\nssl_cert_file = '%s'\nssl_key_file = '%s'\n" "$SRV_PG_DIR/cert.pem" \
        "$SRV_PG_DIR/key.pem" >>"$SRV_PG_DIR/data/postgresql.conf"
    kill -HUP "$SRV_PG_PID"
    sleep 0.5
    proto_case "sslmode=require, the server with TLS: ok over TLS" 0 ok none ok fast -- "$pg/?sslmode=require"
    proto_detail_like 'sslmode=require, the server with TLS: ok over TLS: detail' '^ready for query$'
else
    for _ in 1 2 3; do
        not_ok "sslmode=require with TLS: no certificate"
    done
fi

# Every backend slot taken (max_connections=3, none reserved): 53300.
if srv_hold pg "$SRV_PG_PORT" 3 60; then
    proto_case "too many clients: refused, SQLSTATE 53300" 2 complete status refused fast -- "$pg/"
    proto_detail_like 'too many clients: refused, SQLSTATE 53300: detail' '^startup: SQLSTATE 53300 sorry, too many clients already$'
    kill "$SRV_HOLD_PID" 2>/dev/null
    wait "$SRV_HOLD_PID" 2>/dev/null
else
    for _ in 1 2 3; do
        not_ok "too many clients: could not take every slot"
    done
fi

# An md5 password asked: the server is up to authentication.  pg_hba.conf
# read again after SIGHUP.
printf 'host all all 127.0.0.1/32 md5\n' >"$SRV_PG_DIR/data/pg_hba.conf"
kill -HUP "$SRV_PG_PID"
sleep 0.5
proto_case "a password asked (md5, or SCRAM for a SCRAM role): ok" 0 ok none ok fast -- "$pg/"
proto_detail_like 'a password asked (md5, or SCRAM for a SCRAM role): ok: detail' '^authentication request (5|10)$'

# Paused: the kernel accepts, nobody answers.
kill -STOP "$SRV_PG_PID"
proto_case "paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- "$pg/"
proto_detail_like 'paused (SIGSTOP): partial at the deadline: detail' 'startup'
kill -CONT "$SRV_PG_PID"

srv_stop "$SRV_PG_PID"
proto_case "stopped: complete" 2 complete connect connect-failed fast -- "$pg/"
proto_case "stopped, sslmode=require: complete" 2 complete connect connect-failed fast -- "$pg/?sslmode=require"
tap_done
