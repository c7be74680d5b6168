"""redis-py's Sentinel support against cuckoo-servers: find the master, write, follow a failover.

Usage: redis_py_sentinel.py SENTINEL_PORT... ; prints "before HOST:PORT" after the first write,
waits until the sentinels name another master (the test triggers the failover), then writes through
the same master_for client and prints "after HOST:PORT".
"""
import sys
import time

from redis.exceptions import ConnectionError, ReadOnlyError, TimeoutError
from redis.sentinel import MasterNotFoundError, Sentinel

sentinel = Sentinel([("127.0.0.1", int(port)) for port in sys.argv[1:]], socket_timeout=5)
master = sentinel.master_for("mymaster", socket_timeout=5)
first = sentinel.discover_master("mymaster")
assert master.execute_command("CF.ADD", "py", "before") == 1
print("before %s:%d" % first, flush=True)


def current():
    """The master the sentinels name, or None while they see it down (failover in progress)."""
    try:
        return sentinel.discover_master("mymaster")
    except MasterNotFoundError:
        return None


deadline = time.time() + 60
while current() in (first, None):
    if time.time() > deadline:
        sys.exit("no failover within 60 s")
    time.sleep(0.1)
while True:
    try:
        assert master.execute_command("CF.ADD", "py", "after") == 1
        break
    except (ConnectionError, ReadOnlyError, TimeoutError, MasterNotFoundError):
        if time.time() > deadline:
            raise
        time.sleep(0.1)
assert master.execute_command("CF.EXISTS", "py", "before") == 1
print("after %s:%d" % sentinel.discover_master("mymaster"), flush=True)
