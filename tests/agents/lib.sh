# SPDX-License-Identifier: GPL-2.0-or-later
# tests/agents/lib.sh: helpers for the OCF agent tests.
# shellcheck shell=bash disable=SC2034 # variables for the scripts that source this
#
# Source tests/lib/tap.sh and tests/lib/webserver.sh first, then this.
#
#   fa_require_root                      # or "1..0 # SKIP" and exit
#   fa_agents_setup                      # FA_APACHE, FA_HTTPMON, FA_GUARD: the
#                                        # built agent under each name;
#                                        # FAULTMON_STATE_DIR
#   fa_apache_setup || bail_out ...      # FA_DIR, FA_PORT, FA_CONF: an Apache
#                                        # configuration the agent can start
#   fa_params                            # export the agent's parameters
#   fa_agent apache start                # run an action: FA_RC, FA_OUT, FA_REASON
#
# The Apache instance is started by the agent itself (that is what is
# tested); fa_apache_kill stops whatever is left by PID, on exit too.

FA_TOP_BUILDDIR=${FM_TOP_BUILDDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FA_PROGRAM=$FA_TOP_BUILDDIR/agents/faultmon-ocf
FA_INSTALLED_DIR=${FM_INSTALLED_OCF_DIR:-/usr/lib/ocf/resource.d/faultmon}
FA_DTD=${FA_DTD:-/usr/share/resource-agents/ra-api-1.dtd}

fa_require_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "1..0 # SKIP needs root (starts Apache and the fault monitor)"
        exit 0
    fi
}

fa_require_apache() {
    if ! ws_have_apache || [ ! -f "$WS_APACHE_MODULES/mod_status.so" ]; then
        echo "1..0 # SKIP Apache httpd is not installed (apt-get install apache2)"
        exit 0
    fi
}

# Skip when the agents are not installed; when they are, they must be this
# build's programs (tests/lib/installed.sh), else every case would test an
# earlier install: bail out.
fa_require_installed() {
    local why
    if [ ! -e "$FA_INSTALLED_DIR/apache" ] || [ ! -e "$FA_INSTALLED_DIR/httpmon" ]; then
        echo "1..0 # SKIP the agents are not installed in $FA_INSTALLED_DIR (run make install first)"
        exit 0
    fi
    # shellcheck source=tests/lib/installed.sh
    . "$(dirname "${BASH_SOURCE[0]}")/../lib/installed.sh"
    if [ -z "${FM_TOP_BUILDDIR:-}" ] && [ ! -x "$FA_PROGRAM" ]; then
        echo "# no build at $FA_TOP_BUILDDIR to compare the installed agents with"
    elif ! why=$(fm_installed_stale "$FA_TOP_BUILDDIR"); then
        printf '%s\n' "$why" | sed 's/^/# /'
        echo "Bail out! the installed agents are not this build's (make install before make check)"
        exit 1
    fi
}

# The built program under the agents' names, in a private directory, and a
# private state directory for the agents and the loops they start.
fa_agents_setup() {
    if [ ! -x "$FA_PROGRAM" ]; then
        bail_out "$FA_PROGRAM is not built"
    fi
    FA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-agents.XXXXXX") || bail_out "mktemp failed"
    fm_cleanup_add "rm -rf '$FA_TMP'"
    fm_cleanup_add "fa_check_loop_deaths"
    mkdir -p "$FA_TMP/bin" "$FA_TMP/state"
    # ocf-tester runs meta-data as nobody.
    chmod 755 "$FA_TMP" "$FA_TMP/bin"
    ln -s "$FA_PROGRAM" "$FA_TMP/bin/apache"
    ln -s "$FA_PROGRAM" "$FA_TMP/bin/httpmon"
    ln -s "$FA_PROGRAM" "$FA_TMP/bin/guard"
    ln -s "$FA_PROGRAM" "$FA_TMP/bin/nginx"
    FA_APACHE=$FA_TMP/bin/apache
    FA_NGINX=$FA_TMP/bin/nginx
    FA_HTTPMON=$FA_TMP/bin/httpmon
    FA_GUARD=$FA_TMP/bin/guard
    export FAULTMON_STATE_DIR=$FA_TMP/state
    export OCF_ROOT=${OCF_ROOT:-/usr/lib/ocf}
    if [ -n "${FAULTMON:-}" ]; then
        export FAULTMON
    else
        export FAULTMON=$FA_TOP_BUILDDIR/src/faultmon
    fi
}

