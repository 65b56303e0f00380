# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/scenario-lib.sh: helpers for the end-to-end scenarios of
# faultmon's agents on real Pacemaker clusters (scenarios-*.sh).
# shellcheck shell=bash disable=SC2034,SC2317
# (SC2034: SC_* are for the scripts; SC2317: functions called through fm_poll)
#
# Source it after tests/cluster/lib.sh:
#   . "$(dirname "$0")/lib.sh"; . "$(dirname "$0")/scenario-lib.sh"
#
# Setup
#   sc_skip_unless_agents   "1..0 # SKIP" unless ocf:faultmon:apache and
#                           ocf:faultmon:httpmon are installed where Pacemaker
#                           looks for them (make install) and answer meta-data;
#                           sets SC_FAULTMON, the faultmon program they run
#   sc_apache_extras [NODE...]
#                           (after fm_apache_setup) add to each node's Apache:
#                           /app (a static page, 200), and a 500 on /app in
#                           every httpd started while /srv/www/fail-500 exists
#                           (<IfFile>, read when httpd (re)reads its
#                           configuration: sc_break_app)
#
# faultmon inside a node
#   sc_fm NODE ARGS...      run the installed faultmon inside NODE
#   sc_status NODE RSC      echo `faultmon status RSC --json` (one line)
#   sc_jget KEY [target]    read JSON on stdin: the value of the resource's
#                           top-level KEY, or with "target" of the first
#                           target's KEY (strings without their quotes)
#   sc_fm_field NODE RSC KEY [target]   sc_status | sc_jget
#
# Apache and faults
#   sc_httpd_pid NODE       echo the pid in httpd's pid file (0 when none)
#   sc_break_app NODE       make /app answer 500 until httpd is restarted:
#                           create the trigger file, graceful restart (USR1),
#                           remove the trigger; echo the time (fm_now_ms) the
#                           first 500 was seen
#   sc_slow_on NODE RATE    raise the latency of every reply from port 80
#                           inside NODE: an HTB class at RATE (e.g. 6kbit)
#                           on lo for source port 80 (the kernel here has no
#                           sch_netem; see scenarios-1node.sh)
#   sc_slow_off NODE        remove it
#   sc_backend_setup [NODE...]  a second Apache per node on port 8080
#                           (/srv/backend), not managed by Pacemaker: the
#                           backend that ocf:faultmon:httpmon watches
#   sc_backend_start NODE / sc_backend_kill NODE
#
# Pacemaker
#   sc_failure_rc RSC NODE TASK   echo the exit code of RSC's recorded failure
#                           of TASK on NODE (empty when none)
#   sc_failure_reason RSC NODE TASK   its exit reason (unescaped)
#   sc_has_failure RSC [TASK]       a failure of RSC (of TASK) is recorded
#   sc_failure_rc_any / sc_failure_reason_any RSC NODE TASK...   the same for
#                           the latest failure among TASKs (a failure is found
#                           by the loop or by the agent's monitor, whichever
#                           is first: asyncmon or monitor, start or monitor)
#
# Measuring a fault
#   sc_measure RSC NODE T0 TIMEOUT [PATH]
#                           poll until RSC's fail-count on NODE changes or
#                           a failure at or after T0 is recorded
#                           (SC_DETECT = ms since T0) and then until RSC runs
#                           somewhere and that node serves PATH (/health)
#                           (SC_RESTORED = ms since T0, SC_ON = the node);
#                           SC_FC0 must hold the fail-count before the fault;
#                           SC_DETECT_HOOK, when set, is eval'ed at detection
#
# The log
#   sc_decisions_logged NODE RSC LOG   echo "DECIDED/LOGGED": the recoveries
#                           in RSC's history (faultmon status --json) and
#                           the notice lines "RSC: state A -> B, restart
#                           asked: ..." in LOG; true when there is at least
#                           one and every one has its line
#
# Results
#   sc_row SCENARIO EXPECTED OBSERVED DETECT_MS RESTORED_MS STATUS
#                           add a row to the results table (STATUS 0 = ok)
#   sc_report               print the table as "# " lines and append it to
#                           SC_RESULTS ($FM_TOP_BUILDDIR/tests/cluster/
#                           scenario-results.txt)

SC_ROWS=()
SC_T_START=$(fm_now_ms)
SC_FAULTMON=""
SC_BACKEND_PORT=8080
SC_BACKEND_PIDFILE=/var/run/backend-fm/httpd.pid

sc_results_file() {
    echo "${SC_RESULTS:-${FM_TOP_BUILDDIR:-$FM__START_PWD}/tests/cluster/scenario-results.txt}"
}

