package dev.cuckoo;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

/**
 * A cuckoo filter made of 2^k independent {@link CuckooFilter} shards: the top k bits of an item's
 * hash choose its shard, so a lookup probes one shard, the false-positive rate is the one of a
 * single filter, and the shards can be built at the same time — by threads on one machine ({@link
 * #addAllHashes(long[], int, int, int)}) or by separate tasks of a cluster job, each building one
 * shard ({@link Builder#buildShard()}) that {@link #of} then assembles.
 *
 * <pre>{@code
 * ShardedCuckooFilter<CharSequence> filter = ShardedCuckooFilter.builder(ItemHashers.utf8())
 *     .expectedItems(100_000_000)
 *     .falsePositiveRate(0.001)
 *     .shardBits(6)                // 64 shards
 *     .build();
 * filter.addAllHashes(hashes, 0, hashes.length, 2);   // two threads
 * filter.mightContain("https://example.com/");
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <p>The same as {@link CuckooFilter}'s, through the same {@link MembershipFilter} operations: no
 * false negatives for items added and not removed; a false positive with probability about {@link
 * #expectedFalsePositiveRate()}; the same item can be added at most {@code 2 × bucketSize} times; a
 * failed add (or replace) leaves the filter unchanged. {@link #capacity()} is the number of items
 * the filter was sized for: with random hashes that many distinct items fit with probability above
 * 1 − 10^-5 (see {@link Builder#shardExpectedItems()}); no count fits for certain, since one shard
 * could receive every item. Not thread-safe, except that {@link #addAllHashes} uses its own
 * threads, each on its own shards; reads may run concurrently while no write runs, as for {@link
 * CuckooFilter}.
 */
public final class ShardedCuckooFilter<T> implements MembershipFilter<T> {
  /*
   * Shards. Shard s holds the items whose hash h has h >>> (64 − k) == s. Inside a shard, the
   * STANDARD scheme takes the fingerprint from the top bits of the (seeded) hash; those are the
   * bits that chose the shard, equal for every item of the shard, so a shard must not see the raw
   * hash: every shard is seeded (a non-zero seed, the default SHARD_SEED), and a seeded filter
   * uses mix(h ^ seed), a bijective finalizer, whose bits are independent of the shard bits.
   *
   * Sizing. With n items, a shard gets Binomial(n, 2^-k) of them: mean μ = n / 2^k, standard
   * deviation σ < √μ. Every shard is sized for μ + 6σ + 64 items, so that the fullest of up to
   * 2^16 shards overflows its capacity with probability below 10^-5 even when exactly n items are
   * added (the normal tail beyond 6σ is 10^-9 per shard), at a cost of 6 / √μ in space (0.3% for
   * μ = 4·10^6). The fingerprint width, and so the false-positive rate, is the one a single
   * filter for μ items at the same target rate has.
   *
   * Format: docs/FORMAT.md, "Sharded filters".
   */

  /** The seed of every shard unless another (non-zero) one is set. */
  public static final long DEFAULT_SHARD_SEED = 0x5EED_5A4D_C0C0_F11EL;

  /** The scheme of every shard, plain buckets (the sharded format accepts no other). */
  static final Scheme SHARD_SCHEME = Scheme.STANDARD_FAST;

  /** The most shard bits: 2^16 shards. */
  public static final int MAX_SHARD_BITS = 16;

  static final int HEADER_BYTES = 28;
  static final int VERSION = 1;

  /** 0x89, "CKSHARD": the first 8 bytes of a sharded file (read as a little-endian long). */
  static final long HEADER_MAGIC = 0x44524148534B4389L;

  /** Heap bytes of this object and its shard list, without the shards' references. */
  private static final long OBJECT_BYTES = 64;

  private final ItemHasher<? super T> hasher;
  private final int shardBits;
  private final long expectedItems;
  private final List<CuckooFilter<T>> shards;

  private ShardedCuckooFilter(
      ItemHasher<? super T> hasher,
      int shardBits,
      long expectedItems,
      List<CuckooFilter<T>> shards) {
    this.hasher = hasher;
    this.shardBits = shardBits;
    this.expectedItems = expectedItems;
    this.shards = shards;
  }

