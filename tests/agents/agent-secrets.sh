#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-secrets.sh: a password in a URI, malformed or not, never shows in the
# agents' exit reasons, their stderr (which the executor keeps in Pacemaker's
# log), syslog, the loop's log file, `faultmon status` (text and JSON) or the
# state directory; and raw bytes in a message come out escaped, on one line
# (issue 8, items 5 and 10).
#
# Every check for absence has a positive control: the redacted form must be
# there, so that a message that says nothing (or a log nobody collects)
# cannot pass.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
tap_watchdog 300
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"

plan 23

S=S3c$RANDOM$RANDOM
ALL_OUT=""

# reason_case NAME WANT-RC SHOWN AGENT ACTION: the exit code, an exit reason
# showing SHOWN, and no $S anywhere in the output.
reason_case() {
    local name=$1 want=$2 shown=$3 why=
    fa_agent "$4" "$5"
    ALL_OUT="$ALL_OUT$FA_OUT"
    [ "$want" = any ] || [ "$FA_RC" = "$want" ] || why="exit code $FA_RC, expected $want"
    [ "$want" != any ] || [ "$FA_RC" != 0 ] || why="exit code 0, expected a failure"
    printf '%s' "$FA_REASON" | grep -qF -- "$shown" || why="${why:+$why; }the exit reason does not show '$shown'"
    if printf '%s' "$FA_OUT" | grep -qF -- "$S"; then
        why="${why:+$why; }the secret shows"
    fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name"
        diag "$why" "output:" "$FA_OUT"
    fi
}

# The malformed forms of the issue, in each URI parameter: OCF_ERR_CONFIGURED
# and the URI shown with its credentials as ***.
U=127.0.0.1:$FA_PORT
for form in "ab/$S" "p?$S" "p#$S" "one slash"; do
    fa_params fmsecret
    shown="http://***@$U/health"
    export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$form@$U/health"
    if [ "$form" = "one slash" ]; then
        shown="http:/***@$U/health"
        export OCF_RESKEY_Monitor_Uri_List="http:/fmuser:$S@$U/health"
    fi
    reason_case "apache validate-all, Monitor_Uri_List with password ${form%"$S"}...: 6, shows $shown" 6 \
        "$shown" apache validate-all
done
# A blank cuts the list in two: neither piece is quoted (issue 30, item 7).
fa_params fmsecret
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:ab $S@$U/health"
reason_case "apache validate-all, a blank in the password: 6, no piece shown, percent-encoding named" 6 \
    "percent-encode" apache validate-all
fa_params fmsecret
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$S cd@$U/health"
reason_case "apache validate-all, a password cut before its blank: 6, no piece shown" 6 \
    "percent-encode" apache validate-all
fa_params fmsecret
export OCF_RESKEY_statusurl="http://fmuser:ab/$S@$U/server-status"
reason_case "apache validate-all, statusurl with a '/' in the password: fails, redacted" any \
    "http://***@$U/server-status" apache validate-all
fa_params fmsecret
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:ab/$S@$U/health"
reason_case "apache start, a '/' in the password: fails, redacted" any "http://***@$U/health" apache start
fa_agent apache stop

fa_clear_params
export OCF_RESOURCE_INSTANCE=fmsecret-check
export FAULTMON_OCF_ATTRD_UPDATER=/bin/true
for form in "http://fmuser:ab/$S@$U/health" "http:/fmuser:$S@$U/health"; do
    export OCF_RESKEY_Monitor_Uri_List=$form
    shown="${form%%fmuser:*}***@$U/health"
    reason_case "httpmon validate-all, Monitor_Uri_List $shown: 6, redacted" 6 "$shown" httpmon validate-all
done

# Raw bytes: an exit reason is one line of valid UTF-8 (Pacemaker keeps it
# in XML), whatever the value it quotes holds.
fa_params fmsecret
export OCF_RESKEY_Monitor_Uri_List=$'http://127.0.0.1:1/\xff\x01'
fa_agent apache validate-all
if [ "$FA_RC" = 6 ] && printf '%s' "$FA_REASON" | grep -qF 'http://127.0.0.1:1/\xff\x01' \
    && ! printf '%s' "$FA_OUT" | LC_ALL=C grep -q $'[\xff\x01]'; then
    ok "an invalid UTF-8 byte and a control character in a value: escaped in the exit reason"