# fa_pcmk_standins: stand-ins for Pacemaker's attrd_updater and cibadmin
# in TOOLS=$FA_TMP/pcmk, found by the agent and the loop through
# FAULTMON_OCF_ATTRD_UPDATER and FAULTMON_ATTRD_UPDATER (cibadmin beside
# it).  Each records its call ("TOOL ARGS") in CALLS=$FA_TMP/calls.log;
# attrd_updater answers 0, cibadmin 105 (no such object) unless
# $TOOLS/cibadmin.answers, a shell fragment a test may write (it sees the
# call's arguments), answers first.
fa_pcmk_standins() {
    TOOLS=$FA_TMP/pcmk
    CALLS=$FA_TMP/calls.log
    mkdir -p "$TOOLS"
    : >"$CALLS"
    printf '#!/bin/sh\necho "attrd_updater $*" >>"%s"\nexit 0\n' "$CALLS" >"$TOOLS/attrd_updater"
    printf '#!/bin/sh\necho "cibadmin $*" >>"%s"\n[ -f "%s" ] && . "%s"\nexit 105\n' \
        "$CALLS" "$TOOLS/cibadmin.answers" "$TOOLS/cibadmin.answers" >"$TOOLS/cibadmin"
    chmod 755 "$TOOLS/attrd_updater" "$TOOLS/cibadmin"
    export FAULTMON_OCF_ATTRD_UPDATER=$TOOLS/attrd_updater FAULTMON_ATTRD_UPDATER=$TOOLS/attrd_updater
}

