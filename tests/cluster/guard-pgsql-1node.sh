#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/guard-pgsql-1node.sh: ocf:faultmon:guard guarding a database
# agent, ocf:heartbeat:pgsql (Debian's resource-agents), on a real
# single-node cluster (issue 13).  The guard probes PostgreSQL over TCP with
# the postgres:// probe; the fault is one that ocf:heartbeat:pgsql's own
# monitor (psql over the unix socket) does not see: pg_hba.conf rejecting
# TCP clients, read at a reload and mended in the file at once, so that a
# restart cures it.  The guard asks, Pacemaker restarts PostgreSQL in place.
#
# Needs root, the packages of lib.sh, PostgreSQL's server, and the agents
# installed (make install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=300}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
fm_skip_unless_runnable pcs
sc_skip_unless_agents
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ] || [ ! -x "$FM_OCF_DIR/heartbeat/pgsql" ] \
    || ! id postgres >/dev/null 2>&1; then
    echo "1..0 # SKIP PostgreSQL's server or ocf:heartbeat:pgsql is not installed"
    exit 0
fi
N=node1
PROBE=postgres://postgres@127.0.0.1:5432/

fm_plan 5

fm_cluster_start 1 || fm_bail "single-node cluster did not form"
fm_result 0 "single-node cluster formed in ${FM_LAST_MS} ms"

srv=$(fm_node_dir "$N")/root/srv
mkdir -p "$srv/pg" "$srv/pgsock"
chown postgres:postgres "$srv/pg" "$srv/pgsock"
chmod 700 "$srv/pg"
fm_node_exec "$N" su postgres -s /bin/sh -c "$PGBIN/initdb -D /srv/pg -A trust >/dev/null 2>&1" ||
    fm_bail "initdb failed"
printf "listen_addresses = '127.0.0.1'\nunix_socket_directories = '/srv/pgsock'\n" >> "$srv/pg/postgresql.conf"
cp "$srv/pg/pg_hba.conf" "$srv/pg-hba.good"
postmaster() { head -n 1 "$srv/pg/postmaster.pid" 2>/dev/null || echo 0; }
probe_ok() { fm_node_exec "$N" env -u FAULTMON_STATE_DIR "$SC_FAULTMON" probe "$PROBE" >/dev/null 2>&1; }

fm_node_exec "$N" pcs resource create db ocf:heartbeat:pgsql pgctl="$PGBIN/pg_ctl" psql=/usr/bin/psql \
    pgdata=/srv/pg socketdir=/srv/pgsock op monitor interval=10s --group dbg </dev/null >/dev/null 2>&1
st=$?
fm_node_exec "$N" pcs resource create db-guard ocf:faultmon:guard resource=db Port_list="$PROBE" \
    Thorough_probe_interval=2 Probe_timeout=1 Retry_count=1 Retry_interval=120 op monitor interval=10s \
    --group dbg </dev/null >/dev/null 2>&1
st=$((st || $?))
fm_wait_resource db-guard "$N" 60 >/dev/null && fm_poll 10 probe_ok
fm_result $((st || $?)) "ocf:heartbeat:pgsql and its ocf:faultmon:guard (Port_list=$PROBE) in a group: running, the probe answers"

# The fault: pg_hba.conf rejects TCP clients (read at a reload); the file
# is mended at once, so that PostgreSQL's next start reads the good one.
pid0=$(postmaster) SC_FC0=$(fm_failcount db "$N")
{ echo "host all all 127.0.0.1/32 reject"; cat "$srv/pg-hba.good"; } > "$srv/pg/pg_hba.conf"
fm_node_exec "$N" sh -c 'kill -HUP "$(head -n 1 /srv/pg/postmaster.pid)"' 2>/dev/null
refused() { ! probe_ok; }
fm_poll 10 refused
st=$?
t0=$(fm_now_ms)
cp "$srv/pg-hba.good" "$srv/pg/pg_hba.conf"
chown postgres:postgres "$srv/pg/pg_hba.conf"
fm_result "$st" "pg_hba.conf rejects TCP clients: the postgres:// probe fails (ocf:heartbeat:pgsql's psql uses the socket)"
restarted() { [ "$(postmaster)" != "$pid0" ] && [ "$(postmaster)" != 0 ] && probe_ok; }
fm_poll 40 restarted
st=$?
ms=$(fm_since_ms "$t0")
rs=$(sc_fm_field "$N" db-guard restarts_in_window)
ok=$([ "$st" = 0 ] && fm_wait_resource db "$N" 20 >/dev/null && [ "$rs" = 1 ]; echo $?)
fm_result "$ok" "the guard restarts PostgreSQL in place (postmaster $pid0 -> $(postmaster)), restarts_in_window ${rs:-?}, answering again after $ms ms"
fm_timing "guard: pgsql refusing TCP clients -> answering again (restart in place)" "$ms" "Thorough_probe_interval=2"
fc=$(fm_failcount db "$N")
ok=$([ "$fc" != "$SC_FC0" ] && [ "$fc" != INFINITY ] && ! fm_failures db-guard | awk -F'\t' '$5 != 190 && $5 != 0' | grep -q .; echo $?)
fm_result "$ok" "the request is db's failure (fail-count $SC_FC0 -> $fc, not INFINITY); the guard itself has no failed operation"

fm_timings_report
fm_done
