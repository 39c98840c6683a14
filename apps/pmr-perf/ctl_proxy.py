#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A man in the middle of pmr-perf's control connection, for the checks of
what each side does with a line it must not take.

    ctl_proxy.py LISTEN_PORT SERVER_PORT WAY PREFIX ACTION [TEXT]

Takes one client on 127.0.0.1:LISTEN_PORT, connects it to the server on
127.0.0.1:SERVER_PORT and passes every line on as it is, both ways, but
for the first line going WAY ("c2s": client to server, "s2c": server to
client) that starts with PREFIX, which it changes:

    replace   the line becomes TEXT
    close     the connection closes, both ways, instead of the line
    long      the line becomes TEXT repeated to 70000 bytes, no newline

It prints "changed: LINE" on stdout when it has changed LINE, and ends
when both sides have closed.  Exits 2 when no line matched.
"""
import socket
import sys
import threading
import time


def main():
    listen_port, server_port = int(sys.argv[1]), int(sys.argv[2])
    way, prefix, action = sys.argv[3], sys.argv[4].encode(), sys.argv[5]
    text = sys.argv[6].encode() if len(sys.argv) > 6 else b""
    if way not in ("c2s", "s2c") or action not in ("replace", "close", "long"):
        sys.exit("bad way or action")
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", listen_port))
    ls.listen(1)
    ls.settimeout(120)
    client, _ = ls.accept()
    ls.close()
    for _ in range(600):  # the server listens once its EAL is up
        try:
            srv = socket.create_connection(("127.0.0.1", server_port))
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("no server on port %d" % server_port)
    srv.settimeout(None)
    client.settimeout(None)
    done = threading.Event()
    lock = threading.Lock()

    def shut_both():
        for s in (client, srv):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def relay(src, dst, mine):
        buf = b""
        while True:
            try:
                data = src.recv(65536)
            except OSError:
                data = b""
            if not data:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                out = line + b"\n"
                with lock:
                    hit = mine and not done.is_set() and line.startswith(prefix)
                    if hit:
                        done.set()
                if hit:
                    print("changed: " + line.decode(errors="replace"),
                          flush=True)
                    if action == "close":
                        shut_both()
                        return
                    if action == "replace":
                        out = text + b"\n"
                    else:
                        out = (text * (70000 // max(len(text), 1) + 1))[:70000]
                try:
                    dst.sendall(out)
                except OSError:
                    return

    t1 = threading.Thread(target=relay, args=(client, srv, way == "c2s"))
    t2 = threading.Thread(target=relay, args=(srv, client, way == "s2c"))
    t1.start()
    t2.start()
    t1.join()
    t2.join()
    sys.exit(0 if done.is_set() else 2)


if __name__ == "__main__":
    main()
