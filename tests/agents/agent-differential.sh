#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-differential.sh: the same broken set-ups through ocf:heartbeat:apache
# (Debian's resource-agents) and the built ocf:faultmon:apache, on a real
# Apache on loopback.  For each case and each of validate-all, start and
# monitor (OCF_CHECK_LEVEL 0 and 10) it prints both exit codes and asserts
# the rule: faultmon never answers success (0, or 190 which Pacemaker treats
# as 0) where heartbeat fails.  Every other difference is listed, with its
# reason, in README.md ("Differences from ocf:heartbeat:apache").
#
# Each action is bounded by its operation timeout (a heartbeat start that
# waits for an httpd that never comes up, or a wget that never returns, is
# cut off there and counted as a failure, as Pacemaker counts it); the whole
# script by a watchdog.

# shellcheck disable=SC2317   # set-up and fault functions are called through dt_case
FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/agents/differential-lib.sh
. "$(dirname "$0")/differential-lib.sh"

DT_HEARTBEAT=${OCF_ROOT:-/usr/lib/ocf}/resource.d/heartbeat/apache
DT_HB_NAME=ocf:heartbeat:apache
DT_OP_TIMEOUT_S=8
DT_LEVELS="10"

fa_require_root
fa_require_apache
if [ ! -x "$DT_HEARTBEAT" ]; then
    echo "1..0 # SKIP ocf:heartbeat:apache is not installed (apt-get install resource-agents)"
    exit 0
fi
if ! command -v wget >/dev/null 2>&1 && ! command -v curl >/dev/null 2>&1; then
    echo "1..0 # SKIP ocf:heartbeat:apache needs wget or curl"
    exit 0
fi
for m in alias ssl socache_shmcb; do
    if [ ! -f "$WS_APACHE_MODULES/mod_$m.so" ]; then
        echo "1..0 # SKIP Apache's mod_$m is not installed"
        exit 0
    fi
done
tap_watchdog 900
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"
DT_FAULTMON=$FA_APACHE

DT_CASES=16
plan $((DT_CASES * 4 + 2))

# The healthy set-up every case starts from: a static status page that
# matches heartbeat's default testregex, mod_alias for injected statuses.
# heartbeat's configuration reader follows Include but not IncludeOptional
# (it would look for Listen in vain and probe localhost:80): the comparison
# is of verdicts, so both read the same files.
sed -i 's/^IncludeOptional conf.d/Include conf.d/' "$FA_CONF"
cp "$FA_CONF" "$FA_DIR/httpd.conf.orig"
cp "$FA_DIR/conf.d/ports.conf" "$FA_DIR/ports.conf.orig"
DT_PAGE='<html><body>faultmon-status-ok</body></html>'
DT_PORT2=$(fm_free_port 0) || bail_out "no free port"
ws_make_cert "$FA_DIR" || bail_out "cannot make a certificate"
chmod 644 "$FA_DIR/key.pem"
printf 'not a program\n' >"$FA_DIR/not-httpd"
chmod 644 "$FA_DIR/not-httpd"
dt_start_slow_server "$FA_DIR"

dt_reset_config() {
    cp "$FA_DIR/httpd.conf.orig" "$FA_CONF"
    cp "$FA_DIR/ports.conf.orig" "$FA_DIR/conf.d/ports.conf"
    echo "LoadModule alias_module $WS_APACHE_MODULES/mod_alias.so" >"$FA_DIR/conf.d/alias.conf"
    rm -f "$FA_DIR/conf.d/fault.conf" "$FA_DIR/conf.d/ssl.conf"
    printf '%s\n' "$DT_PAGE" >"$FA_DIR/htdocs/status.html"
    chmod 644 "$FA_DIR/htdocs/status.html"
}

# The parameters both agents get; each agent ignores the other's.
DT_N=0
dt_params() {
    DT_N=$((DT_N + 1))
    fa_params "dt$DT_N"
    export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/status.html"
    export OCF_RESKEY_testurl=$OCF_RESKEY_statusurl
    export OCF_RESKEY_testregex10='</ *html *>'
    export OCF_RESKEY_CRM_meta_timeout=$((DT_OP_TIMEOUT_S * 1000))
}

# The PIDs of this test's httpd: its master and the master's children.
dt_httpd_pids() {
    local pid
    pid=$(fa_httpd_pid)
    [ -n "$pid" ] || return 0
    echo "$pid"
    pgrep -P "$pid"
}

# Wait until the page answers STATUS (000 for no answer), at most 5 s.
dt_wait_status() {
    dt_wait_status_url "$1" "${2:-http://127.0.0.1:$FA_PORT/status.html}"
}

# A graceful restart of the running httpd, to take a changed configuration.
# Only while the pid file names this test's httpd (fa_httpd_pid): SIGUSR1
# kills most other processes, and a stale file's recycled PID was a cluster
# test's node init, killed here while both ran (make -j2, in CI).
dt_graceful() {
    local pid
    pid=$(fa_httpd_pid)
    [ -n "$pid" ] && kill -USR1 "$pid"
}

dt_stop_all() {
    local pid
    for pid in $(dt_httpd_pids); do
        kill -CONT "$pid" 2>/dev/null
    done
    dt_run "$1" stop
    fa_apache_kill
    for pid in $(dt_httpd_pids); do
        kill -KILL "$pid" 2>/dev/null
    done
    rm -f "$FA_PID_FILE"
}

