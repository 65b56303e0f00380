#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Loopback fault server for faultmon's integration tests.

One process serves many misbehaviours at once, each on its own port:

    fault_server.py --port-file FILE silent trickle ok ...

binds every MODE on a free port of --host (port 0 unless MODE=PORT is
given), writes one "MODE PORT" line per mode to FILE (atomically, once every
socket is ready), then serves until it is killed or --max-seconds pass.

A mode decides what the server does with each connection; run with
--list-modes to see them.  Only the Python standard library is used, and
only loopback addresses are accepted for --host.
"""

import argparse
import ipaddress
import os
import signal
import socket
import struct
import sys
import threading
import time

DEFAULT_MARKER = "faultmon-fault-server-ok"
REQUEST_LIMIT = 64 * 1024
REQUEST_WAIT_S = 2.0
LINGER_S = 10.0

# A TLS alert record: content type 21, version TLS 1.0, length 2,
# level fatal (2), description handshake_failure (40).
TLS_ALERT = bytes([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28])

# Binary junk with a CR LF in it, so that a parser that waits for the end of
# the status line sees a complete, malformed one.
GARBAGE = bytes([0x00, 0xff, 0x13, 0x37, 0x80, 0x7f, 0xde, 0xad, 0xbe, 0xef,
                 0x0d, 0x0a, 0x0d, 0x0a]) + bytes(range(256)) * 2


def log(fmt, *args):
    if OPTIONS.verbose:
        sys.stderr.write("fault_server: " + (fmt % args) + "\n")
        sys.stderr.flush()


def read_request(conn, want_http=True):
    """Read the client's request: up to the blank line for HTTP, or the
    first bytes for TLS.  Returns the bytes (possibly empty on EOF)."""
    data = b""
    conn.settimeout(REQUEST_WAIT_S)
    try:
        while len(data) < REQUEST_LIMIT:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
            if not want_http:
                break
            if b"\r\n\r\n" in data or b"\n\n" in data:
                break
    except (socket.timeout, OSError):
        pass
    conn.settimeout(None)
    return data


def request_method(data):
    return data.split(b" ", 1)[0].decode("latin-1", "replace") if data else ""


def linger_then_close(conn):
    """Half-close our side, then drain until the client closes, so that the
    client gets FIN after our data rather than a RST that might discard it."""
    try:
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    conn.settimeout(LINGER_S)
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass
    conn.close()


def reset_close(conn):
    """Close with SO_LINGER {on, 0}: the kernel sends RST, not FIN."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def hold_open(conn):
    """Never answer; return once the client goes away (or the process ends)."""
    conn.settimeout(None)
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass
    conn.close()


def http_reply(conn, request, status, reason, body, extra_headers=(), then=None):
    head = ["HTTP/1.1 %d %s" % (status, reason),
            "Server: faultmon-fault-server",
            "Content-Type: text/plain",
            "Content-Length: %d" % len(body),
            "X-Faultmon-Marker: %s" % OPTIONS.marker,
            "Connection: close"]
    head.extend(extra_headers)
    out = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")
    if request_method(request) != "HEAD":
        out += body
    try:
        conn.sendall(out)
    except OSError:
        pass
    (then or linger_then_close)(conn)


# --- the modes: each handles one accepted connection ----------------------

def mode_silent(conn):
    hold_open(conn)


def mode_trickle(conn):
    # A byte every 200 ms: a read timer that restarted on every byte would
    # never fire, so only a deadline for the whole probe ends this.
    read_request(conn)
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Trickle: ")
        while True:
            time.sleep(0.2)
            conn.sendall(b"a")
    except OSError:
        pass
    conn.close()


def mode_endless_100(conn):
    """Interim replies as fast as the socket takes them, never a final one."""
    read_request(conn)
    block = b"HTTP/1.1 100 Continue\r\n\r\n" * 256
    try:
        while True:
            conn.sendall(block)
    except OSError:
        pass
    conn.close()


def mode_slow_100(conn):
    """One interim reply every 200 ms, never a final one."""
    read_request(conn)
    try:
        while True:
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            time.sleep(0.2)
    except OSError:
        pass
    conn.close()


