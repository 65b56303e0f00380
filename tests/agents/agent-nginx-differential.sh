#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-nginx-differential.sh: the same broken set-ups through
# ocf:heartbeat:nginx (Debian's resource-agents) and the built
# ocf:faultmon:nginx, on a real nginx on a free loopback port.  For each
# case and each of validate-all, start and monitor (OCF_CHECK_LEVEL 0, 10,
# 20 and 30) it prints both exit codes and asserts the rule: faultmon never
# answers success (0, or 190 which Pacemaker treats as 0) where heartbeat
# fails.  Every other difference is listed, with its reason, in README.md
# ("Differences from ocf:heartbeat:nginx").
#
# Each action is bounded by its operation timeout (a heartbeat start that
# waits for an nginx that never comes up, or a curl that never returns, is
# cut off there and counted as a failure, as Pacemaker counts it); the whole
# script by a watchdog.  Nothing is written outside the test's temp dir:
# nginx gets -p and -e, the configuration names its pid file.

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

DT_HEARTBEAT=${OCF_ROOT:-/usr/lib/ocf}/resource.d/heartbeat/nginx
DT_HB_NAME=ocf:heartbeat:nginx
DT_OP_TIMEOUT_S=8
DT_LEVELS="10 20 30"

fa_require_root
fa_require_nginx
if [ ! -x "$DT_HEARTBEAT" ]; then
    echo "1..0 # SKIP ocf:heartbeat:nginx is not installed (apt-get install resource-agents)"
    exit 0
fi
if ! command -v curl >/dev/null 2>&1 && ! command -v wget >/dev/null 2>&1; then
    echo "1..0 # SKIP ocf:heartbeat:nginx needs curl or wget"
    exit 0
fi
tap_watchdog 900
fa_agents_setup
fa_nginx_setup || bail_out "cannot write an nginx configuration"
DT_FAULTMON=$FA_NGINX

DT_CASES=17
plan $((DT_CASES * 6 + 2))

# heartbeat's configuration reader takes a relative include as relative to
# its working directory (or the last root directive), not to the
# configuration's: both agents get an absolute one, so that both read the
# same files (the comparison is of verdicts).
sed -i "s|include conf.d/|include $FA_NDIR/conf.d/|" "$FA_NCONF"
cp "$FA_NCONF" "$FA_NDIR/nginx.conf.orig"
DT_PORT2=$(fm_free_port 0) || bail_out "no free port"
ws_make_cert "$FA_NDIR" || bail_out "cannot make a certificate"
printf 'not a program\n' >"$FA_NDIR/not-nginx"
chmod 644 "$FA_NDIR/not-nginx"
printf '#!/bin/sh\nexit 0\n' >"$FA_NDIR/ext-ok"
printf '#!/bin/sh\nexit 1\n' >"$FA_NDIR/ext-fail"
chmod 755 "$FA_NDIR/ext-ok" "$FA_NDIR/ext-fail"
dt_start_slow_server "$FA_NDIR"

dt_reset_config() {
    cp "$FA_NDIR/nginx.conf.orig" "$FA_NCONF"
    echo "listen 127.0.0.1:$FA_NPORT;" >"$FA_NDIR/conf.d/listen.conf"
    echo "<html><body>faultmon-nginx-index</body></html>" >"$FA_NDIR/htdocs/index.html"
    chmod 644 "$FA_NDIR/htdocs/index.html"
}

# The parameters both agents get (heartbeat ignores faultmon's).
DT_N=0
dt_params() {
    DT_N=$((DT_N + 1))
    fa_nginx_params "dtn$DT_N"
    export OCF_RESKEY_test20url=/index.html
    export OCF_RESKEY_test20regex=faultmon-nginx-index
    export OCF_RESKEY_external_monitor30_cmd=$FA_NDIR/ext-ok
    export OCF_RESKEY_CRM_meta_timeout=$((DT_OP_TIMEOUT_S * 1000))
}

# nginx rereads its configuration (SIGHUP), only while the pid file names
# this test's master.
dt_hup() {
    local pid
    pid=$(fa_nginx_pid)
    [ -n "$pid" ] && kill -HUP "$pid"
}

dt_stop_all() {
    local pid
    for pid in $(fa_nginx_pids); do
        kill -CONT "$pid" 2>/dev/null
    done
    dt_run "$1" stop
    fa_nginx_kill
    rm -f "$FA_NPID_FILE"
}

# ---- the set-ups ----

setup_none() { :; }
inject_none() { :; }

