#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-validate.sh: every validate-all error of the agents, with its exit
# code and an exit reason that names the parameter and value.  The codes, as
# the OCF specification and Pacemaker assign them: 6 (OCF_ERR_CONFIGURED) for
# a value that is wrong on every node, 5 (OCF_ERR_INSTALLED) for a file a
# parameter names that is missing on this node and for missing software, as
# ocf:heartbeat:apache answers.  Runs no service; needs Apache installed (httpd -t).

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_apache
tap_watchdog 120
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"

plan 69

fa_params
fa_agent apache validate-all
fa_check_rc "a good configuration validates (0)" 0

# Files and programs.
fa_params
export OCF_RESKEY_configfile=$FA_DIR/no-such.conf
fa_agent apache validate-all
fa_check_rc_reason "missing configfile: 5, names it" 5 "configfile '$FA_DIR/no-such.conf'"

fa_params
printf "not a program\n" >"$FA_DIR/not-httpd" && chmod 644 "$FA_DIR/not-httpd"
export OCF_RESKEY_httpd=$FA_DIR/not-httpd
fa_agent apache validate-all
fa_check_rc_reason "httpd not executable: 5, names it" 5 "httpd '$FA_DIR/not-httpd' is not an executable"

fa_params
export OCF_RESKEY_httpd=/nonexistent/sbin/httpd
fa_agent apache validate-all
fa_check_rc_reason "httpd missing: 5, names it" 5 "httpd '/nonexistent/sbin/httpd'"

fa_params
export OCF_RESKEY_httpd=apache2
fa_agent apache validate-all
fa_check_rc_reason "httpd not an absolute path: 6" 6 "httpd 'apache2' is not an absolute path"

fa_params
export OCF_RESKEY_testconffile=$FA_DIR/no-such-test.conf
fa_agent apache validate-all
fa_check_rc_reason "missing testconffile: 5, names it" 5 "testconffile '$FA_DIR/no-such-test.conf'"

# A FIFO blocked the reader in open() for ever (and /dev/zero would never end).
fa_params
mkfifo "$FA_DIR/fifo-test.conf"
export OCF_RESKEY_testconffile=$FA_DIR/fifo-test.conf
FA_TIMEOUT=10 fa_agent apache validate-all
fa_check_rc_reason "testconffile a FIFO: 6 at once, names it" 6 "testconffile '$FA_DIR/fifo-test.conf' is not a regular file"
rm -f "$FA_DIR/fifo-test.conf"

fa_params
export OCF_RESKEY_tls_ca_file=$FA_DIR/no-such-ca.pem
fa_agent apache validate-all
fa_check_rc_reason "missing tls_ca_file: 5, names it" 5 "tls_ca_file '$FA_DIR/no-such-ca.pem'"

fa_params
export OCF_RESKEY_tls_cert_file=$FA_DIR/no-such-cert.pem
fa_agent apache validate-all
fa_check_rc_reason "missing tls_cert_file: 5, names it" 5 "tls_cert_file '$FA_DIR/no-such-cert.pem'"

fa_params
export OCF_RESKEY_tls_cert_file=/etc/hostname OCF_RESKEY_tls_key_file=$FA_DIR/no-such-key.pem
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon, missing tls_key_file: 5, names it" 5 "tls_key_file '$FA_DIR/no-such-key.pem'"

fa_params
export OCF_RESKEY_tls_min_version=1.0
fa_agent apache validate-all
fa_check_rc_reason "tls_min_version=1.0: 6, says what is accepted" 6 "expected 1.2 or 1.3"

fa_params
export OCF_RESKEY_envfiles=relative/envvars
fa_agent apache validate-all
fa_check_rc_reason "relative envfiles: 6, names it" 6 "envfiles entry 'relative/envvars'"