def make_raw_mode(data):
    """Send these bytes in one write, whatever the request, then close."""
    def mode_raw(conn):
        read_request(conn)
        try:
            conn.sendall(data)
        except OSError:
            pass
        linger_then_close(conn)
    return mode_raw


def _reply(status_line, headers, body=b""):
    head = [status_line, "Server: faultmon-fault-server", "Connection: close"]
    head.extend(headers)
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


_MARKER_BODY = (DEFAULT_MARKER + "\n").encode("latin-1")
_CL_MARKER = "Content-Length: %d" % len(_MARKER_BODY)
_EARLY_HINTS = b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"

# Replies that could mislead a lenient client: each is sent as it is, in one
# write (so that a body after the headers arrives with them).
RAW_REPLIES = {
    "interim-then-503": (
        _EARLY_HINTS + _reply("HTTP/1.1 503 Service Unavailable", ["Content-Length: 0"]),
        "103 Early Hints, then 503"),
    "continue-then-503": (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        + _reply("HTTP/1.1 503 Service Unavailable", ["Content-Length: 0"]),
        "100 Continue, then 503"),
    "interim-then-200": (
        _EARLY_HINTS + b"HTTP/1.1 100 Continue\r\n\r\n"
        + _reply("HTTP/1.1 200 OK", [_CL_MARKER], _MARKER_BODY),
        "103 and 100, then a good 200 with the marker"),
    "interim-close": (_EARLY_HINTS, "103 Early Hints with a header, then close"),
    "switching-101": (
        _reply("HTTP/1.1 101 Switching Protocols", ["Upgrade: faultmon"]),
        "101 Switching Protocols (a final reply)"),
    "nul-in-reason": (
        _reply("HTTP/1.1 200 O\0K", [_CL_MARKER], _MARKER_BODY),
        "200 with a NUL in the reason phrase"),
    "ctl-in-header": (
        _reply("HTTP/1.1 200 OK", ["X-Ctl: a\x01b", _CL_MARKER], _MARKER_BODY),
        "200 with a control character in a header"),
    "bare-cr": (
        _reply("HTTP/1.1 200 OK\rX-Injected: yes", [_CL_MARKER], _MARKER_BODY),
        "200 with a bare CR in the status line"),
    "obs-fold": (
        _reply("HTTP/1.1 200 OK", ["X-Folded: a", " Content-Length: 0", _CL_MARKER], _MARKER_BODY),
        "200 with an obs-fold continuation line"),
    "no-colon": (
        _reply("HTTP/1.1 200 OK", ["Junk header line", _CL_MARKER], _MARKER_BODY),
        "200 with a header line without a colon"),
    "cl-conflict": (
        _reply("HTTP/1.1 200 OK", [_CL_MARKER, "Content-Length: 3"], _MARKER_BODY),
        "200 with two different Content-Length values"),
    "cl-negative": (
        _reply("HTTP/1.1 200 OK", ["Content-Length: -1"], _MARKER_BODY),
        "200 with Content-Length: -1"),
    "te-and-cl": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked", _CL_MARKER], _MARKER_BODY),
        "200 with both Transfer-Encoding and Content-Length"),
    "chunked-short": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"], b"100\r\n" + _MARKER_BODY),
        "chunked body announcing 256 bytes, closed after the marker"),
    "chunked-ok": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"],
               b"e\r\nfaultmon-fault\r\nb\r\n-server-ok\n\r\n0\r\n\r\n"),
        "chunked body with the marker split across two chunks"),
    "truncated-body": (
        _reply("HTTP/1.1 200 OK", ["Content-Length: 1000"], _MARKER_BODY),
        "Content-Length 1000, closed after the marker"),
    "http09": (_MARKER_BODY, "an HTTP/0.9 reply: the body, no status line"),
    "head-body": (
        _reply("HTTP/1.1 200 OK", [_CL_MARKER], _MARKER_BODY),
        "200 with its body even to HEAD"),
    "bad-version": (
        _reply("HTTP/1.2 200 OK", [_CL_MARKER], _MARKER_BODY),
        "an HTTP/1.2 status line"),
    "four-digit-status": (
        _reply("HTTP/1.1 2000 OK", [_CL_MARKER], _MARKER_BODY),
        "a four-digit status"),
    "two-digit-status": (
        _reply("HTTP/1.1 20 OK", [_CL_MARKER], _MARKER_BODY),
        "a two-digit status"),
    "space-before-colon": (
        _reply("HTTP/1.1 200 OK", ["X-Spaced : yes", _CL_MARKER], _MARKER_BODY),
        "200 with a blank between a header name and its colon"),
    "bad-header-name": (
        _reply("HTTP/1.1 200 OK", ["X(bad): yes", _CL_MARKER], _MARKER_BODY),
        "200 with a '(' in a header name"),
    "empty-header-name": (
        _reply("HTTP/1.1 200 OK", [": nameless", _CL_MARKER], _MARKER_BODY),
        "200 with a header line that starts with its colon"),
    "nul-in-header": (
        _reply("HTTP/1.1 200 OK", ["X-Nul: a\0b", _CL_MARKER], _MARKER_BODY),
        "200 with a NUL in a header value"),
    "te-gzip": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: gzip, chunked"],
               b"1b\r\nfaultmon-fault-server-ok\n\r\n0\r\n\r\n"),
        "200 with Transfer-Encoding: gzip, chunked"),
    "te-http10": (
        _reply("HTTP/1.0 200 OK", ["Transfer-Encoding: chunked"],
               b"1b\r\nfaultmon-fault-server-ok\n\r\n0\r\n\r\n"),
        "an HTTP/1.0 reply with Transfer-Encoding: chunked"),
    "cl-list": (
        _reply("HTTP/1.1 200 OK", ["Content-Length: %d, %d" % (len(_MARKER_BODY), len(_MARKER_BODY))],
               _MARKER_BODY),
        "200 with Content-Length: N, N (a list of equal values)"),
    "cl-empty": (
        _reply("HTTP/1.1 200 OK", ["Content-Length:"], _MARKER_BODY),
        "200 with an empty Content-Length"),
    "chunked-bad-size": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"], b"zz\r\n" + _MARKER_BODY),
        "chunked body whose chunk-size line is not hex"),
    "chunked-overrun": (
        _reply("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"],
               b"4\r\nfaultmon-fault-server-ok\n\r\n0\r\n\r\n"),
        "chunked body whose data is longer than its size"),
    "no-content-body": (
        _reply("HTTP/1.1 204 No Content", [_CL_MARKER], _MARKER_BODY),
        "204 with a body"),
    "long-reason": (
        _reply("HTTP/1.1 200 " + "O" * 2000, [_CL_MARKER], _MARKER_BODY),
        "200 with a 2000-byte reason phrase"),
    "no-reason": (
        b"HTTP/1.1 200\r\nConnection: close\r\n" + _CL_MARKER.encode() + b"\r\n\r\n" + _MARKER_BODY,
        "200 without a reason phrase or the space before it"),
    "two-spaces": (
        _reply("HTTP/1.1  200 OK", [_CL_MARKER], _MARKER_BODY),
        "two spaces before the status code"),
    "low-status": (
        _reply("HTTP/1.1 099 Low", [_CL_MARKER], _MARKER_BODY),
        "a status code below 100"),
    "lowercase-version": (
        _reply("http/1.1 200 OK", [_CL_MARKER], _MARKER_BODY),
        "an HTTP version in lower case"),
    "lf-only": (
        _reply("HTTP/1.1 200 OK", [_CL_MARKER], _MARKER_BODY).replace(b"\r\n", b"\n"),
        "a reply whose lines end with LF alone"),
    "cr-in-header": (
        _reply("HTTP/1.1 200 OK", ["X-Cr: a\rb", _CL_MARKER], _MARKER_BODY),
        "200 with a bare CR inside a header value"),
    "quadratic-body": (
        _reply("HTTP/1.1 200 OK", ["Content-Length: 64000"], b"a" * 64000),
        "200 with 64000 bytes of 'a', on which glibc's search for 'a.*b.*x' takes seconds"),
}