  /**
   * Returns a builder for a sharded filter of items hashed by {@code hasher}.
   *
   * @param hasher turns items into 64-bit hashes, e.g. {@link ItemHashers#utf8()}
   * @param <T> the item type
   * @return a new builder
   * @throws NullPointerException if {@code hasher} is null
   */
  public static <T> Builder<T> builder(ItemHasher<? super T> hasher) {
    return new Builder<>(Checks.requireNonNull(hasher, "hasher"));
  }

  /**
   * Assembles a sharded filter from shards built separately, e.g. by the tasks of a cluster job,
   * each created by {@link Builder#buildShard()} of equal builders and filled with the items of its
   * shard ({@link #shardOf(long, int)}).
   *
   * @param builder the builder the shards were created with
   * @param shards the 2^shardBits shards, in order; used as they are, not copied
   * @param <T> the item type
   * @return the filter
   * @throws IllegalArgumentException if the number of shards is not 2^shardBits or a shard's
   *     geometry, seed or hasher is not the builder's
   */
  public static <T> ShardedCuckooFilter<T> of(Builder<T> builder, List<CuckooFilter<T>> shards) {
    Checks.requireNonNull(shards, "shards");
    Checks.requireArgument(
        shards.size() == 1 << builder.shardBits,
        "shards: %s filters (expected: 2^shardBits = %s)",
        shards.size(),
        1 << builder.shardBits);
    CuckooFilter<T> model = builder.buildShard();
    for (int i = 0; i < shards.size(); i++) {
      requireSameGeometry(model, Checks.requireNonNull(shards.get(i), "shards[" + i + "]"), i);
    }
    return new ShardedCuckooFilter<>(
        builder.hasher, builder.shardBits, builder.expectedItems, new ArrayList<>(shards));
  }

  private static void requireSameGeometry(CuckooFilter<?> model, CuckooFilter<?> shard, int index) {
    Checks.requireArgument(
        shard.scheme() == model.scheme()
            && shard.bucketCount() == model.bucketCount()
            && shard.bucketSize() == model.bucketSize()
            && shard.fingerprintBits() == model.fingerprintBits()
            && shard.seed() == model.seed()
            && shard.hasher().id() == model.hasher().id(),
        "shards[%s]: %s (expected: the builder's shard geometry %s)",
        index,
        shard,
        model);
  }

  /**
   * Returns the shard of an item hash: its top {@link #shardBits()} bits.
   *
   * @param hash the item's hash, as this filter's {@link ItemHasher} computes it
   * @param shardBits the number of shard bits, 0 to {@value #MAX_SHARD_BITS}
   * @return the shard index, 0 to 2^shardBits − 1
   */
  public static int shardOf(long hash, int shardBits) {
    // a shift by 64 is a shift by 0 in Java, so 0 shard bits needs its own case
    return shardBits == 0 ? 0 : (int) (hash >>> (64 - shardBits));
  }

  /**
   * Hash-level {@link #add}: adds the item to the shard its hash chooses.
   *
   * @param hash the item's hash
   * @return true if stored; false if the shard is full (filter unchanged)
   */
  @Override
  public boolean addHash(long hash) {
    return shardFor(hash).addHash(hash);
  }

  /**
   * Hash-level {@link #addIfAbsentWithOutcome}, in the shard the hash chooses.
   *
   * @param hash the item's hash
   * @return what was done
   */
  @Override
  public AddOutcome addIfAbsentWithOutcomeHash(long hash) {
    return shardFor(hash).addIfAbsentWithOutcomeHash(hash);
  }

  /**
   * Hash-level {@link #mightContain}: one lookup in the shard the hash chooses.
   *
   * @param hash the item's hash
   * @return false if definitely absent
   */
  @Override
  public boolean mightContainHash(long hash) {
    return shardFor(hash).mightContainHash(hash);
  }

  /**
   * Hash-level {@link #remove}; see {@link CuckooFilter#removeHash}.
   *
   * @param hash the hash of an item that was added
   * @return true if a copy was removed
   */
  @Override
  public boolean removeHash(long hash) {
    return shardFor(hash).removeHash(hash);
  }

