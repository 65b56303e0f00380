#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-halog.sh: the build's agent program (agents/faultmon-ocf, not the
# installed agents) writes its lines into Pacemaker's log file as
# resource-agents' ocf_log does (HA_LOGFILE, else PCMK_logfile; HA_DEBUGLOG),
# in the same form as ocf-shellfuncs' own lines (compared with it when
# resource-agents is installed), and an unwritable log never changes what
# the action answers.  The action: a start whose configfile is missing (rc 5,
# one error line).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"

tap_watchdog 60
trap fm_cleanup_run EXIT
AGENT=${FM_OCF_AGENT:-${FM_TOP_BUILDDIR:-$FM_TESTS_DIR/..}/agents/faultmon-ocf}
SHELLFUNCS=${FM_OCF_SHELLFUNCS:-/usr/lib/ocf/lib/heartbeat/ocf-shellfuncs}
[ -x "$AGENT" ] || bail_out "no agent program at $AGENT"
plan 9

# start LOGVAR=VALUE...: the agent's start (configfile missing) with those
# variables, stdin not a terminal (as under the executor); its exit status.
start() {
    fm_timeout 10 env -u HA_LOGFILE -u PCMK_logfile -u HA_DEBUGLOG -u HA_debug -u HA_LOGTAG -u HA_DATEFMT \
        OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=web FAULTMON_STATE_DIR="$FM_TMP/state" \
        OCF_RESKEY_configfile="$FM_TMP/missing/httpd.conf" "$@" \
        "$AGENT" apache start </dev/null >/dev/null 2>"$FM_TMP/agent.err"
}
# shape: the date and the pid out of ha_log's lines.
shape() {
    sed -E 's/^[A-Z][a-z]{2} [0-9]{2} [0-9:]{8}  /DATE  /; s/\[[0-9]+\]:/[PID]:/; s/\t[A-Z][a-z]{2} [0-9]{2} [0-9:]{8} /\tDATE /'
}

: >"$FM_TMP/pacemaker.log"
start HA_LOGFILE="$FM_TMP/pacemaker.log"
is "$?" 5 "start without its configfile: rc 5 (not installed), with HA_LOGFILE set"
is "$(wc -l <"$FM_TMP/pacemaker.log")" 1 "  one line appended to HA_LOGFILE"
like "$(cat "$FM_TMP/pacemaker.log")" \
    "^[A-Z][a-z]{2} [0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}  apache\\(web\\)\\[[0-9]+\\]:    ERROR: start: configfile '.*' does not exist on this node$" \
    "  in ha_log's form: DATE  AGENT(RESOURCE)[PID]:    ERROR: ACTION: message"

if [ -r "$SHELLFUNCS" ]; then
    : >"$FM_TMP/reference.log"
    : >"$FM_TMP/reference.debug"
    env OCF_ROOT=/usr/lib/ocf OCF_RESOURCE_INSTANCE=web HA_LOGFILE="$FM_TMP/reference.log" \
        HA_DEBUGLOG="$FM_TMP/reference.debug" sh -c \
        ". '$SHELLFUNCS'; ocf_log err \"start: configfile '$FM_TMP/missing/httpd.conf' does not exist on this node\"" \
        apache </dev/null
    is "$(shape <"$FM_TMP/pacemaker.log")" "$(shape <"$FM_TMP/reference.log")" \
        "  the same line as ocf-shellfuncs' ocf_log err writes (date and pid aside)"
    : >"$FM_TMP/pacemaker.log"
    : >"$FM_TMP/debug.log"
    start HA_LOGFILE="$FM_TMP/pacemaker.log" HA_DEBUGLOG="$FM_TMP/debug.log"
    is "$(shape <"$FM_TMP/debug.log")" "$(shape <"$FM_TMP/reference.debug")" \
        "  HA_DEBUGLOG: the same line as ocf-shellfuncs writes there"
else
    skip "no ocf-shellfuncs at $SHELLFUNCS to compare with" 2
fi

: >"$FM_TMP/pcmk.log"
start PCMK_logfile="$FM_TMP/pcmk.log"
is "$?/$(grep -c ':    ERROR: start: ' "$FM_TMP/pcmk.log")" "5/1" "PCMK_logfile alone: the line goes there"

start HA_LOGFILE="$FM_TMP/nowhere/pacemaker.log"
is "$?/$(find "$FM_TMP" -path '*nowhere*' | wc -l)" "5/0" "a log that does not exist: same rc 5, nothing created"
mkfifo "$FM_TMP/fifo.log"
start HA_LOGFILE="$FM_TMP/fifo.log"
is "$?" 5 "a FIFO as the log: same rc 5, at once (not blocked)"
chmod 0400 "$FM_TMP/pacemaker.log"
start HA_LOGFILE="$FM_TMP/pacemaker.log"
rc=$?
if [ "$(id -u)" = 0 ]; then
    is "$rc" 5 "a read-only log (root writes it anyway): same rc 5"
else
    is "$rc/$(wc -l <"$FM_TMP/pacemaker.log")" "5/0" "a read-only log: same rc 5, nothing written"
fi

tap_done