def mode_reset_headers(conn):
    read_request(conn)
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\nServer: faultmon-fault-server\r\n"
                     b"Content-Type: text/pl")
        time.sleep(0.05)
    except OSError:
        pass
    reset_close(conn)


def mode_reset_accept(conn):
    reset_close(conn)


def mode_reset_request(conn):
    read_request(conn)
    reset_close(conn)


def mode_garbage(conn):
    read_request(conn)
    try:
        conn.sendall(GARBAGE)
    except OSError:
        pass
    linger_then_close(conn)


def mode_bad_status(conn):
    read_request(conn)
    try:
        conn.sendall(b"HTTP/1.1 abc Bad\r\nContent-Length: 0\r\n"
                     b"Connection: close\r\n\r\n")
    except OSError:
        pass
    linger_then_close(conn)


def mode_huge_headers(conn):
    read_request(conn)
    line = b"X-Huge: " + b"h" * 1014 + b"\r\n"       # 1 KiB a line
    block = line * 64                                 # 64 KiB a send
    total = 10 * 1024 * 1024
    sent = 0
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        while sent < total:
            conn.sendall(block)
            sent += len(block)
        conn.sendall(b"Content-Length: 0\r\n\r\n")
    except OSError:
        log("huge-headers: client left after %d bytes", sent)
        conn.close()
        return
    linger_then_close(conn)