  /**
   * Hash-level {@link #count}: the count in the shard the hash chooses.
   *
   * @param hash the item's hash
   * @return the count, 0 to {@code 2 × bucketSize()}
   */
  @Override
  public long countHash(long hash) {
    return shardFor(hash).countHash(hash);
  }

  /**
   * Hash-level {@link #replace}: within one shard as {@link CuckooFilter#replaceHash}; across two
   * shards the old item is looked up first, then the new one added, then the old one removed, so
   * that a failure (old item absent, or no room for the new one) changes nothing.
   *
   * @param oldHash hash of the item to remove
   * @param newHash hash of the item to add
   * @return true if replaced
   */
  @Override
  public boolean replaceHash(long oldHash, long newHash) {
    CuckooFilter<T> oldShard = shardFor(oldHash);
    CuckooFilter<T> newShard = shardFor(newHash);
    if (oldShard == newShard) {
      return oldShard.replaceHash(oldHash, newHash);
    }
    // the two shards are independent: once the old item is known to be there, removing it cannot
    // fail, and adding the new one first keeps a failed add free of any undo
    if (!oldShard.mightContainHash(oldHash) || !newShard.addHash(newHash)) {
      return false;
    }
    oldShard.removeHash(oldHash);
    return true;
  }

  /** Removes every item from every shard. */
  @Override
  public void clear() {
    for (CuckooFilter<T> shard : shards) {
      shard.clear();
    }
  }

  private CuckooFilter<T> shardFor(long hash) {
    return shards.get(shardOf(hash, shardBits));
  }

  /**
   * Adds many items by their hashes, the shards in parallel on {@code threads} threads: a parallel
   * partition by shard (each thread counts the shards of its slice of the input, then copies its
   * slice to the shards' ranges of one grouped array), then each thread fills whole shards, so no
   * two threads touch the same shard and a shard's table is filled while it is in cache. Every
   * shard receives its hashes in the order given, so the result is the same, bit for bit, as adding
   * the hashes one by one. Needs a temporary array of {@code to − from} longs.
   *
   * @param hashes the items' hashes
   * @param from first index, inclusive
   * @param to last index, exclusive
   * @param threads the number of threads, at least 1 (1: the calling thread only)
   * @return the number of hashes that did not fit (0 if all were added); a hash that did not fit
   *     left its shard unchanged, the others were added
   * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code hashes}
   * @throws IllegalArgumentException if {@code threads} is not in [1, 1024]
   */
  public long addAllHashes(long[] hashes, int from, int to, int threads) {
    Checks.requireNonNull(hashes, "hashes");
    java.util.Objects.checkFromToIndex(from, to, hashes.length);
    Checks.requireRange("threads", threads, 1, 1024);
    // no more threads than shards, and one per 4096 hashes at most: below that, starting a
    // thread costs more than it saves
    int workers = Math.max(1, Math.min(threads, Math.min(shards.size(), (to - from) / 4096)));
    ExecutorService pool = workers == 1 ? null : Executors.newFixedThreadPool(workers);
    try {
      int shardCount = shards.size();
      // counts[t][s]: hashes of shard s in slice t; then where slice t writes shard s
      int[][] counts = new int[workers][shardCount];
      run(
          pool,
          workers,
          t ->
              count(
                  hashes, slice(from, to, t, workers), slice(from, to, t + 1, workers), counts[t]));
      int[] shardStarts = new int[shardCount + 1];
      int position = 0;
      for (int s = 0; s < shardCount; s++) {
        shardStarts[s] = position;
        for (int t = 0; t < workers; t++) {
          int count = counts[t][s];
          counts[t][s] = position;
          position += count;
        }
      }
      shardStarts[shardCount] = position;
      long[] grouped = new long[to - from];
      run(
          pool,
          workers,
          t ->
              scatter(
                  hashes,
                  slice(from, to, t, workers),
                  slice(from, to, t + 1, workers),
                  counts[t],
                  grouped));
      long[] failed = new long[workers];
      run(pool, workers, t -> failed[t] = fill(grouped, shardStarts, t, workers));
      long total = 0;
      for (long f : failed) {
        total += f;
      }
      return total;
    } finally {
      if (pool != null) {
        pool.shutdownNow();
      }
    }
  }

