# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib/overload-apache.sh: the real Apache the overload tests fill
# (run-overload.sh, run-overload-queue.sh): prefork, MaxRequestWorkers 4,
# ListenBacklog 64, mod_status, and a CGI (/cgi-bin/slow) that takes a
# second, for ab (apache2-utils) to keep every worker busy.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh, tests/lib/probe.sh and tests/lib/webserver.sh
# first, then:
#
#   ov_require             # before plan: skips the script without Apache or ab
#   ov_apache_start        # sets OV_DIR, OV_PORT, OV_APACHE (its PID)
#   ov_loop_start NAME     # a loop on /health with the status page: sets
#                          # log, loop and wait_log REGEX SECONDS; one TAP case
#   ov_apache_freeze       # SIGSTOP Apache's parent and children (this
#                          # script's), ov_apache_thaw: SIGCONT them

APACHE=${WS_APACHE:-/usr/sbin/apache2}
MODULES=${WS_APACHE_MODULES:-/usr/lib/apache2/modules}
AB=${AB:-/usr/bin/ab}

ov_require() {
    if [ ! -x "$APACHE" ] || [ ! -f "$MODULES/mod_mpm_prefork.so" ] || [ ! -f "$MODULES/mod_status.so" ]; then
        echo "1..0 # SKIP Apache with prefork and mod_status not installed (apt-get install apache2)"
        exit 0
    fi
    if [ ! -x "$AB" ]; then
        echo "1..0 # SKIP ab not installed (apt-get install apache2-utils)"
        exit 0
    fi
}

ov_apache_start() {
    local user_lines=
    OV_DIR=$FM_TMP/apache
    mkdir -p "$OV_DIR/run" "$OV_DIR/htdocs" "$OV_DIR/cgi-bin"
    chmod 755 "$FM_TMP" "$OV_DIR"
    echo ok >"$OV_DIR/htdocs/health"
    printf '#!/bin/sh\nsleep 1\nprintf "Content-Type: text/plain\\r\\n\\r\\nslow\\n"\n' >"$OV_DIR/cgi-bin/slow"
    chmod -R a+rX "$OV_DIR/htdocs" "$OV_DIR/cgi-bin"
    chmod 755 "$OV_DIR/cgi-bin/slow"
    OV_PORT=$(fm_free_port 0) || bail_out "no free port"
    [ "$(id -u)" = 0 ] && user_lines=$'User www-data\nGroup www-data'
    cat >"$OV_DIR/apache.conf" <<CONF
ServerRoot $OV_DIR
ServerName localhost
PidFile $OV_DIR/run/apache.pid
DefaultRuntimeDir $OV_DIR/run
ErrorLog $OV_DIR/error.log
LogLevel warn
LoadModule mpm_prefork_module $MODULES/mod_mpm_prefork.so
LoadModule authz_core_module $MODULES/mod_authz_core.so
LoadModule status_module $MODULES/mod_status.so
LoadModule cgi_module $MODULES/mod_cgi.so
LoadModule alias_module $MODULES/mod_alias.so
LoadModule mime_module $MODULES/mod_mime.so
$user_lines
Listen 127.0.0.1:$OV_PORT
StartServers 4
MinSpareServers 1
MaxSpareServers 4
ServerLimit 4
MaxRequestWorkers 4
ListenBacklog 64
Timeout 30
TypesConfig /dev/null
DocumentRoot $OV_DIR/htdocs
<Directory />
    Require all granted
</Directory>
ScriptAlias /cgi-bin/ $OV_DIR/cgi-bin/
<Location /server-status>
    SetHandler server-status
</Location>
CONF
    # In a session of its own: prefork signals its whole process group when it stops.
    setsid "$APACHE" -f "$OV_DIR/apache.conf" -DFOREGROUND >"$OV_DIR/stdout.log" 2>&1 </dev/null &
    OV_APACHE=$!
    fm_cleanup_add "kill -CONT $OV_APACHE 2>/dev/null; kill -TERM $OV_APACHE 2>/dev/null; wait $OV_APACHE 2>/dev/null"
    fm_wait_port 127.0.0.1 "$OV_PORT" 10 || {
        diag_file "$OV_DIR/error.log" "$OV_DIR/stdout.log"
        bail_out "Apache did not start"
    }
}

# ov_loop_start NAME: `faultmon run NAME` on /health, 1 s cycles, with the
# status page; its log in $log (FAULTMON_STATE_DIR under FM_TMP).
ov_loop_start() {
    export FAULTMON_STATE_DIR=$FM_TMP/state
    log=$FM_TMP/loop.err
    "$FAULTMON" run "$1" --no-env -v --no-pacemaker --param "Monitor_Uri_List=http://127.0.0.1:$OV_PORT/health" \
        --param Thorough_probe_interval=1s --param Probe_timeout=1s --param Retry_count=1 \
        --param "overload_status_url=http://127.0.0.1:$OV_PORT/server-status?auto" 2>"$log" &
    loop=$!
    fm_cleanup_add "kill -TERM $loop 2>/dev/null; wait $loop 2>/dev/null"
    wait_log 'monitoring 1 target' 10
    ok_if $? "the loop started against a healthy Apache"
}
wait_log() { fm_wait_log "$log" "$1" "$2" "$loop"; }

# Apache's parent and the children it has now, all this script's.
ov_apache_freeze() {
    local c
    OV_CHILDREN=$(ps -o pid= --ppid "$OV_APACHE")
    [ "$(ps -o comm= -p "$OV_APACHE")" = "$(basename "$APACHE" | cut -c1-15)" ] || bail_out "$OV_APACHE is not this test's Apache"
    kill -STOP "$OV_APACHE"
    for c in $OV_CHILDREN; do
        kill -STOP "$c"
    done
}
ov_apache_thaw() {
    local c
    for c in $OV_CHILDREN; do
        kill -CONT "$c"
    done
    kill -CONT "$OV_APACHE"
}