def mode_half_close(conn):
    read_request(conn)
    linger_then_close(conn)


def mode_ok(conn):
    request = read_request(conn)
    body = ("%s\n" % OPTIONS.marker).encode("latin-1")
    http_reply(conn, request, 200, "OK", body)


def mode_ok_hold(conn):
    request = read_request(conn)
    body = ("%s\n" % OPTIONS.marker).encode("latin-1")
    http_reply(conn, request, 200, "OK", body, then=hold_open)


def make_status_mode(status):
    def mode_status(conn):
        request = read_request(conn)
        body = ("status %d from faultmon-fault-server\n" % status).encode("latin-1")
        if status < 200 or status in (204, 304):
            body = b""      # these replies have no body (RFC 9110)
        http_reply(conn, request, status, "Status %d" % status, body)
    return mode_status


def mode_tls_stall(conn):
    read_request(conn, want_http=False)
    hold_open(conn)


def mode_tls_alert(conn):
    read_request(conn, want_http=False)
    try:
        conn.sendall(TLS_ALERT)
    except OSError:
        pass
    linger_then_close(conn)


# --- modes for line protocols (issue 12): the server speaks first ----------

def make_banner_mode(code):
    """Greet with a coded line (SMTP, FTP), then answer nothing more."""
    def mode_banner(conn):
        try:
            conn.sendall(b"%d faultmon-fault-server\r\n" % code)
        except OSError:
            pass
        hold_open(conn)
    return mode_banner


def make_resp_error_mode(word):
    """Answer the first command line with a RESP error ("-LOADING ...")."""
    def mode_resp_error(conn):
        conn.settimeout(REQUEST_WAIT_S)
        data = b""
        try:
            while b"\n" not in data and len(data) < REQUEST_LIMIT:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                data += chunk
            conn.sendall(b"-%s faultmon-fault-server says so\r\n" % word.encode("ascii"))
        except OSError:
            pass
        linger_then_close(conn)
    return mode_resp_error


def mode_greet_trickle(conn):
    """A greeting that never ends: "220 ", then a byte every 200 ms, no LF."""
    try:
        conn.sendall(b"220 ")
        while True:
            time.sleep(0.2)
            conn.sendall(b"a")
    except OSError:
        pass
    conn.close()


def mode_greet_huge(conn):
    """10 MiB of greeting without a line end, as fast as the socket takes it."""
    block = b"a" * 65536
    try:
        conn.sendall(b"220 ")
        for _ in range(160):
            conn.sendall(block)
    except OSError:
        conn.close()
        return
    linger_then_close(conn)


def mode_greet_reset(conn):
    """The first line of a multi-line greeting, then RST."""
    try:
        conn.sendall(b"220-faultmon-fault-server\r\n")
        time.sleep(0.05)
    except OSError:
        pass
    reset_close(conn)