  private static int slice(int from, int to, int index, int slices) {
    return from + (int) ((long) (to - from) * index / slices);
  }

  private void count(long[] hashes, int from, int to, int[] counts) {
    for (int i = from; i < to; i++) {
      counts[shardOf(hashes[i], shardBits)]++;
    }
  }

  private void scatter(long[] hashes, int from, int to, int[] next, long[] grouped) {
    for (int i = from; i < to; i++) {
      grouped[next[shardOf(hashes[i], shardBits)]++] = hashes[i];
    }
  }

  /** Fills the shards {@code s} with {@code s mod workers == worker}; returns the failures. */
  private long fill(long[] grouped, int[] shardStarts, int worker, int workers) {
    // measured: 10^7 hashes into 64 shards take a third of the time of one plain filter of the
    // same size (ShardedBuildBenchmark, one thread): a shard's table stays in cache while it fills
    long failed = 0;
    for (int s = worker; s < shards.size(); s += workers) {
      CuckooFilter<T> shard = shards.get(s);
      for (int i = shardStarts[s]; i < shardStarts[s + 1]; i++) {
        if (!shard.addHash(grouped[i])) {
          failed++;
        }
      }
    }
    return failed;
  }

  /** Runs {@code task} for 0 … workers − 1, on the pool (or this thread) and waits for all. */
  private static void run(ExecutorService pool, int workers, java.util.function.IntConsumer task) {
    if (pool == null) {
      for (int t = 0; t < workers; t++) {
        task.accept(t);
      }
      return;
    }
    List<Future<?>> results = new ArrayList<>(workers);
    for (int t = 0; t < workers; t++) {
      int worker = t;
      results.add(pool.submit(() -> task.accept(worker)));
    }
    try {
      for (Future<?> result : results) {
        result.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while adding in parallel", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a shard failed while adding in parallel", e.getCause());
    }
  }

  /**
   * Returns shard {@code index}, a complete filter of the items whose hashes have that top bits.
   *
   * @param index 0 to {@link #shardCount()} − 1
   * @return the shard itself (not a copy)
   * @throws IndexOutOfBoundsException if {@code index} is out of range
   */
  public CuckooFilter<T> shard(int index) {
    return shards.get(index);
  }

  /**
   * Returns the number of shards, 2^{@link #shardBits()}.
   *
   * @return the shard count
   */
  public int shardCount() {
    return shards.size();
  }

  /**
   * Returns the number of top hash bits that choose the shard.
   *
   * @return 0 to {@value #MAX_SHARD_BITS}
   */
  public int shardBits() {
    return shardBits;
  }

  /**
   * Returns the number of items the filter was sized for.
   *
   * @return the builder's {@code expectedItems}
   */
  public long expectedItems() {
    return expectedItems;
  }

  /**
   * Returns the number of fingerprints stored in all shards.
   *
   * @return the size
   */
  @Override
  public long size() {
    long size = 0;
    for (CuckooFilter<T> shard : shards) {
      size += shard.size();
    }
    return size;
  }

  /**
   * Returns the number of items the filter was sized for, {@link #expectedItems()}: with random
   * hashes that many distinct items fit with probability above 1 − 10^-5. Each shard is rated for
   * more ({@code shard(i).capacity()}), for the spread of items over the shards.
   *
   * @return the rated capacity
   */
  @Override
  public long capacity() {
    return expectedItems;
  }

  /**
   * Returns the fraction of all shards' slots in use.
   *
   * @return the load factor, 0 to 1
   */
  @Override
  public double loadFactor() {
    return (double) size() / slots();
  }

  /**
   * Returns the probability that a lookup of an item never added answers true at the current load:
   * the mean of the shards' rates, since each item probes one shard chosen by its hash.
   *
   * @return the expected false-positive rate
   */
  @Override
  public double expectedFalsePositiveRate() {
    double sum = 0;
    for (CuckooFilter<T> shard : shards) {
      sum += shard.expectedFalsePositiveRate();
    }
    return sum / shards.size();
  }