# Debian's envvars: the lock directory is made and given to APACHE_RUN_USER
# (as apache2ctl does), by chown(1): no NSS lookup in the agent.  A user the
# system does not know is a warning, not a crash or a failed validation.
lock_case() { # USER: validate-all with an envfile naming a lock directory for USER
    rm -rf "$FA_DIR/lock"
    printf 'export APACHE_LOCK_DIR=%s\nexport APACHE_RUN_USER=%s\n' "$FA_DIR/lock" "$1" >"$FA_DIR/envvars-lock"
    fa_params
    export OCF_RESKEY_envfiles=$FA_DIR/envvars-lock
    fa_agent apache validate-all
}
if [ "$(id -u)" != 0 ]; then
    # chown to another user needs root; as another user the directory is not root's.
    for name in "APACHE_LOCK_DIR given to APACHE_RUN_USER=nobody" "APACHE_RUN_USER unknown to the system: a warning" \
        "APACHE_RUN_USER with a colon: a warning"; do
        skip "$name" "needs root (chown)"
    done
else
    lock_case nobody
    check "APACHE_LOCK_DIR made and given to APACHE_RUN_USER=nobody (validates: 0)" \
        test "$FA_RC:$(stat -c %U "$FA_DIR/lock" 2>/dev/null)" = 0:nobody
    lock_case fm-no-such-user
    if [ "$FA_RC" = 0 ] && [ -d "$FA_DIR/lock" ] && [ "$(stat -c %u "$FA_DIR/lock")" = 0 ] &&
        printf '%s' "$FA_OUT" | grep -q "WARNING: .*cannot give $FA_DIR/lock to fm-no-such-user: .*fm-no-such-user"; then
        ok "APACHE_RUN_USER unknown to the system: validates (0), the lock directory stays root's, a warning names the user"
    else
        not_ok "APACHE_RUN_USER unknown to the system: validates (0), the lock directory stays root's, a warning names the user"
        diag "exit code $FA_RC" "$FA_OUT"
    fi
    lock_case 'nobody:root'
    if [ "$FA_RC" = 0 ] && [ "$(stat -c %U:%G "$FA_DIR/lock" 2>/dev/null)" = root:root ] &&
        printf '%s' "$FA_OUT" | grep -q "APACHE_RUN_USER 'nobody:root': not a user name"; then
        ok "APACHE_RUN_USER with a colon is not handed to chown as user:group: a warning"
    else
        not_ok "APACHE_RUN_USER with a colon is not handed to chown as user:group: a warning"
        diag "exit code $FA_RC, owner $(stat -c %U:%G "$FA_DIR/lock" 2>/dev/null)" "$FA_OUT"
    fi
fi

# Values.
fa_params
export OCF_RESKEY_Monitor_Uri_List="http//127.0.0.1/health"
fa_agent apache validate-all
fa_check_rc_reason "malformed URI (no ://): 6, names parameter and value" 6 \
    "Monitor_Uri_List.*http//127.0.0.1/health"

fa_params
export OCF_RESKEY_Monitor_Uri_List="http://127.0.0.1:99999/health"
fa_agent apache validate-all
fa_check_rc_reason "malformed URI (port 99999): 6, names parameter and value" 6 \
    "Monitor_Uri_List.*http://127.0.0.1:99999/health"

fa_params
export OCF_RESKEY_Port_list="127.0.0.1:80/udp"
fa_agent apache validate-all
fa_check_rc_reason "malformed Port_list item: 6, names parameter and value" 6 "Port_list.*127.0.0.1:80/udp"

# The protocols of issue 12 validate in Port_list; an unknown scheme, key or
# a bad send string is named.
fa_params
export OCF_RESKEY_Port_list="redis://:pw@127.0.0.1:6379 smtp://127.0.0.1:25?starttls,tcp://[::1]:22?family=inet6"
export OCF_RESKEY_send_string='QUIT\r\n' OCF_RESKEY_expect_regex='^SSH-'
fa_agent apache validate-all
fa_check_rc "Port_list with redis://, smtp://?starttls, tcp:// and send/expect validates (0)" 0
fa_params
export OCF_RESKEY_Port_list="gopher://127.0.0.1:70"
fa_agent apache validate-all
fa_check_rc_reason "an unknown scheme: 6, names it" 6 "Port_list.*unknown scheme 'gopher'"
fa_params
export OCF_RESKEY_Port_list="imap://127.0.0.1?family=ipx"
fa_agent httpmon validate-all
fa_check_rc_reason "a bad ?family (httpmon): 6, names it" 6 "family=ipx"
fa_params
export OCF_RESKEY_send_string='a\q'
fa_agent apache validate-all
fa_check_rc_reason "a bad send_string escape: 6, names it" 6 "send_string.*unknown escape"

