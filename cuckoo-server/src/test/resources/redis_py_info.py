"""redis-py's INFO parsing and simple keyspace commands against a server on port argv[1].

redis-py's own test harness reads info()["cluster_enabled"] and info()["redis_version"];
prints PASS or raises.
"""
import sys

import redis

r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))
r.flushall()

info = r.info()
assert info["cluster_enabled"] == 0, info
assert info["redis_mode"] == "standalone"
assert info["role"] == "master"
assert len(info["run_id"]) == 40
assert isinstance(info["used_memory"], int)
assert "db0" not in info

assert r.info("cluster") == {"cluster_enabled": 0}
assert set(r.info("server", "clients")) >= {"redis_version", "connected_clients"}
assert "used_memory" not in r.info("server", "clients")
assert "cluster_enabled" in r.info("everything")

assert r.cf().add("f", "x")
assert r.info("keyspace")["db0"]["keys"] == 1
assert r.randomkey() == b"f"
assert r.touch("f", "nokey") == 1
assert r.memory_usage("f") > 0
assert r.memory_usage("nokey") is None
assert r.object("encoding", "f") == b"raw"
seconds, micros = r.time()
assert seconds > 0 and 0 <= micros < 1000000
assert r.execute_command("ROLE") == [b"master", 0, []]
# WAITAOF: redis-py 5 has waitaof(), older ones send it raw; no log and no replica here
waitaof = getattr(r, "waitaof", None)
acks = waitaof(0, 0, 100) if waitaof else r.execute_command("WAITAOF", 0, 0, 100)
assert acks == [0, 0], acks
try:
    r.execute_command("WAITAOF", 1, 0, 100)
    raise AssertionError("WAITAOF 1 without a log was accepted")
except redis.ResponseError as e:
    assert "appendonly is disabled" in str(e), e
print("PASS")
