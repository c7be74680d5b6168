"""redis-py transactions, databases and expiry against a server on port argv[1].

pipeline() is transactional by default (MULTI/EXEC); WATCH with a conflicting write raises
WatchError; a redis://host:port/1 URL selects database 1; an expiring filter disappears on time.
Prints PASS or raises.
"""
import sys
import time

import redis

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port)
r.flushall()

# the default pipeline wraps its commands in MULTI/EXEC
with r.pipeline() as pipe:
    pipe.cf().add("visitors", "alice")
    pipe.cf().add("visitors", "bob")
    pipe.cf().exists("visitors", "alice")
    assert pipe.execute() == [1, 1, 1]

with r.pipeline(transaction=True) as pipe:
    pipe.cf().insert("visitors", ["carol"])
    pipe.expire("visitors", 1000)
    pipe.ttl("visitors")
    result = pipe.execute()
    assert result[0] == [1] and result[1] is True and 990 <= result[2] <= 1000, result

with r.pipeline(transaction=False) as pipe:
    pipe.cf().exists("visitors", "carol")
    pipe.dbsize()
    assert pipe.execute() == [1, 1]

# optimistic locking: WATCH, a write from another client, WatchError
other = redis.Redis(host="127.0.0.1", port=port)
with r.pipeline() as pipe:
    pipe.watch("visitors")
    other.cf().add("visitors", "mallory")
    pipe.multi()
    pipe.cf().add("visitors", "dave")
    try:
        pipe.execute()
        raise AssertionError("EXEC ran although a watched key changed")
    except redis.WatchError:
        pass
assert r.cf().exists("visitors", "dave") == 0


def transfer(pipe):
    present = pipe.cf().exists("visitors", "alice")
    pipe.multi()
    pipe.cf().add("audit", "alice" if present else "nobody")


assert r.transaction(transfer, "visitors") == [1]
assert r.cf().exists("audit", "alice") == 1

# a queueing error aborts the whole transaction
with r.pipeline() as pipe:
    pipe.cf().add("never", "x")
    pipe.execute_command("NO.SUCH.COMMAND")
    try:
        pipe.execute()
        raise AssertionError("EXEC ran a transaction with a queueing error")
    except redis.ResponseError as e:
        assert "EXECABORT" in str(e) or "unknown command" in str(e), e
assert r.exists("never") == 0

# database 1 through a URL
db1 = redis.Redis.from_url("redis://127.0.0.1:%d/1" % port)
assert db1.cf().add("only-in-1", "x") == 1
assert db1.exists("only-in-1") == 1
assert r.exists("only-in-1") == 0
assert r.info("keyspace")["db1"]["keys"] == 1
assert r.move("audit", 1) is True
assert db1.exists("audit") == 1

# an expiring, time-bucketed filter
assert r.cf().add("day:2026-11-24", "u1") == 1
assert r.pexpire("day:2026-11-24", 150) is True
assert r.info("keyspace")["db0"]["expires"] == 2
assert 0 < r.pttl("day:2026-11-24") <= 150
time.sleep(0.3)
assert r.exists("day:2026-11-24") == 0
assert r.cf().exists("day:2026-11-24", "u1") == 0
assert r.rename("visitors", "visitors:old") is True
assert r.ttl("visitors:old") > 900
assert r.persist("visitors:old") is True
print("PASS")
