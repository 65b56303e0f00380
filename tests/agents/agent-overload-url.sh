#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-overload-url.sh: overload_status_url=auto (doc/overload.md) in
# ocf:faultmon:apache and ocf:faultmon:nginx: the agent takes the status
# page from the server's configuration (Apache's <Location> with SetHandler
# server-status, read as ?auto; nginx's location with stub_status) and
# hands it to the loop; validate-all fails (6, OCF_ERR_CONFIGURED) with a
# reason that says what is missing when the configuration has none.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_apache
fa_require_nginx
tap_watchdog 120
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"
fa_nginx_setup || bail_out "cannot write an nginx configuration"

plan 9

# The agents' information lines go to HA_LOGFILE (which they append to,
# and do not create).
halog=$FA_TMP/ha.log
: >"$halog"
derived() { grep -o 'overload_status_url=auto: [^ ,]*' "$halog" 2>/dev/null | tail -n 1 | sed 's/.*: //'; }

fa_params
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=auto
fa_agent apache validate-all
fa_check_rc "apache, auto, mod_status configured: validate-all 0" 0
is "$(derived)" "http://127.0.0.1:$FA_PORT/server-status?auto" "apache: the <Location> of server-status, in its machine form"

sed '/<Location "\/server-status">/,/<\/Location>/d' "$FA_CONF" >"$FA_DIR/no-status.conf"
fa_params
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=auto OCF_RESKEY_configfile=$FA_DIR/no-status.conf
fa_agent apache validate-all
fa_check_rc_reason "apache, auto, no mod_status location: validate-all 6, says what is missing" 6 \
    "overload_status_url=auto: the configuration has no <Location> with SetHandler server-status"

: >"$halog"
fa_params
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=http://127.0.0.1:$FA_PORT/elsewhere?auto
fa_agent apache validate-all
fa_check_rc "apache, a URL given: validate-all 0" 0
is "$(derived)" "" "apache: a URL given is kept, nothing derived"

# A start hands the derived URL to the loop (its environment).
fa_params fmtest
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=auto
fa_agent apache start
loop=$(cat "$FAULTMON_STATE_DIR/fmtest/pid" 2>/dev/null)
env_url=$(tr '\0' '\n' <"/proc/${loop:-0}/environ" 2>/dev/null | sed -n 's/^OCF_RESKEY_overload_status_url=//p')
if [ "$FA_RC" = 0 ] && [ "$env_url" = "http://127.0.0.1:$FA_PORT/server-status?auto" ]; then
    ok "apache start: the loop reads the derived status page"
else
    not_ok "apache start: the loop reads the derived status page"
    diag "start rc $FA_RC, loop ${loop:-none}, its overload_status_url '$env_url'" "$FA_OUT"
fi
fa_agent apache stop

fa_nginx_params
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=auto
fa_agent nginx validate-all
fa_check_rc "nginx, auto, stub_status configured: validate-all 0" 0
is "$(derived)" "http://127.0.0.1:$FA_NPORT/nginx_status" "nginx: the location with stub_status"

sed -i '/location \/nginx_status/,/}/d' "$FA_NCONF"
fa_nginx_params
export HA_LOGFILE=$halog OCF_RESKEY_overload_status_url=auto
fa_agent nginx validate-all
fa_check_rc_reason "nginx, auto, no stub_status: validate-all 6, says what is missing" 6 \
    "overload_status_url=auto: the configuration has no location with stub_status"
