package dev.cuckoo.server;

import dev.cuckoo.server.cluster.HashSlots;
import dev.cuckoo.server.cluster.SlotKeys;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of database 0 by hash slot, for the cluster. Each call walks the database's keys (no
 * slot index yet): O(keys) per call, which is what COUNTKEYSINSLOT and GETKEYSINSLOT cost here.
 */
final class ClusterKeys implements SlotKeys {
  private final Keyspace keyspace;

  ClusterKeys(Keyspace keyspace) {
    this.keyspace = keyspace;
  }

  @Override
  public long countKeysInSlot(int slot) {
    long count = 0;
    for (Key key : keyspace.keys(0)) {
      if (HashSlots.slot(key.bytes()) == slot) {
        count++;
      }
    }
    return count;
  }

  @Override
  public List<byte[]> keysInSlot(int slot, int max) {
    List<byte[]> keys = new ArrayList<>();
    for (Key key : keyspace.keys(0)) {
      if (keys.size() >= max) {
        break;
      }
      if (HashSlots.slot(key.bytes()) == slot) {
        keys.add(key.bytes());
      }
    }
    return keys;
  }

  @Override
  public long keyCount() {
    return keyspace.size(0);
  }
}