# Probe_command: a program this node can run validates; shell syntax is
# the configuration's fault (6); a program missing here is this node's (5).
fa_params
export OCF_RESKEY_Probe_command="true
/bin/sh -c 'exit 0'"
fa_agent apache validate-all
fa_check_rc "Probe_command with two commands validates (0)" 0
fa_params
export OCF_RESKEY_Probe_command="/bin/check | grep ok"
fa_agent httpmon validate-all
fa_check_rc_reason "Probe_command with a pipe (httpmon): 6, says no shell runs it" 6 \
    "Probe_command.*no shell runs it"
fa_params
export OCF_RESKEY_Probe_command="/nonexistent/check_db --port 5432"
fa_agent apache validate-all
fa_check_rc_reason "Probe_command's program missing: 5, names it" 5 "/nonexistent/check_db.*cannot be found"
fa_params
export OCF_RESKEY_Probe_command="no-such-check-program"
fa_agent apache validate-all
fa_check_rc_reason "Probe_command's bare name not in the path: 5, names it" 5 "no-such-check-program.*is not in"

# The agent reads as root: an Include of /etc/shadow (here a look-alike,
# through a symlink) made httpd -t's reason quote its first word, a hash
# (issue 30, item 9).  The reason names the file and line, and a length.
fa_params
printf 'root:$6$SALTs3cr3t:19000:0:99999:7:::\n' >"$FA_DIR/shadow"
ln -sf "$FA_DIR/shadow" "$FA_DIR/shadow.link"
{ cat "$FA_CONF"; echo "Include $FA_DIR/shadow.link"; } >"$FA_DIR/with-shadow.conf"
export OCF_RESKEY_configfile=$FA_DIR/with-shadow.conf
fa_agent apache validate-all
fa_check_rc_reason "an Include of a shadow-like file: 6, names the file, shows a length, not its words" 6 \
    "shadow.link.*'<[0-9]+ bytes>'"
if printf '%s' "$FA_OUT" | grep -q 'SALT\|root:'; then
    not_ok "no word of the shadow-like file in the agent's output"
    diag "$FA_OUT"
else
    ok "no word of the shadow-like file in the agent's output"
fi

# nginx alike: its reader's reason, and nginx -t's own, show a length.
if [ -x "${WS_NGINX:-/usr/sbin/nginx}" ] && fa_nginx_setup; then
    cp "$FA_NCONF" "$FA_NDIR/with-shadow.conf"
    echo "include $FA_DIR/shadow.link;" >>"$FA_NDIR/with-shadow.conf"
    fa_nginx_params
    export OCF_RESKEY_configfile=$FA_NDIR/with-shadow.conf
    fa_agent nginx validate-all
    fa_check_rc_reason "nginx: an include of a shadow-like file: 6, file and line, no word of it" 6 \
        "shadow.link:1: a directive of 1 word \\(the first [0-9]+ bytes\\)"
    printf 'root:$6$SALTs3cr3t:19000:0:99999:7:::;\n' >"$FA_NDIR/shadow2"
    cp "$FA_NCONF" "$FA_NDIR/with-shadow2.conf"
    echo "include $FA_NDIR/shadow2;" >>"$FA_NDIR/with-shadow2.conf"
    export OCF_RESKEY_configfile=$FA_NDIR/with-shadow2.conf
    fa_agent nginx validate-all
    why=""
    printf '%s' "$FA_REASON" | grep -q 'nginx -t: .*"<[0-9]* bytes>" in .*shadow2:1' || why="reason '$FA_REASON'"
    printf '%s' "$FA_OUT" | grep -q 'SALT' && why="${why:+$why; }the word shows"
    [ "$FA_RC" = 6 ] || why="${why:+$why; }exit $FA_RC"
    if [ -z "$why" ]; then
        ok "nginx -t's reason on a shadow-like include: 6, a length, not the word"
    else
        not_ok "nginx -t's reason on a shadow-like include: 6, a length, not the word"
        diag "$why" "$FA_OUT"
    fi
