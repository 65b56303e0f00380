#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-smtp.sh: smtp://, smtps:// and smtp://...?starttls against a real
# Postfix (tests/lib/mailserver.sh) and the fault server: banner, EHLO,
# (STARTTLS, EHLO), QUIT; 2xx ok; a 554 banner refused, complete (from
# Postfix itself: smtpd_delay_reject=no and a restriction that rejects every
# client, and from the fault server's banner-554); a paused server times out,
# partial; a stopped one refuses the connection, complete.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"
# shellcheck source=tests/lib/webserver.sh
. "$FM_TEST_LIB/webserver.sh"
# shellcheck source=tests/lib/mailserver.sh
. "$FM_TEST_LIB/mailserver.sh"

if ! ms_have_postfix; then
    echo "1..0 # SKIP Postfix cannot run here (apt-get install postfix; needs root)"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
plan 45

ms_postfix_start || { diag_file "$MS_DIR/log"; bail_out "Postfix did not start"; }
fm_fault_server_start banner-554 banner-421 banner-220 greet-trickle greet-garbage greet-huge \
    silent greet-reset refuse || bail_out "the fault server did not start"

smtp=smtp://127.0.0.1:$MS_SMTP_PORT
fs() {
    echo "smtp://127.0.0.1:${FS_PORT[$1]}"
}

PROTO_EXTRA=("targets.0.kind=smtp")
proto_case "Postfix: banner, EHLO, QUIT: ok" 0 ok none ok fast -- "$smtp"
proto_detail_like "the detail is the banner" '^220 faultmon-test\.invalid ESMTP'
proto_case "Postfix with ?starttls: STARTTLS, EHLO over TLS: ok" 0 ok none ok fast -- "$smtp?starttls"
proto_case "Postfix smtps://: TLS from the start: ok" 0 ok none ok fast -- \
    "smtps://127.0.0.1:$MS_SMTPS_PORT"
proto_case "Postfix rejecting every client: a 554 banner, refused" 2 complete status refused fast -- \
    "smtp://127.0.0.1:$MS_REJECT_PORT"
proto_detail_like "the detail is the 554 line" '^banner: 554 5\.7\.1 '
sleep 0.5   # Postfix logs the last session's end
if grep -q "starttls=1" "$MS_DIR/log"; then ok "Postfix saw STARTTLS"; else
    not_ok "Postfix saw STARTTLS"; diag_file "$MS_DIR/log"; fi

# --maintenance-regex on the banner: a conversation that passes and whose
# banner asks to be drained is maintenance (class ok); one that fails after
# it, or whose banner refuses, keeps its failure.
proto_case "Postfix, --maintenance-regex on the banner: ok, maintenance" 0 ok none maintenance fast -- \
    --maintenance-regex '^220 faultmon-test\.invalid ESMTP' "$smtp"
proto_detail_like "maintenance: the detail names the banner" "^maintenance: the banner matches"
proto_case "Postfix ?starttls, --maintenance-regex on the banner: ok, maintenance" 0 ok none \
    maintenance fast -- --maintenance-regex 'ESMTP' "$smtp?starttls"
proto_case "Postfix, --maintenance-regex without a match: ok" 0 ok none ok fast -- \
    --maintenance-regex 'draining' "$smtp"
proto_case "Postfix's 554 banner matching --maintenance-regex: still refused" 2 complete status \
    refused fast -- --maintenance-regex '554' "smtp://127.0.0.1:$MS_REJECT_PORT"
proto_case "a banner that matches, then silence after EHLO: still partial" 1 partial read \
    read-timeout deadline -- --maintenance-regex 'fault-server' "$(fs banner-220)"
proto_case "fault server banner-554: refused" 2 complete status refused fast -- "$(fs banner-554)"
proto_case "fault server banner-421: refused" 2 complete status refused fast -- "$(fs banner-421)"
proto_case "a banner, then silence after EHLO: partial at the deadline" 1 partial read read-timeout \
    deadline -- "$(fs banner-220)"
proto_detail_like "the timeout names the step" 'waiting for the EHLO reply'
proto_case "silent: partial at the deadline" 1 partial read read-timeout deadline -- "$(fs silent)"
proto_case "a banner trickled byte by byte: partial at the deadline" 1 partial read read-timeout \
    deadline -- "$(fs greet-trickle)"
proto_case "garbage: malformed, partial" 1 partial read read-malformed fast -- "$(fs greet-garbage)"
proto_case "an endless banner: too large, partial" 1 partial read read-too-large fast -- "$(fs greet-huge)"
proto_case "reset in the middle of the banner: partial" 1 partial read read-failed fast -- \
    "$(fs greet-reset)"
proto_case "?starttls where none is offered (fault server 220, then silence)" 1 partial read \
    read-timeout deadline -- "$(fs banner-220)?starttls"

# Postfix paused: the kernel accepts, nobody answers.
master=$(tr -d ' ' <"$MS_DIR/queue/pid/master.pid" 2>/dev/null)
pgid=$(ps -o pgid= -p "$master" 2>/dev/null | tr -d ' ')
# Postfix's master leads a group of its own (it calls setsid): only that
# one, a process this script started, never this script's group.
if [ "$pgid" != "$master" ] || ! fm_pid_checked "$pgid" --child; then
    diag "master.pid names '$master' (group '$pgid'): not a Postfix master this test started"
    pgid=
fi
[ -n "$pgid" ] && kill -STOP -- "-$pgid"  # hygiene: pgid checked above
proto_case "Postfix paused (SIGSTOP): partial at the deadline" 1 partial read read-timeout deadline -- \
    "$smtp"
[ -n "$pgid" ] && kill -CONT -- "-$pgid"  # hygiene: pgid checked above
ms_postfix_stop
[ -n "$pgid" ] && kill -TERM -- "-$pgid" 2>/dev/null  # hygiene: pgid checked above
# Under load (the ASan tier) an smtpd child can outlive the master and
# still accept: wait for the listener to go, then kill.
if ! fm_wait_port_closed "$MS_SMTP_PORT" 5; then
    [ -n "$pgid" ] && kill -KILL -- "-$pgid" 2>/dev/null  # hygiene: pgid checked above
    fm_wait_port_closed "$MS_SMTP_PORT" 2 || diag "port $MS_SMTP_PORT still listens"
fi
proto_case "Postfix stopped: connect refused, complete" 2 complete connect connect-failed fast -- "$smtp"
tap_done
