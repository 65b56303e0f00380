#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-maintenance.sh: a service that asks to be drained while it still
# answers (HAProxy's disable-on-404, Envoy's x-envoy-degraded, F5's
# receive-disable string) gets the verdict "maintenance": not a failure
# (class ok, exit 0), never hiding a real failure, against a real nginx.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"

tap_watchdog 60
fm_require_faultmon
[ -x "$WS_NGINX" ] || bail_out "nginx not found at $WS_NGINX"
PORT=$(fm_free_port 0) || bail_out "no free port"
ws_nginx_custom "$FM_TMP/nginx" "
    server {
        listen 127.0.0.1:$PORT;
        location = /up { return 200 'status: up\\n'; }
        location = /drain-header { add_header X-Envoy-Degraded 1 always; return 200 'status: up\\n'; }
        location = /broken-header { add_header X-Envoy-Degraded 1 always; return 503 'busy\\n'; }
        location = /drain-body { return 200 'status: maintenance\\n'; }
        location = /boom { return 500; }
        location / { return 404; }
    }" || bail_out "cannot write nginx's configuration"
fm_wait_port 127.0.0.1 "$PORT" 5 || bail_out "nginx did not start"
plan 19

base=http://127.0.0.1:$PORT
fm_probe --json --maintenance-status 404 --uri "$base/gone"
fm_check_probe "--maintenance-status 404, a page answering 404: maintenance, exit 0" 0 \
    verdict=ok targets.0.reason=maintenance targets.0.status=404
fm_probe --json --maintenance-status 404 --uri "$base/boom"
fm_check_probe "--maintenance-status 404, a page answering 500: still a complete failure" 2 \
    verdict=complete targets.0.reason=status targets.0.status=500
fm_probe --json --maintenance-status 404 "$base/gone"
fm_check_probe "--maintenance-status 404 also for a Port_list HEAD" 0 targets.0.reason=maintenance
fm_probe --json --uri "$base/gone"
fm_check_probe "without it, the 404 fails as before" 2 verdict=complete targets.0.reason=status

fm_probe --json --maintenance-header x-envoy-degraded --uri "$base/drain-header"
fm_check_probe "--maintenance-header x-envoy-degraded, present: maintenance" 0 targets.0.reason=maintenance
like "$(cat "$FM_OUT")" "with header x-envoy-degraded" "  the detail names the header"
fm_probe --json --maintenance-header x-envoy-degraded --uri "$base/broken-header"
fm_check_probe "the header on a 503: the failure rules" 2 verdict=complete targets.0.status=503
fm_probe --json --maintenance-header x-envoy-degraded --uri "$base/up"
fm_check_probe "no header: ok" 0 targets.0.reason=ok

fm_probe --json --receive '^status: up$' --maintenance-regex '^status: maintenance$' --uri "$base/drain-body"
fm_check_probe "--maintenance-regex matching the body: maintenance before the receive regex" 0 \
    targets.0.reason=maintenance
fm_probe --json --receive '^status: up$' --maintenance-regex '^status: maintenance$' --uri "$base/up"
fm_check_probe "--maintenance-regex without a match: the receive regex passes it" 0 targets.0.reason=ok
# A plain receive pattern is searched without a child (regex_linear.h): the
# maintenance regex beside it is still its own pattern.
fm_probe --json --receive 'status: up' --maintenance-regex 'status: maintenance' --uri "$base/drain-body"
fm_check_probe "plain --receive and --maintenance-regex, the drain body: maintenance" 0 \
    verdict=ok targets.0.reason=maintenance
fm_probe --json --receive 'status: up' --maintenance-regex 'status: maintenance' --uri "$base/up"
fm_check_probe "plain --receive and --maintenance-regex, the up body: ok, not maintenance" 0 targets.0.reason=ok
fm_probe --maintenance-regex '(' --uri "$base/up"
is "$FM_RC" 64 "a maintenance regex that does not compile: usage error"
fm_probe --maintenance-header 'x envoy' --uri "$base/up"
is "$FM_RC" 64 "a header name with a blank: usage error"

# maintenance_status is checked before expect_status: a 5xx there would
# turn the outage of /boom into maintenance.  Refused at load time, by
# faultmon probe and by faultmon run --param (the agents' validate-all too,
# tests/agents/agent-validate.sh), before anything is probed.
fm_probe --json --maintenance-status 500 --uri "$base/boom"
is "$FM_RC" 64 "--maintenance-status 500: usage error, nothing probed"
is "$(cat "$FM_ERR")" \
    "faultmon probe: 500 is a server error; a 5xx never signals maintenance (it is a failure)" \
    "  one line says why"
fm_probe --maintenance-status 404,5xx --uri "$base/boom"
is "$FM_RC" 64 "--maintenance-status 404,5xx: usage error"
fm_timeout 10 "$FAULTMON" run fmmaint --no-env --no-pacemaker --cycles 1 \
    --param "Monitor_Uri_List=$base/boom" --param maintenance_status=503 \
    >"$FM_TMP/run.out" 2>"$FM_TMP/run.err"
is "$?" 64 "faultmon run --param maintenance_status=503: usage error"
like "$(cat "$FM_TMP/run.err")" "maintenance_status: 503 is a server error; a 5xx never signals maintenance" \
    "  the message names the parameter"

tap_done