# ---------------------------------------------------------------- setup

sc_skip_unless_agents() {
    local a p prefix
    for a in apache httpmon; do
        if [ ! -x "$FM_OCF_DIR/faultmon/$a" ]; then
            echo "1..0 # SKIP ocf:faultmon:$a is not installed in $FM_OCF_DIR/faultmon (run make install)"
            exit 0
        fi
        if ! "$FM_OCF_DIR/faultmon/$a" meta-data 2>/dev/null | grep -q "<resource-agent name=\"$a\""; then
            echo "1..0 # SKIP $FM_OCF_DIR/faultmon/$a does not answer meta-data"
            exit 0
        fi
    done
    # The agents run $(bindir)/faultmon; pkglibexecdir is $(libexecdir)/faultmon.
    p=$(readlink -f "$FM_OCF_DIR/faultmon/apache")
    prefix=${p%/*}; prefix=${prefix%/*}; prefix=${prefix%/*}
    for p in "${SC_FAULTMON_BIN:-}" "$prefix/bin/faultmon" "$(command -v faultmon 2>/dev/null)"; do
        [ -n "$p" ] && [ -x "$p" ] && { SC_FAULTMON=$p; break; }
    done
    if [ -z "$SC_FAULTMON" ]; then
        echo "1..0 # SKIP the installed faultmon program was not found (set SC_FAULTMON_BIN)"
        exit 0
    fi
    # Under make check: the installed programs must be this build's, else
    # every scenario tests an earlier install (tests/lib/installed.sh).
    if [ -n "${FM_TOP_BUILDDIR:-}" ]; then
        # shellcheck source=tests/lib/installed.sh
        . "$(dirname "${BASH_SOURCE[0]}")/../lib/installed.sh"
        if ! p=$(FM_INSTALLED_FAULTMON=${FM_INSTALLED_FAULTMON:-$SC_FAULTMON} \
            fm_installed_stale "$FM_TOP_BUILDDIR"); then
            printf '%s\n' "$p" | sed 's/^/# /'
            echo "Bail out! the installed agents are not this build's (make install before make check)"
            exit 1
        fi
    fi
}

sc_apache_extras() {
    local node s nodes="${*:-$(fm_nodes)}"
    for node in $nodes; do
        s=$(fm_node_dir "$node")/root/srv
        printf 'app %s\n' "$node" > "$s/www/app"
        chmod 0644 "$s/www/app"
        rm -f "$s/www/fail-500"
        cat >> "$s/apache/httpd.conf" <<'EOF'
# added by tests/cluster/scenario-lib.sh: /app answers 500 in an httpd that
# read its configuration while /srv/www/fail-500 existed
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
<IfFile /srv/www/fail-500>
    RewriteEngine On
    RewriteRule ^/app$ - [R=500]
</IfFile>
EOF
    done
}

# nginx on port 80 of each node, for ocf:heartbeat:nginx: /srv/nginx/nginx.conf
# (SC_NGINX_CONF), serving /srv/www (/health, /app), where /app answers 500
# in an nginx that read its configuration while /srv/nginx/fail-500.conf
# existed (sc_nginx_break).
SC_NGINX_CONF=/srv/nginx/nginx.conf
SC_NGINX_PIDFILE=/srv/nginx/nginx.pid
sc_nginx_setup() {
    local node s nodes="${*:-$(fm_nodes)}"
    for node in $nodes; do
        s=$(fm_node_dir "$node")/root/srv
        mkdir -p "$s/nginx/tmp" "$s/www"
        chmod 0755 "$s/nginx" "$s/www"
        printf 'app %s\n' "$node" > "$s/www/app"
        printf 'ok %s\n' "$node" > "$s/www/health"
        chmod 0644 "$s/www/app" "$s/www/health"
        rm -f "$s/nginx/fail-500.conf"
        cat > "$s/nginx/nginx.conf" <<EOF
# nginx for faultmon's cluster scenarios (tests/cluster/scenario-lib.sh).
pid $SC_NGINX_PIDFILE;
error_log /srv/nginx/error.log;
worker_processes 1;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path /srv/nginx/tmp/body;
    proxy_temp_path /srv/nginx/tmp/proxy;
    fastcgi_temp_path /srv/nginx/tmp/fastcgi;
    uwsgi_temp_path /srv/nginx/tmp/uwsgi;
    scgi_temp_path /srv/nginx/tmp/scgi;
    server {
        listen 80;
        root /srv/www;
        location /app {
            include /srv/nginx/fail-*.conf;
        }
    }
}
EOF
    done
}

sc_nginx_pid() {
    local p
    p=$(cat "$(fm_node_dir "$1")/root$SC_NGINX_PIDFILE" 2>/dev/null)
    echo "${p:-0}"
}

# sc_nginx_break NODE [keep]: /app answers 500 until nginx restarts (the
# trigger is removed once nginx has read it), or, with keep, in every nginx
# started on NODE until sc_nginx_mend; echo the time the first 500 was seen.
sc_nginx_break() {
    local node=$1 f
    f=$(fm_node_dir "$node")/root/srv/nginx/fail-500.conf
    echo 'return 500;' > "$f"
    fm_node_exec "$node" sh -c "kill -HUP \$(cat $SC_NGINX_PIDFILE)" 2>/dev/null
    sc__is_500() { [ "$(fm_http "$node" /app)" = 500 ]; }
    fm_poll 10 sc__is_500
    fm_now_ms
    [ "${2:-}" = keep ] || rm -f "$f"
}
sc_nginx_mend() { rm -f "$(fm_node_dir "$1")/root/srv/nginx/fail-500.conf"; }

# ------------------------------------------------------------- faultmon

sc_fm() {
    local node=$1; shift
    fm_node_exec "$node" env -u FAULTMON_STATE_DIR "$SC_FAULTMON" "$@"
}

sc_status() { sc_fm "$1" status "$2" --json 2>/dev/null | tr -d '\n'; }

sc_jget() {
    local key=$1 where=${2:-} j
    j=$(cat)
    if [ "$where" = target ]; then
        j=${j#*\"targets\":\[}
    else
        j=${j%%\"targets\":\[*}
    fi
    # the first "KEY": string (with escapes) or scalar
    printf '%s' "$j" | grep -oE '"'"$key"'":("([^"\\]|\\.)*"|[^,}]*)' | head -n1 |
        sed -E 's/^"[^"]*"://; s/^"(.*)"$/\1/'
}

sc_fm_field() { sc_status "$1" "$2" | sc_jget "$3" "${4:-}"; }

# ------------------------------------------------------ Apache and faults

sc_httpd_pid() {
    local p
    p=$(fm_node_exec "$1" cat "$FM_APACHE_PIDFILE" 2>/dev/null)
    echo "${p:-0}"
}

sc_break_app() {
    local node=$1 s t
    s=$(fm_node_dir "$node")/root/srv
    : > "$s/www/fail-500"
    fm_node_exec "$node" sh -c "kill -USR1 \$(cat '$FM_APACHE_PIDFILE')" || { rm -f "$s/www/fail-500"; return 1; }
    sc__app_500() { [ "$(fm_http "$node" /app)" = 500 ]; }
    fm_poll 10 sc__app_500 || { rm -f "$s/www/fail-500"; return 1; }
    t=$(fm_now_ms)
    rm -f "$s/www/fail-500"
    # No check that /app still answers 500 here: faultmon may already have
    # had httpd restarted (detection takes ~100 ms at times); the scenario
    # asserts the restart (a new httpd pid, asyncmon rc 1) itself.
    echo "$t"
}

sc_slow_on() {
    local node=$1 rate=$2
    fm_node_exec "$node" sh -c "
        tc qdisc add dev lo root handle 1: htb default 10 r2q 1 &&
        tc class add dev lo parent 1: classid 1:10 htb rate 10gbit quantum 60000 &&
        tc class add dev lo parent 1: classid 1:20 htb rate $rate ceil $rate burst 100b cburst 100b quantum 1500 &&
        tc filter add dev lo parent 1: protocol ip prio 1 u32 match ip sport 80 0xffff flowid 1:20" >/dev/null 2>&1
}

sc_slow_off() { fm_node_exec "$1" tc qdisc del dev lo root >/dev/null 2>&1; }

sc_backend_setup() {
    local node s nodes="${*:-$(fm_nodes)}"
    for node in $nodes; do
        s=$(fm_node_dir "$node")/root/srv
        mkdir -p "$s/backend/www"
        chmod 0755 "$s/backend" "$s/backend/www"
        printf 'backend %s\n' "$node" > "$s/backend/www/health"
        chmod 0644 "$s/backend/www/health"
        cat > "$s/backend/httpd.conf" <<EOF
# A backend service for faultmon's cluster scenarios (tests/cluster/scenario-lib.sh),
# started by the test, not by Pacemaker.
ServerRoot /srv/backend
ServerName $node-backend
Listen $SC_BACKEND_PORT
PidFile $SC_BACKEND_PIDFILE
DefaultRuntimeDir ${SC_BACKEND_PIDFILE%/*}
ErrorLog /srv/backend/error.log
LogLevel warn
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
User www-data
Group www-data
StartServers 1
MinSpareServers 1
MaxSpareServers 2
KeepAlive Off
DocumentRoot /srv/backend/www
<Directory />
    Require all denied
</Directory>
<Directory /srv/backend/www>
    Require all granted
</Directory>
EOF
    done
}

sc_backend_start() {
    local node=$1
    fm_node_exec "$node" sh -c "mkdir -p '${SC_BACKEND_PIDFILE%/*}' && apache2 -f /srv/backend/httpd.conf -k start" \
        </dev/null >/dev/null 2>&1 || return 1
    sc__backend_up() { [ "$(fm_http "$node" ":$SC_BACKEND_PORT/health")" = 200 ]; }
    fm_poll 10 sc__backend_up
}

sc_backend_kill() {
    fm_node_exec "$1" pkill -KILL -f '^apache2 -f /srv/backend/'
    fm_node_exec "$1" rm -f "$SC_BACKEND_PIDFILE"
}

# -------------------------------------------------------------- Pacemaker

sc__failure_field() {   # RSC NODE TASK FIELD(5 rc, 7 reason)
    fm_failures "$1" | awk -F'\t' -v n="$2" -v t="$3" '$2 == n && $3 == t' | tail -n1 | cut -f"$4"
}
sc_failure_rc() { sc__failure_field "$1" "$2" "$3" 5; }
# (crm_mon 2.1.5 escapes exit reasons twice in its XML: &apos; arrives as text)
sc_failure_reason() {
    sc__failure_field "$1" "$2" "$3" 7 |
        sed -e "s/&apos;/'/g" -e 's/&quot;/"/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g'
}
# the latest failure of RSC on NODE among TASKs (asyncmon monitor: a restart
# the loop asked for, or the monitor's answer; start monitor: a failover)
sc__failure_any() {     # RSC NODE FIELD TASK...
    local rsc=$1 node=$2 field=$3; shift 3
    fm_failures "$rsc" | awk -F'\t' -v n="$node" -v t=" $* " '$2 == n && index(t, " " $3 " ")' | tail -n1 | cut -f"$field"
}
sc_failure_rc_any() { local r=$1 n=$2; shift 2; sc__failure_any "$r" "$n" 5 "$@"; }
sc_failure_reason_any() {
    local r=$1 n=$2; shift 2
    sc__failure_any "$r" "$n" 7 "$@" |
        sed -e "s/&apos;/'/g" -e 's/&quot;/"/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g'
}
sc_has_failure() {
    fm_failures "$1" | awk -F'\t' -v t="${2:-}" 't == "" || $3 == t' | grep -q .
}

# sc_remote_only RSC [NODE [SCORE]]: RSC on Pacemaker Remote nodes only
# (#kind ne remote: -INFINITY) and never probed on the cluster nodes (no
# Apache there); preferring NODE with SCORE (100) when given.
sc_remote_only() {
    local r=$1 x
    x="<rsc_location id=\"$r-remote-only\" rsc=\"$r\" resource-discovery=\"never\">"
    x+="<rule id=\"$r-remote-only-rule\" score=\"-INFINITY\"><expression id=\"$r-remote-only-expr\""
    x+=" attribute=\"#kind\" operation=\"ne\" value=\"remote\"/></rule></rsc_location>"
    fm_node_exec node1 cibadmin --create -o constraints -X "$x" >/dev/null 2>&1 || return 1
    [ -n "${2:-}" ] || return 0
    x="<rsc_location id=\"$r-prefers-$2\" rsc=\"$r\" node=\"$2\" score=\"${3:-100}\"/>"
    fm_node_exec node1 cibadmin --create -o constraints -X "$x" >/dev/null 2>&1
}

# sc_budget_groups NODE TPI WINDOW_S MONITOR_S: three groups gK, each an
# ocf:pacemaker:Dummy dK and its ocf:faultmon:guard dK-guard (node_budget=2
# within WINDOW_S, Retry_count=2, Thorough_probe_interval TPI), preferring
# NODE; every guard fails while NODE's /srv/fail-all exists.
sc_budget_groups() {
    local node=$1 tpi=$2 win=$3 mon=$4 k st=0
    for k in 1 2 3; do
        fm_node_exec node1 pcs resource create "d$k" ocf:pacemaker:Dummy --group "g$k" \
            </dev/null >/dev/null 2>&1 || st=1
        fm_node_exec node1 pcs resource create "d$k-guard" ocf:faultmon:guard resource="d$k" \
            Probe_command="/usr/bin/test ! -e /srv/fail-all" Thorough_probe_interval="$tpi" \
            Retry_count=2 node_budget=2 node_budget_window="${win}s" op monitor interval="${mon}s" \
            --group "g$k" </dev/null >/dev/null 2>&1 || st=1
        fm_node_exec node1 pcs constraint location "g$k" prefers "$node=100" \
            </dev/null >/dev/null 2>&1 || st=1
    done
    return "$st"
}

# sc_dep_start ADDR PORT: a dependency for Dependency_list, a TCP service
# that accepts and closes, on the hub's network at an address of its own
# (which every node reaches); sc_dep_stop stops it.
SC_DEP_PID=""
sc_dep_start() {
    local hub
    hub=$(fm__ns hub)
    ip -n "$hub" -o addr show dev br0 | grep -qF " $1/" || ip -n "$hub" addr add "$1/24" dev br0
    ip netns exec "$hub" python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(64)
while True:
    c, _ = s.accept(); c.close()' "$1" "$2" >/dev/null 2>&1 &
    SC_DEP_PID=$!
    fm_at_exit "kill $SC_DEP_PID 2>/dev/null"
}
sc_dep_stop() { kill "$SC_DEP_PID" 2>/dev/null; wait "$SC_DEP_PID" 2>/dev/null; }

# ------------------------------------------------------------- measuring

# a failure of RSC on NODE recorded at or after T0 (ms; Pacemaker keeps
# seconds): the agent sets the fail-count back to faultmon's count at the
# start after a restart, so a rise of it may be missed by a poll
sc__failed_since() {
    local t s
    while IFS= read -r t; do
        s=$(date -d "$t" +%s 2>/dev/null) || continue
        [ "$s" -ge $(( $3 / 1000 )) ] && return 0
    done < <(fm_failures "$1" | awk -F'\t' -v n="$2" '$2 == n {print $8}')
    return 1
}

sc_measure() {
    local rsc=$1 node=$2 t0=$3 t=$4 path=${5:-/health}
    SC_DETECT="" SC_RESTORED="" SC_ON=""
    sc__measure_poll() {
        if [ -z "$SC_DETECT" ]; then
            [ "$(fm_failcount "$rsc" "$node")" != "$SC_FC0" ] || sc__failed_since "$rsc" "$node" "$t0" || return 1
            SC_DETECT=$(fm_since_ms "$t0")
            [ -z "${SC_DETECT_HOOK:-}" ] || eval "$SC_DETECT_HOOK"
            return 1
        fi
        SC_ON=$(fm_resource_nodes "$rsc" | head -n1)
        [ -n "$SC_ON" ] && [ "$(fm_http_remote "$SC_ON" "$path")" = 200 ] && SC_RESTORED=$(fm_since_ms "$t0")
        [ -n "$SC_RESTORED" ]
    }
    fm_poll "$t" sc__measure_poll
}

# ---------------------------------------------------------------- results

sc_decisions_logged() {
    local decided logged
    decided=$(sc_status "$1" "$2" | grep -oE '"action":"(restart|failover)"' | wc -l)
    logged=$(grep -cE "faultmon.*: $2: state [a-z-]+ -> [a-z-]+, (restart|failover) asked: " "$3")
    echo "$decided/$logged"
    [ "$decided" -ge 1 ] && [ "$logged" -ge "$decided" ]
}

sc_row() {
    SC_ROWS+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"${4:--}"$'\t'"${5:--}"$'\t'"$( [ "${6:-0}" -eq 0 ] && echo ok || echo FAIL)")
}

sc_report() {
    local f out row a b c d e g
    f=$(sc_results_file)
    out=$( {
        printf '%-44s %-30s %-44s %9s %9s  %s\n' "scenario" "expected" "observed" "detect_ms" "restor_ms" "result"
        for row in "${SC_ROWS[@]}"; do
            IFS=$'\t' read -r a b c d e g <<<"$row"
            printf '%-44s %-30s %-44s %9s %9s  %s\n' "$a" "$b" "$c" "$d" "$e" "$g"
        done
    } )
    fm_diag "$FM_TEST_NAME: fault -> detection (Pacemaker saw the failure or the verdict) and fault -> service restored, in ms"
    fm_diag "$out"
    fm_diag "$FM_TEST_NAME ran for $(( $(fm_since_ms "$SC_T_START") / 1000 )) s"
    mkdir -p "$(dirname "$f")" 2>/dev/null
    {
        echo "# $FM_TEST_NAME, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), $(( $(fm_since_ms "$SC_T_START") / 1000 )) s"
        echo "$out"
        echo
    } >> "$f" && fm__log "results appended to $f"
}