else
    skip "nginx: an include of a shadow-like file" "nginx is not installed"
    skip "nginx -t's reason on a shadow-like include" "nginx is not installed"
fi

# Eight symlinks to their own directory under a glob seven levels deep: 18 s
# and 136 MB before (issue 30, item 10); now bounded as the walk runs.
fa_params
mkdir -p "$FA_DIR/sl"
for i in 1 2 3 4 5 6 7 8; do ln -sfn . "$FA_DIR/sl/l$i"; done
: >"$FA_DIR/sl/x.conf"
{ cat "$FA_CONF"; echo "IncludeOptional $FA_DIR/sl/*/*/*/*/*/*/*/*.conf"; } >"$FA_DIR/with-loop.conf"
export OCF_RESKEY_configfile=$FA_DIR/with-loop.conf
start_ns=$(date +%s%N)
FA_TIMEOUT=30 fa_agent apache validate-all
elapsed_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
fa_check_rc_reason "an include glob through a symlink loop: 6, one line naming the bound" 6 \
    "sl/\\*/.*more than 2048 matches"
ok_if "$([ "$elapsed_ms" -lt 1000 ]; echo $?)" "... within a second (${elapsed_ms} ms)"

fa_params
export OCF_RESKEY_Thorough_probe_interval=-5
fa_agent apache validate-all
fa_check_rc_reason "negative Thorough_probe_interval: 6, names parameter and value" 6 \
    "'-5' for Thorough_probe_interval"

fa_params
export OCF_RESKEY_Retry_interval=-300s
fa_agent apache validate-all
fa_check_rc_reason "negative Retry_interval: 6, names parameter and value" 6 "'-300s' for Retry_interval"

fa_params
export OCF_RESKEY_Retry_count=-1
fa_agent apache validate-all
fa_check_rc_reason "negative Retry_count: 6, names parameter and value" 6 "'-1' for Retry_count"

fa_params
export OCF_RESKEY_Probe_timeout=30s OCF_RESKEY_CRM_meta_timeout=20000
fa_agent apache validate-all
fa_check_rc_reason "Probe_timeout longer than the operation timeout: 6, names both" 6 \
    "Probe_timeout=30s is longer than the validate-all operation's timeout 20s"

fa_params
export OCF_RESKEY_receive_regex="(unbalanced"
fa_agent apache validate-all
fa_check_rc_reason "bad receive_regex: 6, names it" 6 "receive_regex"

# Values longer than the agent's buffers were cut silently: a statusurl or
# testurl would then name another page, a testregex10 match more pages.
long_path=$(head -c 2100 /dev/zero | tr '\0' a)
fa_params
export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/$long_path"
fa_agent apache validate-all
fa_check_rc_reason "statusurl longer than 2047 bytes: 6, says so" 6 "statusurl is longer than 2047 bytes"
fa_params
export OCF_RESKEY_testurl="http://127.0.0.1:$FA_PORT/server-status"
# Digits: case folding (4 bytes a letter, within 4096) does not refuse them.
OCF_RESKEY_testregex10=$(head -c 2100 /dev/zero | tr '\0' 1)
export OCF_RESKEY_testregex10
fa_agent apache validate-all
fa_check_rc_reason "testregex10 longer than 2047 bytes: 6, says so" 6 "testregex10 is longer than 2047 bytes"

# statusurl is a URL, never a path on the local server.
for url in yoyoyoyo /server-status "ftp://127.0.0.1/server-status"; do
    fa_params
    export OCF_RESKEY_statusurl=$url
    fa_agent apache validate-all
    fa_check_rc_reason "statusurl '$url' (not an absolute http(s) URL): 6, names it" 6 \
        "statusurl '$url' is not an absolute http:// or https:// URL"
done

