package dev.cuckoo;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;

/**
 * A filter read from the project's binary format, whichever filter it holds, with what the file
 * said about it: a single filter ({@link CuckooFilter#writeTo(OutputStream)}, also written by
 * {@link ConcurrentCuckooFilter}; {@link RedisCuckooFilter#writeSingleTo} for {@link
 * Scheme#REDISBLOOM}) or a chain ({@link ScalableCuckooFilter#writeTo} for the {@link
 * Scheme#STANDARD} scheme, {@link RedisCuckooFilter#writeTo} for {@link Scheme#REDISBLOOM}), its
 * {@link Scheme} and the id of the {@link ItemHasher} it was written with. Every {@link
 * Scheme#REDISBLOOM} filter is read as a {@link RedisCuckooFilter}: a single one as a filter of one
 * link that never grows (expansion 0).
 *
 * <p>The hasher is chosen from the id the file names, so a tool can open any file:
 *
 * <pre>{@code
 * FilterFile<byte[]> file = FilterFile.read(path, id -> hasherFor(id));
 * file.isChain();            // false for a CuckooFilter's file
 * file.filter().mightContain(item);
 * }</pre>
 *
 * @param <T> the item type
 */
public final class FilterFile<T> {
  /** Bytes read before the filter: the magic and the hasher id of either header. */
  private static final int PEEK_BYTES = 20;

  private final MembershipFilter<T> filter;
  private final boolean chain;
  private final int hasherId;

  private FilterFile(MembershipFilter<T> filter, boolean chain, int hasherId) {
    this.filter = filter;
    this.chain = chain;
    this.hasherId = hasherId;
  }

