#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# proto-hostile.sh: replies that only look right, from scripted servers
# (tests/proto_server.py), judged by the rules of
# doc/reference/protocol-replies.md: a bare CR ends no line (redis, smtp,
# ftp, imap); POP3's whole status line; what follows a complete reply at
# once (a closing notice refuses); PostgreSQL's authentication codes; DNS
# answers for another name and a TCP retry that ends in garbage (a read
# failure, not a closed port); SMTP's QUIT, whose 221 the probe waits for
# before an orderly close; and --send/--expect, which judges the answer to
# the send, not a banner.

FM_TEST_LIB=$(cd "$(dirname "$0")/../lib" && pwd)
# shellcheck source=tests/lib/tap.sh
. "$FM_TEST_LIB/tap.sh"
# shellcheck source=tests/lib/probe.sh
. "$FM_TEST_LIB/probe.sh"
# shellcheck source=tests/lib/proto.sh
. "$FM_TEST_LIB/proto.sh"

tap_watchdog 180
fm_require_faultmon
trap fm_cleanup_run EXIT
plan 61

# hostile NAME PROTOCOL ARGS...: start the scripted server NAME, which plays
# PROTOCOL (a word for the reader) with ARGS (tests/proto_server.py).
hostile() {
    local name=$1
    shift 2
    proto_server_start "$name" "$@" || bail_out "proto_server $name did not start"
}
uri() {
    echo "$1://127.0.0.1:${PS_PORT[$2]}"
}
# log_has TEST NAME TEXT / log_lacks TEST NAME TEXT: one TAP line TEST on
# whether the log of server NAME holds TEXT.
log_has() {
    if grep -qF -- "$3" "$FM_TMP/ps-$2.log" 2>/dev/null; then ok "$1"; else
        not_ok "$1"; diag_file "$FM_TMP/ps-$2.log"; fi
}
log_lacks() {
    if ! grep -qF -- "$3" "$FM_TMP/ps-$2.log" 2>/dev/null; then ok "$1"; else
        not_ok "$1"; diag_file "$FM_TMP/ps-$2.log"; fi
}

G220='220 hostile ESMTP\r\n'
hostile redis-cr redis --reply '+PONG\rGARBAGE\n'
hostile redis-bye redis --reply '+PONG\r\n-ERR shutting down\r\n'
hostile redis-ok redis --reply '+PONG\r\n'
hostile smtp-cr smtp --greet '220\rGARBAGE\r\n'
hostile smtp-ehlo-cr smtp --greet "$G220" --reply '250\rjunk\r\n'
hostile smtp-421 smtp --greet "${G220}421 4.3.2 shutting down\r\n"
hostile smtp-ehlo-421 smtp --greet "$G220" --reply '250 hostile\r\n421 4.3.2 shutting down\r\n'
hostile smtp-quit smtp --greet "$G220" --reply '250-hostile\r\n250 8BITMIME\r\n' \
    --quit-reply '221 2.0.0 Bye\r\n'
hostile smtp-quit-close smtp --greet "$G220" --reply '250 hostile\r\n' --quit-close
hostile smtp-quit-silent smtp --greet "$G220" --reply '250 hostile\r\n'
hostile ftp-cr ftp --greet '220\rGARBAGE\r\n'
hostile imap-cr imap --greet '* OK\rGARBAGE\r\n'
hostile imap-tag-cr imap --greet '* OK hostile\r\n' --reply 'a1 OK\rjunk\r\n'
hostile imap-bye imap --greet '* OK hostile\r\n' --reply '* BYE shutting down\r\na1 OK done\r\n'
hostile pop3-garbage pop3 --greet '+OKGARBAGE\x00\xff\r\n'
hostile pop3-ok pop3 --greet '+OK hostile ready\r\n' --reply '+OK\r\nUSER\r\n.\r\n' \
    --quit-reply '+OK bye\r\n'
hostile pg-999 postgres --reply 'R\x00\x00\x00\x08\x00\x00\x03\xe7'
hostile pg-md5 postgres --reply 'R\x00\x00\x00\x08\x00\x00\x00\x05'
hostile pg-fatal postgres --reply \
    'R\x00\x00\x00\x08\x00\x00\x00\x00Z\x00\x00\x00\x05IE\x00\x00\x00\x2bSFATAL\x00C57P01\x00Mterminating connection\x00\x00'
hostile mysql-bye mysql --greet \
    '\x12\x00\x00\x00\x0a9\x00\x01\x00\x00\x0012345678\x00\x00\x00\x24\x00\x00\x01\xff\x5b\x04#08S01Server shutdown in progress'
hostile ldap-notice ldap --reply \
    '\x30\x0c\x02\x01\x02\x61\x07\x0a\x01\x00\x04\x00\x04\x00\x30\x0c\x02\x01\x00\x78\x07\x0a\x01\x34\x04\x00\x04\x00'
hostile dns-other dns --dns other-name
hostile dns-garbage dns --dns tcp-garbage
hostile dns-wrong-id dns --dns tcp-wrong-id
hostile banner tcp --greet 'valid\r\n'
hostile banner-answer tcp --greet 'hello\r\n' --reply 'valid\r\n'
hostile answer tcp --reply 'valid\r\n'