# Patterns that would keep regcomp() busy for gigabytes: refused at once
# (the agent's own elapsed time, so a loaded machine does not decide).
fm_regex_bomb="a$(printf '+%.0s' $(seq 60))"
for param in receive_regex testregex testregex10; do
    fa_params
    export "OCF_RESKEY_$param=$fm_regex_bomb"
    [ "$param" = testregex10 ] && export OCF_RESKEY_testurl=/server-status
    fm_t0=$(date +%s%N)
    fa_agent apache validate-all
    fm_ms=$((($(date +%s%N) - fm_t0) / 1000000))
    if [ "$FA_RC" = 6 ] && [ "$fm_ms" -lt 1000 ] && printf '%s' "$FA_REASON" | grep -q "$param.*in a row" \
        && [ "$(printf '%s\n' "$FA_REASON" | wc -l)" = 1 ]; then
        ok "$param of a followed by 60 '+': 6 within 1 s (${fm_ms} ms), one line naming it"
    else
        not_ok "$param of a followed by 60 '+': 6 within 1 s, one line naming it"
        diag "rc $FA_RC after ${fm_ms} ms, reason '$FA_REASON'" "$FA_OUT"
    fi
done
fm_t0=$(date +%s%N)
fm_out=$(fm_timeout 10 "$FAULTMON" probe --receive 'a{1000}{1000}' "http://127.0.0.1:$FA_PORT/" 2>&1)
fm_rc=$?
fm_ms=$((($(date +%s%N) - fm_t0) / 1000000))
if [ "$fm_rc" = 64 ] && [ "$fm_ms" -lt 1000 ] && printf '%s' "$fm_out" | grep -q "invalid regex 'a{1000}{1000}'.*expand"; then
    ok "faultmon probe --receive 'a{1000}{1000}': usage error (64) within 1 s (${fm_ms} ms)"
else
    not_ok "faultmon probe --receive 'a{1000}{1000}': usage error (64) within 1 s"
    diag "rc $fm_rc after ${fm_ms} ms" "$fm_out"
fi

fa_params
export OCF_RESKEY_expect_status="200-abc"
fa_agent apache validate-all
fa_check_rc_reason "bad expect_status: 6, names it" 6 "expect_status.*200-abc"

# maintenance_status is checked before expect_status: a 5xx there would turn
# a real outage into maintenance (degraded, never recovered).
fa_params
export OCF_RESKEY_maintenance_status="404,503"
fa_agent apache validate-all
fa_check_rc_reason "maintenance_status with a 5xx: 6, says why" 6 \
    "maintenance_status: 503 .* is a server error; a 5xx never signals maintenance"

fa_params
export OCF_RESKEY_port=0x50
fa_agent apache validate-all
fa_check_rc_reason "bad port: 6, names it" 6 "invalid port '0x50'"

fa_params
export OCF_RESKEY_use_ipv6=perhaps
fa_agent apache validate-all
fa_check_rc_reason "bad use_ipv6: 6, names it" 6 "invalid use_ipv6 'perhaps'"

fa_params
export OCF_RESKEY_options="-C 'ServerName x"
fa_agent apache validate-all
fa_check_rc_reason "options with an unbalanced quote: 6" 6 "invalid options"

fa_params
export OCF_RESKEY_testurl=/server-status
fa_agent apache validate-all
fa_check_rc_reason "testurl without testregex10: 6" 6 "testurl '/server-status' needs testregex10"

printf 'test first\nurl /\nmatch html\nend\n' >"$FA_DIR/tests.conf"
fa_params
export OCF_RESKEY_testconffile=$FA_DIR/tests.conf OCF_RESKEY_testname=second
fa_agent apache validate-all
fa_check_rc_reason "testname not in testconffile: 6, names it" 6 "no test named second"

fa_params
echo "NoSuchDirective here" >"$FA_DIR/conf.d/broken.conf"
fa_agent apache validate-all
fa_check_rc_reason "configuration httpd -t rejects: 6, with httpd's reason naming the file, the word it refused as a length" 6 \
    "apache2 -t: .*conf.d/broken.conf.*'<15 bytes>'"
rm -f "$FA_DIR/conf.d/broken.conf"

