#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/cluster/migrate-1node.sh: `faultmon migrate` and the README's
# migration steps on a real single-node Pacemaker cluster (issue 29 item 1).
#
#  check: ocf:heartbeat:apache with `meta migration-threshold=3`, then the
#     same in rsc_defaults, then a parameter faultmon's agent does not take:
#     each refused with the reason, the CIB unchanged (the switch the README
#     used to give first stopped the resource: start refused the threshold);
#     the dry run once they are fixed says what changes and what it costs.
#  switch: `faultmon migrate web`: one restart in place, serving as
#     ocf:faultmon:apache, no failed operation.
#  rollback (README): cibadmin provider="heartbeat": serving again under
#     heartbeat's agent.
#  roll-back by itself: faultmon's start made to fail on purpose (a wrapper
#     agent whose start exits 1, the rest of it faultmon's): migrate switches
#     back by itself, says so, exit 2, and web serves under heartbeat's agent.
#  nginx: ocf:heartbeat:nginx migrated the same way.
#
# Needs root, the packages of lib.sh, and the agents installed (make
# install); otherwise "1..0 # SKIP".

# shellcheck disable=SC2317   # functions called through fm_poll
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
: "${FM_WATCHDOG:=480}"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenario-lib.sh"

fm_skip_unless_runnable pcs apache2 nginx
sc_skip_unless_agents

N=node1
fm_plan 12

fm_cluster_start 1 || fm_bail "single-node cluster did not form"
fm_apache_setup "$N"

nx() { fm_node_exec "$N" "$@"; }
agent_of() { fm_crm_mon | fm__xpath "string(//resources//resource[@id='$1']/@resource_agent)"; }
# migrate ARGS...: faultmon migrate, its output in $out, its status in $st
migrate() { out=$(nx "$SC_FAULTMON" migrate "$@" 2>&1); st=$?; }
serving_as() {
    local want=$1
    sa() { [ "$(agent_of web)" = "$want" ] && [ "$(fm_http "$N" /health)" = 200 ]; }
    fm_poll "${2:-40}" sa
}

nx pcs resource create web ocf:heartbeat:apache configfile="$FM_APACHE_CONF" \
    statusurl="$FM_APACHE_STATUSURL" op monitor interval=10s meta migration-threshold=3 >/dev/null 2>&1
serving_as ocf:heartbeat:apache
fm_result $? "web (ocf:heartbeat:apache, meta migration-threshold=3) serving"

# ------------------------------------------------------------------ check
migrate web --dry-run
ok=$([ "$st" = 1 ] && [[ $out == *"refused"*"migration-threshold=3"* ]] && [ "$(agent_of web)" = ocf:heartbeat:apache ]; echo $?)
fm_result "$ok" "migration-threshold=3 on the primitive: refused (exit $st), nothing changed: $out"

nx pcs resource meta web migration-threshold= >/dev/null 2>&1
nx pcs resource defaults update migration-threshold=3 >/dev/null 2>&1
migrate web --dry-run
ok=$([ "$st" = 1 ] && [[ $out == *"refused"*"migration-threshold=3"* ]]; echo $?)
fm_result "$ok" "migration-threshold=3 in rsc_defaults: refused (exit $st): $out"
nx pcs resource defaults update migration-threshold= >/dev/null 2>&1

nx crm_resource --resource web --set-parameter no_such_param --parameter-value 1 >/dev/null 2>&1
migrate web --dry-run
ok=$([ "$st" = 1 ] && [[ $out == *"no_such_param=1 is not one ocf:faultmon:apache takes"* ]]; echo $?)
fm_result "$ok" "a parameter faultmon's agent does not take: refused (exit $st): $out"
nx crm_resource --resource web --delete-parameter no_such_param >/dev/null 2>&1

pid0=$(sc_httpd_pid "$N")
migrate web --dry-run
ok=$([ "$st" = 0 ] && [[ $out == *"cost: one restart in place on $N"* ]] && [ "$(agent_of web)" = ocf:heartbeat:apache ] \
     && [ "$(sc_httpd_pid "$N")" = "$pid0" ]; echo $?)
fm_result "$ok" "the dry run: what changes and what it costs, nothing changed (exit $st): $out"

