package dev.cuckoo.server.command;

import dev.cuckoo.RedisCuckooFilter;
import dev.cuckoo.server.keyspace.Key;
import dev.cuckoo.server.keyspace.Keyspace;
import dev.cuckoo.server.protocol.RequestLookahead;
import dev.cuckoo.server.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.locks.Lock;

/**
 * Loads into the caches the buckets that a connection's buffered CF.EXISTS and CF.MEXISTS requests
 * will read, before they run: the requests of a pipeline then wait for memory about once together
 * instead of once each (Redis 8 prefetches the keys of a batch of commands the same way).
 *
 * <p>Only a hint. The items of consecutive requests on one key are gathered (other requests in
 * between do not separate them); when the key changes or the look ends, the filter stored under it
 * in the connection's database is looked up without counting as a lookup (no keyspace hit, no
 * access time) under the key's shared lock, taken only if free, and {@link
 * RedisCuckooFilter#prefetchHashes} loads their buckets. The requests then run as they would have
 * anyway, with every check, lock and rule; whatever happens to the key in between (deleted,
 * replaced, expired, written, another database selected) only wastes the loads.
 *
 * <p>Cheap when it cannot help: nothing is copied or looked up for fewer than two items on a key
 * (one lookup gains nothing from a load just before its own), nor for a connection that has not
 * authenticated, and after two requests in a row that are neither command the look ends (a pipeline
 * of other commands is not read to its end).
 */
final class BucketPrefetch implements RequestLookahead {
  private static final byte[] EXISTS = "cf.exists".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MEXISTS = "cf.mexists".getBytes(StandardCharsets.US_ASCII);

  /** Most items gathered before their buckets are loaded. */
  static final int MAX_ITEMS = 64;

  /** Requests in a row that are not CF.EXISTS or CF.MEXISTS after which the look ends. */
  static final int MAX_DECLINED = 2;

  private final Keyspace keyspace;
  private final Session session;

  /** The look's bytes, which hold the key and the items gathered; null between looks. */
  private byte[] bytes;

  private int keyStart;
  private int keyLength = -1;
  private final int[] itemStarts = new int[MAX_ITEMS];
  private final int[] itemLengths = new int[MAX_ITEMS];
  private int itemCount;
  private int declined;
  private final long[] hashes = new long[MAX_ITEMS];

  /**
   * The loaded slots folded together: kept in a field, so the JIT compiler cannot find the loads
   * unused and remove them.
   */
  private long loaded;

  /** Batches that loaded buckets (for tests). */
  private long prefetches;

  BucketPrefetch(Keyspace keyspace, Session session) {
    this.keyspace = keyspace;
    this.session = session;
  }

  @Override
  public boolean request(byte[] in, int[] starts, int[] lengths, int count) {
    if (count < 3
        || !(count == 3 && named(in, starts[0], lengths[0], EXISTS)
            || named(in, starts[0], lengths[0], MEXISTS))) {
      return ++declined < MAX_DECLINED;
    }
    declined = 0;
    if (bytes != in
        || keyLength < 0
        || !Arrays.equals(
            in, starts[1], starts[1] + lengths[1], in, keyStart, keyStart + keyLength)) {
      load();
      bytes = in;
      keyStart = starts[1];
      keyLength = lengths[1];
    }
    for (int i = 2; i < count; i++) {
      if (itemCount == MAX_ITEMS) {
        load();
      }
      itemStarts[itemCount] = starts[i];
      itemLengths[itemCount] = lengths[i];
      itemCount++;
    }
    return true;
  }

  @Override
  public void end() {
    load();
    bytes = null;
    keyLength = -1;
    declined = 0;
  }

  /** Returns the number of batches whose buckets were loaded. */
  long prefetches() {
    return prefetches;
  }

  /**
   * Loads the buckets of the items gathered (two or more, on an existing filter) and forgets them.
   */
  private void load() {
    int count = itemCount;
    itemCount = 0;
    if (count < 2 || !session.authenticated()) {
      return;
    }
    Key stored = new Key(session.db(), Arrays.copyOfRange(bytes, keyStart, keyStart + keyLength));
    Lock lock = keyspace.readLockFor(stored);
    if (!lock.tryLock()) {
      return;
    }
    try {
      RedisCuckooFilter<byte[]> filter = keyspace.peek(stored);
      if (filter != null) {
        for (int i = 0; i < count; i++) {
          byte[] item = Arrays.copyOfRange(bytes, itemStarts[i], itemStarts[i] + itemLengths[i]);
          hashes[i] = filter.hasher().hash(item);
        }
        loaded ^= filter.prefetchHashes(hashes, 0, count);
        prefetches++;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Returns true if the bytes are {@code lowerName} in any case. */
  private static boolean named(byte[] in, int start, int length, byte[] lowerName) {
    if (length != lowerName.length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      int b = in[start + i];
      if ((b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b) != lowerName[i]) {
        return false;
      }
    }
    return true;
  }
}