  /**
   * Reads the file {@code path}, which must hold exactly one filter or one chain.
   *
   * @param path the file
   * @param hasherForId returns the hasher for the hasher id the file names (the built-in ids are
   *     those of {@link ItemHashers}; 0 is a custom hasher); may throw to refuse an id
   * @param <T> the item type
   * @return the filter and what the file said about it
   * @throws FilterFormatException if the file is not a filter file (the message names the magic
   *     bytes found), is corrupt, or has bytes after the filter
   * @throws IOException if the file cannot be read
   */
  public static <T> FilterFile<T> read(
      Path path, IntFunction<? extends ItemHasher<? super T>> hasherForId) throws IOException {
    Checks.requireNonNull(hasherForId, "hasherForId");
    byte[] head;
    try (InputStream in = Files.newInputStream(path)) {
      head = in.readNBytes(PEEK_BYTES);
    }
    if (isChain(head)) {
      try (InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16)) {
        FilterFile<T> file = readChain(in, hasherId(head), hasherForId);
        long extra = in.transferTo(OutputStream.nullOutputStream());
        if (extra > 0) {
          throw new FilterFormatException(
              "end",
              Files.size(path) - extra,
              extra + " bytes after the chained filter's CRC32C (expected: end of file)");
        }
        return file;
      }
    }
    int id = hasherId(head);
    return new FilterFile<>(
        FilterFormat.read(path, hasherForId.apply(id), FilterFormat.Reader.ANY), false, id);
  }

  /**
   * Reads one filter or chain from {@code in}, leaving it just after it.
   *
   * @param in the stream to read from
   * @param hasherForId returns the hasher for the hasher id the stream names; may throw to refuse
   *     an id
   * @param <T> the item type
   * @return the filter and what the stream said about it
   * @throws FilterFormatException if the bytes are not a filter (the message names the magic bytes
   *     found) or are corrupt
   * @throws IOException if {@code in} fails
   */
  public static <T> FilterFile<T> read(
      InputStream in, IntFunction<? extends ItemHasher<? super T>> hasherForId) throws IOException {
    Checks.requireNonNull(hasherForId, "hasherForId");
    InputStream marked = in.markSupported() ? in : new BufferedInputStream(in, PEEK_BYTES);
    marked.mark(PEEK_BYTES);
    byte[] head = marked.readNBytes(PEEK_BYTES);
    marked.reset();
    if (isChain(head)) {
      return readChain(marked, hasherId(head), hasherForId);
    }
    int id = hasherId(head);
    return new FilterFile<>(
        FilterFormat.read(marked, hasherForId.apply(id), FilterFormat.Reader.ANY), false, id);
  }

  private static <T> FilterFile<T> readChain(
      InputStream in, int id, IntFunction<? extends ItemHasher<? super T>> hasherForId)
      throws IOException {
    return new FilterFile<>(ChainFormat.read(in, hasherForId.apply(id)), true, id);
  }

  private static boolean isChain(byte[] head) {
    return head.length >= 8 && littleEndian(head).getLong(0) == ChainFormat.MAGIC;
  }

  /** Returns the hasher id of a chain or single-filter header, or fails naming the magic bytes. */
  private static int hasherId(byte[] head) {
    if (head.length < PEEK_BYTES) {
      throw new FilterFormatException(
          "magic",
          0,
          "only "
              + head.length
              + " bytes (expected: a filter header, at least "
              + PEEK_BYTES
              + ")");
    }
    ByteBuffer bytes = littleEndian(head);
    long magic = bytes.getLong(0);
    if (magic == ChainFormat.MAGIC) {
      return bytes.getInt(ChainFormat.OFFSET_HASHER_ID);
    }
    if (magic != FilterHeader.MAGIC) {
      throw new FilterFormatException(
          "magic",
          0,
          String.format(
              "0x%016X (expected: 0x%016X for a filter or 0x%016X for a chained filter)",
              magic, FilterHeader.MAGIC, ChainFormat.MAGIC));
    }
    return bytes.getInt(FilterHeader.OFFSET_HASHER_ID);
  }

  private static ByteBuffer littleEndian(byte[] head) {
    return ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Returns the filter.
   *
   * @return a {@link CuckooFilter}, a {@link ScalableCuckooFilter} or a {@link RedisCuckooFilter}
   *     (every {@link Scheme#REDISBLOOM} filter, single or chained)
   */
  public MembershipFilter<T> filter() {
    return filter;
  }

  /**
   * Returns true if the file holds a chain (read as a {@link ScalableCuckooFilter} or a {@link
   * RedisCuckooFilter}), false if a single filter (read as a {@link CuckooFilter}, or for {@link
   * Scheme#REDISBLOOM} as a {@link RedisCuckooFilter} of one link).
   *
   * @return whether the file holds a chain
   */
  public boolean isChain() {
    return chain;
  }

  /**
   * Returns the single filter of a scheme other than {@link Scheme#REDISBLOOM}.
   *
   * @return the filter
   * @throws IllegalStateException if the file holds a chain, or a single {@link Scheme#REDISBLOOM}
   *     filter (which {@link #filter()} returns as a {@link RedisCuckooFilter})
   */
  public CuckooFilter<T> single() {
    if (chain) {
      throw new IllegalStateException("the file holds a chained filter, not a single one");
    }
    if (!(filter instanceof CuckooFilter)) {
      throw new IllegalStateException(
          "the file holds a single REDISBLOOM filter, which filter() returns as a"
              + " RedisCuckooFilter");
    }
    return (CuckooFilter<T>) filter;
  }

  /**
   * Returns the {@link Scheme#STANDARD} chain.
   *
   * @return the chain
   * @throws IllegalStateException if the file holds a single filter, or a {@link Scheme#REDISBLOOM}
   *     chain (which {@link #filter()} returns as a {@link RedisCuckooFilter})
   */
  public ScalableCuckooFilter<T> chain() {
    if (!chain) {
      throw new IllegalStateException("the file holds a single filter, not a chained one");
    }
    if (!(filter instanceof ScalableCuckooFilter)) {
      throw new IllegalStateException(
          "the file holds a REDISBLOOM chain, which filter() returns as a RedisCuckooFilter");
    }
    return (ScalableCuckooFilter<T>) filter;
  }

  /**
   * Returns the scheme the file names.
   *
   * @return the scheme
   */
  public Scheme scheme() {
    return filter.scheme();
  }

  /**
   * Returns the id of the hasher the file was written with ({@link ItemHasher#id()}; 0 for a custom
   * hasher).
   *
   * @return the hasher id
   */
  public int hasherId() {
    return hasherId;
  }

  @Override
  public String toString() {
    return "FilterFile{"
        + (isChain() ? "chain" : "single")
        + ", scheme="
        + scheme()
        + ", hasherId="
        + hasherId
        + "}";
  }
}
