package dev.cuckoo.server;

import dev.cuckoo.server.cluster.SlotKeys;
import dev.cuckoo.server.command.WritePath;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of database 0 by hash slot, for the cluster: read from the keyspace's slot index, so
 * counting a slot's keys is O(1) and listing them O(listed), whatever the keyspace holds.
 */
final class ClusterKeys implements SlotKeys {
  // keys deleted per listing of a lost slot's keys
  private static final int DELETE_BATCH = 1024;

  private final Keyspace keyspace;
  private final WritePath writes;

  /**
   * @param keyspace a keyspace that indexes slots ({@link Keyspace#indexesSlots})
   * @param writes the write path that records the deletion of a lost slot's keys
   */
  ClusterKeys(Keyspace keyspace, WritePath writes) {
    if (!keyspace.indexesSlots()) {
      throw new IllegalArgumentException("keyspace: it does not index keys by hash slot");
    }
    this.keyspace = keyspace;
    this.writes = writes;
  }

  @Override
  public long countKeysInSlot(int slot) {
    return keyspace.countKeysInSlot(slot);
  }

  @Override
  public List<byte[]> keysInSlot(int slot, int max) {
    List<Key> keys = keyspace.keysInSlot(slot, max);
    List<byte[]> names = new ArrayList<>(keys.size());
    for (Key key : keys) {
      names.add(key.bytes());
    }
    return names;
  }

  @Override
  public long keyCount() {
    return keyspace.size(0);
  }

  @Override
  public long deleteKeysInSlot(int slot) {
    // a write that passed its slot check before the slot was lost (the new table is published
    // before this call) ends under its key's lock: once every lock has been free, the keys such
    // writes made are listed below, and a later write meets the new table under its lock (the
    // write path checks again there) and is redirected
    keyspace.lockAll();
    keyspace.unlockAll();
    long deleted = 0;
    while (true) {
      List<Key> keys = keyspace.keysInSlot(slot, DELETE_BATCH);
      long before = deleted;
      for (Key key : keys) {
        if (writes.deleteUnservedKey(key)) {
          deleted++;
        }
      }
      // done when the slot is empty, or when nothing more can be deleted (the log refuses writes)
      if (keys.isEmpty() || deleted == before) {
        return deleted;
      }
    }
  }
}
