#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-mail.sh: pop3://, pop3s://, imap://, imaps:// and ?starttls against a
# real Dovecot (tests/lib/mailserver.sh) and the fault server: greeting,
# capabilities, (STARTTLS,) logout; +OK and * OK are ok; -ERR and * BYE are
# refused, complete; a paused Dovecot times out, partial; a stopped one
# refuses the connection, complete.

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

if ! ms_have_dovecot; then
    echo "1..0 # SKIP Dovecot cannot run here (apt-get install dovecot-imapd dovecot-pop3d; needs root)"
    exit 0
fi
tap_watchdog 120
fm_require_faultmon
plan 31

ms_dovecot_start || { diag_file "$MS_DOVECOT_DIR/stdout" "$MS_DOVECOT_DIR/log"; bail_out "Dovecot did not start"; }
fm_fault_server_start greet-pop3-err greet-pop3-ok greet-imap-bye greet-garbage silent ||
    bail_out "the fault server did not start"

imap=imap://127.0.0.1:$MS_IMAP_PORT
pop3=pop3://127.0.0.1:$MS_POP3_PORT

PROTO_EXTRA=("targets.0.kind=imap")
proto_case "Dovecot IMAP: greeting, CAPABILITY, LOGOUT: ok" 0 ok none ok fast -- "$imap"
proto_detail_like "the detail is the greeting" '^\* OK \[CAPABILITY IMAP4rev1'
proto_case "Dovecot IMAP ?starttls: ok" 0 ok none ok fast -- "$imap?starttls"
proto_case "Dovecot imaps://: ok" 0 ok none ok fast -- "imaps://127.0.0.1:$MS_IMAPS_PORT"
PROTO_EXTRA=("targets.0.kind=pop3")
proto_case "Dovecot POP3: greeting, CAPA, QUIT: ok" 0 ok none ok fast -- "$pop3"
proto_detail_like "the detail is the greeting" '^\+OK Dovecot'
proto_case "Dovecot POP3 ?starttls (STLS): ok" 0 ok none ok fast -- "$pop3?starttls"
proto_case "Dovecot pop3s://: ok" 0 ok none ok fast -- "pop3s://127.0.0.1:$MS_POP3S_PORT"
sleep 0.3
if grep -q "TLS" "$MS_DOVECOT_DIR/log"; then ok "Dovecot logged TLS sessions"; else
    not_ok "Dovecot logged TLS sessions"; diag_file "$MS_DOVECOT_DIR/log"; fi

fs() {
    echo "$1://127.0.0.1:${FS_PORT[$2]}"
}
proto_case "POP3 -ERR greeting: refused" 2 complete status refused fast -- "$(fs pop3 greet-pop3-err)"
proto_detail_like "the detail is the -ERR line" '^greeting: -ERR \[SYS/TEMP\]'
proto_case "IMAP * BYE greeting: refused" 2 complete status refused fast -- "$(fs imap greet-imap-bye)"
proto_case "POP3 greeting, then silence: partial at the deadline" 1 partial read read-timeout \
    deadline -- "$(fs pop3 greet-pop3-ok)"
proto_detail_like "the timeout names the step" 'waiting for the CAPA reply'
proto_case "IMAP garbage: malformed, partial" 1 partial read read-malformed fast -- \
    "$(fs imap greet-garbage)"
proto_case "POP3 silent: partial at the deadline" 1 partial read read-timeout deadline -- \
    "$(fs pop3 silent)"

kill -STOP -- "-$MS_DOVECOT_PGID"
proto_case "Dovecot paused (SIGSTOP): IMAP partial at the deadline" 1 partial read read-timeout \
    deadline -- "$imap"
kill -CONT -- "-$MS_DOVECOT_PGID"
ms_dovecot_stop
proto_case "Dovecot stopped: connect refused, complete" 2 complete connect connect-failed fast -- "$pop3"
tap_done
