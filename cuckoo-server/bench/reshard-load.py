#!/usr/bin/env python3
"""The load side of reshard-compare.sh (stdlib only): fills a cluster with small filters, writes to
them while slots move, and checks afterwards that nothing confirmed was lost.

Usage:
  reshard-load.py fill PORT FILTERS                 CF.RESERVE f:<i> 100 BUCKETSIZE 2 and two
                                                    CF.ADDs (a<i>, b<i>) per filter, i < FILTERS,
                                                    pipelined to each slot's master
  reshard-load.py owners PORT OUT                   the master node id of every slot (JSON) to OUT
  reshard-load.py ends PORT                         prints the port and node id of the master of
                                                    slot 0, then those of slot 16383's master, then
                                                    those of slot 8192's (the third master's)
  reshard-load.py write PORT FILTERS STOP OUT       the writer, until the file STOP exists; its
                                                    record (JSON) to OUT
  reshard-load.py verify PORT FILTERS WRITES BEFORE the check; BEFORE is an `owners` file taken
                                                    before the reshard
PORT is any node of the cluster on 127.0.0.1; the slot map comes from its CLUSTER SLOTS.

The writer sends batches of BATCH (32) CF.ADDs of new items (w<n>) to random filters: per master,
the batch's adds pipelined, then WAIT 1 2000 on the same connection; an add whose WAIT answered 1
or more is confirmed (a replica has it). An add answered -MOVED updates the writer's slot map and
is sent again to the new owner; -ASK sends it to the named node after ASKING (with its own WAIT);
-TRYAGAIN, -CLUSTERDOWN and -LOADING send it again after 10 ms. Every add answered 1 is counted
as applied to its filter, confirmed or not.

verify asks each filter's master now: CF.INFO "Number of items inserted" must be 2 + the adds
applied to it; every confirmed item, and a<i> and b<i>, must answer CF.EXISTS 1. It prints one
line of key=value fields: filters, keys_moved (filters in slots whose master changed since
BEFORE), confirmed, lost (confirmed items or seed items that answer 0, plus missing filters),
wrong_counts (filters whose inserted count is not the expected one) and dbsize (the masters'
DBSIZE summed), and exits 1 if anything was lost or counted wrong.
"""
import json
import os
import random
import socket
import sys
import time

BATCH = 32
PIPELINE_CHUNK = 2000

_CRC16_TABLE = []
for _byte in range(256):
    _crc = _byte << 8
    for _ in range(8):
        _crc = ((_crc << 1) ^ 0x1021) if _crc & 0x8000 else (_crc << 1)
    _CRC16_TABLE.append(_crc & 0xFFFF)


def key_slot(key):
    """Redis Cluster's slot of a key: CRC16 (XMODEM) of the key or its {hash tag}, mod 16384."""
    start = key.find(b"{")
    if start >= 0:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    crc = 0
    for b in key:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC16_TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc & 0x3FFF


class Err(str):
    """An error reply's text."""


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        if not isinstance(arg, bytes):
            arg = str(arg).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(arg), arg))
    return b"".join(out)


