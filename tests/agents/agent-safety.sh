#!/bin/bash
# agent-safety.sh: no parameter is ever run by a shell, and secrets stay
# secret.
#
# Every parameter of both agents gets, one at a time, a value holding $(...),
# backticks, ';', '|', '&&' and a newline, each of which would create a
# marker file if a shell ever ran it; validate-all, start, monitor (also at
# OCF_CHECK_LEVEL=10) and stop run with it, and no marker may appear.  Then a
# password in a Monitor_Uri_List URI and in a testconffile must not show in
# ps, in the agents' output and exit reasons, in faultmon status, in the
# state directory or in Pacemaker's log file.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
command -v xmllint >/dev/null 2>&1 || {
    echo "1..0 # SKIP xmllint is not installed (apt-get install libxml2-utils)"
    exit 0
}
tap_watchdog 600
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"
top_srcdir=${FM_TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}

apache_params=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/apache.xml" |
    tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
httpmon_params=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/httpmon.xml" |
    tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
n_apache=$(echo "$apache_params" | wc -w)
n_httpmon=$(echo "$httpmon_params" | wc -w)
plan $((n_apache + n_httpmon + 2 + 9))

marker_dir=$FA_TMP/markers
mkdir -p "$marker_dir"
chmod 777 "$marker_dir"

# A value that would leave a marker for each way a shell could run it.
payload() {
    local m=$marker_dir/$1
    printf '%s' "x\$(touch $m.subst)\`touch $m.backtick\`;touch $m.semicolon
touch $m.newline|touch $m.pipe&&touch $m.and /tmp/x;touch $m.path"
}

# run_all AGENT: the lifecycle with the current parameters.
run_all() {
    fa_agent "$1" validate-all
    fa_agent "$1" start
    fa_agent "$1" monitor
    OCF_CHECK_LEVEL=10 fa_agent "$1" monitor
    fa_agent "$1" stop
}

for agent in apache httpmon; do
    if [ "$agent" = apache ]; then
        names=$apache_params
    else
        names=$httpmon_params
    fi
    for p in $names; do
        if [ "$agent" = apache ]; then
            fa_params fminject
        else
            fa_clear_params
            export OCF_RESOURCE_INSTANCE=fminject
            export OCF_RESKEY_Port_list="127.0.0.1:$FA_PORT" OCF_RESKEY_Probe_timeout=1s
            export OCF_RESKEY_Thorough_probe_interval=1s
            export FAULTMON_OCF_ATTRD_UPDATER=/bin/true
        fi
        export "OCF_RESKEY_$p=$(payload "$agent-$p")"
        run_all "$agent"
        found=$(ls "$marker_dir" 2>/dev/null)
        is "$found" "" "$agent: shell syntax in $p runs nothing"
    done
done
unset FAULTMON_OCF_ATTRD_UPDATER
fa_apache_kill

# The same payload in every parameter of ocf:faultmon:apache at once.
fa_params fminject
for p in $apache_params; do
    export "OCF_RESKEY_$p=$(payload "all-$p")"
done
run_all apache
is "$(ls "$marker_dir" 2>/dev/null)" "" "apache: shell syntax in every parameter at once runs nothing"
fa_clear_params
is "$(ls /tmp/x\;* 2>/dev/null)" "" "no file named after a payload was created"

# Secrets.
secret="S3cret$RANDOM$RANDOM"
pcmk_log=/var/log/pacemaker/pacemaker.log
log_lines_before=0
[ -f "$pcmk_log" ] && log_lines_before=$(wc -l <"$pcmk_log")
outputs=""

fa_params fmsecret
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$secret@127.0.0.1:$FA_PORT/health"
printf 'test t\nurl /health\nmatch %s\nuser fmuser\npassword %s\nend\n' "$WS_HEALTH_MARKER" "$secret" \
    >"$FA_DIR/secret-test.conf"
chmod 600 "$FA_DIR/secret-test.conf"
export OCF_RESKEY_testconffile=$FA_DIR/secret-test.conf
fa_agent apache start
fa_check_rc "start with a password in Monitor_Uri_List and in testconffile: 0" 0
outputs="$outputs$FA_OUT"
ps_all=$(ps -eww -o args)
if printf '%s' "$ps_all" | grep -q "$secret"; then
    not_ok "the password is not in ps output"
    printf '%s\n' "$ps_all" | grep "$secret" | sed 's/^/# /'
else
    ok "the password is not in ps output"
fi
OCF_CHECK_LEVEL=10 fa_agent apache monitor
fa_check_rc "OCF_CHECK_LEVEL=10 with the password (URI and testconffile): 0" 0
outputs="$outputs$FA_OUT"
status_out=$("$FAULTMON" status fmsecret 2>&1; "$FAULTMON" status fmsecret --json 2>&1)
if printf '%s' "$status_out" | grep -q "$secret"; then
    not_ok "the password is not in faultmon status (text and JSON)"
else
    ok "the password is not in faultmon status (text and JSON)"
fi
if grep -rq "$secret" "$FAULTMON_STATE_DIR" 2>/dev/null; then
    not_ok "the password is not in the state directory"
    grep -rl "$secret" "$FAULTMON_STATE_DIR" | sed 's/^/# /'
else
    ok "the password is not in the state directory"
fi
fa_agent apache stop
outputs="$outputs$FA_OUT"

# A failing URI with the password: the failure is reported, the password is not.
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$secret@127.0.0.1:1/health"
unset OCF_RESKEY_testconffile
fa_agent apache start
fa_check_rc_reason "start with a failing URI holding a password: 1, the reason shows the URI redacted" 1 \
    "http://\\*\\*\\*@127.0.0.1:1"
outputs="$outputs$FA_OUT"
fa_agent apache stop
outputs="$outputs$FA_OUT"
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$secret@127.0.0.1:99999/health"
fa_agent apache validate-all
outputs="$outputs$FA_OUT"
if printf '%s' "$outputs" | grep -q "$secret"; then
    not_ok "the password is in no output or exit reason of the agent"
    printf '%s\n' "$outputs" | grep "$secret" | sed 's/^/# /'
else
    ok "the password is in no output or exit reason of the agent"
fi
if [ -f "$pcmk_log" ]; then
    if tail -n +"$((log_lines_before + 1))" "$pcmk_log" | grep -q "$secret"; then
        not_ok "the password is not in $pcmk_log"
    else
        ok "the password is not in $pcmk_log"
    fi
else
    skip "the password is not in $pcmk_log" "no such file"
fi
if command -v journalctl >/dev/null 2>&1 && journalctl -q -n 1 >/dev/null 2>&1; then
    if journalctl -q --since "-10min" 2>/dev/null | grep -q "$secret"; then
        not_ok "the password is not in the journal"
    else
        ok "the password is not in the journal"
    fi
else
    skip "the password is not in the journal" "no journal here"
fi
fa_clear_params

tap_done
