#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A scripted protocol server for the protocol tests (tests/integration/proto-*.sh).

Each TCP connection gets the same script: the greeting (if any), then one
reply to each chunk the client sends, in order; the rest is logged.  With
--quit-reply, a chunk that starts with QUIT is answered with it.  At the
end it logs how the client closed: "close: orderly" (FIN) or "close: reset"
(RST), so that a test can see what a server's log would.  A reply to QUIT
comes 200 ms late, and the log says whether the client had closed by then
("quit: the client closed before the reply"); --quit-close closes instead.

  proto_server.py --port-file F --log F [--greet B] [--reply B]... [--quit-reply B | --quit-close]
                  [--dns MODE]

Byte strings are Python literals without the b (e.g. '220 hi\\r\\n').
--dns MODE serves DNS on UDP and TCP instead: "other-name" answers over UDP
with an A record for other.example.; "tcp-garbage" and "tcp-wrong-id"
answer over UDP truncated (TC), and over TCP with garbage or with the
answer of another id, then close.
"""
import argparse
import ast
import os
import socket
import struct
import sys
import threading
import time

MAX_SECONDS = 120


def lit(text):
    return ast.literal_eval("b'" + text.replace("'", "\\'") + "'")


class Log:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    def write(self, line):
        with self.lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def serve_script(conn, args, log):
    conn.settimeout(10)
    replies = [lit(r) for r in args.reply]
    try:
        if args.greet is not None:
            conn.sendall(lit(args.greet))
        while True:
            data = conn.recv(65536)
            if not data:
                log.write("close: orderly")
                return
            log.write("got: %r" % data)
            if data.startswith(b"QUIT") and (args.quit_reply is not None or args.quit_close):
                quit_reply(conn, args, log)
                if args.quit_close:
                    return
            elif replies:
                conn.sendall(replies.pop(0))
    except ConnectionResetError:
        log.write("close: reset")
    except OSError as err:
        log.write("close: error %s" % err)
    finally:
        conn.close()


def quit_reply(conn, args, log):
    """Wait a little before the reply to QUIT: a client that does not wait
    for it (RFC 5321 4.1.1.10) has closed by then."""
    time.sleep(0.2)
    conn.setblocking(False)
    try:
        if conn.recv(65536) == b"":
            log.write("quit: the client closed before the reply")
    except BlockingIOError:
        pass
    except ConnectionResetError:
        log.write("quit: the client reset before the reply")
    conn.settimeout(10)
    if args.quit_close:
        conn.close()
        log.write("quit: closed without a reply")
        return
    try:
        conn.sendall(lit(args.quit_reply))
        log.write("quit: reply sent")
    except OSError as err:
        log.write("quit: reply not sent: %s" % err)


def dns_question(query):
    """The id and the question section (name, type, class) of a query."""
    pos = 12
    while query[pos] != 0:
        pos += query[pos] + 1
    return query[:2], query[12:pos + 5]


def dns_answer(qid, question, owner, tc=False):
    flags = 0x8180 | (0x0200 if tc else 0)
    count = 0 if tc else 1
    head = qid + struct.pack(">HHHHH", flags, 1, count, 0, 0)
    if tc:
        return head + question
    rr = owner + struct.pack(">HHIH", 1, 1, 60, 4) + bytes([127, 0, 0, 5])
    return head + question + rr


def serve_dns_udp(sock, mode, log):
    while True:
        query, peer = sock.recvfrom(4096)
        qid, question = dns_question(query)
        log.write("udp query")
        if mode == "other-name":
            owner = b"\x05other\x07example\x00"
            sock.sendto(dns_answer(qid, question, owner), peer)
        else:
            sock.sendto(dns_answer(qid, question, b"", tc=True), peer)


def serve_dns_tcp(conn, mode, log):
    conn.settimeout(10)
    try:
        data = conn.recv(4096)
        log.write("tcp query")
        if mode == "tcp-garbage":
            conn.sendall(b"\x00\x10garbage garbage!")
        else:
            qid, question = dns_question(data[2:])
            other = bytes([qid[0] ^ 0xff, qid[1]])
            msg = dns_answer(other, question, b"\xc0\x0c")
            conn.sendall(struct.pack(">H", len(msg)) + msg)
        time.sleep(0.05)
    except OSError:
        pass
    conn.close()


def accept_loop(srv, handler):
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handler, args=(conn,), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--greet")
    parser.add_argument("--reply", action="append", default=[])
    parser.add_argument("--quit-reply")
    parser.add_argument("--quit-close", action="store_true")
    parser.add_argument("--dns")
    args = parser.parse_args()
    log = Log(args.log)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    port = srv.getsockname()[1]
    if args.dns:
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", port))
        threading.Thread(target=serve_dns_udp, args=(udp, args.dns, log), daemon=True).start()
        handler = lambda conn: serve_dns_tcp(conn, args.dns, log)
    else:
        handler = lambda conn: serve_script(conn, args, log)
    threading.Thread(target=accept_loop, args=(srv, handler), daemon=True).start()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write("%d\n" % port)
    os.rename(tmp, args.port_file)
    time.sleep(MAX_SECONDS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