setup_no_stub_status() {
    sed -i '/location \/nginx_status/,/}/d' "$FA_NCONF"
}
setup_bare_stub_status() {
    sed -i 's/stub_status on;/stub_status;/' "$FA_NCONF"
}
setup_status10regex_mismatch() {
    export OCF_RESKEY_status10regex="no-such-status-line"
}
setup_wrong_listen() {
    echo "listen 127.0.0.1:$DT_PORT2;" >"$FA_NDIR/conf.d/listen.conf"
    export OCF_RESKEY_status10url="http://127.0.0.1:$FA_NPORT/nginx_status"
    export OCF_RESKEY_test20url="http://127.0.0.1:$FA_NPORT/index.html"
}
setup_configfile_missing() {
    export OCF_RESKEY_configfile=$FA_NDIR/no-such.conf
}
setup_httpd_missing() {
    export OCF_RESKEY_httpd=/nonexistent/sbin/nginx
}
setup_httpd_not_executable() {
    export OCF_RESKEY_httpd=$FA_NDIR/not-nginx
}
setup_config_error() {
    echo "listen 127.0.0.1:$FA_NPORT; no_such_directive on;" >"$FA_NDIR/conf.d/listen.conf"
}
setup_ssl_only() {
    cat >"$FA_NDIR/conf.d/listen.conf" <<CONF
listen 127.0.0.1:$FA_NPORT ssl;
ssl_certificate $FA_NDIR/cert.pem;
ssl_certificate_key $FA_NDIR/key.pem;
CONF
}
setup_ipv6_only() {
    echo "listen [::1]:$FA_NPORT;" >"$FA_NDIR/conf.d/listen.conf"
}
setup_slow_status() {
    export OCF_RESKEY_status10url="http://127.0.0.1:$DT_SLOW_PORT/nginx_status"
}
setup_external_fails() {
    export OCF_RESKEY_external_monitor30_cmd=$FA_NDIR/ext-fail
}

inject_index_gone() {
    rm -f "$FA_NDIR/htdocs/index.html"
    dt_wait_status_url 404 "http://127.0.0.1:$FA_NPORT/index.html" || DT_INJECTED_OK=false
}
inject_status_gone() {
    sed -i '/location \/nginx_status/,/}/d' "$FA_NCONF"
    dt_hup
    dt_wait_status_url 404 "http://127.0.0.1:$FA_NPORT/nginx_status" || DT_INJECTED_OK=false
}
inject_sigstop() {
    local pid
    for pid in $(fa_nginx_pids); do
        kill -STOP "$pid"
    done
}
inject_kill() {
    local pid
    for pid in $(fa_nginx_pids); do
        kill -KILL "$pid"
    done
}

# A positive control: on the healthy set-up both agents succeed everywhere,
# so that a case where both fail means the set-up is broken, not the test.
dt_case "healthy (control)" setup_none inject_none
control=""
for action in validate-all start monitor monitor-10 monitor-20 monitor-30; do
    control="$control${DT_RESULT[hb,$action]}${DT_RESULT[fm,$action]}"
done
is "$control" "000000000000" "control: both agents pass every action on the healthy set-up (0)"
dt_case "no stub_status location" setup_no_stub_status inject_none
dt_case "stub_status without 'on' (nginx >= 1.7.5 form)" setup_bare_stub_status inject_none
dt_case "status10regex does not match" setup_status10regex_mismatch inject_none
dt_case "wrong listen" setup_wrong_listen inject_none
dt_case "configfile missing" setup_configfile_missing inject_none
dt_case "httpd missing" setup_httpd_missing inject_none
dt_case "httpd not executable" setup_httpd_not_executable inject_none
dt_case "configuration error (nginx -t fails)" setup_config_error inject_none
dt_case "SSL-only listen (self-signed)" setup_ssl_only inject_none
if ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
    dt_case "IPv6-only listen" setup_ipv6_only inject_none
else
    for _ in 1 2 3 4 5 6; do
        skip "IPv6-only listen: no ::1 on lo"
    done
fi
dt_case "status page slower than the monitor timeout" setup_slow_status inject_none
dt_case "external_monitor30_cmd fails" setup_external_fails inject_none
dt_case "test20url page removed after start" setup_none inject_index_gone
dt_case "stub_status removed after start (HUP)" setup_none inject_status_gone
dt_case "nginx stopped with SIGSTOP" setup_none inject_sigstop
dt_case "nginx killed" setup_none inject_kill
dt_injected_report

tap_done