  /**
   * Returns the expected false-positive rate once the filter holds {@link #capacity()} items spread
   * evenly over the shards.
   *
   * @return the expected false-positive rate at capacity
   */
  @Override
  public double falsePositiveRateAtCapacity() {
    CuckooFilter<T> first = shards.get(0);
    return Sizing.falsePositiveRate(
        first.fingerprintRange(),
        first.bucketSize(),
        Math.min(1.0, (double) expectedItems / slots()));
  }

  /**
   * Returns the approximate heap size in bytes: every shard's {@link CuckooFilter#sizeInBytes()}
   * and the list that holds them.
   *
   * @return size in bytes
   */
  @Override
  public long sizeInBytes() {
    long bytes = OBJECT_BYTES + 4L * shards.size();
    for (CuckooFilter<T> shard : shards) {
      bytes += shard.sizeInBytes();
    }
    return bytes;
  }

  /**
   * Returns the bytes {@link #writeTo} writes: the 28-byte header and every shard in the
   * single-filter format.
   *
   * @return the serialized size in bytes
   */
  @Override
  public long serializedSizeInBytes() {
    long bytes = HEADER_BYTES;
    for (CuckooFilter<T> shard : shards) {
      bytes += shard.serializedSizeInBytes();
    }
    return bytes;
  }

  /**
   * Returns the number of slots per bucket of every shard.
   *
   * @return the bucket size
   */
  @Override
  public int bucketSize() {
    return shards.get(0).bucketSize();
  }

  /**
   * Returns the most relocations one insert may make in its shard.
   *
   * @return max kicks
   */
  @Override
  public int maxKicks() {
    return shards.get(0).maxKicks();
  }

  /**
   * Returns the scheme of every shard: {@link Scheme#STANDARD_FAST}, plain buckets.
   *
   * @return the scheme
   */
  @Override
  public Scheme scheme() {
    return shards.get(0).scheme();
  }

  /** Returns the number of slots of all shards. */
  private long slots() {
    CuckooFilter<T> first = shards.get(0);
    return shards.size() * first.bucketCount() * first.bucketSize();
  }

  /**
   * Returns the hasher.
   *
   * @return the hasher
   */
  @Override
  public ItemHasher<? super T> hasher() {
    return hasher;
  }

  @Override
  public String toString() {
    return "ShardedCuckooFilter{shards="
        + shards.size()
        + ", size="
        + size()
        + ", expectedItems="
        + expectedItems
        + ", shard="
        + shards.get(0)
        + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // Serialization (docs/FORMAT.md, "Sharded filters")

  /**
   * Writes this filter to {@code out}: a 28-byte header, then every shard in the single-filter
   * format of {@link CuckooFilter#writeTo(OutputStream)}, in shard order. Does not close {@code
   * out}.
   *
   * @param out the stream to write to
   * @throws IOException if {@code out} fails
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    writeHeader(out, shardBits, expectedItems, hasher.id());
    for (CuckooFilter<T> shard : shards) {
      shard.writeTo(out);
    }
  }

  /**
   * Writes the 28-byte header of a sharded file; the 2^shardBits shards must follow, each written
   * by {@link CuckooFilter#writeTo(OutputStream)}, in order. For writers that stream shards built
   * elsewhere without holding them all; {@link #writeTo} writes a whole filter.
   *
   * @param out the stream to write to
   * @param builder the builder whose shards follow
   * @throws IOException if {@code out} fails
   */
  public static void writeHeader(OutputStream out, Builder<?> builder) throws IOException {
    writeHeader(out, builder.shardBits, builder.expectedItems, builder.hasher.id());
  }

  private static void writeHeader(OutputStream out, int shardBits, long expectedItems, int hasherId)
      throws IOException {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    header.putLong(HEADER_MAGIC);
    header.putShort((short) VERSION);
    header.put((byte) shardBits);
    header.put((byte) 0);
    header.putInt(hasherId);
    header.putLong(expectedItems);
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, HEADER_BYTES - 4);
    header.putInt((int) crc.getValue());
    out.write(header.array());
  }