else
    not_ok "an invalid UTF-8 byte and a control character in a value: escaped in the exit reason"
    diag "exit code $FA_RC" "output:" "$(printf '%s' "$FA_OUT" | od -c | head -n 20)"
fi
export OCF_RESOURCE_INSTANCE=$'bad\nname\xff'
fa_agent apache validate-all
if [ "$FA_RC" != 0 ] && printf '%s' "$FA_REASON" | grep -qF 'bad\x0aname\xff' \
    && [ "$(printf '%s\n' "$FA_OUT" | grep -c '^ocf-exit-reason:')" = 1 ] \
    && ! printf '%s' "$FA_OUT" | grep -q '^name'; then
    ok "a newline and a byte 0xff in the resource name: escaped, the reason stays one line"
else
    not_ok "a newline and a byte 0xff in the resource name: escaped, the reason stays one line"
    diag "exit code $FA_RC" "output:" "$FA_OUT"
fi

# A password holding '@' is a valid URI: the loop runs with it.  Its log file,
# the state directory, `faultmon status` and ps show it redacted or not at all.
fa_params fmsecret
LOOP_LOG=$FA_TMP/pacemaker.log
export PCMK_logfile=$LOOP_LOG PCMK_logfacility=none
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:p@$S@$U/health"
shown="http://***@$U/health"
fa_agent apache start
ALL_OUT="$ALL_OUT$FA_OUT"
fa_check_rc "apache start with a password holding '@': 0" 0
# shellcheck disable=SC2009 # every process's arguments, not a process by name
if ps -eww -o args= | grep -v grep | grep -qF -- "$S"; then
    not_ok "the password is not in ps output"
else
    ok "the password is not in ps output"
fi
OCF_CHECK_LEVEL=10 fa_agent apache monitor
ALL_OUT="$ALL_OUT$FA_OUT"
fa_check_rc "OCF_CHECK_LEVEL=10 monitor with it: 0" 0

# status_check NAME SHOWN...: `faultmon status fmsecret`, text and JSON,
# shows each SHOWN (the JSON parsed as UTF-8), never $S nor a raw 0xff.
status_check() {
    local name=$1 text json why='' s
    shift
    text=$("$FAULTMON" status fmsecret 2>&1)
    json=$("$FAULTMON" status fmsecret --json 2>&1)
    for s in "$@"; do
        printf '%s' "$text" | grep -qF -- "$s" || why="${why:+$why; }text does not show '$s'"
        printf '%s' "$json" | python3 -c 'import json, sys
doc = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.exit(0 if any(sys.argv[1] == t["target"] for r in doc["resources"] for t in r["targets"]) else 1)' "$s" ||
            why="${why:+$why; }JSON does not parse or has no target '$s'"
    done
    if printf '%s%s' "$text" "$json" | LC_ALL=C grep -qF -e "$S" -e $'\xff'; then
        why="${why:+$why; }the secret or a raw byte shows"
    fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        not_ok "$name"
        diag "$why" "text:" "$text" "JSON:" "$json"
    fi
}
status_check "faultmon status (text and JSON) shows $shown, not the password" "$shown"

state_file=$FAULTMON_STATE_DIR/fmsecret/state
if grep -qF -- "$shown" "$state_file" && ! grep -rqF -- "$S" "$FAULTMON_STATE_DIR"; then
    ok "the state file names $shown; no file of the state directory holds the password"
else
    not_ok "the state file names $shown; no file of the state directory holds the password"
    diag_file "$state_file"
fi
fa_agent apache stop
ALL_OUT="$ALL_OUT$FA_OUT"

export OCF_RESKEY_Monitor_Uri_List="http://fmuser:p@$S@127.0.0.1:1/health"
reason_case "apache start, a password holding '@' on a dead port: 1, the failure names the URI redacted" 1 \
    "http://***@127.0.0.1:1/health" apache start
