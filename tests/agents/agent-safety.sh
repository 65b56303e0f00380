#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-safety.sh: no parameter is ever run by a shell, and secrets stay
# secret.
#
# Every parameter of each agent gets, one at a time, a value holding $(...),
# backticks, ';', '|', '&&' and a newline, each of which would create a
# marker file if a shell ever ran it; validate-all, start, monitor (also at
# OCF_CHECK_LEVEL=10, and for nginx at 20 and 30) and stop run with it, and
# no marker may appear.  (The nginx agent's part is skipped without nginx.)  Then a
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
nginx_params=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/nginx.xml" |
    tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
guard_params=$(xmllint --xpath '//parameter/@name' "$top_srcdir/metadata/guard.xml" |
    tr ' ' '\n' | sed -n 's/^name="\(.*\)"$/\1/p')
n_apache=$(echo "$apache_params" | wc -w)
n_httpmon=$(echo "$httpmon_params" | wc -w)
n_nginx=$(echo "$nginx_params" | wc -w)
n_guard=$(echo "$guard_params" | wc -w)
plan $((n_apache + n_httpmon + n_nginx + n_guard + 4 + 2 + 9 + 5))
have_nginx=false
if [ -x "${WS_NGINX:-/usr/sbin/nginx}" ] && fa_nginx_setup; then
    have_nginx=true
fi

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
    if [ "$1" = nginx ]; then
        OCF_CHECK_LEVEL=20 fa_agent "$1" monitor
        OCF_CHECK_LEVEL=30 fa_agent "$1" monitor
    fi
    fa_agent "$1" stop
}

for agent in apache httpmon nginx guard; do
    case $agent in
        apache) names=$apache_params ;;
        httpmon) names=$httpmon_params ;;
        nginx) names=$nginx_params ;;
        guard) names=$guard_params ;;
    esac
    if [ "$agent" = nginx ] && [ "$have_nginx" != true ]; then
        for _ in $names x; do
            skip "nginx: shell syntax in its parameters" "nginx is not installed"
        done
        continue
    fi
    tried=0
    for p in $names; do
        tried=$((tried + 1))
        if [ "$agent" = apache ]; then
            fa_params fminject
        elif [ "$agent" = nginx ]; then
            fa_nginx_params fminject
        else
            fa_clear_params
            export OCF_RESOURCE_INSTANCE=fminject
            export OCF_RESKEY_Port_list="127.0.0.1:$FA_PORT" OCF_RESKEY_Probe_timeout=1s
            export OCF_RESKEY_Thorough_probe_interval=1s
            # No cluster tools beside it: the guard finds no CIB to read.
            export FAULTMON_OCF_ATTRD_UPDATER=/bin/true
            if [ "$agent" = guard ]; then export OCF_RESKEY_resource=web; fi
        fi
        export "OCF_RESKEY_$p=$(payload "$agent-$p")"
        # advanced holds NAME=VALUE words: the payload goes into a value.
        if [ "$p" = advanced ]; then
            export OCF_RESKEY_advanced="receive_regex='$(payload "$agent-$p")'"
        fi
        run_all "$agent"
        found=$(ls "$marker_dir" 2>/dev/null)
        is "$found" "" "$agent: shell syntax in $p runs nothing"
    done
    is_count "$tried" "$(fm_xml_param_count "$top_srcdir/metadata/$agent.xml")" \
        "$agent: every parameter of its meta-data was tried ($tried)"
done
unset FAULTMON_OCF_ATTRD_UPDATER
fa_apache_kill
fa_nginx_kill

# The same payload in every parameter of ocf:faultmon:apache at once.
fa_params fminject
for p in $apache_params; do
    export "OCF_RESKEY_$p=$(payload "all-$p")"
done
# The same value as receive_regex's by name: two would be refused (6).
export OCF_RESKEY_advanced="receive_regex='$(payload "all-receive_regex")'"
run_all apache
is "$(ls "$marker_dir" 2>/dev/null)" "" "apache: shell syntax in every parameter at once runs nothing"
fa_clear_params
is "$(ls /tmp/x\;* 2>/dev/null)" "" "no file named after a payload was created"