  /**
   * Reads a filter written by {@link #writeTo}, leaving {@code in} just after it.
   *
   * @param in the stream to read from
   * @param hasher the hasher the filter was written with
   * @param <T> the item type
   * @return the filter
   * @throws FilterFormatException if the bytes are corrupt or truncated (the field is named {@code
   *     shards[i].field} for a field of shard {@code i}), the shards differ in geometry, or a shard
   *     needs more memory than the heap has
   * @throws IOException if {@code in} fails
   */
  public static <T> ShardedCuckooFilter<T> readFrom(InputStream in, ItemHasher<? super T> hasher)
      throws IOException {
    Checks.requireNonNull(hasher, "hasher");
    byte[] bytes = new byte[HEADER_BYTES];
    int read = in.readNBytes(bytes, 0, HEADER_BYTES);
    if (read < HEADER_BYTES) {
      throw new FilterFormatException(
          "header", read, "the input ends after " + read + " of " + HEADER_BYTES + " bytes");
    }
    ByteBuffer header = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    if (header.getLong(0) != HEADER_MAGIC) {
      throw new FilterFormatException(
          "magic", 0, "not a sharded cuckoo filter (expected: 89 43 4B 53 48 41 52 44)");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, HEADER_BYTES - 4);
    if ((int) crc.getValue() != header.getInt(24)) {
      throw new FilterFormatException("crc32c", 24, "the header's CRC32C does not match");
    }
    int version = Short.toUnsignedInt(header.getShort(8));
    if (version != VERSION) {
      throw new FilterFormatException("version", 8, version + " (expected: " + VERSION + ")");
    }
    int shardBits = Byte.toUnsignedInt(header.get(10));
    if (shardBits > MAX_SHARD_BITS) {
      throw new FilterFormatException(
          "shardBits", 10, shardBits + " (expected: 0 to " + MAX_SHARD_BITS + ")");
    }
    if (header.get(11) != 0) {
      throw new FilterFormatException("flags", 11, header.get(11) + " (expected: 0)");
    }
    int hasherId = header.getInt(12);
    if (hasherId != 0 && hasher.id() != 0 && hasherId != hasher.id()) {
      throw new FilterFormatException(
          "hasherId",
          12,
          "the filter was written with hasher id "
              + hasherId
              + " but is being read with "
              + hasher
              + " (id "
              + hasher.id()
              + "); read it with the same hasher");
    }
    long expectedItems = header.getLong(16);
    if (expectedItems < 1 || expectedItems > Sizing.MAX_EXPECTED_ITEMS) {
      throw new FilterFormatException(
          "expectedItems",
          16,
          expectedItems + " (expected: 1 to " + Sizing.MAX_EXPECTED_ITEMS + ")");
    }
    CountingInput counted = new CountingInput(in);
    List<CuckooFilter<T>> shards = new ArrayList<>(1 << shardBits);
    for (int i = 0; i < 1 << shardBits; i++) {
      long start = HEADER_BYTES + counted.count;
      CuckooFilter<T> shard;
      try {
        shard = CuckooFilter.readFrom(counted, hasher);
      } catch (FilterFormatException e) {
        throw new FilterFormatException(
            "shards[" + i + "]." + e.field(),
            e.offset() < 0 ? -1 : start + e.offset(),
            e.getMessage(),
            e);
      } catch (EOFException e) {
        throw new FilterFormatException(
            "shards[" + i + "]", start, "the input ends inside shard " + i, e);
      }
      if (!shards.isEmpty()) {
        try {
          requireSameGeometry(shards.get(0), shard, i);
        } catch (IllegalArgumentException e) {
          throw new FilterFormatException("shards[" + i + "]", start, e.getMessage(), e);
        }
      } else if (shard.scheme() != SHARD_SCHEME || shard.isSemiSorted() || shard.seed() == 0) {
        throw new FilterFormatException(
            "shards[0]",
            start,
            shard
                + " (expected: the "
                + SHARD_SCHEME
                + " scheme, plain buckets and a non-zero seed)");
      }
      shards.add(shard);
    }
    return new ShardedCuckooFilter<>(hasher, shardBits, expectedItems, shards);
  }