def make_greet_mode(line):
    """Greet with this line, then say nothing more."""
    def mode_greet(conn):
        try:
            conn.sendall(line)
        except OSError:
            pass
        hold_open(conn)
    return mode_greet


def mode_greet_garbage(conn):
    try:
        conn.sendall(GARBAGE)
    except OSError:
        pass
    hold_open(conn)


def mode_echo(conn):
    """Answer the first bytes that come with "echo:" and those bytes."""
    conn.settimeout(REQUEST_WAIT_S)
    try:
        data = conn.recv(4096)
        conn.sendall(b"echo:" + data)
    except OSError:
        pass
    linger_then_close(conn)


# --- servers that echo the client's secret (issue 30, defect 8) ------------

def _auth_value(request):
    """The Authorization header's value in an HTTP request ("" if none)."""
    for line in request.split(b"\r\n"):
        if line.lower().startswith(b"authorization:"):
            return line.split(b":", 1)[1].strip()
    return b""


def _userinfo(request):
    """The user:password of a Basic Authorization header."""
    value = _auth_value(request)
    try:
        import base64
        return base64.b64decode(value.split(b" ", 1)[1])
    except (IndexError, ValueError):
        return b""


def mode_echo_auth(conn):
    """HTTP: the status line, then (a second write) a header line without a
    colon that holds the user:password of the request's Basic credentials."""
    request = read_request(conn)
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        time.sleep(0.05)
        conn.sendall(b"Echo " + _userinfo(request) + b"\r\n\r\n")
    except OSError:
        pass
    linger_then_close(conn)


def mode_echo_auth_split(conn):
    """HTTP: the Authorization value echoed in a header line without a
    colon, split across two lines."""
    request = read_request(conn)
    value = _auth_value(request).split(b" ", 1)[-1]
    try:
        conn.sendall(b"HTTP/1.1 200 OK\r\nEcho " + value[:6] + b"\r\n" + value[6:] + b"\r\n\r\n")
    except OSError:
        pass
    linger_then_close(conn)


def _read_resp_command(conn):
    """One RESP array command; returns its arguments (bytes), [] on EOF."""
    conn.settimeout(REQUEST_WAIT_S)
    data = b""
    while len(data) < REQUEST_LIMIT:
        args = _parse_resp_array(data)
        if args is not None:
            return args
        chunk = conn.recv(4096)
        if not chunk:
            return []
        data += chunk
    return []


def _parse_resp_array(data):
    if not data.startswith(b"*") or b"\r\n" not in data:
        return None
    head, rest = data[1:].split(b"\r\n", 1)
    args = []
    for _ in range(int(head)):
        if b"\r\n" not in rest:
            return None
        size, rest = rest[1:].split(b"\r\n", 1)
        if len(rest) < int(size) + 2:
            return None
        args.append(rest[:int(size)])
        rest = rest[int(size) + 2:]
    return args


def make_redis_echo_mode(split):
    """Redis: answer AUTH with an error that holds the password it got, in
    a second write, or split across two lines."""
    def mode_redis_echo(conn):
        try:
            args = _read_resp_command(conn)
            password = args[-1] if args else b""
            if split:
                conn.sendall(b"-ERR bad '" + password[:5] + b"\r\n" + password[5:] + b"'\r\n")
            else:
                conn.sendall(b"-ERR invalid password '")
                time.sleep(0.05)
                conn.sendall(password + b"' for this user\r\n")
        except (OSError, ValueError):
            pass
        linger_then_close(conn)
    return mode_redis_echo