# Secrets.  Every check for the password's absence has a positive control:
# the place looked at holds what it should (the redacted URI, the loop's own
# lines, a canary), so that a command that failed or a log that nothing
# writes cannot pass for "no password there".
secret="S3cret$RANDOM$RANDOM"
redacted="\\*\\*\\*@127\\.0\\.0\\.1:$FA_PORT/health"
outputs=""

fa_params fmsecret
# The loop logs to a file of the test's own (Pacemaker's log file on a
# cluster node), through the same code.
loop_log=$FA_TMP/loop.log
: >"$loop_log"
export PCMK_logfile=$loop_log
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:$secret@127.0.0.1:$FA_PORT/health"
printf 'test t\nurl /health\nmatch %s\nuser fmuser\npassword %s\nend\n' "$WS_HEALTH_MARKER" "$secret" \
    >"$FA_DIR/secret-test.conf"
chmod 600 "$FA_DIR/secret-test.conf"
export OCF_RESKEY_testconffile=$FA_DIR/secret-test.conf
fa_agent apache start
fa_check_rc "start with a password in Monitor_Uri_List and in testconffile: 0" 0
outputs="$outputs$FA_OUT"
ps_all=$(ps -eww -o args)
loop_pid=$(cat "$FAULTMON_STATE_DIR/fmsecret/pid" 2>/dev/null)
loop_args=$(ps -ww -o args= -p "${loop_pid:-0}" 2>/dev/null)
if printf '%s' "$ps_all" | grep -q "$secret"; then
    not_ok "the password is not in ps output (the loop is: '$loop_args')"
    printf '%s\n' "$ps_all" | grep "$secret" | sed 's/^/# /'
elif ! printf '%s' "$loop_args" | grep -q "fmsecret"; then
    not_ok "the password is not in ps output (the loop is: '$loop_args')"
    diag "the loop for fmsecret (pid '${loop_pid}') is not in ps: nothing was checked"
else
    ok "the password is not in ps output (the loop is: '$loop_args')"
fi
OCF_CHECK_LEVEL=10 fa_agent apache monitor
fa_check_rc "OCF_CHECK_LEVEL=10 with the password (URI and testconffile): 0" 0
outputs="$outputs$FA_OUT"
status_text=$("$FAULTMON" status fmsecret 2>&1)
status_text_rc=$?
status_json=$("$FAULTMON" status fmsecret --json 2>&1)
status_json_rc=$?
status_out="$status_text$status_json"
if printf '%s' "$status_out" | grep -q "$secret"; then
    not_ok "faultmon status (text and JSON) answers 0 and shows the URI redacted, never the password"
    printf '%s\n' "$status_out" | grep "$secret" | sed 's/^/# /'
elif [ "$status_text_rc/$status_json_rc" != 0/0 ] || ! printf '%s' "$status_text" | grep -q "$redacted" ||
    ! printf '%s' "$status_json" | grep -q "$redacted"; then
    not_ok "faultmon status (text and JSON) answers 0 and shows the URI redacted, never the password"
    diag "exit codes $status_text_rc/$status_json_rc (expected 0/0), expected /$redacted/ in both:" \
        "$status_text" "$status_json"
else
    ok "faultmon status (text and JSON) answers 0 and shows the URI redacted, never the password"
fi
if grep -rq "$secret" "$FAULTMON_STATE_DIR" 2>/dev/null; then
    not_ok "the password is not in the state directory, which holds the loop's state"
    grep -rl "$secret" "$FAULTMON_STATE_DIR" | sed 's/^/# /'
elif [ ! -s "$FAULTMON_STATE_DIR/fmsecret/state" ]; then
    not_ok "the password is not in the state directory, which holds the loop's state"
    diag "no state file $FAULTMON_STATE_DIR/fmsecret/state: nothing was checked"
else
    ok "the password is not in the state directory, which holds the loop's state"
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
unset PCMK_logfile
if printf '%s' "$outputs" | grep -q "$secret"; then
    not_ok "the password is in no output or exit reason of the agent (which show it redacted)"
    printf '%s\n' "$outputs" | grep "$secret" | sed 's/^/# /'
elif ! printf '%s' "$outputs" | grep -q '\*\*\*@127\.0\.0\.1:1/'; then
    not_ok "the password is in no output or exit reason of the agent (which show it redacted)"
    diag "the redacted URI is not in the agent's output: nothing was checked" "$outputs"