# A loop that died without stopping (a crash, a kill) is recorded by the
# agent that restarts it in STATE/RESOURCE/loop-died; a test that kills one
# on purpose removes the record.  Any other record is a crash that the
# monitor's restart would hide: the script fails.
fa_check_loop_deaths() {
    local f
    for f in "$FAULTMON_STATE_DIR"/*/loop-died; do
        [ -f "$f" ] || continue
        echo "Bail out! a fault-monitor loop died during the test: $f: $(tr '\n' ' ' <"$f")"
    done
}

# Unset every OCF_RESKEY_ variable (between cases).
fa_clear_params() {
    local v
    for v in $(compgen -e | grep '^OCF_RESKEY_'); do
        unset "$v"
    done
    unset OCF_CHECK_LEVEL
}

# fa_agent AGENT ACTION: run it with the current environment; sets FA_RC,
# FA_OUT (stdout and stderr) and FA_REASON (the last ocf-exit-reason).
fa_agent() {
    local agent=$1 action=$2 path
    case $agent in
        apache) path=$FA_APACHE ;;
        httpmon) path=$FA_HTTPMON ;;
        guard) path=$FA_GUARD ;;
        nginx) path=$FA_NGINX ;;
        *) path=$agent ;;
    esac
    FA_OUT=$(fm_timeout "${FA_TIMEOUT:-90}" "$path" "$action" 2>&1)
    FA_RC=$?
    FA_REASON=$(printf '%s\n' "$FA_OUT" | sed -n 's/^ocf-exit-reason://p' | tail -n 1)
}

# fa_check_rc NAME WANT: one TAP case on FA_RC, with the output on failure.
fa_check_rc() {
    if [ "$FA_RC" = "$2" ]; then
        ok "$1"
    else
        not_ok "$1"
        diag "exit code $FA_RC, expected $2" "output:" "$FA_OUT"
    fi
}

# fa_check_rc_reason NAME WANT REGEX: exit code and exit reason.
fa_check_rc_reason() {
    if [ "$FA_RC" = "$2" ] && printf '%s' "$FA_REASON" | grep -Eq -- "$3"; then
        ok "$1"
    else
        not_ok "$1"
        diag "exit code $FA_RC (expected $2), exit reason '$FA_REASON' (expected /$3/)" \
            "output:" "$FA_OUT"
    fi
}

# An Apache configuration in FA_DIR listening on 127.0.0.1:FA_PORT, with
# mod_status at /server-status, its Listen in an included file (so that
# Port_list derivation follows Include), and a Listen inside an IfModule of
# a module that is not loaded (which must not become a target).
fa_apache_setup() {
    local m
    FA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-agent-apache.XXXXXX") || return 1
    fm_cleanup_add "fa_apache_cleanup"
    chmod 755 "$FA_DIR"
    mkdir -p "$FA_DIR/run" "$FA_DIR/htdocs" "$FA_DIR/conf.d" "$FA_DIR/logs"
    echo "<html><body>$WS_INDEX_MARKER</body></html>" >"$FA_DIR/htdocs/index.html"
    echo "$WS_HEALTH_MARKER" >"$FA_DIR/htdocs/health"
    chmod -R a+rX "$FA_DIR/htdocs"
    FA_PORT=$(fm_free_port 0) || return 1
    FA_CONF=$FA_DIR/httpd.conf
    {
        echo "# written by tests/agents/lib.sh"
        echo "ServerRoot $FA_DIR"
        echo "ServerName localhost"
        echo "PidFile run/httpd.pid"
        echo "DefaultRuntimeDir $FA_DIR/run"
        echo "ErrorLog $FA_DIR/logs/error.log"
        echo "LogLevel warn"
        for m in mpm_event authz_core authz_host mime dir status; do
            echo "LoadModule ${m}_module $WS_APACHE_MODULES/mod_$m.so"
        done
        if [ "$(id -u)" = 0 ]; then
            echo "User www-data"
            echo "Group www-data"
        fi
        cat <<CONF
StartServers 1
ServerLimit 1
ThreadsPerChild 4
MaxRequestWorkers 4
TypesConfig /dev/null
DocumentRoot $FA_DIR/htdocs
<Directory />
    Require all granted
</Directory>
<IfModule mod_status.c>
<Location "/server-status">
    SetHandler server-status
    Require local
</Location>
</IfModule>
LogFormat "%r|%{X-Faultmon-Test}i|%>s" fmtest
CustomLog $FA_DIR/logs/access.log fmtest
IncludeOptional conf.d/*.conf
CONF
    } >"$FA_CONF"
    {
        echo "Listen 127.0.0.1:$FA_PORT"
        echo "<IfModule ssl_module>"
        echo "    Listen 127.0.0.1:1"
        echo "</IfModule>"
    } >"$FA_DIR/conf.d/ports.conf"
    FA_PID_FILE=$FA_DIR/run/httpd.pid
}

# Export the parameters of a resource on that configuration.
fa_params() {
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=${1:-fmtest}
    export OCF_RESKEY_configfile=$FA_CONF
    export OCF_RESKEY_envfiles=""
    export OCF_RESKEY_Thorough_probe_interval=2s
    export OCF_RESKEY_Probe_timeout=2s
}

# fa_httpd_pid: the PID in the test's pid file, only while it is this
# test's httpd (its command line names $FA_CONF).  The file outlives a killed
# httpd, and the number comes back soon (pid_max is 32768 here) for anything,
# such as a cluster test's node running at the same time: never signal it.
fa_httpd_pid() {
    local pid
    pid=$(cat "$FA_PID_FILE" 2>/dev/null) || return 0
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$FA_CONF" || return 0
    echo "$pid"
}

# Stop whatever of the test's Apache and loops is left, by PID.
fa_apache_kill() {
    local pid f
    if [ -n "${FA_PID_FILE:-}" ] && [ -f "$FA_PID_FILE" ]; then
        pid=$(fa_httpd_pid)
        if [ -n "$pid" ]; then
            kill -TERM "$pid" 2>/dev/null
            for _ in $(seq 1 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "$pid" 2>/dev/null
        fi
    fi
    fa_kill_loops
}

# Every fault-monitor loop of this test's state directory, by PID.
fa_kill_loops() {
    local pid f
    [ -n "${FAULTMON_STATE_DIR:-}" ] || return 0
    for f in "$FAULTMON_STATE_DIR"/*/pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f" 2>/dev/null)
        # A stale pid file may name a reused PID: only a faultmon.
        [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = faultmon ] &&
            kill -TERM "$pid" 2>/dev/null
    done
    return 0
}

fa_apache_cleanup() {
    fa_apache_kill
    if [ -n "${FA_DIR:-}" ] && [ -d "$FA_DIR" ]; then
        rm -rf "$FA_DIR"
    fi
}

# fa_state_get RESOURCE KEY: a line of the loop's state file.
fa_state_get() {
    sed -n "s/^$2=//p" "$FAULTMON_STATE_DIR/$1/state" 2>/dev/null | head -n 1
}