# Redis: a bare CR is no line end; an error right after PONG refuses.
proto_case "redis '+PONG\\rGARBAGE\\n': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri redis redis-cr)"
proto_case "redis '+PONG' then '-ERR shutting down' at once: refused" 2 complete status refused fast -- \
    "$(uri redis redis-bye)"
proto_case "redis '+PONG\\r\\n' alone: ok" 0 ok none ok fast -- "$(uri redis redis-ok)"

# SMTP.
proto_case "smtp '220\\rGARBAGE': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri smtp smtp-cr)"
proto_case "smtp EHLO '250\\rjunk': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri smtp smtp-ehlo-cr)"
proto_case "smtp 220 then 421 at once: refused" 2 complete status refused fast -- \
    "$(uri smtp smtp-421)"
proto_case "smtp EHLO 250 then 421 at once: refused" 2 complete status refused fast -- \
    "$(uri smtp smtp-ehlo-421)"
proto_case "smtp: banner, EHLO, QUIT answered 221: ok" 0 ok none ok fast -- "$(uri smtp smtp-quit)"
sleep 0.3   # the server logs the close
log_lacks "smtp QUIT: the probe did not close before the 221" smtp-quit "before the reply"
log_has "smtp QUIT: the 221 was sent" smtp-quit "quit: reply sent"
log_has "smtp QUIT: then an orderly close (FIN, no RST)" smtp-quit "close: orderly"
proto_case "smtp: QUIT answered by a close: still ok" 0 ok none ok fast -- \
    "$(uri smtp smtp-quit-close)"

# FTP, IMAP.
proto_case "ftp '220\\rGARBAGE': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri ftp ftp-cr)"
proto_case "imap '* OK\\rGARBAGE': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri imap imap-cr)"
proto_case "imap tagged 'a1 OK\\rjunk': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri imap imap-tag-cr)"
proto_case "imap '* BYE' before the tagged OK: refused" 2 complete status refused fast -- \
    "$(uri imap imap-bye)"

# POP3's whole status line.
proto_case "pop3 '+OKGARBAGE\\0\\xff': malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri pop3 pop3-garbage)"
proto_case "pop3 '+OK hostile ready': ok" 0 ok none ok fast -- "$(uri pop3 pop3-ok)"

# PostgreSQL.
proto_case "postgres authentication code 999: malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri postgres pg-999)"
proto_case "postgres MD5 without its salt: malformed, partial" 1 partial read read-malformed fast -- \
    "$(uri postgres pg-md5)"
proto_case "postgres ready, then FATAL 57P01 at once: refused" 2 complete status refused fast -- \
    "$(uri postgres pg-fatal)"

# MySQL, LDAP: a success followed at once by a goodbye.
proto_case "mysql greeting, then error 1053-like shutdown at once: refused" 2 complete status refused fast -- \
    "$(uri mysql mysql-bye)"
proto_case "ldap bind ok, then a Notice of Disconnection at once: refused" 2 complete status refused fast -- \
    "$(uri ldap ldap-notice)"

# DNS.
proto_case "dns: an A record for other.example.: refused (NODATA)" 2 complete status refused fast -- \
    "dns://127.0.0.1:${PS_PORT[dns-other]}/x.test"
proto_case "dns over TCP: garbage, then a close: a read failure, partial" 1 partial read read-failed fast -- \
    "dns://127.0.0.1:${PS_PORT[dns-garbage]}/x.test"
proto_case "dns over TCP: another id, then a close: a read failure, partial" 1 partial read read-failed fast -- \
    "dns://127.0.0.1:${PS_PORT[dns-wrong-id]}/x.test"

# --send/--expect judges the answer to the send, not the banner.
proto_case "tcp: a banner 'valid', the send never answered: --expect '^valid' fails" 1 partial read read-timeout deadline -- \
    --send 'PING\r\n' --expect '^valid' "$(uri tcp banner)"
proto_detail_like "tcp: the timeout says the answer never came" 'no answer within'
proto_case "tcp: a banner 'hello', the send answered 'valid': ok" 0 ok none ok fast -- \
    --send 'PING\r\n' --expect '^valid' "$(uri tcp banner-answer)"
proto_case "tcp: no banner, the send answered 'valid': ok" 0 ok none ok fast -- \
    --send 'PING\r\n' --expect '^valid' "$(uri tcp answer)"
proto_case "tcp: no --send, the banner is the reply: ok" 0 ok none ok fast -- \
    --expect '^valid' "$(uri tcp banner)"

# A QUIT never answered: ok at the deadline, and the close is FIN.
proto_case "smtp: QUIT never answered: ok at the deadline" 0 ok none ok deadline -- \
    "$(uri smtp smtp-quit-silent)"
sleep 0.3
log_has "smtp QUIT unanswered: an orderly close all the same" smtp-quit-silent "close: orderly"
tap_done
