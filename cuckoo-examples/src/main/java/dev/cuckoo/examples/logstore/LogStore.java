package dev.cuckoo.examples.logstore;

import dev.cuckoo.ItemHasher;
import dev.cuckoo.ItemHashers;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * A key-value store kept in one append-only file, with an in-memory cuckoo index of key
 * fingerprints and record offsets.
 *
 * <p>Every put and delete appends a record (a delete appends a tombstone); nothing is rewritten in
 * place. The index keeps no keys, only a short fingerprint and an offset per live key, so a lookup
 * of a key that is not stored almost never touches the file — with the default 16-bit fingerprints,
 * in fewer than 0.013% of lookups ({@link #expectedFalsePositiveRate()}) — while a stored key costs
 * one record read, which also confirms the full key.
 *
 * <pre>{@code
 * try (LogStore store = LogStore.open(Path.of("data.log"))) {
 *   store.put(key, value);
 *   Optional<byte[]> found = store.get(key);
 *   store.delete(key);
 * }
 * }</pre>
 *
 * <p>Opening a store scans the log to rebuild the index. A record cut short by a crash at the end
 * of the file is dropped and the file truncated before it ({@link #discardedTailBytes()}); every
 * complete record is kept. Records are handed to the operating system when a call returns, so a
 * process crash loses nothing; {@link #sync()} makes them survive a power loss too.
 *
 * <p>Not thread-safe. After an I/O error in {@link #put}, {@link #putIfAbsent} or {@link #delete}
 * the store refuses further use; reopening it recovers from the log.
 */
public final class LogStore implements Closeable {
  /** Default fingerprint width of the index, in bits. */
  public static final int DEFAULT_FINGERPRINT_BITS = 16;

  /** Largest key, in bytes. */
  public static final int MAX_KEY_BYTES = SegmentLog.MAX_KEY_BYTES;

  /** Largest value, in bytes. */
  public static final int MAX_VALUE_BYTES = SegmentLog.MAX_VALUE_BYTES;

  private static final ItemHasher<byte[]> HASHER = ItemHashers.bytes();
  private static final byte[] EMPTY = new byte[0];
  private static final int INITIAL_BUCKETS = 1 << 10;

  private final OffsetIndex index;
  private final long[] candidates = new long[2 * OffsetIndex.BUCKET_SIZE];
  private SegmentLog log;
  private boolean failed;

  private LogStore(int fingerprintBits) {
    this.index = new OffsetIndex(fingerprintBits, INITIAL_BUCKETS);
  }

  /**
   * Opens the store in {@code file}, creating it if it does not exist, with {@value
   * #DEFAULT_FINGERPRINT_BITS}-bit fingerprints.
   *
   * @param file the log file
   * @return the open store
   * @throws IOException if the file cannot be read or written, is not a store, or is damaged before
   *     its last record
   */
  public static LogStore open(Path file) throws IOException {
    return open(file, DEFAULT_FINGERPRINT_BITS);
  }

  /**
   * Opens the store in {@code file} with index fingerprints of {@code fingerprintBits} bits: each
   * extra bit halves the reads of absent keys and costs one bit per slot (the fingerprint is not
   * stored in the file, so any width can open any store).
   *
   * @param file the log file
   * @param fingerprintBits 4 to 24
   * @return the open store
   * @throws IOException if the file cannot be read or written, is not a store, or is damaged before
   *     its last record
   * @throws IllegalArgumentException if {@code fingerprintBits} is out of range
   */
  public static LogStore open(Path file, int fingerprintBits) throws IOException {
    Objects.requireNonNull(file, "file");
    LogStore store = new LogStore(fingerprintBits);
    store.log = SegmentLog.open(file);
    try {
      store.log.recover(store::replay);
    } catch (IOException | RuntimeException e) {
      store.log.close();
      throw e;
    }
    return store;
  }

  /** Applies one record found while scanning the log on open. */
  private void replay(LogRecord record) throws IOException {
    long hash = HASHER.hash(record.key());
    LogRecord previous = find(record.key(), hash);
    if (record.isTombstone()) {
      if (previous != null) {
        index.remove(hash, previous.offset());
      }
    } else {
      point(hash, previous, record.offset());
    }
  }

  /**
   * Returns the value stored under {@code key}, or empty if there is none.
   *
   * @param key the key
   * @return the value, a fresh copy
   * @throws IOException if the log cannot be read or a record is corrupt
   */
  public Optional<byte[]> get(byte[] key) throws IOException {
    checkUsable();
    LogRecord record = find(checkKey(key), HASHER.hash(key));
    return record == null ? Optional.empty() : Optional.of(record.value());
  }

  /**
   * Returns true if a value is stored under {@code key}.
   *
   * @param key the key
   * @return whether the key is stored
   * @throws IOException if the log cannot be read or a record is corrupt
   */
  public boolean contains(byte[] key) throws IOException {
    checkUsable();
    return find(checkKey(key), HASHER.hash(key)) != null;
  }

  /**
   * Stores {@code value} under {@code key}, replacing any previous value.
   *
   * @param key the key, at most {@value #MAX_KEY_BYTES} bytes
   * @param value the value, at most {@value #MAX_VALUE_BYTES} bytes
   * @throws IOException if the log cannot be read or written
   * @throws IllegalArgumentException if the key or value is too long
   */
  public void put(byte[] key, byte[] value) throws IOException {
    write(key, value, true);
  }

  /**
   * Stores {@code value} under {@code key} unless the key is already stored.
   *
   * @param key the key, at most {@value #MAX_KEY_BYTES} bytes
   * @param value the value, at most {@value #MAX_VALUE_BYTES} bytes
   * @return true if stored, false if the key was already there (nothing written)
   * @throws IOException if the log cannot be read or written
   * @throws IllegalArgumentException if the key or value is too long
   */
  public boolean putIfAbsent(byte[] key, byte[] value) throws IOException {
    return write(key, value, false);
  }

  private boolean write(byte[] key, byte[] value, boolean replace) throws IOException {
    checkUsable();
    checkKey(key);
    Objects.requireNonNull(value, "value");
    if (value.length > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "value length: " + value.length + " (expected: <= " + MAX_VALUE_BYTES + ")");
    }
    try {
      long hash = HASHER.hash(key);
      LogRecord previous = find(key, hash);
      if (previous != null && !replace) {
        return false;
      }
      point(hash, previous, log.append(LogRecord.TYPE_PUT, key, value));
      return true;
    } catch (IOException | RuntimeException e) {
      failed = true;
      throw e;
    }
  }

  /**
   * Deletes {@code key}: appends a tombstone if the key is stored.
   *
   * @param key the key
   * @return true if the key was stored
   * @throws IOException if the log cannot be read or written
   */
  public boolean delete(byte[] key) throws IOException {
    checkUsable();
    checkKey(key);
    try {
      long hash = HASHER.hash(key);
      LogRecord previous = find(key, hash);
      if (previous == null) {
        return false;
      }
      log.append(LogRecord.TYPE_DELETE, key, EMPTY);
      index.remove(hash, previous.offset());
      return true;
    } catch (IOException | RuntimeException e) {
      failed = true;
      throw e;
    }
  }

  /** Returns the newest put record of {@code key}, reading only offsets whose tag matches. */
  private LogRecord find(byte[] key, long hash) throws IOException {
    int count = index.candidates(hash, candidates);
    for (int i = 0; i < count; i++) {
      LogRecord record = log.read(candidates[i]);
      if (Arrays.equals(record.key(), key)) {
        return record;
      }
    }
    return null;
  }

  /** Makes the index entry of a key point at {@code offset}, its newest put record. */
  private void point(long hash, LogRecord previous, long offset) throws IOException {
    if (previous != null) {
      index.replace(hash, previous.offset(), offset);
      return;
    }
    long homeless = index.insert(hash, offset);
    if (homeless != 0) {
      index.grow(homeless, at -> HASHER.hash(log.read(at).key()));
    }
  }

  private static byte[] checkKey(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length > MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "key length: " + key.length + " (expected: <= " + MAX_KEY_BYTES + ")");
    }
    return key;
  }

  private void checkUsable() {
    if (failed) {
      throw new IllegalStateException("store failed after an I/O error; reopen it to recover");
    }
  }

  /**
   * Returns the number of keys stored.
   *
   * @return the number of live keys
   */
  public long size() {
    return index.size();
  }

  /**
   * Returns the number of records read from the file since the store was opened, by lookups, writes
   * (which look the key up first), recovery and index growth.
   *
   * @return the record reads so far
   */
  public long recordReads() {
    return log.recordReads();
  }

  /**
   * Returns the probability, at the index's current load, that a lookup of a key that is not stored
   * reads at least one record: {@code 1 − (1 − p)^(2·4·load)}, with {@code p ≈ 2^-f} the chance
   * that two fingerprints are equal.
   *
   * @return the expected fraction of absent-key lookups that read the file
   */
  public double expectedFalsePositiveRate() {
    return index.expectedFalsePositiveRate();
  }

  /**
   * Returns the fingerprint width of the index, in bits.
   *
   * @return the fingerprint width
   */
  public int fingerprintBits() {
    return index.tagBits();
  }

  /**
   * Returns the heap size of the index's slot table in bytes.
   *
   * @return the index size in bytes
   */
  public long indexSizeInBytes() {
    return index.sizeInBytes();
  }

  /**
   * Returns the length of the log file in bytes (header and every valid record).
   *
   * @return the log length
   */
  public long logSizeInBytes() {
    return log.sizeInBytes();
  }

  /**
   * Returns how many bytes of a torn last record were cut off the file when it was opened.
   *
   * @return 0 after a clean shutdown
   */
  public long discardedTailBytes() {
    return log.discardedTailBytes();
  }

  /**
   * Forces every record written so far to the storage device.
   *
   * @throws IOException if the device reports an error
   */
  public void sync() throws IOException {
    log.force();
  }

  /**
   * Forces the log to the storage device and closes it.
   *
   * @throws IOException if the device reports an error
   */
  @Override
  public void close() throws IOException {
    try {
      log.force();
    } finally {
      log.close();
    }
  }

  /** Returns the index's state, for tests that relate record reads to its occupancy. */
  OffsetIndex index() {
    return index;
  }

  /** Returns the 64-bit hash the index uses for {@code key}. */
  static long hash(byte[] key) {
    return HASHER.hash(key);
  }
}