# ----------------------------------------------------------------- switch
t0=$(fm_now_ms)
migrate web --timeout 60
ms=$(fm_since_ms "$t0")
fails=$(fm_failures web | wc -l)
ok=$([ "$st" = 0 ] && [[ $out == *"migrated: ocf:faultmon:apache started and monitored on $N"* ]] \
     && [ "$(agent_of web)" = ocf:faultmon:apache ] && [ "$(sc_httpd_pid "$N")" != "$pid0" ] && [ "$fails" = 0 ] \
     && [ "$(fm_http "$N" /health)" = 200 ]; echo $?)
fm_result "$ok" "faultmon migrate web: switched, one restart in place, serving as ocf:faultmon:apache, $fails failed operation(s), in $ms ms: $out"
fm_timing "faultmon migrate web: the command, switch to healthy first monitor" "$ms"

# ---------------------------------------------- the README's rollback step
nx cibadmin --modify --xml-text '<primitive id="web" provider="heartbeat"/>' >/dev/null 2>&1
serving_as ocf:heartbeat:apache
fm_result $? "the README's rollback (cibadmin provider=\"heartbeat\"): serving again as ocf:heartbeat:apache"

# ---------------------------------------------------- roll-back by itself
real=$FM_RUN/real-agent
mkdir -p "$real" "$FM_RUN/failing-agent"
cp -L "$FM_OCF_DIR/faultmon/apache" "$real/apache"
cat > "$FM_RUN/failing-agent/apache" <<EOF
#!/bin/sh
# faultmon's agent, except that start fails (tests/cluster/migrate-1node.sh)
[ "\$1" = start ] && { echo "ocf-exit-reason:start failed on purpose by the test" >&2; exit 1; }
exec "$real/apache" "\$@"
EOF
chmod 0755 "$real" "$real/apache" "$FM_RUN/failing-agent" "$FM_RUN/failing-agent/apache"
fm_install_agents faultmon "$FM_RUN/failing-agent" "$N"
t0=$(fm_now_ms)
migrate web --timeout 40
ms=$(fm_since_ms "$t0")
ok=$([ "$st" = 2 ] && [[ $out == *"switching back to ocf:heartbeat:apache"* ]] \
     && [[ $out == *"switched back to ocf:heartbeat:apache, started on $N"* ]]; echo $?)
fm_result "$ok" "faultmon's start fails: migrate switches back by itself and says so (exit $st, $ms ms): $out"
serving_as ocf:heartbeat:apache 20
fm_result $? "after the roll-back: serving as ocf:heartbeat:apache ($(fm_failures web | wc -l) failure(s) left)"
fm_timing "faultmon migrate web, faultmon's start failing: the command, until back under heartbeat" "$ms"

# ------------------------------------------------------------------ nginx
nx pcs resource delete web >/dev/null 2>&1
fm_wait_idle 60
nx umount /usr/lib/ocf/resource.d/faultmon
sc_nginx_setup "$N"
nx pcs resource create wn ocf:heartbeat:nginx configfile="$SC_NGINX_CONF" \
    op monitor interval=10s >/dev/null 2>&1
ng() { [ "$(agent_of wn)" = "$1" ] && [ "$(fm_http "$N" /health)" = 200 ]; }
fm_poll 40 ng ocf:heartbeat:nginx
fm_result $? "wn (ocf:heartbeat:nginx) serving"
migrate wn --dry-run
ok=$([ "$st" = 1 ] && [[ $out == *"refused"*"no stub_status location found"* ]]; echo $?)
fm_result "$ok" "heartbeat's own validate-all rule (a status URL of the form http://HOST/PATH): refused with the reason (exit $st): $out"
nx pcs resource update wn status10url=http://127.0.0.1/health >/dev/null 2>&1
fm_poll 40 ng ocf:heartbeat:nginx
migrate wn --timeout 60
ok=$([ "$st" = 0 ] && [[ $out == *"migrated: ocf:faultmon:nginx started and monitored on $N"* ]]; echo $?)
fm_poll 10 ng ocf:faultmon:nginx
fm_result $((ok || $?)) "faultmon migrate wn: serving as ocf:faultmon:nginx (exit $st): $out"

fm_timings_report
fm_done