MODES = {
    "banner-NNN": (None, "greet with the line 'NNN ...' (banner-220, banner-554), then say nothing"),
    "resp-WORD": (None, "answer the first command line with '-WORD ...' (resp-LOADING)"),
    "greet-trickle": (mode_greet_trickle, "greet with '220 ', then a byte every 200 ms, never a line end"),
    "greet-huge": (mode_greet_huge, "greet with '220 ' and 10 MiB without a line end"),
    "greet-reset": (mode_greet_reset, "greet with the first line of a multi-line reply, then RST"),
    "greet-garbage": (mode_greet_garbage, "greet with binary junk, then hold the connection"),
    "greet-pop3-err": (make_greet_mode(b"-ERR [SYS/TEMP] faultmon-fault-server busy\r\n"),
                       "greet with a POP3 -ERR"),
    "greet-pop3-ok": (make_greet_mode(b"+OK faultmon-fault-server ready\r\n"),
                      "greet with a POP3 +OK, then say nothing"),
    "greet-imap-bye": (make_greet_mode(b"* BYE faultmon-fault-server busy\r\n"),
                       "greet with an IMAP * BYE"),
    "echo": (mode_echo, "answer the first bytes read with 'echo:' and those bytes"),
    "echo-auth": (mode_echo_auth, "HTTP: echo the Basic user:password in a header line without a colon, "
                                  "after the status line"),
    "echo-auth-split": (mode_echo_auth_split, "HTTP: echo the Authorization value split across two lines"),
    "redis-echo-auth": (make_redis_echo_mode(False), "redis: answer AUTH with -ERR and the password, "
                                                     "in a second write"),
    "redis-echo-auth-split": (make_redis_echo_mode(True), "redis: answer AUTH with -ERR and the "
                                                          "password split across two lines"),
    "refuse": (None, "nothing listens: the port is bound but not listening, so connect gets RST"),
    "connect-stall": (None, "listen with a full accept queue: SYNs are dropped, connect hangs"),
    "silent": (mode_silent, "accept and never answer"),
    "trickle": (mode_trickle, "send a status line, then a byte every 200 ms forever"),
    "reset-headers": (mode_reset_headers, "send part of the headers, then RST (SO_LINGER 0)"),
    "reset-accept": (mode_reset_accept, "RST right after accept"),
    "reset-request": (mode_reset_request, "read the request, then RST without a reply"),
    "garbage": (mode_garbage, "binary junk instead of HTTP"),
    "bad-status": (mode_bad_status, "an invalid status line: HTTP/1.1 abc"),
    "huge-headers": (mode_huge_headers, "10 MiB of headers as fast as the socket takes them"),
    "half-close": (mode_half_close, "read the request, shutdown(SHUT_WR) without a reply"),
    "ok": (mode_ok, "200 with the marker in a header and the body; honours HEAD"),
    "ok-hold": (mode_ok_hold, "as ok, then keep the connection open (no FIN) until the client closes"),
    "status-NNN": (None, "a valid reply with status NNN (status-500, status-404...)"),
    "tls-stall": (mode_tls_stall, "accept TCP, never answer the ClientHello"),
    "tls-alert": (mode_tls_alert, "answer the ClientHello with a fatal TLS alert, then close"),
    "endless-100": (mode_endless_100, "100 Continue replies as fast as possible, no final one"),
    "slow-100": (mode_slow_100, "a 100 Continue reply every 200 ms, no final one"),
}
for _name, (_data, _text) in RAW_REPLIES.items():
    MODES[_name] = (make_raw_mode(_data), _text)


def handler_for(mode):
    if mode.startswith("banner-"):
        code = mode[len("banner-"):]
        if code.isdigit() and len(code) == 3:
            return make_banner_mode(int(code))
        return None
    if mode.startswith("resp-"):
        word = mode[len("resp-"):]
        if word.isalpha() and word.isupper():
            return make_resp_error_mode(word)
        return None
    if mode.startswith("status-"):
        code = mode[len("status-"):]
        if code.isdigit() and len(code) == 3 and 100 <= int(code) <= 999:
            return make_status_mode(int(code))
        return None
    entry = MODES.get(mode)
    return entry[0] if entry else None


# --- listening -------------------------------------------------------------

def new_socket(host):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    return sock


def bind(host, port):
    sock = new_socket(host)
    sock.bind((host, port))
    return sock