# fa_wait_state RESOURCE KEY VALUE SECONDS: until the state says so.
fa_wait_state() {
    local end=$(($(date +%s) + $4))
    while [ "$(date +%s)" -le "$end" ]; do
        if [ "$(fa_state_get "$1" "$2")" = "$3" ]; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# ---- nginx (ocf:faultmon:nginx) ----

fa_require_nginx() {
    if [ ! -x "${WS_NGINX:-/usr/sbin/nginx}" ]; then
        echo "1..0 # SKIP nginx is not installed (apt-get install nginx-light)"
        exit 0
    fi
}

# fa_nginx_setup: an nginx configuration in a temp dir, listening on a free
# loopback port FA_NPORT, with a stub_status location and its listen in an
# included file (conf.d/*.conf).  Everything nginx writes stays in the temp
# dir: FA_NGINX_OPTIONS gives it -p (its prefix) and -e (its error log,
# which it opens before it reads the configuration).
fa_nginx_setup() {
    local user_line=''
    FA_NDIR=$(mktemp -d "${TMPDIR:-/tmp}/faultmon-agent-nginx.XXXXXX") || return 1
    fm_cleanup_add "fa_nginx_cleanup"
    chmod 755 "$FA_NDIR"
    mkdir -p "$FA_NDIR/run" "$FA_NDIR/htdocs" "$FA_NDIR/conf.d" "$FA_NDIR/logs" "$FA_NDIR/tmp"
    echo "<html><body>faultmon-nginx-index</body></html>" >"$FA_NDIR/htdocs/index.html"
    chmod -R a+rX "$FA_NDIR/htdocs"
    FA_NPORT=$(fm_free_port 0) || return 1
    FA_NCONF=$FA_NDIR/nginx.conf
    FA_NPID_FILE=$FA_NDIR/run/nginx.pid
    FA_NGINX_OPTIONS="-p $FA_NDIR -e $FA_NDIR/logs/error.log"
    [ "$(id -u)" = 0 ] && user_line='user root;'
    cat >"$FA_NCONF" <<CONF
# written by tests/agents/lib.sh
$user_line
worker_processes 1;
pid $FA_NPID_FILE;
error_log $FA_NDIR/logs/error.log warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $FA_NDIR/tmp;
    proxy_temp_path $FA_NDIR/tmp;
    fastcgi_temp_path $FA_NDIR/tmp;
    uwsgi_temp_path $FA_NDIR/tmp;
    scgi_temp_path $FA_NDIR/tmp;
    default_type text/html;
    server {
        include conf.d/*.conf;
        root $FA_NDIR/htdocs;
        location /nginx_status {
            stub_status on;
        }
    }
}
CONF
    echo "listen 127.0.0.1:$FA_NPORT;" >"$FA_NDIR/conf.d/listen.conf"
}

fa_nginx_params() {
    fa_clear_params
    export OCF_RESOURCE_INSTANCE=${1:-fmnginx}
    export OCF_RESKEY_configfile=$FA_NCONF
    export OCF_RESKEY_options=$FA_NGINX_OPTIONS
    export OCF_RESKEY_Thorough_probe_interval=2s
    export OCF_RESKEY_Probe_timeout=2s
}

# The PID of this test's nginx master, when its pid file names a live one.
fa_nginx_pid() {
    local pid
    pid=$(cat "$FA_NPID_FILE" 2>/dev/null) || return 0
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$FA_NCONF" || return 0
    echo "$pid"
}

# Every process of this test's nginx: the master's session (its workers
# stay in it after a kill -9 of the master).
fa_nginx_pids() {
    local sid
    sid=$(cat "$FA_NPID_FILE" 2>/dev/null)
    case $sid in '' | *[!0-9]*) return 0 ;; esac
    ps -e -o pid=,sid=,comm= | awk -v s="$sid" '$2 == s && $3 == "nginx" { print $1 }'
}

# Stop whatever of the test's nginx (every process of its session) and
# loops is left, by PID.
fa_nginx_kill() {
    local pid
    for pid in $(fa_nginx_pids); do
        kill -KILL "$pid" 2>/dev/null
    done
    fa_kill_loops
}

fa_nginx_cleanup() {
    fa_nginx_kill
    if [ -n "${FA_NDIR:-}" ] && [ -d "$FA_NDIR" ]; then
        rm -rf "$FA_NDIR"
    fi
}
