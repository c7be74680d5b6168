package dev.cuckoo.server.cluster;

import java.util.List;

/** What the cluster asks of the keyspace (database 0): the keys of a hash slot. */
public interface SlotKeys {
  /** Returns how many keys hash to {@code slot}. */
  long countKeysInSlot(int slot);

  /** Returns at most {@code max} keys that hash to {@code slot}. */
  List<byte[]> keysInSlot(int slot, int max);

  /** Returns how many keys the keyspace holds (CLUSTER FLUSHSLOTS and RESET need it empty). */
  long keyCount();

  /**
   * Deletes every key of {@code slot}, each a write recorded as DEL (the keys of a slot this node
   * lost while it still held them); returns how many it deleted.
   */
  long deleteKeysInSlot(int slot);

  /** No keys at all (a node without a keyspace, tests). */
  SlotKeys NONE =
      new SlotKeys() {
        @Override
        public long countKeysInSlot(int slot) {
          return 0;
        }

        @Override
        public List<byte[]> keysInSlot(int slot, int max) {
          return List.of();
        }

        @Override
        public long keyCount() {
          return 0;
        }

        @Override
        public long deleteKeysInSlot(int slot) {
          return 0;
        }
      };
}
