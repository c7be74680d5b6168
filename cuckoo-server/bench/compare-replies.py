#!/usr/bin/env python3
r"""Compares the exact replies of two Redis-protocol servers (Redis 8 + RedisBloom and cuckoo-server),
or of one server with recorded known answers, command by command (stdlib only).

Usage:
  compare-replies.py --a PORT --b PORT [--commands FILE] [-v]     two live servers
  compare-replies.py --record OUT --a PORT [--commands FILE]       record A's replies as known answers
  compare-replies.py --check KNOWN --b PORT [-v]                   B against recorded known answers
  compare-replies.py ... --start-redis SERVER --module SO          start Redis + RedisBloom as A
  compare-replies.py ... --start-cuckoo JAR                        start cuckoo-server as B
A is the reference (Redis 8 + RedisBloom), B the server under test. Servers this script starts
run on free loopback ports with `--save '' --appendonly no --enable-debug-command yes` and are
killed by their process id at the end. The command list defaults to compare-replies.commands
beside this script. Prints `match` or `DIFF` per command (with both replies when they differ, or
every reply with -v), then the totals `N of M match`.

Commands file (the known-answers file has the same lines, with each reply after its command):
  # text            a comment
  %norm NAME REGEX REPLACEMENT
                    a named string normaliser: REGEX is replaced by REPLACEMENT ($1.. are groups)
                    in every string of a reply (simple, error, bulk, verbatim, double, big number)
  === TITLE         a group: new connections, then FLUSHALL (its reply is not compared)
  [c:] CMD ARG ... [| NORM ...] [-> VAR]
                    a command, on connection c (a letter; default a), words split at blanks,
                    "double quotes" with \\ \" \r \n \t \xHH escapes, 'single quotes' literal;
                    a word $VAR is the bytes of a saved reply; -> VAR saves this reply (a bulk
                    string as VAR, an array's elements as VAR.0, VAR.1, ...)
  < REPLY           (known-answers file only) the normalised reply of the command above

How replies are normalised (only what is volatile between two runs or two servers), by the
NORM words a command carries, applied in order:
  NAME       a %norm of the file (client ids/addresses/ages, INFO values, times, versions, ...)
  int        every integer of the reply becomes 0 (ids, times, memory figures, counts of time)
  sort       the elements of the reply (an array or set) are sorted (KEYS, COMMAND LIST: unordered)
  sort1      the elements of the reply's second element are sorted (SCAN's keys)
  sortlines  the CRLF-ended lines of every string are sorted (INFO commandstats: unordered)
  pairs      a map, or a flat array of pairs, is sorted by key (CONFIG GET)
  val:KEY    in every map or flat array of pairs, KEY's value becomes 0 or "" (HELLO's id)
  n=K        the command has K replies (SUBSCRIBE a b c): they are read and compared together
Replies are compared as their RESP bytes after normalisation, written on one line with \\r, \\n,
\\\\ and \\xHH escapes, so a difference of type (simple vs bulk, RESP3 map vs array), length or
a single byte shows.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# ------------------------------------------------------------------------------------ words
def split_words(text):
    """Splits a command line into byte strings; see the module docstring for the quoting."""
    words, i, n = [], 0, len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if i >= n:
            break
        word, quoted = bytearray(), False
        while i < n and text[i] not in " \t":
            c = text[i]
            if c == '"':
                quoted, i = True, i + 1
                while i < n and text[i] != '"':
                    if text[i] == "\\" and i + 1 < n:
                        e = text[i + 1]
                        if e == "x":
                            word.append(int(text[i + 2:i + 4], 16))
                            i += 4
                            continue
                        word += {"r": b"\r", "n": b"\n", "t": b"\t"}.get(e, e.encode())
                        i += 2
                    else:
                        word += text[i].encode()
                        i += 1
                if i >= n:
                    raise ValueError("unclosed double quote: " + text)
                i += 1
            elif c == "'":
                quoted, end = True, text.find("'", i + 1)
                if end < 0:
                    raise ValueError("unclosed single quote: " + text)
                word += text[i + 1:end].encode()
                i = end + 1
            else:
                word += c.encode()
                i += 1
        words.append((bytes(word), quoted))
    return words


class Command:
    def __init__(self, line):
        self.line = line
        self.conn = "a"
        words = split_words(line)
        if words and not words[0][1] and re.fullmatch(rb"[a-z]:", words[0][0]):
            self.conn = words[0][0][:1].decode()
            words = words[1:]
        self.save = None
        if len(words) >= 2 and words[-2] == (b"->", False):
            self.save = words[-1][0].decode()
            words = words[:-2]
        self.norms = []
        for k, (w, quoted) in enumerate(words):
            if w == b"|" and not quoted:
                self.norms = [x.decode() for x, _ in words[k + 1:]]
                words = words[:k]
                break
        self.args = words  # (bytes, quoted) pairs; unquoted $VAR is substituted at run time
        self.replies = 1
        for norm in self.norms:
            if norm.startswith("n="):
                self.replies = int(norm[2:])


def parse_file(path):
    """Returns (norms {name: (regex, replacement)}, groups [(title, [(Command, known or None)])])."""
    norms, groups = {}, []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for raw in lines:
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("%norm "):
            _, name, regex, repl = line.split(" ", 3)
            norms[name] = (regex, repl)
        elif line.startswith("=== "):
            groups.append((line[4:], []))
        elif line.startswith("< "):
            cmd, _ = groups[-1][1][-1]
            groups[-1][1][-1] = (cmd, line[2:])
        elif line.startswith("> "):
            groups[-1][1].append((Command(line[2:]), None))
        else:
            groups[-1][1].append((Command(line), None))
    return norms, groups


# ------------------------------------------------------------------------------------ RESP
class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.f = self.sock.makefile("rb")

    def send(self, args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))

    def line(self):
        ln = self.f.readline()
        if not ln.endswith(b"\r\n"):
            raise EOFError("connection closed")
        return ln[:-2]

    def read(self):
        """One reply as a tree: (type byte, value); aggregates hold lists of trees."""
        ln = self.line()
        t, rest = ln[:1], ln[1:]
        if t in (b"+", b"-", b":", b",", b"(", b"#"):
            return (t, rest)
        if t == b"_":
            return (t, b"")
        if t in (b"$", b"=", b"!"):
            if rest == b"-1":
                return (t, None)
            body = self.f.read(int(rest) + 2)
            return (t, body[:-2])
        if t in (b"*", b">", b"~"):
            if rest == b"-1":
                return (t, None)
            return (t, [self.read() for _ in range(int(rest))])
        if t in (b"%", b"|"):
            items = [self.read() for _ in range(2 * int(rest))]
            if t == b"|":
                return (t, (items, self.read()))
            return (t, items)
        raise ValueError("bad reply line %r" % ln)

    def close(self):
        """QUIT, then waits for the server to close the connection, so that the next group does
        not see this connection in CLIENT LIST or CLIENT KILL."""
        try:
            self.send([b"QUIT"])
            while self.sock.recv(4096):
                pass
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass


def encode(node):
    t, v = node
    if t in (b"+", b"-", b":", b",", b"(", b"#"):
        return t + v + b"\r\n"
    if t == b"_":
        return b"_\r\n"
    if v is None:
        return t + b"-1\r\n"
    if t in (b"$", b"=", b"!"):
        return t + b"%d\r\n" % len(v) + v + b"\r\n"
    if t == b"|":
        items, reply = v
        return b"|%d\r\n" % (len(items) // 2) + b"".join(encode(x) for x in items) + encode(reply)
    count = len(v) // 2 if t == b"%" else len(v)
    return t + b"%d\r\n" % count + b"".join(encode(x) for x in v)


def escape(data):
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif b == 0x0D:
            out.append("\\r")
        elif b == 0x0A:
            out.append("\\n")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append("\\x%02x" % b)
    return "".join(out)


# ------------------------------------------------------------------------------------ normalising
STRING_TYPES = (b"+", b"-", b"$", b"=", b",", b"(", b"!")


def map_strings(node, fn):
    t, v = node
    if t in STRING_TYPES and v is not None:
        return (t, fn(v))
    if t == b"|":
        items, reply = v
        return (t, ([map_strings(x, fn) for x in items], map_strings(reply, fn)))
    if isinstance(v, list):
        return (t, [map_strings(x, fn) for x in v])
    return node


def zero_ints(node):
    t, v = node
    if t == b":":
        return (t, b"0")
    if t == b"|":
        return (t, ([zero_ints(x) for x in v[0]], zero_ints(v[1])))
    if isinstance(v, list):
        return (t, [zero_ints(x) for x in v])
    return node


def blank(node):
    t, _ = node
    if t == b":":
        return (t, b"0")
    if t in STRING_TYPES:
        return (t, b"")
    return node


def zero_value(node, key):
    t, v = node
    if t == b"|":
        return (t, ([zero_value(x, key) for x in v[0]], zero_value(v[1], key)))
    if not isinstance(v, list):
        return node
    v = [zero_value(x, key) for x in v]
    if t == b"%" or (t == b"*" and len(v) % 2 == 0):
        for k in range(0, len(v) - 1, 2):
            if v[k][0] in (b"+", b"$") and v[k][1] == key:
                v[k + 1] = blank(v[k + 1])
    return (t, v)


def sort_pairs(node):
    t, v = node
    if not isinstance(v, list):
        return node
    pairs = sorted(zip(v[0::2], v[1::2]), key=lambda p: encode(p[0]))
    return (t, [x for p in pairs for x in p])


def sort_lines(data):
    lines = data.split(b"\r\n")
    return b"\r\n".join(sorted(lines[:-1]) + lines[-1:])


def sort_elements(node):
    t, v = node
    if not isinstance(v, list):
        return node
    return (t, sorted(v, key=encode))


def normalise(node, norms, defined):
    for norm in norms:
        if norm in defined:
            regex, repl = defined[norm]
            pattern = re.compile(regex.encode())
            replacement = re.sub(r"\$(\d)", r"\\g<\1>", repl).encode()
            node = map_strings(node, lambda s, p=pattern, r=replacement: p.sub(r, s))
        elif norm == "int":
            node = zero_ints(node)
        elif norm == "sort":
            node = sort_elements(node)
        elif norm == "sort1":
            t, v = node
            if isinstance(v, list) and len(v) == 2:
                node = (t, [v[0], sort_elements(v[1])])
        elif norm == "pairs":
            node = sort_pairs(node)
        elif norm == "sortlines":
            node = map_strings(node, sort_lines)
        elif norm.startswith("val:"):
            node = zero_value(node, norm[4:].encode())
        elif not norm.startswith("n="):
            raise ValueError("unknown normaliser " + norm)
    return node


# ------------------------------------------------------------------------------------ running
def run(port, norms, groups):
    """Runs every group against the server on port; returns [[reply text, ...] per group]."""
    results = []
    for title, commands in groups:
        conns, saved, texts = {}, {}, []

        def conn(name):
            if name not in conns:
                conns[name] = Conn(port)
            return conns[name]

        c = conn("a")
        c.send([b"FLUSHALL"])
        if c.read() != (b"+", b"OK"):
            raise RuntimeError("FLUSHALL failed before group " + title)
        for command, _ in commands:
            args = []
            for word, quoted in command.args:
                if not quoted and word.startswith(b"$") and len(word) > 1:
                    args.append(saved.get(word[1:].decode(), b""))
                else:
                    args.append(word)
            try:
                c = conn(command.conn)
                c.send(args)
                replies = [c.read() for _ in range(command.replies)]
            except (EOFError, OSError):
                texts.append("<no reply>")
                conns.pop(command.conn).close()
                continue
            if command.save:
                t, v = replies[0]
                if isinstance(v, list):
                    for k, x in enumerate(v):
                        saved["%s.%d" % (command.save, k)] = x[1] if isinstance(x[1], bytes) else b""
                elif isinstance(v, bytes):
                    saved[command.save] = v
            texts.append(
                "".join(escape(encode(normalise(r, command.norms, norms))) for r in replies))
        for x in conns.values():
            x.close()
        results.append(texts)
    return results


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_ready(port, proc):
    for _ in range(300):
        if proc.poll() is not None:
            raise RuntimeError("the server exited with %d" % proc.returncode)
        try:
            c = Conn(port)
            c.send([b"PING"])
            ok = c.read() == (b"+", b"PONG")
            c.close()
            if ok:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("no server on port %d" % port)


def start(argv, port, log):
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    wait_ready(port, proc)
    return proc


def write_known(path, norms, groups, results, info):
    with open(path, "w", encoding="utf-8") as out:
        out.write("# Known answers: the replies of %s\n" % info)
        out.write("# to cuckoo-server/bench/compare-replies.commands,\n")
        out.write("# normalised as cuckoo-server/bench/compare-replies.py describes. Re-record with\n")
        out.write("#   cuckoo-server/bench/compare-replies.py --record <this file> --start-redis"
                  " <redis-server> --module <redisbloom.so> --source '<commits>'\n")
        out.write("# Lines: '%norm' normalisers, '=== ' a group (fresh connections, FLUSHALL),\n")
        out.write("# '> ' a command, '< ' its normalised reply (RESP bytes, \\r \\n \\\\ \\xHH"
                  " escaped).\n")
        for name, (regex, repl) in norms.items():
            out.write("%%norm %s %s %s\n" % (name, regex, repl))
        for (title, commands), texts in zip(groups, results):
            out.write("=== %s\n" % title)
            for (command, _), text in zip(commands, texts):
                out.write("> %s\n< %s\n" % (command.line, text))


def server_info(port):
    c = Conn(port)
    c.send([b"INFO", b"server"])
    info = dict(
        ln.split(":", 1) for ln in c.read()[1].decode().split("\r\n") if ":" in ln)
    c.send([b"MODULE", b"LIST"])
    modules = c.read()
    c.close()
    mods = []
    if isinstance(modules[1], list):
        for m in modules[1]:
            kv = m[1]
            d = {kv[k][1]: kv[k + 1][1] for k in range(0, len(kv) - 1, 2)}
            mods.append("%s %s" % (d.get(b"name", b"?").decode(), d.get(b"ver", b"?").decode()))
    return "Redis %s (git sha1 %s) with module(s) %s" % (
        info.get("redis_version"), info.get("redis_git_sha1"), ", ".join(mods) or "none")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--a", type=int, help="port of the reference server (Redis 8 + RedisBloom)")
    p.add_argument("--b", type=int, help="port of the server under test (cuckoo-server)")
    p.add_argument("--commands", default=os.path.join(HERE, "compare-replies.commands"))
    p.add_argument("--record", help="write A's replies to this known-answers file")
    p.add_argument("--check", help="compare B with this known-answers file")
    p.add_argument("--start-redis", help="redis-server to start as A")
    p.add_argument("--module", help="redisbloom.so for --start-redis")
    p.add_argument("--start-cuckoo", help="cuckoo-server.jar to start as B")
    p.add_argument("--source", help="with --record: which builds answered (commits, patches)")
    p.add_argument("-v", action="store_true", help="print every reply")
    o = p.parse_args()

    procs, log = [], tempfile.NamedTemporaryFile(prefix="compare-replies-", suffix=".log",
                                                 delete=False)
    try:
        if o.start_redis:
            o.a = free_port()
            argv = [o.start_redis, "--port", str(o.a), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--enable-debug-command", "yes",
                    "--dir", tempfile.mkdtemp(prefix="compare-redis-")]
            if o.module:
                argv += ["--loadmodule", o.module]
            procs.append(start(argv, o.a, log))
        if o.start_cuckoo:
            o.b = free_port()
            argv = ["java", "-jar", o.start_cuckoo, "--port", str(o.b), "--save", "",
                    "--appendonly", "no", "--enable-debug-command", "yes",
                    "--dir", tempfile.mkdtemp(prefix="compare-cuckoo-")]
            procs.append(start(argv, o.b, log))

        source = o.check or o.commands
        norms, groups = parse_file(source)
        if o.record:
            if o.a is None:
                p.error("--record needs --a or --start-redis")
            results = run(o.a, norms, groups)
            info = server_info(o.a) + ("; " + o.source if o.source else "")
            write_known(o.record, norms, groups, results, info)
            print("recorded %d replies of %s in %s" % (
                sum(len(r) for r in results), server_info(o.a), o.record))
            return 0
        if o.check:
            expected = [[known for _, known in commands] for _, commands in groups]
        else:
            if o.a is None:
                p.error("give --a (or --start-redis) and --b, or --check with --b")
            expected = run(o.a, norms, groups)
        if o.b is None:
            p.error("--b or --start-cuckoo is needed")
        actual = run(o.b, norms, groups)
        matched = total = 0
        for (title, commands), want, got in zip(groups, expected, actual):
            print("=== " + title)
            for (command, _), w, g in zip(commands, want, got):
                total += 1
                if w == g:
                    matched += 1
                    print("match  %s%s" % (command.line, ("\n       " + w) if o.v else ""))
                else:
                    print("DIFF   %s\n  A    %s\n  B    %s" % (command.line, w, g))
        print("%d of %d match (%d differ)" % (matched, total, total - matched))
        return 0 if matched == total else 1
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
        log.close()
        if procs:
            print("server log: " + log.name, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
