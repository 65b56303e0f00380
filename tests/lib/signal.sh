# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/signal.sh: send a signal only to a process this test started
# and checked.  Sourced by tap.sh, so every test script has it.
# shellcheck shell=bash
#
# A raw `kill -STOP "${pid:-0}"` with pid empty stops the whole process
# group (the test, make, .ci/run: CI hangs), and `pgrep -P 0` lists init and
# kthreadd.  A PID read from a pid file may name anything by now.  So:
#
#   fm_signal SIG PID WHAT        one process
#   fm_signal_group SIG PGID WHAT every process of a group it leads
#
# WHAT says how the PID was checked: --child (a descendant of this script,
# e.g. $!) or an extended regex its command line (/proc/PID/cmdline, the
# arguments joined by spaces) must match, e.g. "^$FAULTMON run web( |$)".
# Refused, with a diagnostic and status 1 (the case then fails, it does not
# hang): an empty, non-numeric, 0, 1 or negative PID, this script, its
# process group, a PID with no /proc entry, or one WHAT does not match.
# SIG is a name or number without the dash (STOP, CONT, KILL, 0).

# fm_pid_checked PID WHAT: status 0 when PID may be signalled (see above);
# otherwise print why on stdout as a TAP diagnostic.
fm_pid_checked() {
    local pid=$1 what=$2 p ppid args
    case $pid in
        '' | *[!0-9]* | 0*)
            echo "# fm_signal: refused PID '$pid' (empty, not a number, or 0)"
            return 1 ;;
    esac
    if [ "$pid" -le 1 ] || [ "$pid" = "$$" ] || [ "$pid" = "${BASHPID:-$$}" ]; then
        echo "# fm_signal: refused PID $pid (init or this script)"
        return 1
    fi
    if [ ! -d "/proc/$pid" ]; then
        echo "# fm_signal: refused PID $pid: no such process"
        return 1
    fi
    if [ "$what" = --child ]; then
        p=$pid
        while [ "$p" -gt 1 ]; do
            ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
            [ -n "$ppid" ] || break
            [ "$ppid" = "$$" ] && return 0
            p=$ppid
        done
        echo "# fm_signal: refused PID $pid: not a process this script started"
        return 1
    fi
    if [ -z "$what" ]; then
        echo "# fm_signal: refused PID $pid: nothing to check it against"
        return 1
    fi
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
    args=${args% }
    if ! printf '%s' "$args" | grep -Eq -- "$what"; then
        echo "# fm_signal: refused PID $pid: its command line '$args' does not match /$what/"
        return 1
    fi
    return 0
}

# fm_signal SIG PID WHAT: kill -SIG PID, once PID is checked (see above).
fm_signal() {
    local sig=$1 pid=$2 what=${3:-}
    fm_pid_checked "$pid" "$what" || return 1
    kill "-$sig" "$pid"
}

# fm_signal_group SIG PGID WHAT: kill -SIG -- -PGID, once PGID is checked as
# a PID and leads its own group, not this script's.
fm_signal_group() {
    local sig=$1 pgid=$2 what=${3:-} own lead
    fm_pid_checked "$pgid" "$what" || return 1
    own=$(ps -o pgid= -p "$$" | tr -d ' ')
    lead=$(ps -o pgid= -p "$pgid" | tr -d ' ')
    if [ "$lead" != "$pgid" ] || [ "$pgid" = "$own" ]; then
        echo "# fm_signal: refused group $pgid: PID $pgid leads group '$lead' (this script's: $own)"
        return 1
    fi
    kill "-$sig" -- "-$pgid"
}

# fm_ere_quote STRING: STRING as an extended regex that matches it literally
# (for a path in fm_signal's WHAT).
fm_ere_quote() {
    printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'
}