else
    ok "the password is in no output or exit reason of the agent (which show it redacted)"
fi
if grep -q "$secret" "$loop_log"; then
    not_ok "the password is not in the loop's log file (PCMK_logfile), which has its lines"
    grep "$secret" "$loop_log" | sed 's/^/# /'
elif ! grep -q "fmsecret" "$loop_log"; then
    not_ok "the password is not in the loop's log file (PCMK_logfile), which has its lines"
    diag "the loop wrote no line for fmsecret to $loop_log: nothing was checked"
else
    ok "the password is not in the loop's log file (PCMK_logfile), which has its lines"
fi

# Syslog: only where something collects it, as a canary shows.
syslog_text() {
    {
        if command -v journalctl >/dev/null 2>&1; then
            journalctl -q --since "-10min" 2>/dev/null
        fi
        cat /var/log/syslog /var/log/messages 2>/dev/null
    }
}
canary="faultmon-test-canary-$RANDOM$RANDOM"
logger -p daemon.info -t faultmon-test "$canary" 2>/dev/null
canary_seen=1
for _ in $(seq 1 30); do
    if syslog_text | grep -q "$canary"; then
        canary_seen=0
        break
    fi
    sleep 0.1
done
if [ "$canary_seen" -ne 0 ]; then
    skip "the password is not in syslog" "nothing collects syslog here (a logger canary never arrived)"
elif syslog_text | grep -q "$secret"; then
    not_ok "the password is not in syslog (a canary arrived)"
    syslog_text | grep "$secret" | sed 's/^/# /'
else
    ok "the password is not in syslog (a canary arrived)"
fi
fa_clear_params

# A FIFO where the pid file should be (a broken or hostile node): reading it
# must not block the agent past its deadline.  It is no PID, so httpd's
# parent is unknown: never success, an answer within the operation's
# timeout, and a stop that still stops every process of this httpd.
fa_params fmfifo
fa_agent apache start
fa_check_rc "FIFO pid file: start: 0" 0
fifo_httpd=$(cat "$FA_PID_FILE" 2>/dev/null)
rm -f "$FA_PID_FILE"
mkfifo -m 600 "$FA_PID_FILE"
export OCF_RESKEY_CRM_meta_timeout=5000 OCF_RESKEY_CRM_meta_interval=10000
fifo_start=$(date +%s%N)
FA_TIMEOUT=30 fa_agent apache monitor
fifo_ms=$((($(date +%s%N) - fifo_start) / 1000000))
if [ "$FA_RC" != 0 ] && [ "$FA_RC" -lt 124 ] && [ "$fifo_ms" -lt 5000 ]; then
    ok "FIFO pid file: monitor answers within its 5 s timeout ($fifo_ms ms), not success ($FA_RC)"
else
    not_ok "FIFO pid file: monitor answers within its 5 s timeout ($fifo_ms ms), not success ($FA_RC)"
    diag "output:" "$FA_OUT"
fi
if printf '%s' "$FA_OUT" | grep -q 'not a regular file'; then
    ok "FIFO pid file: the agent says the pid file is not a regular file"
else
    not_ok "FIFO pid file: the agent says the pid file is not a regular file"
    diag "output:" "$FA_OUT"
fi
FA_TIMEOUT=30 fa_agent apache stop
fa_check_rc "FIFO pid file: stop: 0" 0
# Gone, or a zombie that init reaps in a moment (the agent counts it gone).
for _ in $(seq 1 50); do
    [ -n "$fifo_httpd" ] && kill -0 "$fifo_httpd" 2>/dev/null || break
    sleep 0.1
done
if [ -n "$fifo_httpd" ] && kill -0 "$fifo_httpd" 2>/dev/null; then
    not_ok "FIFO pid file: stop leaves no httpd (pid $fifo_httpd)"
    kill -KILL "$fifo_httpd" 2>/dev/null
else
    ok "FIFO pid file: stop leaves no httpd (pid ${fifo_httpd:-unknown})"
fi
rm -f "$FA_PID_FILE"
unset OCF_RESKEY_CRM_meta_timeout OCF_RESKEY_CRM_meta_interval
fa_clear_params

tap_done
