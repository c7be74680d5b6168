#!/usr/bin/env python3
"""Replication lag in milliseconds and bytes, sampled while a load runs (see replication-bench.sh).

Polls INFO replication on the master (master_repl_offset) and on one replica (slave_repl_offset,
the offset it has applied) every INTERVAL seconds over two connections, until SECONDS pass or
the file STOP exists. The lag of a master sample (time t, offset o) is the time from t until the
first replica sample whose applied offset reached o (resolution: the interval plus an INFO round
trip); the byte lag is o minus the replica's offset at the next replica sample.
Usage: replication-lag.py master-port replica-port stop-file [interval-seconds]
Prints: samples, then p50/p99/max of the lag in ms and in bytes, for the samples taken while the
master's offset was moving.
"""
import os
import socket
import sys
import time


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s, s.makefile("rb")


def info_field(conn, name):
    s, f = conn
    s.sendall(b"*2\r\n$4\r\nINFO\r\n$11\r\nreplication\r\n")
    header = f.readline()
    body = f.read(int(header[1:]) + 2).decode()
    for line in body.split("\r\n"):
        if line.startswith(name + ":"):
            return int(line.split(":", 1)[1])
    return None


def pick(values, q):
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    master, replica = connect(int(sys.argv[1])), connect(int(sys.argv[2]))
    stop = sys.argv[3]
    interval = float(sys.argv[4]) if len(sys.argv) > 4 else 0.005
    masters, replicas = [], []
    while True:
        masters.append((time.monotonic(), info_field(master, "master_repl_offset")))
        replicas.append((time.monotonic(), info_field(replica, "slave_repl_offset")))
        if os.path.exists(stop):
            break
        time.sleep(interval)
    # keep going until the replica has caught up with the last master sample (at most 10 s)
    deadline = time.monotonic() + 10
    while replicas[-1][1] < masters[-1][1] and time.monotonic() < deadline:
        replicas.append((time.monotonic(), info_field(replica, "slave_repl_offset")))
        time.sleep(interval)
    lag_ms, lag_bytes = [], []
    r = 0
    for i, (t, o) in enumerate(masters):
        if i == 0 or o == masters[i - 1][1]:
            continue  # the master's offset did not move: no load at that moment
        while r < len(replicas) and replicas[r][0] < t:
            r += 1
        if r < len(replicas):
            lag_bytes.append(max(0, o - replicas[r][1]))
        caught = r
        while caught < len(replicas) and replicas[caught][1] < o:
            caught += 1
        if caught < len(replicas):
            lag_ms.append((replicas[caught][0] - t) * 1000)
    if not lag_ms:
        print("no samples under load")
        return
    lag_ms.sort()
    lag_bytes.sort()
    print(
        f"{len(lag_ms)} samples every {interval * 1000:.0f} ms: "
        f"lag p50 {pick(lag_ms, 0.5):.1f} ms, p99 {pick(lag_ms, 0.99):.1f} ms, "
        f"max {lag_ms[-1]:.1f} ms; "
        f"bytes behind p50 {pick(lag_bytes, 0.5)}, p99 {pick(lag_bytes, 0.99)}, max {lag_bytes[-1]}"
    )


main()
