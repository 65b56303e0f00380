#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A gRPC health server for faultmon's tests (tests/integration/proto-grpc.sh).

grpc.health.v1.Health/Check written with python3-grpcio's generic handler
and hand-encoded protobuf bytes (Debian packages no grpc_health module),
answering by the service asked about:

  "" or "serving"  SERVING              "down"         NOT_SERVING
  "svc-unknown"    SERVICE_UNKNOWN      "slow"         SERVING after 3 s
  "unavailable"    grpc-status 14       "cancel"       context.cancel()
  "bad-proto"      a response that is not protobuf
  any other name   grpc-status 5 NOT_FOUND, as grpc's own health servicer

--no-health serves no Health service at all (grpc-status 12 UNIMPLEMENTED).
--reset is no grpcio server but a few hand-made HTTP/2 frames: SETTINGS,
then RST_STREAM (REFUSED_STREAM) for every stream a client opens, which
grpcio's server never sends on its own.
"""
import argparse
import os
import socket
import struct
import sys
import threading
import time
from concurrent import futures

import grpc

SERVING, NOT_SERVING, SERVICE_UNKNOWN = 1, 2, 3


def decode_service(request):
    """Field 1 of a HealthCheckRequest (a length under 128 is enough here)."""
    if len(request) >= 2 and request[0] == 0x0A:
        return request[2:2 + request[1]].decode("utf-8", "replace")
    return ""


def response(status):
    return bytes([0x08, status])


def check(request, context):
    service = decode_service(request)
    if service in ("", "serving"):
        return response(SERVING)
    if service == "down":
        return response(NOT_SERVING)
    if service == "svc-unknown":
        return response(SERVICE_UNKNOWN)
    if service == "slow":
        time.sleep(3)
        return response(SERVING)
    if service == "unavailable":
        context.abort(grpc.StatusCode.UNAVAILABLE, "draining for maintenance")
    if service == "cancel":
        context.cancel()
        return b""
    if service == "bad-proto":
        return b"\x08"      # a varint cut short
    context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
    return b""


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def reset_client(conn):
    """Read the preface and frames; refuse each new stream with RST_STREAM."""
    with conn:
        conn.sendall(frame(4, 0, 0))                    # our SETTINGS
        data = b""
        preface = 24
        while True:
            try:
                chunk = conn.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            data += chunk
            if preface:
                if len(data) < preface:
                    continue
                data, preface = data[preface:], 0
            while len(data) >= 9:
                length = int.from_bytes(data[:3], "big")
                if len(data) < 9 + length:
                    break
                ftype, flags = data[3], data[4]
                stream = int.from_bytes(data[5:9], "big") & 0x7FFFFFFF
                data = data[9 + length:]
                if ftype == 4 and not flags & 1:
                    conn.sendall(frame(4, 1, 0))        # SETTINGS ACK
                elif ftype == 1:
                    conn.sendall(frame(3, 0, stream, struct.pack(">I", 7)))



def serve_reset(port_file):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    write_port(port_file, listener.getsockname()[1])
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=reset_client, args=(conn,), daemon=True).start()


def write_port(port_file, port):
    with open(port_file + ".tmp", "w") as out:
        out.write("%d\n" % port)
    os.rename(port_file + ".tmp", port_file)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--no-health", action="store_true")
    parser.add_argument("--reset", action="store_true")
    args = parser.parse_args()
    if args.reset:
        serve_reset(args.port_file)

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    if not args.no_health:
        handler = grpc.unary_unary_rpc_method_handler(check)   # raw bytes both ways
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("grpc.health.v1.Health", {"Check": handler}),))
    if args.cert:
        with open(args.key, "rb") as key, open(args.cert, "rb") as cert:
            creds = grpc.ssl_server_credentials([(key.read(), cert.read())])
        port = server.add_secure_port("127.0.0.1:0", creds)
    else:
        port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    write_port(args.port_file, port)
    server.wait_for_termination()
    return 0


if __name__ == "__main__":
    sys.exit(main())