  /** Counts the bytes read through it, for the offsets of error messages. */
  private static final class CountingInput extends FilterInputStream {
    long count;

    CountingInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = super.read(buffer, offset, length);
      if (n > 0) {
        count += n;
      }
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      long skipped = super.skip(n);
      count += skipped;
      return skipped;
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Configures and creates a {@link ShardedCuckooFilter}, or single shards of one: the settings
   * every builder has ({@link #expectedItems}, required, for all shards together; {@link
   * #falsePositiveRate}, {@link #bucketSize}, {@link #maxKicks} and {@link #seed}, the same for
   * every shard) and {@link #shardBits}.
   *
   * @param <T> the item type
   */
  public static final class Builder<T> extends FilterBuilder<T, Builder<T>> {
    private int shardBits;

    private Builder(ItemHasher<? super T> hasher) {
      super(hasher, DEFAULT_SHARD_SEED);
    }

    @Override
    Builder<T> self() {
      return this;
    }

    /** A shard must see its items' hashes remixed, not as they are (see the class comment). */
    @Override
    void checkSeed(long seed) {
      Checks.requireArgument(
          seed != 0, "seed: 0 (expected: not 0, shards must remix the hashes that chose them)");
    }

    /**
     * Sets the number of top hash bits that choose the shard (default 0: one shard).
     *
     * @param shardBits 0 to {@value ShardedCuckooFilter#MAX_SHARD_BITS}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder<T> shardBits(int shardBits) {
      Checks.requireRange("shardBits", shardBits, 0, MAX_SHARD_BITS);
      this.shardBits = shardBits;
      return this;
    }

    /**
     * Returns the number of items each shard is sized for: the mean {@code μ = expectedItems /
     * 2^shardBits} plus 6 standard deviations of the binomial spread plus 64.
     *
     * @return the shard capacity asked of the core
     * @throws IllegalStateException if {@link #expectedItems} was not set
     */
    public long shardExpectedItems() {
      requireExpectedItems();
      double mean = (double) expectedItems / (1L << shardBits);
      return (long) Math.ceil(mean + 6 * Math.sqrt(mean) + 64);
    }

    /**
     * Creates one empty shard: a {@link CuckooFilter} with the geometry every shard of this builder
     * has. Tasks that each build one shard call it; {@link ShardedCuckooFilter#of} assembles them.
     *
     * @return a new, empty shard
     * @throws IllegalStateException if {@link #expectedItems} was not set
     */
    public CuckooFilter<T> buildShard() {
      return shardBuilder().build();
    }

    /**
     * Returns a new builder configured as every shard of this builder is: {@link #buildShard()} is
     * {@code shardBuilder().build()}. For what a shard will be before any is built, e.g. {@code
     * shardBuilder().serializedSizeInBytes()}, the bytes of one shard in a file.
     *
     * @return a new builder of one shard
     * @throws IllegalStateException if {@link #expectedItems} was not set
     */
    public CuckooFilter.Builder<T> shardBuilder() {
      return CuckooFilter.<T>builder(hasher)
          .scheme(SHARD_SCHEME)
          .expectedItems(shardExpectedItems())
          .falsePositiveRate(falsePositiveRate)
          .bucketSize(bucketSize)
          .maxKicks(maxKicksOr(CuckooFilter.DEFAULT_MAX_KICKS))
          .seed(seed);
    }

    /**
     * Creates the filter: 2^shardBits empty shards.
     *
     * @return a new, empty filter
     * @throws IllegalStateException if {@link #expectedItems} was not set
     */
    public ShardedCuckooFilter<T> build() {
      List<CuckooFilter<T>> shards = new ArrayList<>(1 << shardBits);
      for (int i = 0; i < 1 << shardBits; i++) {
        shards.add(buildShard());
      }
      return new ShardedCuckooFilter<>(hasher, shardBits, expectedItems, shards);
    }
  }
}
