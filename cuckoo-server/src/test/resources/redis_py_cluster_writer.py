"""A failover test's writer through redis-py's RedisCluster.

argv: the seed nodes' client ports (comma-separated), the keys (comma-separated), a stop file.
Adds new items with CF.ADD, then asks WAIT 1 of the key's master on the connection that wrote
(one thread: its pool hands back the same connection). Prints one line per event, flushed:
"acked MILLIS" when an add was acknowledged, "waited MILLIS MICROS ANSWER" when its WAIT answered
(when, after how long, what), "confirmed KEY ITEM" when it answered 1,
"failed MILLIS ERROR" when a command failed (retried after 50 ms). Stops when the stop file
exists, or after 10 minutes.
"""
import os
import logging
import sys
import time

from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisError

# redis-py logs every redirect and failure with its traceback: the output is the script's own
logging.disable(logging.CRITICAL)

ports = [int(port) for port in sys.argv[1].split(",")]
keys = sys.argv[2].split(",")
stop = sys.argv[3]


def millis():
    return int(time.time() * 1000)


def connect():
    return RedisCluster(
        startup_nodes=[ClusterNode("127.0.0.1", port) for port in ports],
        socket_timeout=2,
        socket_connect_timeout=1,
    )


cluster = None
began = time.time()
sequence = 0
while not os.path.exists(stop) and time.time() - began < 600:
    key = keys[sequence % len(keys)]
    item = "redis-py-%d" % sequence
    sequence += 1
    try:
        if cluster is None:
            cluster = connect()
        cluster.execute_command("CF.ADD", key, item)
        print("acked %d" % millis(), flush=True)
        master = cluster.get_node_from_key(key)
        started = time.monotonic()
        answer = cluster.execute_command("WAIT", 1, 300, target_nodes=master)
        print("waited %d %d %d" % (millis(), int((time.monotonic() - started) * 1e6), answer),
              flush=True)
        if answer == 1:
            print("confirmed %s %s" % (key, item), flush=True)
        time.sleep(0.005)
    except Exception as e:  # redis-py's cluster errors are not all RedisErrors
        print("failed %d %s" % (millis(), type(e).__name__), flush=True)
        if not isinstance(e, RedisError):
            # the client lost its slot map (RedisClusterException): a new one learns it again
            cluster = None
        time.sleep(0.05)