def setup_connect_stall(host, port):
    """A listener whose accept queue is full: the kernel drops new SYNs.

    listen(0) admits one connection to the queue on Linux; two connections of
    our own that are never accepted fill it, so a client's connect() hangs
    until its own deadline."""
    sock = bind(host, port)
    sock.listen(0)
    addr = sock.getsockname()
    fillers = []
    for _ in range(3):
        filler = new_socket(host)
        filler.setblocking(False)
        try:
            filler.connect(addr[:2])
        except BlockingIOError:
            pass
        fillers.append(filler)
    time.sleep(0.05)
    return sock, fillers


def accept_loop(sock, mode, handler):
    while True:
        try:
            conn, peer = sock.accept()
        except OSError as err:
            log("%s: accept failed: %s", mode, err)
            time.sleep(0.05)
            continue
        log("%s: connection from %s", mode, peer[:2])
        thread = threading.Thread(target=run_handler, args=(mode, handler, conn),
                                  daemon=True)
        thread.start()


def run_handler(mode, handler, conn):
    try:
        handler(conn)
    except Exception as err:  # a test server must not die on one client
        log("%s: handler error: %r", mode, err)
        try:
            conn.close()
        except OSError:
            pass


def parse_mode(spec):
    if "=" in spec:
        mode, port = spec.split("=", 1)
        if not port.isdigit() or not 0 <= int(port) <= 65535:
            raise ValueError("bad port in %r" % spec)
        return mode, int(port)
    return spec, 0


def write_port_file(path, lines):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="ascii") as out:
        out.write("".join(lines))
    os.rename(tmp, path)


def main(argv):
    global OPTIONS
    parser = argparse.ArgumentParser(
        description="Loopback fault server for faultmon's integration tests.")
    parser.add_argument("modes", nargs="*", metavar="MODE[=PORT]",
                        help="behaviours to serve, one port each")
    parser.add_argument("--host", default="127.0.0.1",
                        help="loopback address to bind (127.0.0.1, ::1)")
    parser.add_argument("--port-file", help='write "MODE PORT" lines here once ready')
    parser.add_argument("--max-seconds", type=float, default=300.0,
                        help="exit by itself after this long (default 300)")
    parser.add_argument("--marker", default=DEFAULT_MARKER,
                        help="marker string in the ok reply")
    parser.add_argument("--list-modes", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    OPTIONS = parser.parse_args(argv)

    if OPTIONS.list_modes:
        for name, (_, text) in MODES.items():
            print("%-18s %s" % (name, text))
        return 0
    if not OPTIONS.modes:
        parser.error("no MODE given (see --list-modes)")
    try:
        if not ipaddress.ip_address(OPTIONS.host).is_loopback:
            parser.error("--host must be a loopback address")
    except ValueError:
        parser.error("--host must be a numeric loopback address")

    keep = []   # sockets that must stay open for the process's life
    lines = []
    listeners = []
    for spec in OPTIONS.modes:
        try:
            mode, port = parse_mode(spec)
        except ValueError as err:
            parser.error(str(err))
        if mode == "refuse":
            sock = bind(OPTIONS.host, port)     # bound, never listening
            keep.append(sock)
        elif mode == "connect-stall":
            sock, fillers = setup_connect_stall(OPTIONS.host, port)
            keep.append(sock)
            keep.extend(fillers)
        else:
            handler = handler_for(mode)
            if handler is None:
                parser.error("unknown mode %r (see --list-modes)" % mode)
            sock = bind(OPTIONS.host, port)
            sock.listen(64)
            keep.append(sock)
            listeners.append((sock, mode, handler))
        lines.append("%s %d\n" % (mode, sock.getsockname()[1]))

    for sock, mode, handler in listeners:
        threading.Thread(target=accept_loop, args=(sock, mode, handler),
                         daemon=True).start()

    if OPTIONS.port_file:
        write_port_file(OPTIONS.port_file, lines)
    else:
        sys.stdout.write("".join(lines))
        sys.stdout.flush()

    # Watchdog: however the test that started us ends, we do not outlive it
    # by more than --max-seconds.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    deadline = time.monotonic() + OPTIONS.max_seconds
    try:
        while time.monotonic() < deadline:
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
    except KeyboardInterrupt:
        pass
    log("exiting")
    os._exit(0)


OPTIONS = None

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
