#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# agent-crm-resource.sh: Pacemaker's own tool drives the installed
# ocf:faultmon:apache against a real Apache: crm_resource --validate,
# --force-start, --force-check (levels 0 and 10) and --force-stop with
# --class ocf --provider faultmon --agent apache, as an administrator would
# before (or instead of) putting the resource in a cluster.  crm_resource
# finds agents only under /usr/lib/ocf/resource.d: run `make install` first.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/agents/lib.sh
. "$(dirname "$0")/lib.sh"

fa_require_root
fa_require_apache
fa_require_installed
if ! command -v crm_resource >/dev/null 2>&1; then
    echo "1..0 # SKIP crm_resource is not installed (apt-get install pacemaker-cli-utils)"
    exit 0
fi
tap_watchdog 180
fa_agents_setup
fa_apache_setup || bail_out "cannot write an Apache configuration"
fa_clear_params
unset OCF_RESOURCE_INSTANCE

plan 9

# crm_resource ACTION [OPTION...]: sets CR_RC and CR_OUT.
crm() {
    local action=$1
    shift
    CR_OUT=$(cd / && fm_timeout 60 crm_resource "$action" --class ocf --provider faultmon --agent apache \
        --option "configfile=$FA_CONF" --option envfiles=/dev/null --option Probe_timeout=2s \
        --option Thorough_probe_interval=2s "$@" 2>&1 | grep -v -i dbus)
    CR_RC=${PIPESTATUS[0]}
}

# check NAME REGEX: crm_resource's report of the agent's result.
check_out() {
    if printf '%s' "$CR_OUT" | grep -Eq -- "$2"; then
        ok "$1"
    else
        not_ok "$1"
        diag "crm_resource output:" "$CR_OUT"
    fi
}

crm --validate
check_out "--validate: returned 0" "Operation validate \\(ocf:faultmon:apache\\) returned 0"
CR_OUT=$(cd / && fm_timeout 60 crm_resource --validate --class ocf --provider faultmon --agent apache \
    --option configfile=/nonexistent/httpd.conf --option envfiles=/dev/null 2>&1 | grep -v -i dbus)
check_out "--validate with a missing configfile: returned 5 (OCF_ERR_INSTALLED) with the exit reason" \
    "returned 5 .*configfile '/nonexistent/httpd.conf' does not exist"
crm --force-check
check_out "--force-check of the stopped resource: returned 7" "returned 7"
crm --force-start
check_out "--force-start: returned 0" "Operation force-start \\(ocf:faultmon:apache\\) returned 0"
crm --force-check
check_out "--force-check: returned 0" "Operation force-check \\(ocf:faultmon:apache\\) returned 0"
crm --force-check=10 --option testurl=/health --option "testregex10=$WS_HEALTH_MARKER"
check_out "--force-check=10 with testurl: returned 0" "Operation force-check \\(ocf:faultmon:apache\\) returned 0"
crm --force-check=10 --option testurl=/health --option testregex10=no-such-content
check_out "--force-check=10 with a testregex10 that does not match: returned 1 (level 10 ran)" "returned 1"
crm --force-stop
check_out "--force-stop: returned 0" "Operation force-stop \\(ocf:faultmon:apache\\) returned 0"
crm --force-check
check_out "--force-check after the stop: returned 7" "returned 7"
fa_apache_kill

tap_done