fa_agent apache stop
ALL_OUT="$ALL_OUT$FA_OUT"
if grep -q "fmsecret: monitoring" "$LOOP_LOG" && ! grep -qF -- "$S" "$LOOP_LOG"; then
    ok "the loop logs to PCMK_logfile, and never the password"
else
    not_ok "the loop logs to PCMK_logfile, and never the password"
    diag_file "$LOOP_LOG"
fi
unset PCMK_logfile PCMK_logfacility

# A state file that holds what the loop would never write (an old version's,
# one made by hand): `faultmon status` shows its targets redacted and escaped.
hostile_state() {
    local a=$1 b=$2
    awk -v a="$a" -v b="$b" '/^target=/ { n++; sub(/=[^=]*$/, "=" (n == 1? a : b)) } { print }' \
        "$state_file" >"$state_file.new" && mv "$state_file.new" "$state_file"
}
hostile_state "http://fmuser:ab/$S@127.0.0.1:1/" "http:/fmuser:$S@127.0.0.1/"
status_check "faultmon status of a hand-made state file: '/' in the password, one slash: redacted" \
    "http://***@127.0.0.1:1/" "http:/***@127.0.0.1/"
hostile_state "http://fmuser:p@$S@127.0.0.1:1/" $'http://fmuser:p#'"$S"$'@127.0.0.1:1/\xff'
status_check "faultmon status of a hand-made state file: '@' and '#' in the password, a byte 0xff: redacted, escaped" \
    "http://***@127.0.0.1:1/" 'http://***@127.0.0.1:1/\xff'

# syslog: the agent's lines, in a mount namespace whose /dev/log is a socket
# of this test.  A canary sent first shows that the collector works.
syslog_case() {
    local dir=$FA_TMP/syslog collector
    mkdir -p "$dir/olddev"
    python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "ab") as out:
    while True:
        try:
            out.write(s.recv(65536) + b"\n")
            out.flush()
        except socket.timeout:
            break' "$dir/log" "$dir/messages" &
    collector=$!
    for _ in $(seq 1 50); do
        [ -S "$dir/log" ] && break
        sleep 0.1
    done
    fa_params fmsecret
    export OCF_RESKEY_Monitor_Uri_List="http://fmuser:ab/$S@$U/health"
    # shellcheck disable=SC2016 # expanded by the inner shell
    fm_timeout 60 unshare -m bash -c '
        dir=$1; shift
        mount --make-rprivate / && mount --rbind /dev "$dir/olddev" &&
        mount -t tmpfs -o mode=755 fmdev /dev || exit 99
        for n in null zero random urandom; do
            touch "/dev/$n" && mount --bind "$dir/olddev/$n" "/dev/$n" || exit 99
        done
        ln -s "$dir/log" /dev/log
        logger -t faultmon-canary "canary-$$"
        "$@" 2>&1' fmsyslog "$dir" "$FA_APACHE" validate-all >"$dir/agent.out"
    local rc=$?
    sleep 0.2
    kill "$collector" 2>/dev/null
    wait "$collector" 2>/dev/null
    if [ "$rc" = 99 ]; then
        skip "the agent's syslog lines (no mount namespace here)"
        return
    fi
    if grep -q "canary-" "$dir/messages" && grep -qF "http://***@$U/health" "$dir/messages" \
        && ! grep -qF -- "$S" "$dir/messages"; then
        ok "syslog gets the canary and the agent's reason redacted, never the password"
    else
        not_ok "syslog gets the canary and the agent's reason redacted, never the password"
        diag "unshare exit $rc"
        diag_file "$dir/messages" "$dir/agent.out"
    fi
}
syslog_case

if printf '%s' "$ALL_OUT" | grep -qF "://***@127.0.0.1" \
    && ! printf '%s' "$ALL_OUT" | grep -qF -e "$S" -e fmuser; then
    ok "no output of the agents held the password or the user name (they showed ://***@)"
else
    not_ok "no output of the agents held the password or the user name (they showed ://***@)"
    printf '%s\n' "$ALL_OUT" | grep -F -e "$S" -e fmuser | sed 's/^/# /'
fi

tap_done
