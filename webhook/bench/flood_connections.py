#!/usr/bin/env python3
"""Opens N TCP connections to 127.0.0.1:PORT from 10 source addresses (127.0.0.2-11), spread
evenly over SPREAD seconds; each sends one byte of a TLS record (a handshake record's type) and
then nothing. Holds every connection the server keeps until killed (SIGTERM), then prints one
RESULT line: how many connected and how many the server had closed by then.

usage: flood_connections.py PORT N SPREAD
"""
import resource
import signal
import socket
import sys
import time


def main():
    port, count, spread = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 256), hard))
    held, failed = [], 0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    start = time.monotonic()
    for i in range(count):
        if stop:
            break
        delay = start + spread * i / count - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.5)  # a full listen backlog must not stall the flood
        try:
            s.bind(("127.0.0.%d" % (2 + i % 10), 0))
            s.connect(("127.0.0.1", port))
            s.send(b"\x16")
            held.append(s)
        except OSError:
            failed += 1
            s.close()
    while not stop:
        time.sleep(0.05)
    closed = 0
    for s in held:  # a connection the server closed reads as EOF (or a reset)
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    print("RESULT label=flood attempts=%d connected=%d failed=%d closed_by_server=%d"
          % (len(held) + failed, len(held), failed, closed), flush=True)


if __name__ == "__main__":
    main()