# A password in a malformed URI never reaches the exit reason, which names
# the URI redacted (so that a reason without the URI cannot pass).
fa_params
export OCF_RESKEY_Monitor_Uri_List="http://fmuser:S3cretPW@127.0.0.1:99999/"
fa_agent apache validate-all
if [ "$FA_RC" = 6 ] && ! printf '%s' "$FA_OUT" | grep -q S3cretPW &&
    printf '%s' "$FA_REASON" | grep -q '\*\*\*@127\.0\.0\.1:99999'; then
    ok "malformed URI with a password: 6, the reason shows it redacted, the password is not in the output"
else
    not_ok "malformed URI with a password: 6, the reason shows it redacted, the password is not in the output"
    diag "rc $FA_RC" "$FA_OUT"
fi

fa_clear_params
export OCF_RESOURCE_INSTANCE="../etc"
export OCF_RESKEY_configfile=$FA_CONF OCF_RESKEY_envfiles=""
fa_agent apache validate-all
fa_check_rc_reason "a resource name that is not a file name: 6" 6 "OCF_RESOURCE_INSTANCE '../etc'"

# httpmon.
fa_clear_params
export OCF_RESOURCE_INSTANCE=fmcheck OCF_RESKEY_Port_list="127.0.0.1:$FA_PORT"
fa_agent httpmon validate-all
fa_check_rc "httpmon: a good configuration validates (0)" 0

export OCF_RESKEY_health_attribute=web-health
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon: health_attribute without #health-: 6" 6 "health_attribute 'web-health'"
unset OCF_RESKEY_health_attribute

export OCF_RESKEY_multiplier=ten
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon: bad multiplier: 6" 6 "multiplier 'ten'"
unset OCF_RESKEY_multiplier

export OCF_RESKEY_dampen=soon
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon: bad dampen: 6" 6 "dampen 'soon'"
unset OCF_RESKEY_dampen

export OCF_RESKEY_Monitor_Uri_List="ftp://127.0.0.1/"
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon: malformed URI: 6" 6 "Monitor_Uri_List.*ftp://127.0.0.1/"
unset OCF_RESKEY_Monitor_Uri_List

export OCF_RESKEY_maintenance_status=503
fa_agent httpmon validate-all
fa_check_rc_reason "httpmon: maintenance_status 503: 6, says why" 6 \
    "maintenance_status: 503 is a server error; a 5xx never signals maintenance"

# advanced: its NAME=VALUE words are checked as the parameters by name.
fa_params
export OCF_RESKEY_advanced="rise=2 http_headers='X-Check: 1'"
fa_agent apache validate-all
fa_check_rc "advanced with good words validates (0)" 0
export OCF_RESKEY_advanced="fall=2 rise=abc"
fa_agent apache validate-all
fa_check_rc_reason "advanced: a bad value is 6, named as by its name" 6 "'abc' for rise"
export OCF_RESKEY_advanced="reverse=true"
fa_agent apache validate-all
fa_check_rc_reason "advanced: reverse=true without a regex is 6, as by its name" 6 \
    "reverse=true needs receive_regex or expect_regex"
export OCF_RESKEY_advanced="rise=2 no_such=1"
fa_agent apache validate-all
fa_check_rc_reason "advanced: an unknown name is 6, named" 6 "advanced: 'no_such' is not a parameter"
export OCF_RESKEY_rise=3 OCF_RESKEY_advanced="rise=2"
fa_agent apache validate-all
fa_check_rc_reason "advanced: a name also set by name with another value is 6" 6 "rise is set twice"
unset OCF_RESKEY_advanced OCF_RESKEY_rise
# A stop goes on past a typo in advanced and gets every well-formed word,
# those after the typo too: httpd after it reaches the stop (which logs
# that it is not there, after the typo's exit reason), and the stop is 0.
: >"$FA_TMP/typo.log"
export OCF_RESKEY_advanced="no_such=1 httpd=/nonexistent/faultmon-httpd"
HA_LOGFILE=$FA_TMP/typo.log fa_agent apache stop
fa_check_rc "stop with a typo in advanced: 0" 0
like "$(cat "$FA_TMP/typo.log")" "httpd '/nonexistent/faultmon-httpd' is not an executable" \
    "stop with a typo in advanced: the word after the typo reaches the stop"
unset OCF_RESKEY_advanced

tap_done