# ---- the set-ups ----

setup_none() { :; }
inject_none() { :; }

setup_no_status_module() {
    sed -i '/mod_status.so/d' "$FA_CONF"
    export OCF_RESKEY_statusurl="http://127.0.0.1:$FA_PORT/server-status"
    export OCF_RESKEY_testurl=$OCF_RESKEY_statusurl
}
# As a2dismod status leaves Debian's configuration: neither the module nor
# its Location.  (heartbeat finds a server-status Location even inside an
# IfModule of a module that is not loaded; faultmon follows IfModule.)
setup_no_status_module_default() {
    sed -i '/mod_status.so/d; /<IfModule mod_status.c>/,/<\/IfModule>/d' "$FA_CONF"
    # testurl stays: without it heartbeat's level 10 is a configuration
    # error (6) whatever the service does (see README).
    unset OCF_RESKEY_statusurl
}

inject_404() {
    rm -f "$FA_DIR/htdocs/status.html"
    dt_wait_status 404 || DT_INJECTED_OK=false
}
inject_status() {
    echo "Redirect $1 /status.html" >"$FA_DIR/conf.d/fault.conf"
    dt_graceful
    dt_wait_status "$1" || DT_INJECTED_OK=false
}
inject_500() { inject_status 500; }
inject_503() { inject_status 503; }
inject_no_match() {
    echo "faultmon-status-without-the-closing-tag" >"$FA_DIR/htdocs/status.html"
}

setup_wrong_listen() {
    echo "Listen 127.0.0.1:$DT_PORT2" >"$FA_DIR/conf.d/ports.conf"
}
setup_configfile_missing() {
    export OCF_RESKEY_configfile=$FA_DIR/no-such.conf
}
setup_httpd_missing() {
    export OCF_RESKEY_httpd=/nonexistent/sbin/apache2
}
setup_httpd_not_executable() {
    export OCF_RESKEY_httpd=$FA_DIR/not-httpd
}
setup_ipv6_only() {
    echo "Listen [::1]:$FA_PORT" >"$FA_DIR/conf.d/ports.conf"
    # heartbeat's clients bind to 127.0.0.1 unless use_ipv6 is set.
    export OCF_RESKEY_use_ipv6=true
    export OCF_RESKEY_statusurl="http://[::1]:$FA_PORT/status.html"
    export OCF_RESKEY_testurl=$OCF_RESKEY_statusurl
}
setup_ssl_only() {
    echo "Listen 127.0.0.1:$FA_PORT https" >"$FA_DIR/conf.d/ports.conf"
    cat >"$FA_DIR/conf.d/ssl.conf" <<CONF
LoadModule socache_shmcb_module $WS_APACHE_MODULES/mod_socache_shmcb.so
LoadModule ssl_module $WS_APACHE_MODULES/mod_ssl.so
SSLEngine on
SSLCertificateFile $FA_DIR/cert.pem
SSLCertificateKeyFile $FA_DIR/key.pem
CONF
    export OCF_RESKEY_statusurl="https://127.0.0.1:$FA_PORT/status.html"
    export OCF_RESKEY_testurl=$OCF_RESKEY_statusurl
}
inject_sigstop() {
    local pid
    for pid in $(dt_httpd_pids); do
        kill -STOP "$pid"
    done
}
inject_kill() {
    local pid
    for pid in $(dt_httpd_pids); do
        kill -KILL "$pid"
    done
}
setup_slow_page() {
    export OCF_RESKEY_statusurl="http://127.0.0.1:$DT_SLOW_PORT/server-status"
    export OCF_RESKEY_testurl=$OCF_RESKEY_statusurl
}

# A positive control: on the healthy set-up both agents succeed everywhere,
# so that a case where both fail means the set-up is broken, not the test.
dt_case "healthy (control)" setup_none inject_none
if [ "${DT_RESULT[hb,monitor]}${DT_RESULT[fm,monitor]}${DT_RESULT[hb,start]}${DT_RESULT[fm,start]}" = 0000 ]; then
    ok "control: both agents start and monitor the healthy set-up (0)"
else
    not_ok "control: both agents start and monitor the healthy set-up (0)"
fi
dt_case "no mod_status, no statusurl" setup_no_status_module_default inject_none
dt_case "no mod_status, statusurl /server-status" setup_no_status_module inject_none
dt_case "status page answers 404 after start" setup_none inject_404
dt_case "status page answers 500 after start" setup_none inject_500
dt_case "status page answers 503 after start" setup_none inject_503
dt_case "testregex stops matching after start" setup_none inject_no_match
dt_case "wrong Listen" setup_wrong_listen inject_none
dt_case "configfile missing" setup_configfile_missing inject_none
dt_case "httpd missing" setup_httpd_missing inject_none
dt_case "httpd not executable" setup_httpd_not_executable inject_none
if ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
    dt_case "IPv6-only Listen" setup_ipv6_only inject_none
else
    for _ in 1 2 3 4; do
        skip "IPv6-only Listen: no ::1 on lo"
    done
fi
dt_case "SSL-only virtual host (self-signed)" setup_ssl_only inject_none
dt_case "Apache stopped with SIGSTOP" setup_none inject_sigstop
dt_case "Apache killed" setup_none inject_kill
dt_case "status page slower than the monitor timeout" setup_slow_page inject_none
dt_injected_report

tap_done
