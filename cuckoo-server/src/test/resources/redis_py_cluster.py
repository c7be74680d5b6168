"""redis-py's RedisCluster against a cluster of cuckoo-servers, one of whose client ports is
argv[1]: CF commands on argv[2] filters spread over the slots. The client's slot map is first
pointed at that one node for every slot, so the commands for the other nodes' slots are answered
MOVED and the client must follow each (reinitialize_steps keeps it from reloading the whole map
instead). Prints PASS or raises.
"""
import logging
import sys

from redis.cluster import RedisCluster

# redis-py logs every redirect and failure with its traceback: the output is the script's own
logging.disable(logging.CRITICAL)

port = int(sys.argv[1])
filters = int(sys.argv[2])
cluster = RedisCluster(host="127.0.0.1", port=port, reinitialize_steps=10 * filters)
seed = cluster.get_node(host="127.0.0.1", port=port)
assert len(cluster.get_primaries()) == 3, cluster.get_primaries()
for slot in range(16384):
    cluster.nodes_manager.slots_cache[slot] = [seed]

cf = cluster.cf()
for i in range(filters):
    key = "py:%d" % i
    assert cf.create(key, 100), key
    assert cf.add(key, "item-%d" % i) == 1, key
for i in range(filters):
    key = "py:%d" % i
    assert cf.exists(key, "item-%d" % i) == 1, key
    assert cf.exists(key, "absent-%d" % i) == 0, key
    info = cf.info(key)
    assert info.insertedNum == 1, (key, info.insertedNum)

# the map the client learned from the redirects is the cluster's: each key's node holds it
for i in range(0, filters, 97):
    key = "py:%d" % i
    slot = cluster.keyslot(key)
    node = cluster.get_node_from_key(key)
    held = cluster.execute_command("CLUSTER", "COUNTKEYSINSLOT", slot, target_nodes=node)
    assert held >= 1, (key, slot, node, held)
print("PASS")