class Conn:
    """One connection to a node on 127.0.0.1, with a reply reader."""

    def __init__(self, port):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def send(self, data):
        self.sock.sendall(data)

    def read(self):
        line = self.file.readline()
        if not line:
            raise EOFError("node %d closed the connection" % self.port)
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return Err(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        raise ValueError("node %d: unexpected reply line %r" % (self.port, line))

    def call(self, *args):
        self.send(encode(*args))
        return self.read()

    def pipeline(self, commands):
        """Sends encoded commands in chunks and returns all replies in order."""
        replies = []
        for start in range(0, len(commands), PIPELINE_CHUNK):
            chunk = commands[start:start + PIPELINE_CHUNK]
            self.send(b"".join(chunk))
            replies.extend(self.read() for _ in chunk)
        return replies

    def close(self):
        self.sock.close()


class Cluster:
    """The slot map (slot -> master port and id) and one connection per master."""

    def __init__(self, port):
        self.seed = port
        self.conns = {}
        self.refresh()

    def refresh(self):
        ports = [0] * 16384
        ids = [""] * 16384
        for entry in self.conn(self.seed).call("CLUSTER", "SLOTS"):
            port, node_id = entry[2][1], entry[2][2].decode()
            for slot in range(entry[0], entry[1] + 1):
                ports[slot] = port
                ids[slot] = node_id
        self.ports, self.ids = ports, ids

    def conn(self, port):
        if port not in self.conns:
            self.conns[port] = Conn(port)
        return self.conns[port]

    def masters(self):
        return sorted(set(self.ports))


def keys_of(filters):
    keys = [b"f:%d" % i for i in range(filters)]
    return keys, [key_slot(k) for k in keys]


def by_master(cluster, indices, slots):
    groups = {}
    for i in indices:
        groups.setdefault(cluster.ports[slots[i]], []).append(i)
    return groups


def fill(port, filters):
    cluster = Cluster(port)
    keys, slots = keys_of(filters)
    started = time.monotonic()
    for master, indices in by_master(cluster, range(filters), slots).items():
        commands = []
        for i in indices:
            commands.append(encode(b"CF.RESERVE", keys[i], b"100", b"BUCKETSIZE", b"2"))
            commands.append(encode(b"CF.ADD", keys[i], b"a%d" % i))
            commands.append(encode(b"CF.ADD", keys[i], b"b%d" % i))
        replies = cluster.conn(master).pipeline(commands)
        bad = [r for r in replies if r not in ("OK", 1)]
        if bad:
            sys.exit("fill: node %d answered %r" % (master, bad[:3]))
    print("filled %d filters in %.1f s" % (filters, time.monotonic() - started))


def owners(port, out):
    cluster = Cluster(port)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(cluster.ids, f)


def ends(port):
    cluster = Cluster(port)
    print(cluster.ports[0], cluster.ids[0], cluster.ports[16383], cluster.ids[16383],
          cluster.ports[8192], cluster.ids[8192])


def redirect_port(error):
    return int(error.split()[2].rsplit(":", 1)[1])


def write(port, filters, stop, out):
    cluster = Cluster(port)
    keys, slots = keys_of(filters)
    rng = random.Random(1)
    applied = [0] * filters
    confirmed = []
    counts = {"batches": 0, "adds": 0, "moved": 0, "ask": 0, "retry": 0, "unconfirmed": 0}
    serial = 0
    started = time.monotonic()

    def send(conn, adds, asking):
        """Sends (filter, item) adds and a WAIT on conn; returns the redirected adds."""
        commands = []
        for i, item in adds:
            if asking:
                commands.append(encode(b"ASKING"))
            commands.append(encode(b"CF.ADD", keys[i], item))
        commands.append(encode(b"WAIT", b"1", b"2000"))
        replies = conn.pipeline(commands)
        wait = replies[-1]
        replies = replies[1::2] if asking else replies
        done, again = [], []
        for (i, item), reply in zip(adds, replies):
            if reply == 1:
                applied[i] += 1
                done.append((i, item))
            elif isinstance(reply, Err) and reply.startswith("MOVED "):
                counts["moved"] += 1
                cluster.ports[slots[i]] = redirect_port(reply)
                again.append((i, item, None, False))
            elif isinstance(reply, Err) and reply.startswith("ASK "):
                counts["ask"] += 1
                again.append((i, item, redirect_port(reply), False))
            elif isinstance(reply, Err) and reply.split()[0] in ("TRYAGAIN", "CLUSTERDOWN",
                                                                 "LOADING"):
                counts["retry"] += 1
                again.append((i, item, None, True))
            else:
                raise RuntimeError("CF.ADD %s %s: %r" % (keys[i].decode(), item.decode(), reply))
        if isinstance(wait, int) and wait >= 1:
            confirmed.extend((i, item.decode()) for i, item in done)
        else:
            counts["unconfirmed"] += len(done)
        return again

    while not os.path.exists(stop):
        batch = []
        for _ in range(BATCH):
            batch.append((rng.randrange(filters), b"w%d" % serial))
            serial += 1
        counts["batches"] += 1
        counts["adds"] += len(batch)
        pending = []
        batch_slots = [slots[i] for i, _ in batch]
        for master, indices in by_master(cluster, range(len(batch)), batch_slots).items():
            pending.extend(send(cluster.conn(master), [batch[j] for j in indices], False))
        for _ in range(20):
            if not pending:
                break
            again = []
            for i, item, ask, later in pending:
                if later:
                    time.sleep(0.01)
                if ask is None:
                    again.extend(send(cluster.conn(cluster.ports[slots[i]]), [(i, item)], False))
                else:
                    again.extend(send(cluster.conn(ask), [(i, item)], True))
            pending = again
        if pending:
            raise RuntimeError("redirected in circles: %r" % pending[:3])
    seconds = time.monotonic() - started
    counts["seconds"] = round(seconds, 1)
    counts["confirmed"] = len(confirmed)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"applied": applied, "confirmed": confirmed, "counts": counts}, f)
    print("writer: " + " ".join("%s=%s" % kv for kv in counts.items()))


