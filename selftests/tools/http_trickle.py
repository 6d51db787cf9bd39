#!/usr/bin/env python3
"""HTTP clients that never finish their request, for the exporter's tests.

  http_trickle.py HOST PORT COUNT [--every S] [--for S] [--from ADDR] [--reconnect]

Opens COUNT connections to HOST:PORT and sends on each the start of a
request, then a header line every S seconds (1) for --for seconds (10),
never the blank line that would end the request. With --reconnect, a
connection the server closes is opened again at once, as a client bent on
holding every connection would; without it, the clients stop when the
server has closed them all. Prints "ready" once the COUNT connections
were tried, and at the end "open N closed M longest L": the connections
still open, those the server closed, and how long the longest-lived of
those lasted (seconds, 0 when none closed).
"""
import argparse
import socket
import time


def connect(args):
    s = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    try:
        if args.source:
            s.bind((args.source, 0))
        s.settimeout(2)
        s.connect((args.host, args.port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: trickle\r\n")
        s.setblocking(False)
    except OSError:
        s.close()
        return None
    return [s, time.monotonic()]


def closed_by_server(s):
    """Whether the server has ended the connection (end of stream, a reset)."""
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("count", type=int)
    p.add_argument("--every", type=float, default=1.0)
    p.add_argument("--for", dest="duration", type=float, default=10.0)
    p.add_argument("--from", dest="source")
    p.add_argument("--reconnect", action="store_true")
    args = p.parse_args()

    conns = [connect(args) for _ in range(args.count)]
    print("ready", flush=True)
    end = time.monotonic() + args.duration
    closed, longest = 0, 0.0
    while time.monotonic() < end and (args.reconnect or any(conns)):
        time.sleep(min(args.every, max(end - time.monotonic(), 0)))
        for i, c in enumerate(conns):
            if c and not closed_by_server(c[0]):
                try:
                    c[0].send(b"X-Trickle: 1\r\n")
                    continue
                except OSError:
                    pass
            if c:
                closed += 1
                longest = max(longest, time.monotonic() - c[1])
                c[0].close()
            conns[i] = connect(args) if args.reconnect else None
    print("open %d closed %d longest %.1f" % (sum(1 for c in conns if c), closed, longest),
          flush=True)


if __name__ == "__main__":
    main()
