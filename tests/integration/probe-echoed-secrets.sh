#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# probe-echoed-secrets.sh: a server that echoes the secret it got (a redis
# answering AUTH with the password, an HTTP server writing the Basic
# credentials back) must not bring it into the probe's output or its log
# lines (the same lines the loop sends to syslog and Pacemaker's log), not
# when the echo comes in a second read, nor when it is split across lines
# (issue 30, defect 8).  An exec probe's program may print the password of
# a URI among its arguments: hidden too.
FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
tap_watchdog 60
fm_require_faultmon

fm_fault_server_start echo-auth echo-auth-split redis-echo-auth redis-echo-auth-split ||
    bail_out "the fault server did not start"

PW=Qz7kWv4p
# dXNlcjpRejdrV3Y0cA== is the base64 of user:Qz7kWv4p, as the Authorization header carries it
# Any 4 bytes of the password, or 6 of its base64 (past the user's "dXNlcj").
PIECES="Qz7k|z7kW|7kWv|kWv4|Wv4p|pRejdr|RejdrV|ejdrV3|jdrV3Y|drV3Y0|rV3Y0c|V3Y0cA"

plan 15

# secret_case NAME EXPECT_REGEX URL|--exec COMMAND: the detail
# redacted, and neither output nor log holds a piece of the secret.
secret_case() {
    local name=$1 want=$2 url=$3 both
    if [ "$url" = --exec ]; then
        fm_probe -v --json --timeout 2000ms --exec "$4"
    else
        fm_probe -v --json --timeout 2000ms "$url"
    fi
    both=$(cat "$FM_OUT" "$FM_ERR")
    like "$(fm_json_get "$FM_OUT" targets.0.detail)" "$want" "$name: the detail says what the server did, the secret hidden"
    if grep -Eq -- "$PIECES" <<<"$both"; then
        not_ok "$name: no piece of the secret in the output or the log"
        fm_show_run
    else
        ok "$name: no piece of the secret in the output or the log"
    fi
    like "$(cat "$FM_ERR")" "$want" "  the log line says the same, the secret hidden"
}

secret_case "HTTP, the user:password echoed in a second read" \
    'malformed reply .*Echo user:\*\*\*' "http://user:$PW@127.0.0.1:${FS_PORT[echo-auth]}/"
secret_case "HTTP, the Authorization value echoed across two lines" \
    'malformed reply .*Echo \*\*\*\\x0d\\x0a\*\*\*' "http://user:$PW@127.0.0.1:${FS_PORT[echo-auth-split]}/"
secret_case "redis, AUTH answered with the password in a second read" \
    "AUTH: -ERR invalid password '\\*\\*\\*' for this user" "redis://:$PW@127.0.0.1:${FS_PORT[redis-echo-auth]}"
secret_case "redis, the password split across two lines" \
    "AUTH: -ERR bad '\\*\\*\\*\$" "redis://:$PW@127.0.0.1:${FS_PORT[redis-echo-auth-split]}"
# shellcheck disable=SC2016
secret_case "an exec probe printing the password of the URI it was given" \
    'exit 2: bad password \*\*\*$' --exec \
    "/bin/sh -c 'p=\${1#redis://:}; echo bad password \${p%@*}; exit 2' x redis://:$PW@127.0.0.1:1"