def verify(port, filters, writes, before):
    with open(writes, encoding="utf-8") as f:
        record = json.load(f)
    with open(before, encoding="utf-8") as f:
        before_ids = json.load(f)
    cluster = Cluster(port)
    keys, slots = keys_of(filters)
    items = {}
    for i, item in record["confirmed"]:
        items.setdefault(i, []).append(item.encode())
    lost = wrong = missing = 0
    for master, indices in by_master(cluster, range(filters), slots).items():
        commands = []
        for i in indices:
            commands.append(encode(b"CF.INFO", keys[i]))
            for item in [b"a%d" % i, b"b%d" % i] + items.get(i, []):
                commands.append(encode(b"CF.EXISTS", keys[i], item))
        replies = iter(cluster.conn(master).pipeline(commands))
        for i in indices:
            info = next(replies)
            checks = [next(replies) for _ in range(2 + len(items.get(i, [])))]
            if isinstance(info, Err):
                missing += 1
                continue
            # field names are simple strings (bulk strings on some servers)
            fields = {k.decode() if isinstance(k, bytes) else k: v
                      for k, v in zip(info[0::2], info[1::2])}
            if fields.get("Number of items inserted") != 2 + record["applied"][i]:
                if not wrong:
                    print("%s: CF.INFO %r, %d adds applied" % (keys[i].decode(), info,
                                                               record["applied"][i]),
                          file=sys.stderr)
                wrong += 1
            lost += sum(1 for reply in checks if reply != 1)
    dbsize = sum(cluster.conn(m).call("DBSIZE") for m in cluster.masters())
    moved = sum(1 for s in slots if before_ids[s] != cluster.ids[s])
    print("filters=%d keys_moved=%d confirmed=%d lost=%d wrong_counts=%d dbsize=%d"
          % (filters, moved, len(record["confirmed"]), lost + missing, wrong, dbsize))
    if lost or missing or wrong or dbsize != filters:
        sys.exit(1)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    command, args = argv[1], argv[2:]
    if command == "fill" and len(args) == 2:
        fill(int(args[0]), int(args[1]))
    elif command == "owners" and len(args) == 2:
        owners(int(args[0]), args[1])
    elif command == "ends" and len(args) == 1:
        ends(int(args[0]))
    elif command == "write" and len(args) == 4:
        write(int(args[0]), int(args[1]), args[2], args[3])
    elif command == "verify" and len(args) == 4:
        verify(int(args[0]), int(args[1]), args[2], args[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
